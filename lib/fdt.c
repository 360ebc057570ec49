/*
 * fdt.c - read-only flattened device tree parser (see fdt.h).
 *
 * The structure block is a stream of 32-bit big-endian tokens:
 *   BEGIN_NODE name\0 (padded to 4)   ... properties, then subnodes ...
 *   PROP len nameoff value (padded)   END_NODE   NOP   END
 * Every walk below is a linear scan of that stream with bounds checks, so
 * a corrupt blob yields -EINVAL instead of a wild read.
 */
#include <stdbool.h>
#include <stdint.h>
#include "errno.h"
#include "fdt.h"
#include "string.h"

enum {
	FDT_BEGIN_NODE = 1,
	FDT_END_NODE = 2,
	FDT_PROP = 3,
	FDT_NOP = 4,
	FDT_END = 9,
};

static uint32_t be32(const void *p)
{
	const uint8_t *b = p;

	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	       (uint32_t)b[2] << 8 | b[3];
}

uint64_t fdt_read_cells(const void *p, int cells)
{
	const uint8_t *b = p;
	uint64_t v = 0;

	for (int i = 0; i < cells; i++)
		v = v << 32 | be32(b + 4 * i);
	return v;
}

int fdt_init(struct fdt *f, const void *blob)
{
	const uint8_t *h = blob;

	if (!blob || ((uintptr_t)blob & 3) || be32(h) != FDT_MAGIC)
		return -EINVAL;
	uint32_t total = be32(h + 4), off_struct = be32(h + 8);
	uint32_t off_strings = be32(h + 12), off_rsvmap = be32(h + 16);
	uint32_t version = be32(h + 20), size_strings = be32(h + 32);
	uint32_t size_struct = be32(h + 36);

	if (version < 16 || off_struct > total || size_struct > total - off_struct ||
	    off_strings > total || size_strings > total - off_strings ||
	    off_rsvmap > total || (off_struct & 3))
		return -EINVAL;
	f->blob = h;
	f->totalsize = total;
	f->structs = h + off_struct;
	f->structs_size = size_struct;
	f->strings = (const char *)h + off_strings;
	f->strings_size = size_strings;
	f->rsvmap = h + off_rsvmap;
	return 0;
}

bool fdt_rsvmap_entry(const struct fdt *f, int i, uint64_t *base,
		      uint64_t *size)
{
	const uint8_t *e = f->rsvmap + 16 * i;

	if (e + 16 > f->blob + f->totalsize)
		return false;
	*base = fdt_read_cells(e, 2);
	*size = fdt_read_cells(e + 8, 2);
	return *base || *size;		/* a 0,0 entry ends the list */
}

/*
 * Decode the token at @off: returns its tag and sets *next to the offset
 * of the token after it, or returns -EINVAL if it runs off the block.
 */
static int token(const struct fdt *f, int off, int *next)
{
	uint32_t sz = f->structs_size;

	if (off < 0 || (uint32_t)off + 4 > sz)
		return -EINVAL;
	uint32_t tag = be32(f->structs + off);
	uint32_t p = off + 4;

	switch (tag) {
	case FDT_BEGIN_NODE: {
		size_t n = strnlen((const char *)f->structs + p, sz - p);

		if (p + n >= sz)
			return -EINVAL;
		p += n + 1;
		break;
	}
	case FDT_PROP:
		if (p + 8 > sz)
			return -EINVAL;
		uint32_t len = be32(f->structs + p);

		if (len > sz - p - 8)
			return -EINVAL;
		p += 8 + len;
		break;
	case FDT_END_NODE:
	case FDT_NOP:
	case FDT_END:
		break;
	default:
		return -EINVAL;
	}
	*next = (p + 3) & ~3u;
	return tag;
}

/*
 * The next BEGIN_NODE after the node at @off, in blob order.  *depth goes
 * up by one for every node entered and down by one for every node left,
 * so a caller can tell children (depth 1), siblings (0) and the rest.
 */
static int next_node(const struct fdt *f, int off, int *depth)
{
	int next, tag = token(f, off, &next);

	if (tag != FDT_BEGIN_NODE)
		return tag < 0 ? tag : -EINVAL;
	for (off = next;; off = next) {
		tag = token(f, off, &next);
		if (tag < 0)
			return tag;
		if (tag == FDT_BEGIN_NODE) {
			(*depth)++;
			return off;
		}
		if (tag == FDT_END_NODE)
			(*depth)--;
		else if (tag == FDT_END)
			return -ENOENT;
	}
}

