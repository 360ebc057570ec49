/*
 * rt_bandwidth.c - the RT class's accounting and throttling: each CPU's
 * RT tasks may use at most rt_runtime_ns of every rt_period_ns (950 ms /
 * 1 s, Linux's defaults); past that, where a lower class waits, the RT
 * class steps aside (rt_stepping_aside(), internal.h) until the period
 * ends.  Also the RR slice's charge.  The queue, the pick and push/pull
 * are in rt.c; docs/sched-rt.md.
 */
#include "internal.h"

/* Throttling bandwidth; sched_rt_set_bandwidth(). */
static uint64_t rt_runtime_ns = 950 * NSEC_PER_MSEC;
static uint64_t rt_period_ns = 1000 * NSEC_PER_MSEC;

/*
 * Start a new period if the last one is over.  rq->lock held.
 *
 * Time used past the budget is a debt the next period pays, as in
 * Linux's do_sched_rt_period_timer(): each period that ended takes one
 * budget off rt_time, so an overrun (a late tick, a host that stopped
 * the vCPU while RT ran) is given back to the lower classes and RT gets
 * at most rt_runtime per rt_period in the long run.  Forgetting the
 * debt (rt_time = 0) let RT take 91% of a CPU at 60 ms / 100 ms on a
 * loaded host, where most ticks came late.
 *
 * The periods keep their grid (as Linux's hrtimer_forward): the next
 * ends a whole number of periods after the last, however late the roll
 * comes.  Starting it at the roll instead let every late period timer
 * (a stalled vCPU; the timer lives on the CPU that first noticed the
 * throttle, which may be another) lengthen all the periods after it: a
 * debt of nine periods once took 2.7 s on a loaded 8-CPU boot, 1.1 s
 * more than the stalls its CPU saw (sched_rt.throttling_debt_carries_
 * over).  A new budget (sched_rt_set_bandwidth) sets period_end_ns to 0:
 * the grid then counts from boot.
 */
static void __rt_period_roll(struct rq *rq)
{
	struct rt_rq *rt = &rq->rt;
	uint64_t period = READ_ONCE(rt_period_ns);
	uint64_t runtime = READ_ONCE(rt_runtime_ns), ended;

	ended = 1 + (rq->clock_ns - rt->period_end_ns) / period;
	rt->rt_time_ns -= MIN(rt->rt_time_ns, ended * runtime);
	rt->throttle_at_ns = runtime < period ? runtime : ~0ULL;
	rt->throttled = rt->rt_time_ns > rt->throttle_at_ns;
	rt->period_end_ns += ended * period;
}

/* Inline: update_curr_rt() asks at every switch of an RT task. */
static inline void rt_period_roll(struct rq *rq)
{
	if (rq->clock_ns >= rq->rt.period_end_ns)
		__rt_period_roll(rq);
}

/*
 * update_curr_rt()'s rare case: the period is over, or the budget is
 * used up (or was already: throttled).  @delta was added to rt_time_ns
 * already; it counts in the period that is open after the roll.
 */
static __attribute__((noinline)) void rt_budget_check(struct rq *rq,
						      uint64_t delta)
{
	struct rt_rq *rt = &rq->rt;
	uint64_t end = rt->period_end_ns;
	bool was_throttled = rt->throttled;

	if (rt->cpu < 0) {		/* a private rq: no budget */
		rt->rt_time_ns -= delta;
		return;
	}
	if (rq->clock_ns >= end) {
		rt->rt_time_ns -= delta;
		__rt_period_roll(rq);
		rt->rt_time_ns += delta;
	}
	if (rt->rt_time_ns > rt->throttle_at_ns)
		rt->throttled = true;
	/* Newly throttled, or a new period opened still in debt (the
	 * budget was lowered): the timer must be set for this period. */
	if (rt->throttled && (!was_throttled || rt->period_end_ns != end)) {
		/* On the CPU that notices; the callback locks rq by pointer. */
		timer_arm(&rt->period_timer, rt->period_end_ns);
		if (rt_stepping_aside(rq))
			resched_curr(rq);
	}
}

/*
 * Charge @delta of scheduling-context time to @donor (its RR slice) and
 * to this CPU's RT budget.  rq->lock held.  The common case, a period
 * still open and the budget not used up, is an add and two compares;
 * the period's end and throttling are rt_budget_check()'s.
 */
void update_curr_rt(struct rq *rq, struct task *donor, uint64_t delta)
{
	bool quick = rt_charge_quick(rq, delta);

	rt_charge_slice(donor, delta);
	rq->rt.rt_time_ns += delta;
	if (__builtin_expect(!quick, 0))
		rt_budget_check(rq, delta);
}

/* Period end: let the RT class pick again.  Interrupt context. */
void rt_period_timer_fn(struct timer *t)
{
	struct rq *rq = t->data;

	spin_lock_raw(&rq->lock);
	update_rq_clock(rq);
	if (rq->rt.throttled) {
		rt_period_roll(rq);
		if (rq->rt.throttled)		/* early, or in debt: wait more */
			timer_arm(t, rq->rt.period_end_ns);
		else if (rq->rt.rt_nr_running)
			resched_curr(rq);
	}
	spin_unlock_raw(&rq->lock);
}

int sched_rt_set_bandwidth(uint64_t runtime_ns, uint64_t period_ns)
{
	if (period_ns < 10 * NSEC_PER_MSEC || period_ns > 10 * NSEC_PER_SEC ||
	    runtime_ns == 0 || runtime_ns > period_ns)
		return -EINVAL;
	WRITE_ONCE(rt_period_ns, period_ns);
	WRITE_ONCE(rt_runtime_ns, runtime_ns);
	/* Every CPU starts afresh under the new budget: a period and a
	 * debt measured in the old one mean nothing now (a debt of 900 ms
	 * at 950 ms / 1 s would throttle a CPU for 15 periods at 60 ms /
	 * 100 ms).  A throttled CPU only looks at its period again when
	 * its period timer fires, possibly a whole old (longer) period
	 * from now: have it look now. */
	for (int cpu = 0; cpu < ncpus; cpu++) {
		struct rq *rq = cpu_rq(cpu);
		unsigned long flags;

		if (!READ_ONCE(cpus[cpu].online))
			continue;
		flags = arch_irq_save();
		spin_lock_raw(&rq->lock);
		rq->rt.rt_time_ns = 0;
		rq->rt.period_end_ns = 0;
		if (rq->rt.throttled)
			timer_arm(&rq->rt.period_timer, clock_ns());
		spin_unlock_raw(&rq->lock);
		arch_irq_restore(flags);
	}
	return 0;
}

void sched_rt_get_bandwidth(uint64_t *runtime_ns, uint64_t *period_ns)
{
	*runtime_ns = READ_ONCE(rt_runtime_ns);
	*period_ns = READ_ONCE(rt_period_ns);
}
