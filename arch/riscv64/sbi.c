/*
 * sbi.c - calls into the Supervisor Binary Interface firmware (OpenSBI).
 *
 * Each extension is probed once at boot; where a v0.2+ extension is
 * missing we fall back to the legacy v0.1 call if there is one.  Calling
 * convention: a7 = extension id, a6 = function id, a0..a5 arguments,
 * result in a0 (error) / a1 (value).
 */
#include "arch.h"
#include "kernel.h"
#include "rv.h"

#define SBI_EXT_BASE 0x10
#define SBI_EXT_TIME 0x54494D45
#define SBI_EXT_IPI 0x735049
#define SBI_EXT_HSM 0x48534D
#define SBI_EXT_SRST 0x53525354
#define SBI_EXT_DBCN 0x4442434E
#define SBI_LEGACY_SET_TIMER 0
#define SBI_LEGACY_PUTCHAR 1
#define SBI_LEGACY_GETCHAR 2
#define SBI_LEGACY_SEND_IPI 4
#define SBI_LEGACY_SHUTDOWN 8

struct sbi_features sbi;

struct sbiret sbi_call(long ext, long fid, unsigned long a0,
		       unsigned long a1, unsigned long a2, unsigned long a3)
{
	register unsigned long r0 __asm__("a0") = a0;
	register unsigned long r1 __asm__("a1") = a1;
	register unsigned long r2 __asm__("a2") = a2;
	register unsigned long r3 __asm__("a3") = a3;
	register unsigned long r6 __asm__("a6") = fid;
	register unsigned long r7 __asm__("a7") = ext;

	__asm__ __volatile__("ecall"
			     : "+r"(r0), "+r"(r1)
			     : "r"(r2), "r"(r3), "r"(r6), "r"(r7)
			     : "memory");
	return (struct sbiret){ .error = (long)r0, .value = (long)r1 };
}

static bool probe(long ext)
{
	struct sbiret r = sbi_call(SBI_EXT_BASE, 3, ext, 0, 0, 0);

	return r.error == 0 && r.value != 0;
}

void sbi_init(void)
{
	sbi.spec_version = sbi_call(SBI_EXT_BASE, 0, 0, 0, 0, 0).value;
	if (sbi.spec_version == 0 || (long)sbi.spec_version < 0) {
		/* SBI v0.1: only the legacy calls exist. */
		sbi.spec_version = 1;
		return;
	}
	sbi.impl_id = sbi_call(SBI_EXT_BASE, 1, 0, 0, 0, 0).value;
	sbi.impl_version = sbi_call(SBI_EXT_BASE, 2, 0, 0, 0, 0).value;
	sbi.mvendorid = sbi_call(SBI_EXT_BASE, 4, 0, 0, 0, 0).value;
	sbi.marchid = sbi_call(SBI_EXT_BASE, 5, 0, 0, 0, 0).value;
	sbi.time = probe(SBI_EXT_TIME);
	sbi.ipi = probe(SBI_EXT_IPI);
	sbi.hsm = probe(SBI_EXT_HSM);
	sbi.srst = probe(SBI_EXT_SRST);
	sbi.dbcn = probe(SBI_EXT_DBCN);
}

void sbi_putc(char c)
{
	if (sbi.dbcn)
		sbi_call(SBI_EXT_DBCN, 2, (unsigned char)c, 0, 0, 0);
	else
		sbi_call(SBI_LEGACY_PUTCHAR, 0, (unsigned char)c, 0, 0, 0);
}

int sbi_getc(void)
{
	if (sbi.dbcn) {
		/* console_read(1 byte, physical address of the buffer): the
		 * caller's stack may be in the (not identity mapped) stack
		 * area. */
		volatile char c;
		struct sbiret r = sbi_call(SBI_EXT_DBCN, 1, 1,
					   arch_virt_to_phys((uintptr_t)&c), 0, 0);

		return r.error == 0 && r.value == 1 ? (unsigned char)c : -1;
	}
	long v = sbi_call(SBI_LEGACY_GETCHAR, 0, 0, 0, 0, 0).error;

	return v < 0 ? -1 : (int)v;
}

void sbi_puts(const char *s)
{
	for (; *s; s++) {
		if (*s == '\n')
			sbi_putc('\r');
		sbi_putc(*s);
	}
}

void sbi_set_timer(uint64_t stime)
{
	if (sbi.time)
		sbi_call(SBI_EXT_TIME, 0, stime, 0, 0, 0);
	else
		sbi_call(SBI_LEGACY_SET_TIMER, 0, stime, 0, 0, 0);
}

void sbi_send_ipi_hart(uint64_t hartid)
{
	if (sbi.ipi) {
		/* hart_mask bit 0 relative to hart_mask_base = hartid */
		sbi_call(SBI_EXT_IPI, 0, 1, hartid, 0, 0);
	} else {
		unsigned long mask = 1UL << hartid;	/* legacy: harts < 64 */

		sbi_call(SBI_LEGACY_SEND_IPI, 0, (uintptr_t)&mask, 0, 0, 0);
	}
}

int sbi_hart_start(uint64_t hartid, uintptr_t start, uintptr_t opaque)
{
	if (!sbi.hsm)
		return -ENODEV;
	struct sbiret r = sbi_call(SBI_EXT_HSM, 0, hartid, start, opaque, 0);

	return r.error ? -EIO : 0;
}

/*
 * Power off; @failure selects the SRST reason "system failure".  Returns
 * where the firmware cannot: OpenSBI answers SRST with "not supported"
 * when it has no shutdown device (sifive_u).  Only firmware without SRST
 * gets the legacy call: OpenSBI's stops the calling hart for good when
 * nothing powers off, and we could not say so any more.
 */
void sbi_shutdown(bool failure)
{
	if (sbi.srst)
		sbi_call(SBI_EXT_SRST, 0, 0, failure ? 1 : 0, 0, 0);
	else
		sbi_call(SBI_LEGACY_SHUTDOWN, 0, 0, 0, 0, 0);
}