int fdt_root(const struct fdt *f)
{
	int off = 0, next, tag;

	while ((tag = token(f, off, &next)) == FDT_NOP)
		off = next;
	return tag == FDT_BEGIN_NODE ? off : -EINVAL;
}

int fdt_first_child(const struct fdt *f, int node)
{
	int depth = 0, n = next_node(f, node, &depth);

	return n < 0 ? n : depth == 1 ? n : -ENOENT;
}

int fdt_next_sibling(const struct fdt *f, int node)
{
	int depth = 0, n = node;

	do
		n = next_node(f, n, &depth);
	while (n >= 0 && depth > 0);
	return n < 0 ? n : depth == 0 ? n : -ENOENT;
}

const char *fdt_name(const struct fdt *f, int node)
{
	return (const char *)f->structs + node + 4;
}

/* Does node name @name match path component @comp (@len bytes)? */
static bool name_matches(const char *name, const char *comp, size_t len)
{
	bool has_unit = false;

	for (size_t i = 0; i < len; i++)
		has_unit |= comp[i] == '@';
	if (strncmp(name, comp, len) != 0)
		return false;
	if (name[len] == '\0')
		return true;
	/* "serial" matches "serial@10000000" unless comp has a unit. */
	return name[len] == '@' && !has_unit;
}

/* fdt_subnode with a length-delimited name (path components). */
static int subnode_n(const struct fdt *f, int node, const char *name,
		     size_t len)
{
	for (int n = fdt_first_child(f, node); n >= 0;
	     n = fdt_next_sibling(f, n))
		if (name_matches(fdt_name(f, n), name, len))
			return n;
	return -ENOENT;
}

int fdt_subnode(const struct fdt *f, int node, const char *name)
{
	return subnode_n(f, node, name, strlen(name));
}

int fdt_path(const struct fdt *f, const char *path)
{
	const char *end = path;
	int node = fdt_root(f);

	while (*end && *end != ':')
		end++;
	if (node < 0 || path == end)
		return node < 0 ? node : -ENOENT;
	if (*path != '/') {
		/* An alias: "serial0" or "serial0/child". */
		const char *slash = path;
		char alias[64];

		while (slash < end && *slash != '/')
			slash++;
		if ((size_t)(slash - path) >= sizeof(alias))
			return -ENOENT;
		memcpy(alias, path, slash - path);
		alias[slash - path] = '\0';
		const char *target = fdt_prop_str(f, fdt_subnode(f, node, "aliases"),
						  alias);
		if (!target || target[0] != '/')
			return -ENOENT;
		node = fdt_path(f, target);
		path = slash;
	}
	while (node >= 0 && path < end) {
		while (path < end && *path == '/')
			path++;
		const char *c = path;

		while (path < end && *path != '/')
			path++;
		if (path > c)
			node = subnode_n(f, node, c, path - c);
	}
	return node;
}

int fdt_parent(const struct fdt *f, int node)
{
	int stack[32], depth = 0, n = fdt_root(f);

	if (n < 0 || n == node)
		return -ENOENT;
	stack[0] = n;
	while ((n = next_node(f, n, &depth)) >= 0 && depth > 0) {
		if (depth >= (int)(sizeof(stack) / sizeof(stack[0])))
			return -EINVAL;
		stack[depth] = n;
		if (n == node)
			return stack[depth - 1];
	}
	return -ENOENT;
}

const void *fdt_prop(const struct fdt *f, int node, const char *name,
		     int *len)
{
	int off, next, tag;

	if (node < 0 || token(f, node, &off) != FDT_BEGIN_NODE)
		return NULL;
	/* Properties come first, before any subnode. */
	for (; (tag = token(f, off, &next)) == FDT_PROP || tag == FDT_NOP;
	     off = next) {
		if (tag == FDT_NOP)
			continue;
		uint32_t plen = be32(f->structs + off + 4);
		uint32_t nameoff = be32(f->structs + off + 8);

		if (nameoff >= f->strings_size)
			return NULL;
		if (strncmp(f->strings + nameoff, name,
			    f->strings_size - nameoff) == 0) {
			if (len)
				*len = plen;
			return f->structs + off + 12;
		}
	}
	return NULL;
}

