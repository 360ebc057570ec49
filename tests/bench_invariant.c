/*
 * bench_invariant.c - how long the real-time invariant is broken after
 * an event (docs/scheduler.md, "What runs"): the windows the checker
 * (kernel/sched/verify.c) measures while a mixed workload makes every
 * kind of event happen on every CPU.
 *
 *   invariant_window   worst and mean window, in virtual us under
 *                      -icount, and how many windows outlived a tick
 *
 * The workload, for N online CPUs, for RUN_NS of guest time:
 *   - 2N RT workers of distinct priorities, free affinity: bursts of
 *     20..200 us, sleeps of 100..600 us (wakeups, blocks, push, pull);
 *   - N/2 chains (at least one): a fair holder takes its mutex for
 *     bursts of 100..300 us, an RT waiter (FIFO 80+) locks the same mutex
 *     every 700 us (proxy execution, donor migration, unlock handoff);
 *   - one deadline task, 200 us every 1 ms (an RT task may wait behind
 *     it: cpupri and push must see it);
 *   - a shuffler that changes a worker's affinity every 2 ms and a
 *     worker's priority every 3 ms (affinity and class events).
 * Everybody sleeps between bursts, so under -icount every vCPU halts
 * often and QEMU's round robin hands the host thread on promptly: what
 * is measured is the kernel's window, one wakeup + one IPI + one pick.
 * The checker samples every SAMPLE_NS; a window's edges are refined to
 * the wakeup and the pick that end it (verify.c), so a window is known
 * to within one sample for other events.
 */
#include "bench.h"
#include "cpu.h"
#include "mutex.h"
#include "sched.h"
#include "sched_verify.h"
#include "timer.h"
#include "random.h"
#include <printf.h>

#define US NSEC_PER_USEC
#define RUN_NS (400 * NSEC_PER_MSEC)
#define SAMPLE_NS (20 * US)
#define MAX_WORKERS (2 * NR_CPUS)
#define MAX_CHAINS (NR_CPUS / 2)

static volatile bool iw_stop;

static void burn(uint64_t ns)
{
	uint64_t end = clock_ns() + ns;

	while (clock_ns() < end)
		;
}

static uint64_t between(uint64_t *seed, uint64_t lo, uint64_t hi)
{
	return lo + rand_next(seed) % (hi - lo + 1);
}

static void iw_worker(void *arg)
{
	uint64_t seed = 0x1234567ULL * (uintptr_t)arg + 1;

	while (!iw_stop) {
		burn(between(&seed, 20 * US, 200 * US));
		sleep_ns(between(&seed, 100 * US, 600 * US));
	}
}

struct iw_chain {
	struct mutex m;
	uint64_t seed;
};
static struct iw_chain chains[MAX_CHAINS];

static void iw_holder(void *arg)
{
	struct iw_chain *c = arg;

	while (!iw_stop) {
		mutex_lock(&c->m);
		burn(between(&c->seed, 100 * US, 300 * US));
		mutex_unlock(&c->m);
		sleep_ns(between(&c->seed, 50 * US, 400 * US));
	}
}

static void iw_waiter(void *arg)
{
	struct iw_chain *c = arg;

	while (!iw_stop) {
		mutex_lock(&c->m);
		burn(20 * US);
		mutex_unlock(&c->m);
		sleep_ns(700 * US);
	}
}

static void iw_deadline(void *arg)
{
	(void)arg;
	while (!iw_stop) {
		burn(150 * US);
		yield();		/* the job is done: sleep to the next period */
	}
}

static struct task *workers[MAX_WORKERS];
static int nworkers;

static void iw_shuffler(void *arg)
{
	uint64_t seed = 42, online = 0;

	(void)arg;
	for (int c = 0; c < ncpus; c++)
		if (cpus[c].online)
			online |= 1ULL << c;
	for (int round = 0; !iw_stop; round++) {
		struct task *w = workers[rand_next(&seed) % nworkers];

		sleep_ns(1000 * US);
		if (round % 2 == 0) {
			uint64_t mask = rand_next(&seed) & online;

			sched_setaffinity(w, mask ? mask : online);
		}
		if (round % 3 == 0) {
			struct sched_attr a = { .policy = SCHED_FIFO,
				.rt_priority = (int)between(&seed, 10, 60) };

			sched_setattr(w, &a);
		}
	}
}

