/*
 * rv.h - RISC-V helpers private to arch/riscv64: CSR access, the trap
 * frame layout shared with entry.S, the SBI calls, and the functions the
 * arch files provide to each other.  Generic code never includes this.
 */
#ifndef RV_H
#define RV_H

/* Trap frame: x1..x31 at 8*(n-1), then the trap CSRs.  entry.S uses the
 * same offsets; TRAP_FRAME_SIZE keeps sp 16-byte aligned. */
#define TF_SEPC (31 * 8)
#define TF_SSTATUS (32 * 8)
#define TF_SCAUSE (33 * 8)
#define TF_STVAL (34 * 8)
#define TRAP_FRAME_SIZE (36 * 8)

#define SIE_SSIE (1UL << 1)
#define SIE_STIE (1UL << 5)
#define SIE_SEIE (1UL << 9)
#define SCAUSE_INTR (1UL << 63)
#define IRQ_S_SOFT 1
#define IRQ_S_TIMER 5
#define IRQ_S_EXT 9

/* Link address of the kernel image; head.S relocates from it and the
 * linker script places the image there (they must agree). */
#define KERNEL_LINK_BASE 0x80200000

#ifndef __ASSEMBLY__
#include <stdbool.h>
#include <stdint.h>

struct boot_info;
struct cpu;

#define csr_read(csr)                                                   \
	({                                                              \
		unsigned long __v;                                      \
		__asm__ __volatile__("csrr %0, " #csr : "=r"(__v));     \
		__v;                                                    \
	})
#define csr_write(csr, val)                                             \
	__asm__ __volatile__("csrw " #csr ", %0" :: "rK"(val) : "memory")
#define csr_set(csr, val)                                               \
	__asm__ __volatile__("csrs " #csr ", %0" :: "rK"(val) : "memory")
#define csr_clear(csr, val)                                             \
	__asm__ __volatile__("csrc " #csr ", %0" :: "rK"(val) : "memory")

/* An interrupt's frame has only ra, sp, t0-t6, s0, a0-a7, sepc, sstatus
 * and scause written (entry.S, .Lirq_save); an exception's, all. */
struct trap_frame {
	uint64_t x[31];		/* x1 (ra) .. x31 (t6); x[1] is sp */
	uint64_t sepc, sstatus, scause, stval;
	uint64_t pad;
};

/* ---- SBI (sbi.c) ------------------------------------------------- */
struct sbiret {
	long error;
	long value;
};

struct sbiret sbi_call(long ext, long fid, unsigned long a0,
		       unsigned long a1, unsigned long a2, unsigned long a3);
/* Probe the base extension and the ones we use; fills the flags below. */
void sbi_init(void);
extern struct sbi_features {
	unsigned long spec_version, impl_id, impl_version;
	unsigned long mvendorid, marchid;	/* the boot hart's; 0: unknown */
	bool time, ipi, hsm, srst, dbcn;
} sbi;
void sbi_putc(char c);
int sbi_getc(void);
void sbi_puts(const char *s);
void sbi_set_timer(uint64_t stime);
void sbi_send_ipi_hart(uint64_t hartid);
int sbi_hart_start(uint64_t hartid, uintptr_t start, uintptr_t opaque);
void sbi_shutdown(bool failure);	/* returns if nothing powered off */

/* ---- Boot (setup.c, dt.c) ------------------------------------------ */
/* What dt.c found besides boot_info, for the other arch files. */
struct rv_platform {
	uint64_t timebase_hz;
	bool sstc;			/* every hart has Sstc (stimecmp) */
	uintptr_t test_dev;		/* sifive,test0/1 MMIO, 0 if none */
	bool have_uart;
	uint64_t uart_base;
	uint32_t uart_shift, uart_width, uart_clock;
	const char *uart_compat;
	int uart_node;			/* its DT node (dt.c) */
	uint32_t uart_irq;		/* its PLIC source, 0: none */
	/* The PLIC (dt.c parse_plic): registers, sources, the boot hart's
	 * S-mode context; or why there is none we can use. */
	uint64_t plic_base;
	uint32_t plic_ndev, plic_ctx, plic_phandle;
	const char *plic_why;
	const char *uart_unsupported;	/* stdout-path's compatible, no driver */
	const char *cpu_compat;		/* boot hart's /cpus node "compatible" */
	int cpu_compat_len;		/*   string list and its length */
	/* Firmware regions marked no-map: never put in the page tables. */
	struct { uint64_t base, size; } nomap[8];
	int nnomap;
};
extern struct rv_platform rv_plat;
/* Parse the DTB into @bi and rv_plat; stops with a message on error. */
void rv_dt_parse(struct boot_info *bi, const void *dtb, uint64_t boot_hart);
/* Print "fatal: <msg>" on the SBI console and power off (failure), or
 * halt with HALT_LINE where that is not possible. */
void rv_early_fatal(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2)));

/* ---- Traps, time (trap.c, time.c) --------------------------------- */
void rv_trap_entry(void);		/* entry.S */
void rv_trap(struct trap_frame *tf);	/* trap.c */
void rv_trap_init_hart(uintptr_t emergency_stack_top);
void rv_time_init(void);
void rv_relax_init(const char *cmdline);
void rv_timer_init_hart(void);
/* plic.c: the supervisor external interrupt (claim, handle, complete). */
void rv_plic_irq(void);
/* setup.c: the console's 16550, NULL when the SBI console is used. */
bool rv_console_irq_on(void);
void rv_console_irq(void);
/* The timer interrupt taken: mask it until arch_timer_arm() sets the
 * next compare value (the pending bit stays set until then). */
static inline void rv_timer_irq_ack(void)
{
	csr_clear(sie, SIE_STIE);
}

/* ---- MMU (mmu.c) ---------------------------------------------------- */
extern uint64_t rv_satp;		/* value every hart loads */
extern uint64_t rv_stack_map_gen;
bool rv_addr_is_ram(uintptr_t a);

/* ---- Entry points in head.S --------------------------------------- */
void rv_secondary_entry(void);		/* HSM start address */
/* What rv_secondary_entry reads from a1; offsets fixed for head.S. */
struct rv_hart_start {
	uint64_t satp;		/* 0 */
	struct cpu *cpu;	/* 8 */
	uintptr_t stack_top;	/* 16 */
};
#endif /* !__ASSEMBLY__ */
#endif
