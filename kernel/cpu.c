/*
 * cpu.c - the CPUs (cpu.h): per-CPU data, bringing up the other CPUs,
 * IPIs and cross-CPU calls.
 *
 * There is one arch IPI; the reason travels in cpu->ipi_pending, OR-ed in
 * before the IPI is sent and swapped out by the handler, so several
 * reasons sent together cost one interrupt.
 */
#include "kernel.h"
#include "cpu.h"
#include "sched.h"
#include "boot.h"
#include "mm.h"
#include "timer.h"

struct cpu cpus[NR_CPUS];
int ncpus = 1;

uint64_t cpus_online_bits;

void cpu_set_online(struct cpu *c, bool online)
{
	c->mask = 1ULL << c->id;
	if (online)
		__atomic_fetch_or(&cpus_online_bits, 1ULL << c->id, __ATOMIC_RELEASE);
	else
		__atomic_fetch_and(&cpus_online_bits, ~(1ULL << c->id),
				   __ATOMIC_RELEASE);
	smp_store_release(&c->online, online);
}

int cpus_online(void)
{
	int n = 0;

	for (int i = 0; i < ncpus; i++)
		n += READ_ONCE(cpus[i].online);
	return n;
}

void smp_send(int cpu, uint32_t why)
{
	struct cpu *c = &cpus[cpu];

	__atomic_fetch_or(&c->ipi_pending, why, __ATOMIC_SEQ_CST);
	arch_send_ipi(c);
}

/* The arch calls this from the IPI interrupt, irqs off. */
void ipi_interrupt(void)
{
	struct cpu *c = this_cpu();
	uint32_t why = __atomic_exchange_n(&c->ipi_pending, 0, __ATOMIC_SEQ_CST);

	c->nr_ipis++;
	if (why & IPI_STOP) {
		cpu_set_online(c, false);
		arch_halt();
	}
	if (why & IPI_CALL) {
		int from = c->call_from;

		c->call_fn(c->call_arg);
		smp_store_release(&c->call_done, 1);
		smp_send(from, IPI_WAKE);	/* c->call_* may be reused now */
	}
	if (why & IPI_RESCHED)
		WRITE_ONCE(c->need_resched, true);	/* irq_exit acts on it */
}

/*
 * The caller waits with interrupts enabled, so two CPUs calling each
 * other at the same time both get served.  call_busy gives one caller at
 * a time the target's call slot.  The wait halts: the target sends
 * IPI_WAKE when fn is done, and the done flag is rechecked with
 * interrupts off before each halt, so that wakeup cannot be missed.
 */
int smp_call(int cpu, void (*fn)(void *), void *arg)
{
	struct cpu *c;
	unsigned long flags;

	if (cpu < 0 || cpu >= ncpus || !READ_ONCE(cpus[cpu].online))
		return -EINVAL;
	c = &cpus[cpu];
	flags = arch_irq_save();
	if (c == this_cpu()) {
		fn(arg);
		arch_irq_restore(flags);
		return 0;
	}
	arch_irq_restore(flags);
	while (__atomic_exchange_n(&c->call_busy, 1, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
	/* No migration while we wait: the wakeup goes to this CPU. */
	preempt_disable();
	c->call_fn = fn;
	c->call_arg = arg;
	c->call_from = smp_processor_id();
	c->call_done = 0;
	smp_send(cpu, IPI_CALL);
	for (;;) {
		arch_irq_disable();
		if (smp_load_acquire(&c->call_done))
			break;
		arch_idle();
		arch_irq_enable();
	}
	arch_irq_enable();
	__atomic_store_n(&c->call_busy, 0, __ATOMIC_RELEASE);
	preempt_enable();
	return 0;
}

/* First generic code on a secondary CPU: it runs its idle task. */
void secondary_main(struct cpu *c)
{
	timer_init_cpu();
	cpu_set_online(c, true);
	arch_irq_enable();
	cpu_idle_loop();
}

/* Boot CPU: start every other CPU the firmware reported. */
void smp_boot(struct boot_info *bi)
{
	if (ncpus > 1)
		sched_smp_begin();
	for (int i = 1; i < ncpus; i++) {
		struct cpu *c = &cpus[i];
		uint64_t until;
		int err;

		c->id = i;
		c->arch_id = bi->cpu_arch_id[i];
		sched_init_cpu(c);
		err = arch_cpu_start(c, (void *)(c->idle->stack_base +
						 TASK_STACK_PAGES * PAGE_SIZE));
		if (err) {
			printk("smp: cpu%d (arch id %llu) did not start: %s\n", i,
			       (unsigned long long)c->arch_id, strerror(err));
			continue;
		}
		until = arch_clock_ns() + NSEC_PER_SEC;
		while (!smp_load_acquire(&c->online) && arch_clock_ns() < until)
			arch_cpu_relax();
		if (!c->online)
			printk("smp: cpu%d (arch id %llu) started but never came online\n",
			       i, (unsigned long long)c->arch_id);
	}
	printk("smp: %d of %d CPUs online\n", cpus_online(), ncpus);
}