bool fdt_prop_u32(const struct fdt *f, int node, const char *name,
		  uint32_t *out)
{
	int len;
	const void *p = fdt_prop(f, node, name, &len);

	if (!p || len != 4)
		return false;
	*out = be32(p);
	return true;
}

const char *fdt_prop_str(const struct fdt *f, int node, const char *name)
{
	int len;
	const char *p = fdt_prop(f, node, name, &len);

	if (!p || len < 1 || p[len - 1] != '\0')
		return NULL;
	return p;
}

bool fdt_prop_has_string(const struct fdt *f, int node, const char *name,
			 const char *s)
{
	int len;
	const char *p = fdt_prop(f, node, name, &len);
	const char *end;

	if (!p)
		return false;
	for (end = p + len; p < end;) {
		size_t n = strnlen(p, end - p);

		if (n < (size_t)(end - p) && strcmp(p, s) == 0)
			return true;
		p += n + 1;
	}
	return false;
}

bool fdt_is_compatible(const struct fdt *f, int node, const char *compat)
{
	return fdt_prop_has_string(f, node, "compatible", compat);
}

bool fdt_is_enabled(const struct fdt *f, int node)
{
	const char *s = fdt_prop_str(f, node, "status");

	return !s || strcmp(s, "okay") == 0 || strcmp(s, "ok") == 0;
}

int fdt_find_compatible(const struct fdt *f, int from, const char *compat)
{
	int depth = 0, n = from;

	if (n < 0) {
		n = fdt_root(f);
		if (n >= 0 && fdt_is_compatible(f, n, compat))
			return n;
	}
	while ((n = next_node(f, n, &depth)) >= 0)
		if (fdt_is_compatible(f, n, compat))
			return n;
	return n;
}

int fdt_address_cells(const struct fdt *f, int node)
{
	uint32_t v;

	return fdt_prop_u32(f, node, "#address-cells", &v) ? (int)v : 2;
}

int fdt_size_cells(const struct fdt *f, int node)
{
	uint32_t v;

	return fdt_prop_u32(f, node, "#size-cells", &v) ? (int)v : 1;
}

/*
 * Translate @addr, a child address of @bus, into the address space of
 * @bus's parent through @bus's "ranges" (absent: not translatable; empty:
 * identity).
 */
static int translate(const struct fdt *f, int bus, uint64_t *addr)
{
	int len, parent = fdt_parent(f, bus);
	const uint8_t *r = fdt_prop(f, bus, "ranges", &len);

	if (!r || parent < 0)
		return -EINVAL;
	int cac = fdt_address_cells(f, bus), csc = fdt_size_cells(f, bus);
	int pac = fdt_address_cells(f, parent);
	int entry = 4 * (cac + pac + csc);

	if (len == 0)
		return 0;
	if (cac > 2 || pac > 2 || csc > 2)
		return -EINVAL;
	for (const uint8_t *e = r; e + entry <= r + len; e += entry) {
		uint64_t child = fdt_read_cells(e, cac);
		uint64_t pa = fdt_read_cells(e + 4 * cac, pac);
		uint64_t size = fdt_read_cells(e + 4 * (cac + pac), csc);

		if (*addr >= child && *addr - child < size) {
			*addr = pa + (*addr - child);
			return 0;
		}
	}
	return -EINVAL;
}

int fdt_reg(const struct fdt *f, int node, int index, uint64_t *base,
	    uint64_t *size)
{
	int len, bus = fdt_parent(f, node);
	const uint8_t *reg = fdt_prop(f, node, "reg", &len);

	if (!reg || bus < 0 || index < 0)
		return -ENOENT;
	int ac = fdt_address_cells(f, bus), sc = fdt_size_cells(f, bus);
	int entry = 4 * (ac + sc);

	if (ac < 1 || ac > 2 || sc > 2)
		return -EINVAL;
	if ((index + 1) * entry > len)
		return -ENOENT;
	*base = fdt_read_cells(reg + index * entry, ac);
	*size = fdt_read_cells(reg + index * entry + 4 * ac, sc);
	/* Climb the bus hierarchy up to the root, applying each "ranges". */
	for (int root = fdt_root(f); bus != root; bus = fdt_parent(f, bus)) {
		int err = translate(f, bus, base);

		if (err)
			return err;
	}
	return 0;
}
