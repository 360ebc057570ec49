/*
 * fdt.h - read-only parser for a flattened device tree (DTB, version 17).
 *
 * Generic C with no allocation: a node is named by the byte offset of its
 * FDT_BEGIN_NODE token in the structure block, like libfdt.  Offsets are
 * ints; a negative value means "not found" (-ENOENT) or a malformed blob
 * (-EINVAL).  The blob is only read, never modified, and may sit at any
 * 4-byte aligned address.  All cell values in the blob are big-endian;
 * these helpers return them in CPU order.
 *
 * Typical use (arch boot code):
 *
 *   struct fdt fdt;
 *   if (fdt_init(&fdt, dtb) < 0) ...
 *   int cpus = fdt_path(&fdt, "/cpus");
 *   uint32_t tb;
 *   if (!fdt_prop_u32(&fdt, cpus, "timebase-frequency", &tb)) ...
 *   for (int n = fdt_first_child(&fdt, cpus); n >= 0;
 *        n = fdt_next_sibling(&fdt, n)) ...
 */
#ifndef LIB_FDT_H
#define LIB_FDT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FDT_MAGIC 0xd00dfeed

struct fdt {
	const uint8_t *blob;
	uint32_t totalsize;
	const uint8_t *structs;		/* structure block */
	uint32_t structs_size;
	const char *strings;		/* strings block */
	uint32_t strings_size;
	const uint8_t *rsvmap;		/* memory reservation block */
};

/* Check the header (magic, version >= 16, block bounds) and fill @f.
 * Returns 0 or -EINVAL. */
int fdt_init(struct fdt *f, const void *blob);
/* Size of the whole blob in bytes (header totalsize). */
static inline uint32_t fdt_totalsize(const struct fdt *f) { return f->totalsize; }

/* Memory reservation block entry @i: true and fills base/size, false
 * past the last entry. */
bool fdt_rsvmap_entry(const struct fdt *f, int i, uint64_t *base,
		      uint64_t *size);

/* ---- Nodes ------------------------------------------------------- */

/* The root node. */
int fdt_root(const struct fdt *f);
/* Node at absolute @path ("/cpus", "/soc/serial@10000000").  A path
 * that does not start with '/' is looked up in /aliases first.  A path
 * component without '@' also matches "name@unit".  Anything from ':' on
 * (stdout-path options) is ignored. */
int fdt_path(const struct fdt *f, const char *path);
/* Children of @node in blob order; -ENOENT after the last. */
int fdt_first_child(const struct fdt *f, int node);
int fdt_next_sibling(const struct fdt *f, int node);
/* Child of @node called @name (same matching rule as fdt_path). */
int fdt_subnode(const struct fdt *f, int node, const char *name);
/* Parent of @node (-ENOENT for the root).  Walks from the root: O(size). */
int fdt_parent(const struct fdt *f, int node);
/* Node name including the unit address ("cpu@0"; "" for the root). */
const char *fdt_name(const struct fdt *f, int node);
/* Next node after @from (in blob order, -1: from the start) whose
 * "compatible" list contains @compat. */
int fdt_find_compatible(const struct fdt *f, int from, const char *compat);

/* ---- Properties --------------------------------------------------- */

/* Value of property @name of @node and its length in *len (may be NULL);
 * NULL if absent. */
const void *fdt_prop(const struct fdt *f, int node, const char *name,
		     int *len);
/* A one-cell property; false if absent or not 4 bytes long. */
bool fdt_prop_u32(const struct fdt *f, int node, const char *name,
		  uint32_t *out);
/* A NUL-terminated string property; NULL if absent or unterminated. */
const char *fdt_prop_str(const struct fdt *f, int node, const char *name);
/* True if the string-list property @name contains @s. */
bool fdt_prop_has_string(const struct fdt *f, int node, const char *name,
			 const char *s);
/* "compatible" contains @compat. */
bool fdt_is_compatible(const struct fdt *f, int node, const char *compat);
/* "status" absent, "okay" or "ok". */
bool fdt_is_enabled(const struct fdt *f, int node);
/* A number of @cells big-endian 32-bit cells (1 or 2) at @p. */
uint64_t fdt_read_cells(const void *p, int cells);
/* #address-cells / #size-cells that apply to the children of @node
 * (defaults 2 and 1 as the spec says). */
int fdt_address_cells(const struct fdt *f, int node);
int fdt_size_cells(const struct fdt *f, int node);
/*
 * Entry @index of @node's "reg", decoded with the parent's cell counts and
 * translated to a CPU physical address through the "ranges" of every
 * ancestor bus.  Returns 0, -ENOENT if there is no such entry, or -EINVAL
 * for an address no "ranges" covers.
 */
int fdt_reg(const struct fdt *f, int node, int index, uint64_t *base,
	    uint64_t *size);
#endif
