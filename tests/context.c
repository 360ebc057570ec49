/*
 * context.c - the context switch keeps callee-saved registers.
 *
 * arch_check_callee_saved() loads a pattern into every callee-saved
 * register, calls fn, and checks the registers afterwards.  fn switches
 * away (yield / sleep / being preempted by the tick) while a "clobber"
 * thread pinned on the same CPU runs with its own values live in those
 * registers.  If a switch failed to save or restore one, the pattern
 * would come back changed.  The test also checks that the clobber thread
 * really ran during fn, or it would prove nothing.
 */
#include "ktest.h"
#include "helpers.h"
#include "cpu.h"
#include "mm.h"
#include "sched.h"
#include "timer.h"

struct clobber {
	volatile int stop;
	volatile unsigned long runs;
	volatile uint64_t sink;
};

/*
 * Twelve values live across yield(): the compiler must keep them in
 * callee-saved registers (or spill them), so when this thread yields its
 * registers hold values unrelated to the checker's pattern.
 */
static void clobber_thread(void *arg)
{
	struct clobber *c = arg;
	uint64_t a = c->runs + 0x1111, b = a * 3, d = b * 5, e = d * 7;
	uint64_t f = e * 11, g = f * 13, h = g * 17, i = h * 19;
	uint64_t j = i * 23, k = j * 29, l = k * 31, m = l * 37;

	while (!c->stop) {
		c->runs++;
		yield();
		a = a * 6364136223846793005ULL + b;
		b ^= d << 1;
		d += e;
		e ^= f >> 3;
		f += g;
		g ^= h;
		h += i;
		i ^= j;
		j += k;
		k ^= l;
		l += m;
		m ^= a;
	}
	c->sink = a ^ b ^ d ^ e ^ f ^ g ^ h ^ i ^ j ^ k ^ l ^ m;
}

enum how { BY_YIELD, BY_SLEEP, BY_PREEMPTION };

struct check {
	struct clobber *clob;
	enum how how;
	int result;			/* from arch_check_callee_saved */
	unsigned long clobber_runs;	/* during fn */
};

static void switch_away(void *arg)
{
	struct check *ck = arg;
	unsigned long before = ck->clob->runs;

	switch (ck->how) {
	case BY_YIELD:
		for (int i = 0; i < 50; i++)
			yield();
		break;
	case BY_SLEEP:
		for (int i = 0; i < 5; i++)
			sleep_ns(NSEC_PER_MSEC);
		break;
	case BY_PREEMPTION:
		/* Never gives the CPU up itself: only the tick (at the end
		 * of a time slice) lets the clobber thread in.  Bounded by
		 * time and by the clobber thread having run a few times. */
		{
			uint64_t end = clock_ns() + 500 * NSEC_PER_MSEC;

			while (ck->clob->runs - before < 3 && clock_ns() < end)
				arch_cpu_relax();
		}
		break;
	}
	ck->clobber_runs = ck->clob->runs - before;
}

static void checker_thread(void *arg)
{
	struct check *ck = arg;

	ck->result = arch_check_callee_saved(switch_away, ck);
}

/* Run one check on every CPU in turn. */
static void check_on_every_cpu(struct ktest *t, enum how how)
{
	for (int cpu = 0; cpu < ncpus; cpu++) {
		struct clobber clob = { 0 };
		struct check ck = { &clob, how, -1, 0 };
		struct task *cl, *ch;

		if (!cpu_by_id(cpu)->online)
			continue;
		cl = thread_create("ctx-clobber", clobber_thread, &clob, cpu);
		KASSERT(t, cl != NULL);
		ch = thread_create("ctx-check", checker_thread, &ck, cpu);
		if (!ch) {
			clob.stop = 1;
			thread_join(cl);
			KASSERT(t, ch != NULL);
		}
		thread_join(ch);
		clob.stop = 1;
		thread_join(cl);
		if (ck.result != 0)
			ktest_fail(t, __FILE__, __LINE__,
				   "cpu%d: callee-saved register %d changed",
				   cpu, ck.result);
		if (ck.clobber_runs == 0)
			ktest_fail(t, __FILE__, __LINE__,
				   "cpu%d: the clobber thread never ran during "
				   "the check", cpu);
	}
}

static void callee_saved_across_yield(struct ktest *t)
{
	check_on_every_cpu(t, BY_YIELD);
}

static void callee_saved_across_sleep(struct ktest *t)
{
	check_on_every_cpu(t, BY_SLEEP);
}

static void callee_saved_across_preemption(struct ktest *t)
{
	check_on_every_cpu(t, BY_PREEMPTION);
}

/*
 * The scheduler path around arch_context_switch() (__schedule and its
 * callers) saves callee-saved registers in its own frames, which can hide
 * a switch that loses one.  So also switch directly: fn does nothing but
 * arch_context_switch() to a bare helper context whose registers hold
 * other live values, and back.  Interrupts stay off throughout, so the
 * scheduler never sees these contexts.
 */
#define DIRECT_STACK_SIZE 8192
#define DIRECT_SWITCHES 8

struct direct {
	struct arch_context main_ctx, helper_ctx;
	volatile int helper_runs;
	volatile uint64_t sink;
};

static void direct_helper(void *arg)
{
	struct direct *d = arg;
	uint64_t a = (uintptr_t)d ^ 0x0123456789abcdefULL, b = a * 3;
	uint64_t e = b * 5, f = e * 7, g = f * 11, h = g * 13, i = h * 17;

	for (;;) {
		d->helper_runs++;
		arch_context_switch(&d->helper_ctx, &d->main_ctx);
		a = a * 6364136223846793005ULL + b;
		b ^= e << 1;
		e += f;
		f ^= g >> 3;
		g += h;
		h ^= i;
		i += a;
		d->sink = a ^ b ^ e ^ f ^ g ^ h ^ i;
	}
}

static void direct_switch(void *arg)
{
	struct direct *d = arg;

	for (int k = 0; k < DIRECT_SWITCHES; k++)
		arch_context_switch(&d->main_ctx, &d->helper_ctx);
}

static void callee_saved_across_direct_switch(struct ktest *t)
{
	struct direct *d = kzalloc(sizeof(*d));
	char *stack = kmalloc(DIRECT_STACK_SIZE);
	unsigned long flags;
	int res;

	KASSERT(t, d && stack);
	flags = arch_irq_save();
	arch_context_init(&d->helper_ctx, stack + DIRECT_STACK_SIZE,
			  direct_helper, d);
	res = arch_check_callee_saved(direct_switch, d);
	arch_irq_restore(flags);
	KEXPECT_EQ(t, res, 0);
	KEXPECT_EQ(t, d->helper_runs, DIRECT_SWITCHES);
	/* The helper is left switched out for good; its stack goes. */
	kfree(stack);
	kfree(d);
}

static struct ktest_case context_cases[] = {
	KTEST_CASE(callee_saved_across_direct_switch),
	KTEST_CASE(callee_saved_across_yield),
	KTEST_CASE(callee_saved_across_sleep),
	KTEST_CASE_TIMEOUT(callee_saved_across_preemption, 30000),
	{ 0 },
};
KTEST_SUITE(context, context_cases);
