/*
 * spinlock.c - tests of kernel/locking spinlocks: mutual exclusion under
 * contention from every CPU (the lock word names its holder throughout),
 * trylock, spin_held, interrupt masking.
 * (Recursion and wrong-CPU unlock must panic: tests/crash.c.)
 */
#include "ktest.h"
#include "helpers.h"
#include "cpu.h"
#include "sched.h"
#include "spinlock.h"
#include "timer.h"

/*
 * Threads on every CPU increment one counter under one lock.  The
 * increment is a separate load and store with a pause between them, so
 * a lock that lets two CPUs in at once loses updates and the total comes
 * out short.
 */
#define COUNTER_THREADS_PER_CPU 4
#define COUNTER_ITERS 20000

struct counter_test {
	spinlock_t lock;
	volatile unsigned long counter;
	int ready, nthreads;		/* start barrier */
	volatile int inside;		/* threads inside the critical section */
	volatile int overlap;		/* times we saw inside != 1 */
	volatile int wrong_owner;	/* times the word was not this CPU */
};

static void counter_worker(struct percpu_work *w)
{
	struct counter_test *ct = w->data;

	/* Start together, so that they really contend. */
	__atomic_add_fetch(&ct->ready, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&ct->ready, __ATOMIC_SEQ_CST) < ct->nthreads)
		yield();
	for (int i = 0; i < COUNTER_ITERS; i++) {
		unsigned long flags = spin_lock(&ct->lock);
		unsigned long v;

		if (++ct->inside != 1)
			ct->overlap++;
		/* The word is its holder while others wait (spinlock.h): a
		 * waiter's failed attempt must not overwrite it. */
		if (spin_owner(&ct->lock) != this_cpu())
			ct->wrong_owner++;
		v = ct->counter;
		arch_cpu_relax();
		ct->counter = v + 1;
		ct->inside--;
		spin_unlock(&ct->lock, flags);
	}
}

static void counter_exact_all_cpus(struct ktest *t)
{
	static struct counter_test ct;
	int n;

	spin_init(&ct.lock, "counter-test");
	ct.counter = 0;
	ct.inside = 0;
	ct.overlap = 0;
	ct.wrong_owner = 0;
	ct.ready = 0;
	ct.nthreads = online_cpus() * COUNTER_THREADS_PER_CPU;
	n = run_on_each_cpu(t, "spin-counter", COUNTER_THREADS_PER_CPU,
			    counter_worker, &ct);
	KEXPECT_EQ(t, n, ct.nthreads);
	KEXPECT_EQ(t, ct.counter, (unsigned long)n * COUNTER_ITERS);
	KEXPECT_EQ(t, ct.overlap, 0);
	KEXPECT_EQ(t, ct.wrong_owner, 0);
}

/* spin_lock disables interrupts while held and spin_unlock restores the
 * state it had; spin_held follows the lock. */
static void lock_masks_irqs_and_held(struct ktest *t)
{
	static spinlock_t l = SPINLOCK_INIT("held-test");
	unsigned long flags;

	KASSERT(t, arch_irqs_enabled());
	KEXPECT(t, !spin_held(&l));
	flags = spin_lock(&l);
	KEXPECT(t, !arch_irqs_enabled());
	KEXPECT(t, spin_held(&l));
	KEXPECT(t, spin_owner(&l) == this_cpu());
	spin_unlock(&l, flags);
	KEXPECT(t, arch_irqs_enabled());
	KEXPECT(t, !spin_held(&l));

	/* With interrupts already off, unlock must leave them off. */
	flags = arch_irq_save();
	{
		unsigned long f2 = spin_lock(&l);

		spin_unlock(&l, f2);
	}
	KEXPECT(t, !arch_irqs_enabled());
	arch_irq_restore(flags);
	KEXPECT(t, arch_irqs_enabled());
}

