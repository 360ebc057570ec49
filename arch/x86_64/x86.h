/*
 * x86.h - private helpers shared by the files of arch/x86_64: port I/O,
 * MSRs, control registers, the trap frame, segment selectors, vectors,
 * and the functions one x86 file exports to another (x86_ prefix).
 * Generic code never includes this.
 */
#ifndef X86_H
#define X86_H

#include "kernel.h"
#include "arch.h"
#include "boot.h"

/* Selectors of the per-CPU GDT (gdt.c) and of the boot GDT (boot.S). */
#define KERNEL_CS 0x08
#define KERNEL_DS 0x10
#define KERNEL_TSS 0x18

/* Interrupt vectors.  The 8259s are remapped to 0x20-0x2f and masked;
 * their spurious IRQ 7/15 may still arrive there. */
#define PIC_VECTOR_BASE 0x20
#define TIMER_VECTOR 0x40
#define IPI_VECTOR 0x41
#define COM1_VECTOR 0x44		/* the console UART (ioapic.c) */
#define KEYBOARD_VECTOR 0x45		/* the PS/2 keyboard (ioapic.c) */
#define SPURIOUS_VECTOR 0xff

/* IST slots (1-based in the IDT, 0-based in tss.ist[]) and their stacks
 * inside the per-CPU IST block of IST_BLOCK_SIZE bytes. */
#define IST_NMI 1
#define IST_DF 2
#define IST_PF 3
#define IST_BLOCK_ORDER 2		/* 16 KiB: 4 NMI, 4 #DF, 8 #PF */
#define IST_BLOCK_SIZE (PAGE_SIZE << IST_BLOCK_ORDER)

/* MSRs */
#define MSR_EFER 0xc0000080
#define MSR_GS_BASE 0xc0000101
#define MSR_APIC_BASE 0x1b
#define EFER_NXE (1u << 11)

/* Where the AP start-up code is copied; must be below 1 MiB and page
 * aligned (the SIPI vector is its page number). */
#define AP_TRAMPOLINE_PA 0x8000

/*
 * Saved state of an interrupted context, built by trap_common (entry.S):
 * general registers pushed by the stub, vector and error code (0 when the
 * CPU pushes none), then the hardware frame.
 */
struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error;
	uint64_t rip, cs, rflags, rsp, ss;
};

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;
	__asm__ __volatile__("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ __volatile__("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outw(uint16_t port, uint16_t v)
{
	__asm__ __volatile__("outw %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outl(uint16_t port, uint32_t v)
{
	__asm__ __volatile__("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ __volatile__("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ __volatile__("wrmsr" : : "c"(msr), "a"((uint32_t)v),
			     "d"((uint32_t)(v >> 32)));
}

static inline void cpuid(uint32_t leaf, uint32_t *a, uint32_t *b,
			 uint32_t *c, uint32_t *d)
{
	__asm__ __volatile__("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d)
			     : "a"(leaf), "c"(0));
}

#define DEFINE_CR(n)                                                    \
	static inline uint64_t read_cr##n(void)                         \
	{                                                               \
		uint64_t v;                                             \
		__asm__ __volatile__("mov %%cr" #n ", %0" : "=r"(v));   \
		return v;                                               \
	}                                                               \
	static inline void write_cr##n(uint64_t v)                      \
	{                                                               \
		__asm__ __volatile__("mov %0, %%cr" #n : : "r"(v) : "memory"); \
	}
DEFINE_CR(0)
DEFINE_CR(2)
DEFINE_CR(3)
DEFINE_CR(4)
#undef DEFINE_CR

#define CR0_WP (1UL << 16)

/* Linker script symbols (linker/x86_64.ld). */
extern char __kernel_start[], __kernel_end[];
extern char __text_start[], __text_end[];
extern char __rodata_start[], __rodata_end[];
extern char __data_start[], __bss_start[], __bss_end[];

/* gdt.c: load this CPU's GDT, TSS (IST stacks from @ist_base) and IDT. */
void x86_cpu_tables_init(struct cpu *cpu, uintptr_t ist_base);
/* trap.c */
void x86_idt_init(void);		/* fill the shared IDT, once */
void x86_idt_load(void);
void x86_trap(struct trap_frame *f);
extern char x86_trap_stubs[];		/* entry.S: 256 stubs, 16 bytes each */

/* boot_info.c: multiboot1/2 + ACPI -> struct boot_info. */
void x86_parse_boot_info(struct boot_info *bi, uint32_t magic, uintptr_t info);
void boot_add_region(struct mem_region *r, int *n, uint64_t base,
		     uint64_t size);
/* acpi.c: CPUs and APIC addresses from the MADT. */
void x86_acpi_init(struct boot_info *bi, uintptr_t rsdp);
uintptr_t x86_acpi_find_rsdp_bios(void);
extern uintptr_t x86_lapic_pa;
/* The IOAPIC that has GSI 0 (0: none found).  acpi.c. */
extern uintptr_t x86_ioapic_pa;
/* Each ISA IRQ (0: the PIT, 1: the keyboard, 4: COM1) as the MADT's
 * interrupt source overrides give it: its GSI, and the override's MPS
 * INTI flags (0: as the ISA bus, active high, edge).  acpi.c. */
#define X86_ISA_IRQS 16
#define ISA_IRQ_PIT 0
#define ISA_IRQ_KEYBOARD 1
#define ISA_IRQ_COM1 4
struct x86_isa_irq {
	uint32_t gsi;
	uint16_t flags;
	bool overridden;
};
extern struct x86_isa_irq x86_isa_irqs[X86_ISA_IRQS];

/* ioapic.c: its registers (IOAPIC_VER, REDIR_*), its pin count (0: no
 * IOAPIC). */
#define IOAPIC_VER 0x01
#define REDIR_LO(g) (0x10 + 2 * (g))
#define REDIR_HI(g) (0x11 + 2 * (g))
#define REDIR_MASKED (1u << 16)
uint32_t x86_ioapic_read(unsigned reg);
void x86_ioapic_write(unsigned reg, uint32_t v);
int x86_ioapic_pins(void);
/* early.c: the COM1 console's driver state, for its interrupt. */
struct uart16550 *x86_com1(void);
/* early.c: the PS/2 keyboard, NULL if there is none. */
struct i8042 *x86_keyboard(void);
/* The PC @f interrupted, then its callers' return addresses (frame
 * pointers), at most @max; how many.  trap.c. */
int x86_callchain(const struct trap_frame *f, uintptr_t *pc, int max);
/* The profiler's NMI (profile_nmi.c): true if it took this NMI. */
bool x86_profile_nmi(struct trap_frame *f);
/* Send an NMI to every other CPU (ICR shorthand; safe in an NMI). */
void x86_lapic_nmi_others(void);

/* apic.c */
void x86_pic_disable(void);
void x86_lapic_init(void);		/* this CPU */
void x86_time_init(void);		/* BSP: calibrate TSC + LAPIC timer */
void x86_lapic_eoi(void);
void x86_lapic_send_init(uint32_t apic_id);
void x86_lapic_send_sipi(uint32_t apic_id, uint8_t page);
void x86_delay_us(uint64_t us);

/* smp.c: AP side, entered from the trampoline in 64-bit mode. */
void x86_ap_main(struct cpu *cpu) __noreturn;

/* early.c: the screen console may draw now (arch_mmu_init mapped it). */
void x86_screen_mapped(void);
/* mmu.c: PAT entry 1 write-combining (each CPU, early); a range that
 * arch_mmu_init maps with it (the framebuffer; early.c sets it). */
void x86_pat_init(void);
extern struct mem_region x86_wc_region;

/* mmu.c */
void x86_early_map_ram(struct boot_info *bi);
extern uint64_t x86_kernel_cr3;		/* 0 until arch_mmu_init */
extern bool x86_nx;			/* NX bit usable in page tables */
#endif /* X86_H */