static struct task *iw_spawn(const char *name, void (*fn)(void *), void *arg,
			     const struct sched_attr *a)
{
	struct thread_opts o = { .attr = a };
	struct task *t = NULL;

	return thread_spawn(&t, name, fn, arg, &o) ? NULL : t;
}

static void bench_invariant_window(void)
{
	static struct task *others[MAX_CHAINS * 2 + 2];
	int n = cpus_online(), nothers = 0, nchains = n / 2 ? n / 2 : 1;
	struct sched_attr fifo = { .policy = SCHED_FIFO };
	struct sched_attr dl = { .policy = SCHED_DEADLINE, .dl_runtime = 200 * US,
				 .dl_deadline = 1000 * US, .dl_period = 1000 * US };
	struct sched_verify_stats st;
	char detail[160];
	bool mine;
	int err;

	iw_stop = false;
	nworkers = 0;
	for (int i = 0; i < 2 * n && i < MAX_WORKERS; i++) {
		fifo.rt_priority = 10 + i;
		if ((workers[nworkers] = iw_spawn("iw-worker", iw_worker,
						  (void *)(uintptr_t)i, &fifo)))
			nworkers++;
	}
	for (int i = 0; i < nchains; i++) {
		mutex_init(&chains[i].m, "iw-mutex");
		chains[i].seed = 77 + i;
		others[nothers++] = iw_spawn("iw-holder", iw_holder, &chains[i], NULL);
		fifo.rt_priority = 80 + i;
		others[nothers++] = iw_spawn("iw-waiter", iw_waiter, &chains[i], &fifo);
	}
	others[nothers++] = iw_spawn("iw-deadline", iw_deadline, NULL, &dl);
	others[nothers++] = nworkers ? iw_spawn("iw-shuffler", iw_shuffler, NULL,
						&(struct sched_attr){ .policy = SCHED_FIFO,
								      .rt_priority = 95 })
				     : NULL;
	/* The checker may already run (sched_verify=on): then read what it
	 * saw meanwhile; otherwise run it for this bench, a tick as bound. */
	mine = !sched_verify_running();
	err = mine ? sched_verify_start(SAMPLE_NS, TICK_NS) : 0;
	sleep_ns(RUN_NS);
	iw_stop = true;
	if (mine && !err)
		sched_verify_stop();
	sched_verify_read(&st);
	/* The shuffler first: it touches the workers. */
	for (int i = nothers - 1; i >= 0; i--)
		if (others[i])
			thread_join(others[i]);
	for (int i = 0; i < nworkers; i++)
		thread_join(workers[i]);
	if (err || !mine || nworkers < 2 * n || nothers < 2 * nchains + 2) {
		printk("# bench invariant_window: SKIP %s\n", err ? "checker refused" :
		       !mine ? "the checker already runs (sched_verify=on)" :
		       "could not create the threads");
		return;
	}
	snprintf(detail, sizeof(detail),
		 "%llu windows in %llu ms on %d CPUs (<10us %llu, <100us %llu, "
		 "<1ms %llu, <1 tick %llu, more %llu), %llu samples",
		 (unsigned long long)st.closed,
		 (unsigned long long)(RUN_NS / NSEC_PER_MSEC), n,
		 (unsigned long long)st.hist[0], (unsigned long long)st.hist[1],
		 (unsigned long long)st.hist[2], (unsigned long long)st.hist[3],
		 (unsigned long long)st.hist[4], (unsigned long long)st.samples);
	bench_report("invariant_window_max", st.worst_ns / US, "us", detail);
	bench_report("invariant_window_avg", st.closed ? st.total_ns / st.closed / US : 0,
		     "us", "mean of the windows above");
	snprintf(detail, sizeof(detail),
		 "closed by the CPU waited for after 0 / 1 / 2 / more switches: "
		 "%llu / %llu / %llu / %llu", (unsigned long long)st.picks[0],
		 (unsigned long long)st.picks[1], (unsigned long long)st.picks[2],
		 (unsigned long long)st.picks[3]);
	bench_report("invariant_first_pick", st.closed ?
		     (st.picks[0] + st.picks[1]) * 1000 / st.closed : 0, "permille",
		     detail);
	bench_report("invariant_misses", st.misses, "windows",
		     "longer than one tick (4 ms): the bound's target");
}
BENCH(invariant_window, "how long the N most important contexts wait after an event",
      bench_invariant_window);
