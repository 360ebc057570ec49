/*
 * proxy.h - what core.c and the tests use of proxy execution (proxy.c).
 * Included by internal.h.
 */
#ifndef SCHED_PROXY_H
#define SCHED_PROXY_H
#include "sched.h"
#include "blocked_on.h"

/*
 * True if the pick must not run @p itself but follow its blocked_on
 * chain: proxy mode and p waits for a mutex (or is marked PROXY_WAKING,
 * which the walk resolves to p itself).
 */
static inline bool proxy_blocked(const struct task *p)
{
	/* blocked_on first: it is almost always NULL, and next to fields
	 * the pick just read. */
	return __builtin_expect(READ_ONCE(p->blocked_on) != NULL, 0) &&
	       locking_mode == LOCKING_PROXY;
}

/*
 * True if @p, queued on @cpu, may not run there: it was lent to an owner
 * on that CPU (wake_cpu set, see find_proxy_task) or @cpu is outside its
 * affinity.  Such a task is only ever a donor there; the wakeup that
 * hands it its lock moves it back first (try_to_wake_up).
 */
static inline bool proxy_lent(const struct task *p, int cpu)
{
	return p->wake_cpu >= 0 || !((p->cpus_allowed >> cpu) & 1);
}

/* The task to run for the picked, blocked @donor; NULL to pick again
 * (the donor left the runqueue or moved, or the chain changed); or
 * rq->idle, with need_resched set, to let a task of the chain that is
 * still on this CPU (prev) switch out before the chain moves.  rq->lock
 * held; it may be dropped and retaken (the chain moving, see proxy.c). */
struct task *find_proxy_task(struct rq *rq, struct task *donor);
/* Give rq's scheduling context to idle, so that @donor (rq->donor) can
 * leave the runqueue or the CPU.  rq->lock held. */
void proxy_donor_to_idle(struct rq *rq, struct task *donor);
/*
 * Push/pull move chains, never half of one (docs/proxy.md, "What may
 * move").  The chain of @p, queued on @rq: p itself, and if p is blocked
 * on a mutex, the owner, its owner in turn..., as long as they are
 * queued on @rq.  proxy_chain_of() fills @c and returns true if a
 * balancer may move the whole chain: p is its head (no task queued on
 * @rq waits on a mutex p owns: moving the end or a middle link would
 * leave the tasks before it behind); every member is queued on @rq and
 * neither running, nor being switched, nor rq's donor (so the current
 * chain of a CPU never moves); every blocked member is asleep on a real
 * mutex; at most PROXY_CHAIN_MAX members; and it ends either
 *   - at a task that is not blocked (the one that would run for them
 *     all), or is a woken waiter (PROXY_WAKING: it runs itself, to look
 *     at its lock) not lent here: c->cpus is where that last member
 *     may run, the others only lend their context there; or
 *   - at a blocked member whose owner is queued or running on another
 *     CPU: the chain goes on there, so the members here may only be
 *     lent to that CPU, as the pick would move them (proxy_migrate):
 *     c->lend is set and c->cpus is that one CPU.  A donor outranked
 *     where it waits, never picked there, still reaches its owner.
 * rq->lock held.
 *
 * proxy_chain_move(): move a chain found under both locks (held) from
 * @src to @dst (in c->cpus).  Like move_queued_task(), it does not
 * decide preemption on @dst: wakeup_preempt_rq(dst, c->task[0]).
 */
#define PROXY_CHAIN_MAX 8
struct proxy_chain {
	struct task *task[PROXY_CHAIN_MAX];
	unsigned n;
	bool lend;
	uint64_t cpus;
};
bool proxy_chain_of(struct rq *rq, struct task *p, struct proxy_chain *c);
void proxy_chain_move(struct rq *src, struct rq *dst,
		      const struct proxy_chain *c);

/* core.c's __schedule: @prev just blocked on a mutex whose owner runs on
 * another CPU that prev's context would not speed up: true if it should
 * leave the runqueue at once, as a plain waiter.  rq->lock held. */
bool proxy_prev_sleeps(struct rq *rq, struct task *prev);

/* Always-on checks when a pick runs @next for @donor != next: panics
 * naming the tasks. */
void proxy_check_pick(struct rq *rq, struct task *donor, struct task *next);
/* @owner was woken: bring back the donors parked on it.  No locks. */
void proxy_wake_donors(struct task *owner);
/* @p is being woken by someone else: take it off the owner it is parked
 * on, if any.  p->pi_lock held. */
void proxy_unpark(struct task *p);

/* wakeup.c: wake a donor parked on an owner that woke on @cpu; it goes to
 * @cpu, lent there if its affinity does not allow it (p->wake_cpu).
 * Only if it still waits for a mutex and has not parked elsewhere. */
void wake_up_donor(struct task *p, int cpu);

/* The hops a deadlock report names (proxy_deadlock_report, sched.h). */
#define PROXY_MAX_REPORT_HOPS 16
/* How many times a donor's chain moved to its owner's CPU (racy count,
 * for the tests and the shell). */
extern unsigned long proxy_nr_migrations;
/* How many times push/pull moved a chain of two or more tasks. */
extern unsigned long proxy_nr_chain_moves;
#endif
