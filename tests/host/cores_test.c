/*
 * cores_test.c - host-side test of arch/riscv64/cores.c: the T-Head
 * cores Kestrel refuses at boot (MAEE memory types) are refused, by
 * their /cpus compatible or by SBI's mvendorid/marchid, with a message
 * naming the core and docs/boards.md; other cores are not.
 */
#include <stdio.h>
#include <string.h>
#include "cores.h"

static int failures;

#define LIST(s) s, (int)sizeof(s)	/* a DT string list and its length */

static void expect(const char *what, const char *got, const char *want)
{
	if ((!got && !want) || (got && want && strstr(got, want) &&
				strstr(got, "see docs/boards.md")))
		return;
	printf("FAIL %s: got \"%s\", want %s%s%s\n", what, got ? got : "(null)",
	       want ? "a message with \"" : "NULL", want ? want : "",
	       want ? "\" and docs/boards.md" : "");
	failures++;
}

int main(void)
{
	/* Allwinner D1's cpu node; SBI also says T-Head. */
	expect("d1", rv_core_refusal(THEAD_MVENDORID, 0,
				     LIST("thead,c906\0riscv")),
	       "T-Head C906: MAEE memory types in PTEs not supported");
	/* The compatible alone (SBI v0.1 reports nothing). */
	expect("c910 by dt", rv_core_refusal(0, 0, LIST("thead,c910\0riscv")),
	       "T-Head C910: MAEE");
	expect("sg2042", rv_core_refusal(THEAD_MVENDORID, 0,
					 LIST("thead,c920\0riscv")),
	       "T-Head C920");
	/* No telling compatible: SBI's ids alone. */
	expect("thead by sbi", rv_core_refusal(THEAD_MVENDORID, 0,
					       LIST("riscv")),
	       "T-Head core (mvendorid 0x5b7, marchid 0)");
	expect("thead no node", rv_core_refusal(THEAD_MVENDORID, 0, NULL, 0),
	       "T-Head core");
	/* A later T-Head core (Svpbmt) and everyone else run. */
	expect("c908", rv_core_refusal(THEAD_MVENDORID, 0x8000000000000008UL,
				       LIST("thead,c908\0riscv")), NULL);
	expect("qemu", rv_core_refusal(0, 0, LIST("riscv")), NULL);
	expect("u74", rv_core_refusal(0x489, 0x8000000000000007UL,
				      LIST("sifive,u74-mc\0riscv")), NULL);
	/* A list without its final NUL must not be read past its length. */
	static const char cut[] = { 't', 'h', 'e', 'a', 'd', ',', 'c', '9',
				    '0', '6', 'x' };
	expect("cut", rv_core_refusal(0, 0, cut, 6), NULL);
	if (failures)
		return 1;
	printf("cores_test: ok\n");
	return 0;
}
