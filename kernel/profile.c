/*
 * profile.c - the sampling profiler of profile.h.
 *
 * Two sources of samples, chosen at profile_start():
 *   - the arch's NMI source where it has one (x86_64: the PIT through
 *     the IOAPIC, arch/x86_64/profile_nmi.c).  An NMI is not held back
 *     by code that runs with interrupts off, and all of the scheduler's
 *     hot paths do: they are sampled where they run;
 *   - else a timer on every online CPU, re-armed from its own callback
 *     (RISC-V: S-mode has no NMI).  A timer interrupt waits for
 *     interrupts to come back on, so time spent with them off is
 *     charged to the instruction that turns them on again (in yield(),
 *     in a spin_unlock()): the profile says which path, not where in it.
 * Each CPU counts its samples in its own table, by distinct call chain
 * (the interrupted PC first); only that CPU writes it, from its
 * interrupt or NMI, so no lock is taken where a sample is taken, and a
 * sample looks at a few slots at most: one that finds them taken by
 * other chains is counted as dropped.  The samples
 * cost their interrupts: a profiled run is slower than the benchmark's
 * own figures.
 */
#include "profile.h"
#include "cpu.h"
#include "timer.h"
#include "spinlock.h"
#include "mm.h"
#include "errno.h"
#include <printf.h>
#include <string.h>

#define PROFILE_SLOTS 2048	/* distinct chains per CPU */
#define PROFILE_PROBES 16	/* slots looked at before a sample is dropped:
				   a sample must cost little, whatever the
				   table holds (5 us apart under -icount) */

struct chain {
	uint64_t count;			/* 0: a free slot; written last */
	uint64_t hash;
	unsigned depth;
	uintptr_t pc[PROFILE_DEPTH];
};

struct cpu_table {
	uint64_t samples, dropped;
	unsigned used;
	struct chain slot[PROFILE_SLOTS];
};

static struct {
	spinlock_t lock;		/* start/stop against each other */
	bool on, nmi;
	uint64_t period_ns;
	struct timer timer[NR_CPUS];
	struct cpu_table *table[NR_CPUS];	/* kept until the next start */
	uint64_t rand[NR_CPUS];		/* xorshift state, per CPU */
} prof = { .lock = SPINLOCK_INIT("profile") };

/*
 * The gap to this CPU's next sample: the period, give or take half of
 * it, at random.  A fixed gap beats with a loop whose length divides it
 * (a yield ping-pong repeats every ~900 instructions, and -icount makes
 * both exact): 5 us and 20 us once disagreed by 12% on one function.
 */
uint64_t profile_next_gap(void)
{
	uint64_t *x = &prof.rand[smp_processor_id()];

	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return prof.period_ns / 2 + *x % (prof.period_ns + 1);
}

static uint64_t chain_hash(const uintptr_t *pc, int n)
{
	uint64_t h = 14695981039346656037ULL;	/* FNV-1a, 64 bit */

	for (int i = 0; i < n; i++) {
		h ^= pc[i];
		h *= 1099511628211ULL;
	}
	return h ^ (h >> 32);
}

static bool same_chain(const struct chain *c, uint64_t hash,
		       const uintptr_t *pc, int n)
{
	if (c->hash != hash || c->depth != (unsigned)n)
		return false;
	for (int i = 0; i < n; i++)
		if (c->pc[i] != pc[i])
			return false;
	return true;
}

void profile_record(const uintptr_t *pc, int n)
{
	struct cpu_table *tab = READ_ONCE(prof.table[smp_processor_id()]);
	uint64_t hash;
	unsigned i;

	if (!READ_ONCE(prof.on) || !tab || n <= 0)
		return;
	tab->samples++;
	hash = chain_hash(pc, n);
	i = hash % PROFILE_SLOTS;
	for (unsigned probe = 0; probe < PROFILE_PROBES; probe++) {
		struct chain *c = &tab->slot[i];

		if (!c->count) {
			c->hash = hash;
			c->depth = n;
			memcpy(c->pc, pc, n * sizeof(pc[0]));
			smp_store_release(&c->count, 1);
			tab->used++;
			return;
		}
		if (same_chain(c, hash, pc, n)) {
			WRITE_ONCE(c->count, c->count + 1);
			return;
		}
		i = (i + 1) % PROFILE_SLOTS;
	}
	tab->dropped++;
}

/* Timer source.  Interrupt context, irqs off. */
static void sample_fn(struct timer *t)
{
	uintptr_t pc[PROFILE_DEPTH];

	if (!READ_ONCE(prof.on))
		return;
	profile_record(pc, arch_irq_callchain(pc, PROFILE_DEPTH));
	timer_arm(t, clock_ns() + profile_next_gap());
}

