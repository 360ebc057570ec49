/*
 * cores.c - the RISC-V cores Kestrel refuses to run on, and why.
 *
 * T-Head's C906 (Allwinner D1, Milk-V Duo), C910 and C920 (SOPHGO SG2042,
 * Milk-V Pioneer) predate Svpbmt: with the firmware's MAEE bit set they
 * take memory types from PTE bits 63:59 that the standard reserves, and
 * a device mapped without the "strongly ordered, non-cacheable" type is
 * accessed cached.  mmu.c writes standard PTEs only, so on these cores
 * the UART and every other device would misbehave some time later, far
 * from the cause.  Better to stop at boot with a message that says so
 * (docs/boards.md).  Supporting them means setting those bits in mmu.c,
 * which nobody here can test (QEMU models no MAEE).
 *
 * The hart's /cpus compatible names the core; without one, SBI's
 * mvendorid says T-Head and marchid 0 the pre-Svpbmt cores (their
 * successors, C908 on, report a marchid and implement Svpbmt).
 */
#include <stddef.h>
#include "cores.h"
#include "string.h"

static const struct {
	const char *compat;
	const char *why;
} refused[] = {
#define MAEE "MAEE memory types in PTEs not supported; see docs/boards.md"
	{ "thead,c906", "T-Head C906: " MAEE },
	{ "thead,c910", "T-Head C910: " MAEE },
	{ "thead,c920", "T-Head C920: " MAEE },
};

/* Is @want one of the strings of the DT string list @list (@len bytes)? */
static int list_has(const char *list, int len, const char *want)
{
	for (int i = 0; list && i < len; i += strnlen(list + i, len - i) + 1)
		if (strcmp(list + i, want) == 0)
			return 1;
	return 0;
}

const char *rv_core_refusal(unsigned long mvendorid, unsigned long marchid,
			    const char *compat, int len)
{
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if (list_has(compat, len, refused[i].compat))
			return refused[i].why;
	if (mvendorid == THEAD_MVENDORID && marchid == 0)
		return "T-Head core (mvendorid 0x5b7, marchid 0): " MAEE;
	return NULL;
}
