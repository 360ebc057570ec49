/*
 * dt.c - fill struct boot_info from the device tree the firmware passed
 * in a1.  Nothing about the machine is hard-coded: RAM, reserved ranges,
 * harts, the timebase, the console UART and the test (exit) device all
 * come from here, so the same Image runs on QEMU virt and on boards.
 *
 * Runs on the boot hart before the console exists: a missing required
 * node or property is reported through the SBI console by rv_early_fatal,
 * naming the node, and the machine powers off with a failure status (the
 * test device if there is one: OpenSBI 1.1 on QEMU turns even an SRST
 * "system failure" shutdown into exit status 0).
 */
#include "arch.h"
#include "boot.h"
#include "fdt.h"
#include "kernel.h"
#include "power.h"
#include "printf.h"
#include "rv.h"
#include "string.h"

struct rv_platform rv_plat;
static struct fdt fdt;

extern char __kernel_start[], __kernel_end[];

void rv_early_fatal(const char *fmt, ...)
{
	char buf[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	sbi_puts("kestrel: fatal: ");
	sbi_puts(buf);
	sbi_puts("\n");
	arch_poweroff(1);
	/* Before the console and the other harts: say it here, then stop. */
	sbi_puts(HALT_LINE "\n");
	arch_halt();
}

static void add_range(struct mem_region *r, int *n, uint64_t base,
		      uint64_t size, const char *what)
{
	if (size == 0)
		return;
	if (*n >= BOOT_MAX_REGIONS)
		rv_early_fatal("boot: more than %d %s ranges", BOOT_MAX_REGIONS,
			       what);
	r[*n].base = base;
	r[*n].size = size;
	(*n)++;
}

/* Every "reg" entry of @node into @r. */
static int add_reg_ranges(struct mem_region *r, int *n, int node,
			  const char *what)
{
	uint64_t base, size;
	int i;

	for (i = 0; fdt_reg(&fdt, node, i, &base, &size) == 0; i++)
		add_range(r, n, base, size, what);
	return i;
}

static void parse_memory(struct boot_info *bi)
{
	int root = fdt_root(&fdt);

	for (int n = fdt_first_child(&fdt, root); n >= 0;
	     n = fdt_next_sibling(&fdt, n)) {
		const char *type = fdt_prop_str(&fdt, n, "device_type");

		if (type && strcmp(type, "memory") == 0 && fdt_is_enabled(&fdt, n))
			add_reg_ranges(bi->mem, &bi->nmem, n, "memory");
	}
	if (bi->nmem == 0)
		rv_early_fatal("fdt: no /memory node with a reg property");
}

/* Memory reservation block, /reserved-memory children, the DTB itself. */
static void parse_reserved(struct boot_info *bi, const void *dtb)
{
	uint64_t base, size;

	add_range(bi->reserved, &bi->nreserved, (uintptr_t)dtb,
		  fdt_totalsize(&fdt), "reserved");
	for (int i = 0; fdt_rsvmap_entry(&fdt, i, &base, &size); i++)
		add_range(bi->reserved, &bi->nreserved, base, size, "reserved");

	int rm = fdt_path(&fdt, "/reserved-memory");

	for (int n = fdt_first_child(&fdt, rm); rm >= 0 && n >= 0;
	     n = fdt_next_sibling(&fdt, n)) {
		int first = bi->nreserved;

		add_reg_ranges(bi->reserved, &bi->nreserved, n, "reserved");
		/* no-map: firmware memory that must not even be mapped, or
		 * speculative accesses could touch it.  (OpenSBI 1.1 drops
		 * no-map when PMP protects its region, as on QEMU: that
		 * region is then mapped but, being reserved, never used.) */
		if (!fdt_prop(&fdt, n, "no-map", NULL))
			continue;
		for (int i = first; i < bi->nreserved; i++) {
			if (rv_plat.nnomap == (int)ARRAY_SIZE(rv_plat.nomap))
				rv_early_fatal("fdt: too many no-map regions");
			rv_plat.nomap[rv_plat.nnomap].base = bi->reserved[i].base;
			rv_plat.nomap[rv_plat.nnomap++].size = bi->reserved[i].size;
		}
	}
}

/* Does the ISA of cpu @node include extension @ext ("sstc")? */
static bool isa_has(int node, const char *ext)
{
	size_t n = strlen(ext);
	const char *isa = fdt_prop_str(&fdt, node, "riscv,isa");

	if (fdt_prop_has_string(&fdt, node, "riscv,isa-extensions", ext))
		return true;
	for (const char *p = isa ? strchr(isa, '_') : NULL; p;
	     p = strchr(p + 1, '_'))
		if (strncmp(p + 1, ext, n) == 0 &&
		    (p[1 + n] == '\0' || p[1 + n] == '_'))
			return true;
	return false;
}

/* A hart we can run on: enabled, with an MMU (so with S-mode). */
static bool hart_usable(int node)
{
	const char *mmu = fdt_prop_str(&fdt, node, "mmu-type");

	return fdt_is_enabled(&fdt, node) && mmu && strcmp(mmu, "riscv,none") != 0;
}

static void parse_cpus(struct boot_info *bi, uint64_t boot_hart)
{
	int cpus = fdt_path(&fdt, "/cpus");
	uint32_t tb;
	bool all_sstc = true;
	int boot_node = -1;

	if (cpus < 0)
		rv_early_fatal("fdt: no /cpus node");
	int ac = fdt_address_cells(&fdt, cpus);

	bi->cpu_arch_id[0] = boot_hart;
	bi->ncpus = 1;
	for (int n = fdt_first_child(&fdt, cpus); n >= 0;
	     n = fdt_next_sibling(&fdt, n)) {
		const char *type = fdt_prop_str(&fdt, n, "device_type");
		const void *reg = fdt_prop(&fdt, n, "reg", NULL);

		if (!type || strcmp(type, "cpu") != 0)
			continue;
		if (!reg)
			rv_early_fatal("fdt: /cpus/%s has no reg", fdt_name(&fdt, n));
		uint64_t hart = fdt_read_cells(reg, ac);

		if (hart == boot_hart)
			boot_node = n;
		else if (!hart_usable(n) || bi->ncpus == BOOT_MAX_CPUS)
			continue;
		else
			bi->cpu_arch_id[bi->ncpus++] = hart;
		all_sstc &= isa_has(n, "sstc");
	}
	if (boot_node < 0)
		rv_early_fatal("fdt: no /cpus/cpu node for boot hart %lu",
			       (unsigned long)boot_hart);
	rv_plat.cpu_compat = fdt_prop(&fdt, boot_node, "compatible",
				      &rv_plat.cpu_compat_len);
	/* The spec puts it in /cpus; some trees have it per cpu node. */
	if (!fdt_prop_u32(&fdt, cpus, "timebase-frequency", &tb) &&
	    !fdt_prop_u32(&fdt, boot_node, "timebase-frequency", &tb))
		rv_early_fatal("fdt: /cpus has no timebase-frequency");
	rv_plat.timebase_hz = tb;
	rv_plat.sstc = all_sstc;
}

/* A UART we have a driver for: 16550 / DesignWare (uart16550.c) or
 * SiFive (uart_sifive.c, every "sifive,..." here; FU540/FU740 trees list
 * their SoC's name and "sifive,uart0", spelt with or without the 0). */
static bool uart_supported(int node)
{
	static const char *const compat[] = {
		"ns16550a", "ns16550", "snps,dw-apb-uart", "sifive,uart0",
		"sifive,fu540-c000-uart", "sifive,fu540-c000-uart0",
		"sifive,fu740-c000-uart", "sifive,fu740-c000-uart0",
	};

	for (size_t i = 0; i < ARRAY_SIZE(compat); i++)
		if (fdt_is_compatible(&fdt, node, compat[i])) {
			rv_plat.uart_compat = compat[i];
			return true;
		}
	return false;
}

static int first_enabled_uart(void)
{
	static const char *const compat[] = { "ns16550a", "sifive,uart0" };

	for (size_t i = 0; i < ARRAY_SIZE(compat); i++)
		for (int n = fdt_find_compatible(&fdt, -1, compat[i]); n >= 0;
		     n = fdt_find_compatible(&fdt, n, compat[i]))
			if (fdt_is_enabled(&fdt, n))
				return n;
	return -1;
}

/* The console: /chosen stdout-path, else the first enabled 16550 or
 * SiFive UART.  A stdout-path UART we cannot drive keeps the SBI console
 * (the firmware drives it; another UART may not even be wired) and is
 * named at boot. */
static void parse_uart(struct boot_info *bi, int chosen)
{
	const char *path = fdt_prop_str(&fdt, chosen, "stdout-path");
	int n = path ? fdt_path(&fdt, path) : -1;
	uint64_t size;
	uint32_t v;

	if (n < 0)
		n = first_enabled_uart();
	if (n < 0)
		return;
	if (!uart_supported(n)) {
		const char *c = fdt_prop_str(&fdt, n, "compatible");

		rv_plat.uart_unsupported = c ? c : fdt_name(&fdt, n);
		return;
	}
	if (fdt_reg(&fdt, n, 0, &rv_plat.uart_base, &size) != 0)
		rv_early_fatal("fdt: UART %s has no usable reg", fdt_name(&fdt, n));
	rv_plat.uart_shift = fdt_prop_u32(&fdt, n, "reg-shift", &v) ? v : 0;
	rv_plat.uart_width = fdt_prop_u32(&fdt, n, "reg-io-width", &v) ? v : 1;
	rv_plat.uart_clock = fdt_prop_u32(&fdt, n, "clock-frequency", &v) ? v : 0;
	rv_plat.have_uart = true;
	rv_plat.uart_node = n;
	add_range(bi->devices, &bi->ndevices, rv_plat.uart_base,
		  size ? size : 0x100, "device");
}

static void parse_chosen(struct boot_info *bi)
{
	int chosen = fdt_path(&fdt, "/chosen");
	const char *args = fdt_prop_str(&fdt, chosen, "bootargs");
	int slen, elen;
	const void *s = fdt_prop(&fdt, chosen, "linux,initrd-start", &slen);
	const void *e = fdt_prop(&fdt, chosen, "linux,initrd-end", &elen);

	bi->cmdline_len = strlcpy(bi->cmdline, args ? args : "",
				  sizeof(bi->cmdline));
	if (s && e && (slen == 4 || slen == 8) && (elen == 4 || elen == 8)) {
		uint64_t start = fdt_read_cells(s, slen / 4);
		uint64_t end = fdt_read_cells(e, elen / 4);

		if (end > start) {
			bi->module_base = start;
			bi->module_size = end - start;
			add_range(bi->reserved, &bi->nreserved, start, end - start,
				  "reserved");
		}
	}
	parse_uart(bi, chosen);
}

/* ---- The PLIC and the console UART's interrupt ---------------------- */

/* The phandle of @hart's interrupt controller (its cpu node's
 * "riscv,cpu-intc" child), 0 if none. */
static uint32_t hart_intc_phandle(uint64_t hart)
{
	uint32_t ph;

	for (int n = fdt_find_compatible(&fdt, -1, "riscv,cpu-intc"); n >= 0;
	     n = fdt_find_compatible(&fdt, n, "riscv,cpu-intc")) {
		int cpu = fdt_parent(&fdt, n);
		const void *reg = fdt_prop(&fdt, cpu, "reg", NULL);
		int ac = fdt_address_cells(&fdt, fdt_parent(&fdt, cpu));

		if (reg && fdt_read_cells(reg, ac) == hart &&
		    fdt_prop_u32(&fdt, n, "phandle", &ph))
			return ph;
	}
	return 0;
}

/*
 * The PLIC, and the context that interrupts @hart in S-mode: entry i of
 * its interrupts-extended, <&cpuN_intc 11 &cpuN_intc 9 ...>, is context
 * i; the one naming the boot hart's intc with 9 (supervisor external)
 * is ours (2h + 1 on QEMU virt, but boards with a monitor hart differ).
 * Without a PLIC, rv_plat.plic_why says why (console input then stays
 * polled).
 */
static void parse_plic(struct boot_info *bi, uint64_t hart)
{
	int n = fdt_find_compatible(&fdt, -1, "sifive,plic-1.0.0");
	const uint32_t *ie;
	uint64_t size;
	uint32_t ndev, intc;
	int len;

	if (n < 0)
		n = fdt_find_compatible(&fdt, -1, "riscv,plic0");
	if (n < 0) {
		rv_plat.plic_why = "no PLIC in the device tree";
		return;
	}
	ie = fdt_prop(&fdt, n, "interrupts-extended", &len);
	if (fdt_reg(&fdt, n, 0, &rv_plat.plic_base, &size) != 0 || !ie ||
	    !fdt_prop_u32(&fdt, n, "riscv,ndev", &ndev)) {
		rv_plat.plic_why = "the PLIC node lacks reg, riscv,ndev or "
				   "interrupts-extended";
		return;
	}
	intc = hart_intc_phandle(hart);
	for (int i = 0; intc && i < len / 8; i++) {
		if (fdt_read_cells(&ie[2 * i + 1], 1) == 9 &&
		    fdt_read_cells(&ie[2 * i], 1) == intc) {
			rv_plat.plic_ctx = i;
			rv_plat.plic_ndev = ndev;
			fdt_prop_u32(&fdt, n, "phandle", &rv_plat.plic_phandle);
			add_range(bi->devices, &bi->ndevices, rv_plat.plic_base,
				  size, "device");
			return;
		}
	}
	rv_plat.plic_why = "the PLIC has no S-mode context for the boot hart";
}

/* The console UART's PLIC source: its "interrupts", if its interrupt
 * parent (its own or an ancestor's) is that PLIC. */
static void parse_uart_irq(void)
{
	uint32_t irq, parent = 0;

	if (!rv_plat.have_uart || rv_plat.plic_why)
		return;
	for (int n = rv_plat.uart_node; n >= 0; n = fdt_parent(&fdt, n))
		if (fdt_prop_u32(&fdt, n, "interrupt-parent", &parent))
			break;
	if (!fdt_prop_u32(&fdt, rv_plat.uart_node, "interrupts", &irq) ||
	    irq == 0 || irq > rv_plat.plic_ndev)
		rv_plat.plic_why = "the UART has no usable interrupts property";
	else if (parent != rv_plat.plic_phandle)
		rv_plat.plic_why = "the UART's interrupt parent is not the PLIC";
	else
		rv_plat.uart_irq = irq;
}

/* The SiFive test device: writing to it makes QEMU exit with a status. */
static void parse_test_device(struct boot_info *bi)
{
	int n = fdt_find_compatible(&fdt, -1, "sifive,test1");
	uint64_t base, size;

	if (n < 0)
		n = fdt_find_compatible(&fdt, -1, "sifive,test0");
	if (n < 0 || fdt_reg(&fdt, n, 0, &base, &size) != 0)
		return;
	rv_plat.test_dev = base;
	add_range(bi->devices, &bi->ndevices, base, size ? size : 0x1000, "device");
}

/* "OpenSBI v1.1", plus U-Boot's version if it left one in /chosen. */
static void describe_loader(struct boot_info *bi)
{
	static char buf[96];
	const char *uboot = fdt_prop_str(&fdt, fdt_path(&fdt, "/chosen"),
					 "u-boot,version");
	const char *fw = sbi.impl_id == 1 ? "OpenSBI" : "SBI firmware";

	snprintf(buf, sizeof(buf), "%s%s%s%s v%lu.%lu",
		 uboot ? "U-Boot " : "", uboot ? uboot : "", uboot ? " on " : "", fw,
		 (sbi.impl_version >> 16) & 0xffff, sbi.impl_version & 0xffff);
	bi->loader = buf;
}

void rv_dt_parse(struct boot_info *bi, const void *dtb, uint64_t boot_hart)
{
	if (fdt_init(&fdt, dtb) != 0)
		rv_early_fatal("fdt: no valid device tree at %p (a1)", dtb);
	parse_test_device(bi);		/* first: rv_early_fatal exits through it */
	bi->kernel_base = (uintptr_t)__kernel_start;
	bi->kernel_end = (uintptr_t)__kernel_end;
	add_range(bi->reserved, &bi->nreserved, bi->kernel_base,
		  bi->kernel_end - bi->kernel_base, "reserved");
	parse_memory(bi);
	parse_reserved(bi, dtb);
	parse_cpus(bi, boot_hart);
	parse_chosen(bi);
	parse_plic(bi, boot_hart);
	parse_uart_irq();
	describe_loader(bi);
}