/* trylock on a free lock succeeds; on a held one (even held by this
 * CPU) it fails without spinning or panicking. */
static void trylock_same_cpu(struct ktest *t)
{
	static spinlock_t l = SPINLOCK_INIT("trylock-test");
	unsigned long flags, f2 = 0;

	KASSERT(t, spin_trylock(&l, &flags));
	KEXPECT(t, spin_held(&l));
	KEXPECT(t, !arch_irqs_enabled());
	KEXPECT(t, !spin_trylock(&l, &f2));
	KEXPECT(t, spin_held(&l));
	spin_unlock(&l, flags);
	KEXPECT(t, !spin_held(&l));
	KEXPECT(t, arch_irqs_enabled());
	KASSERT(t, spin_trylock(&l, &flags));
	spin_unlock(&l, flags);
}

/*
 * Cross-CPU: this thread holds the lock on one CPU, a thread pinned on
 * another CPU must fail trylock and see spin_held() false; after the
 * unlock its trylock must succeed.
 */
struct cross {
	spinlock_t lock;
	volatile int phase;	/* 1: held by A, 2: B tried, 3: released */
	volatile int a_timed_out;
	volatile int b_got_while_held, b_saw_held, b_got_after;
};

/* Pinned on one CPU: hold the lock until B has tried it (or 5 s). */
static void cross_a(void *arg)
{
	struct cross *x = arg;
	unsigned long flags = spin_lock(&x->lock);
	uint64_t deadline = clock_ns() + 5 * NSEC_PER_SEC;

	smp_mb();
	x->phase = 1;
	while (x->phase != 2 && clock_ns() < deadline)
		arch_cpu_relax();
	x->a_timed_out = x->phase != 2;
	spin_unlock(&x->lock, flags);
	smp_mb();
	x->phase = 3;
}

/* Pinned on another CPU. */
static void cross_b(void *arg)
{
	struct cross *x = arg;
	unsigned long flags;

	while (x->phase != 1)
		yield();
	x->b_got_while_held = spin_trylock(&x->lock, &flags);
	if (x->b_got_while_held)
		spin_unlock(&x->lock, flags);
	x->b_saw_held = spin_held(&x->lock);
	smp_mb();
	x->phase = 2;
	while (x->phase != 3)
		yield();
	x->b_got_after = spin_trylock(&x->lock, &flags);
	if (x->b_got_after)
		spin_unlock(&x->lock, flags);
}

static void trylock_other_cpu(struct ktest *t)
{
	static struct cross x;
	int cpu_a = -1, cpu_b = -1;
	struct task *a, *b;

	for (int i = 0; i < ncpus; i++) {
		if (!cpu_by_id(i)->online)
			continue;
		if (cpu_a < 0)
			cpu_a = i;
		else if (cpu_b < 0)
			cpu_b = i;
	}
	if (cpu_b < 0)
		KSKIP(t, "needs >= 2 CPUs");
	spin_init(&x.lock, "cross-test");
	x.phase = 0;
	x.a_timed_out = 0;
	x.b_got_while_held = x.b_saw_held = x.b_got_after = 0;

	b = thread_create("spin-cross-b", cross_b, &x, cpu_b);
	KASSERT(t, b != NULL);
	a = thread_create("spin-cross-a", cross_a, &x, cpu_a);
	KASSERT(t, a != NULL);
	thread_join(a);
	thread_join(b);

	KEXPECT_EQ(t, x.a_timed_out, 0);
	KEXPECT_EQ(t, x.b_got_while_held, 0);
	KEXPECT_EQ(t, x.b_saw_held, 0);
	KEXPECT_EQ(t, x.b_got_after, 1);
}

/*
 * A contended lock waits through an asm thunk (arch_spin_acquire(),
 * arch.h) that must keep every register the caller may have live across
 * the swap: the compiler sees no call there.  Ten values are forced into
 * registers before the lock and read from them after it; one the thunk
 * did not keep changes the sum.  (The same function, uncontended, gives
 * the expected sum.)
 */