/* smp_call: arm this CPU's sampling timer. */
static void arm_here(void *arg)
{
	struct timer *t = &prof.timer[smp_processor_id()];

	(void)arg;
	timer_init(t, sample_fn, NULL);
	timer_arm(t, clock_ns() + profile_next_gap());
}

int profile_start(uint64_t period_ns)
{
	unsigned long flags;
	int err = 0;

	if (period_ns < PROFILE_PERIOD_MIN || period_ns > PROFILE_PERIOD_MAX)
		return -EINVAL;
	flags = spin_lock(&prof.lock);
	if (prof.on)
		err = -EBUSY;
	spin_unlock(&prof.lock, flags);
	if (err)
		return err;
	/* Fresh tables (outside the lock: kmalloc may take its own). */
	for (int c = 0; c < ncpus; c++) {
		kfree(prof.table[c]);
		prof.table[c] = NULL;
		if (!READ_ONCE(cpus[c].online))
			continue;
		if (!(prof.table[c] = kzalloc(sizeof(struct cpu_table))))
			err = -ENOMEM;
	}
	if (err)
		return err;
	prof.period_ns = period_ns;
	for (int c = 0; c < ncpus; c++)		/* the same every run */
		prof.rand[c] = 0x9e3779b97f4a7c15ULL * (c + 1);
	WRITE_ONCE(prof.on, true);
	prof.nmi = arch_profile_nmi_start(period_ns) == 0;
	if (!prof.nmi)
		for (int c = 0; c < ncpus; c++)
			if (READ_ONCE(cpus[c].online))
				smp_call(c, arm_here, NULL);
	return 0;
}

/* smp_call: disarm this CPU's sampling timer.  Its callback runs on
 * this CPU only, with interrupts off, so none is in progress here; the
 * next one (if this one was not queued any more) sees prof.on false. */
static void disarm_here(void *arg)
{
	(void)arg;
	timer_cancel(&prof.timer[smp_processor_id()]);
}

/*
 * Each CPU cancels its own timer.  Cancelled from here, a callback that
 * read prof.on just before we cleared it could re-arm its timer while
 * timer_cancel() waited for it, and the next profile_start()'s
 * timer_init() would then re-initialise a queued timer and break that
 * CPU's timer queue.
 */
void profile_stop(void)
{
	WRITE_ONCE(prof.on, false);
	if (prof.nmi) {
		arch_profile_nmi_stop();
		return;
	}
	for (int c = 0; c < ncpus; c++)
		if (READ_ONCE(cpus[c].online))
			smp_call(c, disarm_here, NULL);
}

uint64_t profile_samples(void)
{
	uint64_t n = 0;

	for (int c = 0; c < ncpus; c++)
		if (prof.table[c])
			n += READ_ONCE(prof.table[c]->samples);
	return n;
}

void profile_print(const char *tag)
{
	extern char __text_start[];
	uint64_t dropped = 0;
	unsigned used = 0;

	for (int c = 0; c < ncpus; c++)
		if (prof.table[c]) {
			dropped += prof.table[c]->dropped;
			used += prof.table[c]->used;
		}
	printk("profile %s: %llu samples every %llu ns, %u chains, %llu "
	       "dropped, text at %p, by %s\n", tag,
	       (unsigned long long)profile_samples(), (unsigned long long)prof.period_ns,
	       used, (unsigned long long)dropped, (void *)__text_start,
	       prof.nmi ? "nmi" : "timer");
	for (int cpu = 0; cpu < ncpus; cpu++) {
		const struct cpu_table *tab = prof.table[cpu];

		for (unsigned i = 0; tab && i < PROFILE_SLOTS; i++) {
			const struct chain *c = &tab->slot[i];
			char line[PROFILE_DEPTH * 17 + 1];
			size_t len = 0;

			if (!c->count)
				continue;
			for (unsigned d = 0; d < c->depth; d++)
				len += snprintf(line + len, sizeof(line) - len,
						" %lx", (unsigned long)c->pc[d]);
			printk("profile %s: %llu%s\n", tag,
			       (unsigned long long)c->count, line);
		}
	}
}

uint64_t profile_samples_through(uintptr_t ret)
{
	uint64_t n = 0;

	for (int cpu = 0; cpu < ncpus; cpu++) {
		const struct cpu_table *tab = prof.table[cpu];

		for (unsigned i = 0; tab && i < PROFILE_SLOTS; i++) {
			const struct chain *c = &tab->slot[i];
			uint64_t count = smp_load_acquire(&c->count);

			for (unsigned d = 1; count && d < c->depth; d++)
				if (c->pc[d] == ret) {
					n += count;
					break;
				}
		}
	}
	return n;
}