static __attribute__((noinline)) unsigned long live_across_lock(spinlock_t *l,
								 unsigned long s)
{
	unsigned long v0 = s + 1, v1 = s * 3, v2 = s ^ 0x5a5a, v3 = s << 3,
		      v4 = s >> 2, v5 = s * 7 + 1, v6 = ~s, v7 = s * s,
		      v8 = s + 0x1234, v9 = s ^ (s >> 7), flags;

	__asm__ __volatile__("" : "+r"(v0), "+r"(v1), "+r"(v2), "+r"(v3),
			     "+r"(v4));
	__asm__ __volatile__("" : "+r"(v5), "+r"(v6), "+r"(v7), "+r"(v8),
			     "+r"(v9));
	flags = spin_lock(l);
	__asm__ __volatile__("" : "+r"(v0), "+r"(v1), "+r"(v2), "+r"(v3),
			     "+r"(v4));
	__asm__ __volatile__("" : "+r"(v5), "+r"(v6), "+r"(v7), "+r"(v8),
			     "+r"(v9));
	spin_unlock(l, flags);
	return v0 ^ (v1 * 3) ^ (v2 + v3) ^ (v4 * v5) ^ (v6 - v7) ^ (v8 * v9);
}

struct live {
	spinlock_t lock;
	volatile int phase;	/* 1: held by the holder, 2: released */
	volatile int waiting;	/* the waiter is about to lock */
	unsigned long got;
};

/* Hold the lock until the waiter has been waiting for it 2 ms (it says
 * when it starts; 1 s at most for that). */
static void live_holder(void *arg)
{
	struct live *x = arg;
	unsigned long flags = spin_lock(&x->lock);
	uint64_t until = clock_ns() + NSEC_PER_SEC;

	smp_mb();
	x->phase = 1;
	while (!x->waiting && clock_ns() < until)
		arch_cpu_relax();
	until = clock_ns() + 2 * NSEC_PER_MSEC;
	while (clock_ns() < until)	/* the waiter spins meanwhile */
		arch_cpu_relax();
	spin_unlock(&x->lock, flags);
	x->phase = 2;
}

static void live_waiter(void *arg)
{
	struct live *x = arg;

	while (x->phase == 0)
		arch_cpu_relax();
	x->waiting = 1;
	smp_mb();
	x->got = live_across_lock(&x->lock, 0x9e3779b97f4a7c15UL);
}

static void contended_wait_keeps_registers(struct ktest *t)
{
	static struct live x;
	int cpus[2], n = 0;
	struct task *h, *w;
	unsigned long want;

	for (int i = 0; i < ncpus && n < 2; i++)
		if (cpu_by_id(i)->online)
			cpus[n++] = i;
	if (n < 2)
		KSKIP(t, "needs >= 2 CPUs");
	spin_init(&x.lock, "live-test");
	x.phase = 0;
	x.waiting = 0;
	x.got = 0;
	want = live_across_lock(&x.lock, 0x9e3779b97f4a7c15UL);
	w = thread_create("spin-live-w", live_waiter, &x, cpus[1]);
	KASSERT(t, w != NULL);
	h = thread_create("spin-live-h", live_holder, &x, cpus[0]);
	KASSERT(t, h != NULL);
	thread_join(h);
	thread_join(w);
	KEXPECT_EQ(t, x.got, want);
}

static struct ktest_case spinlock_cases[] = {
	KTEST_CASE_TIMEOUT(counter_exact_all_cpus, 120000),
	KTEST_CASE(lock_masks_irqs_and_held),
	KTEST_CASE(trylock_same_cpu),
	KTEST_CASE(trylock_other_cpu),
	KTEST_CASE(contended_wait_keeps_registers),
	{ 0 },
};
KTEST_SUITE(spinlock, spinlock_cases);
