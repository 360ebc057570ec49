/*
 * fair.c - the fair class: EEVDF, as Linux has used since 6.6
 * (kernel/sched/fair.c), for SCHED_NORMAL tasks.  The queue's V sums
 * and its tree are in fair_tree.c, CPU selection and the load balancer
 * that spreads tasks over the CPUs in fair_balance.c, a task's weight
 * and slice (sched_setattr) in fair_params.c.
 *
 * Earliest Eligible Virtual Deadline First.  Every task has a weight from
 * its nice level (Linux's sched_prio_to_weight, nice 0 = 1024) and a
 * request size, its slice (sched_attr.slice_ns, default 3 ms as Linux's
 * base slice).  Running for delta ns advances its virtual runtime by
 * delta * 1024 / weight.  V is the weighted average of the queue's
 * virtual runtimes (running task included); an ideal fluid scheduler
 * would have every task at V, so lag_i = V - v_i is what the task is
 * owed.  A task is eligible when lag_i >= 0 (v_i <= V).  Its virtual
 * deadline is v_i + slice * 1024 / weight, renewed when it has run its
 * slice.  The pick: among eligible tasks, the earliest virtual deadline.
 *
 * The tree (Linux's current shape): entities ordered by virtual deadline,
 * each node augmented with the minimum vruntime of its subtree.  The
 * leftmost eligible node is found by walking down: go left while the left
 * subtree holds an eligible entity (its min_vruntime <= V), else take
 * this node if eligible, else go right -- O(log n), pick_eevdf().
 *
 * V without drift: sum (v_i - min_vruntime) * w_i and sum w_i are kept
 * for the tree's entities (min_vruntime only moves forward, the sum is
 * adjusted when it does); the running entity is not in the tree and is
 * added in when V is read (avg_vruntime()).  Eligibility compares
 * sum_key >= key_i * sum_w, no division (vruntime_eligible()).
 *
 * Lag across sleep and migration: leaving the queue stores vlag = V - v
 * (clamped, update_entity_lag()); coming back places v = V' - vlag on the
 * new queue, inflated so the lag survives the entity's own effect on V'
 * (place_entity(), Linux's placement strategy).  A migration therefore
 * subtracts the old queue's V and adds the new one's.  Out for a move or
 * a parameter change (not sleep), the deadline is kept relative.
 *
 * Simplified from Linux, on purpose: no cgroups (one level), load = sum of
 * weights (no PELT), no buddies.  DELAY_DEQUEUE is emulated at wakeup: a
 * task that slept with negative lag comes back with min(0, V_now - v) on
 * the same queue -- the lag it would have had had it stayed queued,
 * ineligible, until V reached it (then DELAY_ZERO) -- instead of keeping
 * its whole debt; this keeps short sleepers eligible on wakeup.
 * RUN_TO_PARITY: a picked task keeps the CPU until its request is used up
 * unless a waking task asks for a shorter slice (PREEMPT_SHORT).  HRTICK
 * is on: a one-shot timer ends the running request on time, where the
 * 4 ms tick alone would stretch 3 ms requests into 4-7 ms turns.
 *
 * Locking: every op runs with its rq->lock held and interrupts off; the
 * running task is taken out of the tree by set_next_task, as in Linux.
 * Unlike Linux, put_prev_task does not put it back: it stays curr,
 * "parked" (cfs->curr_parked), and competes in the pick as curr.  When a
 * higher class's task preempts a fair one and then sleeps, as an RT
 * task woken by a timer does, the same fair task usually runs next and
 * its tree insertion and removal are saved (about 100 instructions on an
 * RT wakeup).  Whoever needs it in the tree puts it there (fair_unpark():
 * set_next_task for another entity, the load balancer).  A switch
 * between fair tasks does both at once (fair_pick_next).
 */
#include "fair_internal.h"
#include "timer.h"

/* How far (virtual ns) min_vruntime, the base of the keys, may trail the
 * smallest vruntime before update_curr_fair() moves it on.  Only the
 * keys' size depends on it (V and eligibility do not): a tick's worth
 * keeps the products of vruntime_eligible() far from overflow (4 ms
 * times the largest weight, 88761, is 3.6e11 per entity; the sums
 * overflow near 9.2e18).  With 1 ms, two fair tasks taking turns moved
 * it about every 2 ms of their time, most of those at a switch: 60
 * instructions of update_curr_fair()'s slow path in one RT wakeup of
 * three (rt_wakeup_lat). */
#define MIN_VRUNTIME_SLACK_NS ((int64_t)TICK_NS)

/*
 * Would update_min_vruntime() move the key base on by more than the
 * slack, the running entity being at @v?  It moves it to the smaller of
 * @v and the tree's smallest vruntime, so while a queued entity trails
 * the running one by more than the slack (two fair tasks taking turns:
 * most of the time) it cannot: asking it anyway cost a call at almost
 * every switch.
 */
static inline bool min_vruntime_behind(const struct cfs_rq *cfs, uint64_t v)
{
	const struct rb_node *root = cfs->tasks_timeline.rb_root.rb_node;

	if ((int64_t)(v - cfs->min_vruntime) <= MIN_VRUNTIME_SLACK_NS)
		return false;
	return !root || (int64_t)(__node_2_se(root)->min_vruntime -
				  cfs->min_vruntime) > MIN_VRUNTIME_SLACK_NS;
}

/* delta ns of real time in @se's virtual time. */
static inline uint64_t calc_delta_fair(uint64_t delta, const struct sched_entity *se)
{
	if (se->weight != NICE_0_LOAD)
		delta = delta * NICE_0_LOAD / se->weight;
	return delta;
}

/*
 * EEVDF's choice among two or more entities: the eligible one (vruntime
 * at or before V, the weighted average: __vruntime_eligible()) with the
 * earliest virtual deadline.  @first is the tree's earliest deadline
 * (NULL: empty tree), @curr the running entity if it is queued (else
 * NULL: it competes from outside the tree).  With @protect, a running
 * entity that is still eligible and protected (RUN_TO_PARITY) is kept;
 * without, it competes as from the tree, after equal deadlines (a tie
 * goes to the queued one).  O(log n): the tree is ordered by deadline
 * and each node knows the smallest vruntime below it (min_vruntime), so
 * a walk from the root finds the leftmost eligible entity.
 */
static inline __attribute__((always_inline)) struct sched_entity *
eevdf_choose(struct cfs_rq *cfs, struct sched_entity *curr,
	     struct sched_entity *first, bool protect)
{
	/* LAB 7 BEGIN: eligibility, then the earliest eligible deadline */
	struct rb_node *node = cfs->tasks_timeline.rb_root.rb_node;
	struct sched_entity *se = first, *best = NULL;
	int64_t avg, load;

	/* V's sums do not change during the pick: read them once. */
	avg_sums(cfs, &avg, &load);
	if (curr && !__vruntime_eligible(cfs, avg, load, curr->vruntime))
		curr = NULL;
	if (protect && curr && curr->protect)
		return curr;
	/* The earliest deadline of all, if it is eligible. */
	if (se && __vruntime_eligible(cfs, avg, load, se->vruntime)) {
		best = se;
		goto found;
	}
	while (node) {
		struct rb_node *left = node->rb_left;

		/* An eligible entity on the left has an earlier deadline
		 * than anything here or on the right. */
		if (left && __vruntime_eligible(cfs, avg, load,
						__node_2_se(left)->min_vruntime)) {
			node = left;
			continue;
		}
		se = __node_2_se(node);
		if (__vruntime_eligible(cfs, avg, load, se->vruntime)) {
			best = se;
			break;
		}
		node = node->rb_right;
	}
found:
	if (!best || (curr && entity_before(curr, best)))
		best = curr;
	return best;
	/* LAB 7 STUB
	(void)cfs;
	(void)protect;
	if (!first || (curr && entity_before(curr, first)))
		return curr;
	return first;
	LAB 7 END */
}

/* The entity to run next on @cfs (docs/labs/lab7_eevdf.md). */
static inline __attribute__((always_inline)) struct sched_entity *
__pick_eevdf(struct cfs_rq *cfs, bool protect)
{
	struct rb_node *first = rb_first_cached(&cfs->tasks_timeline);
	struct sched_entity *se = first ? __node_2_se(first) : NULL;
	struct sched_entity *curr = cfs->curr, *best;

	if (curr && !curr->on_rq)
		curr = NULL;
	if (cfs->nr_running == 1)
		return curr ? curr : se;
	best = eevdf_choose(cfs, curr, se, protect);
	/* Someone is always eligible (lag sums to zero): a broken sum or
	 * tree otherwise. */
	BUG_ON(!best);
	return best;
}

struct sched_entity *pick_eevdf(struct cfs_rq *cfs, bool protect)
{
	return __pick_eevdf(cfs, protect);
}

/* ---- Lag, placement, deadlines ---------------------------------------- */

/* Leaving the queue: remember what it is owed, bounded (Linux: two
 * slices or a tick, in the entity's virtual time). */
static void update_entity_lag(struct cfs_rq *cfs, struct sched_entity *se)
{
	int64_t vlag = (int64_t)(avg_vruntime(cfs) - se->vruntime);
	int64_t limit = (int64_t)calc_delta_fair(MAX(2 * se->slice, TICK_NS), se);

	se->vlag = vlag < -limit ? -limit : vlag > limit ? limit : vlag;
	se->lag_cfs_rq = cfs;
}

/*
 * Give @se its vruntime and deadline on @cfs before it is counted there.
 * A waking task keeps its lag (see the file header for the negative
 * case); a new one starts at V with half a request, as Linux (the others
 * are on average half-way through theirs).
 */
static void place_entity(struct cfs_rq *cfs, struct sched_entity *se, int flags)
{
	uint64_t V = avg_vruntime(cfs), vslice;
	int64_t lag = se->vlag;

	if (!se->custom_slice)
		se->slice = SCHED_BASE_SLICE_NS;
	vslice = calc_delta_fair(se->slice, se);

	/* DELAY_DEQUEUE emulation: the debt shrinks as V moves on. */
	if ((flags & ENQUEUE_WAKEUP) && lag < 0 && se->lag_cfs_rq == cfs) {
		int64_t now = (int64_t)(V - se->vruntime);

		lag = now >= 0 ? 0 : MAX(lag, now);
	}
	if (cfs->nr_running && lag) {
		int64_t avg, load;

		/*
		 * Adding w_i at v_i = V - vl moves V to V - w_i*vl/(W + w_i),
		 * leaving a lag of vl*W/(W + w_i): inflate vl by (W + w_i)/W
		 * so that the lag after placement is the one remembered.
		 */
		avg_sums(cfs, &avg, &load);
		if (load)
			lag = mul_div_s64(lag, (uint64_t)load + se->weight, (uint64_t)load);
	}
	se->vruntime = V - lag;
	se->vlag = 0;
	if (se->rel_deadline) {
		se->deadline += se->vruntime;
		se->rel_deadline = false;
		return;
	}
	if (flags & ENQUEUE_NEW)
		vslice /= 2;
	se->deadline = se->vruntime + vslice;
}

/* The running request is used up: issue the next one.  True if so. */
static bool update_deadline(struct sched_entity *se)
{
	if ((int64_t)(se->vruntime - se->deadline) < 0)
		return false;
	if (!se->custom_slice)
		se->slice = SCHED_BASE_SLICE_NS;
	se->deadline = se->vruntime + calc_delta_fair(se->slice, se);
	se->protect = false;
	return true;
}

/* Scheduling-context time of the donor: virtual runtime, deadline.
 * The class op is update_curr_fair(); a yield's charge does not ask for
 * a resched (@resched false): the pick follows. */
static inline __attribute__((always_inline)) void
__update_curr_fair(struct rq *rq, struct task *donor, uint64_t delta,
		   bool resched)
{
	struct cfs_rq *cfs = &rq->cfs;
	struct sched_entity *curr = &donor->se;

	BUG_ON(cfs->curr != curr);
	curr->vruntime += calc_delta_fair(delta, curr);
	if (update_deadline(curr) && resched && cfs->nr_running > 1)
		resched_curr(rq);
	/* The key base may trail by up to MIN_VRUNTIME_SLACK_NS: keys stay
	 * small, and a switch does not pay for its upkeep each time. */
	if (__builtin_expect(min_vruntime_behind(cfs, curr->vruntime), 0))
		update_min_vruntime(cfs);
}

static __attribute__((noinline)) void
update_curr_fair_slow(struct rq *rq, struct task *donor, uint64_t delta)
{
	__update_curr_fair(rq, donor, delta, true);
}

/*
 * Every switch from a fair task (and every tick) passes here.  Its
 * commonest case, a nice-0 task still inside its request with the key
 * base close enough, is a leaf without a frame: the rest is a tail call
 * to __update_curr_fair() (about 12 instructions fewer per switch on
 * riscv64, rt_wakeup_lat).
 */
static __no_frame void update_curr_fair(struct rq *rq, struct task *donor,
					uint64_t delta)
{
	struct cfs_rq *cfs = &rq->cfs;
	struct sched_entity *curr = &donor->se;
	uint64_t v = curr->vruntime + delta;

	if (__builtin_expect(cfs->curr == curr &&
			     curr->weight == NICE_0_LOAD &&
			     (int64_t)(v - curr->deadline) < 0 &&
			     !min_vruntime_behind(cfs, v), 1)) {
		curr->vruntime = v;
		return;
	}
	update_curr_fair_slow(rq, donor, delta);
}

/* Bring the running task's vruntime up to rq->clock_ns before V is used:
 * through core's one accounting path, which calls update_curr_fair. */
static void sync_curr(struct rq *rq)
{
	if (rq->cfs.curr && !rq->cfs.curr_parked)
		update_curr(rq);
}

/*
 * HRTICK: end the running request when it is used up rather than at the
 * next tick.  With 4 ms ticks a 3 ms request would otherwise be a 4-7 ms
 * turn, and the systematic overshoot leaves some tasks lagging with
 * early deadlines that a short-slice waker then has to wait behind.
 * Armed only on the rq's own CPU (timers fire where armed) and only with
 * someone to switch to.  It is never cancelled and only moved earlier: a
 * stale expiry just re-checks and re-arms (hrtick_fn), which costs one
 * interrupt per request at most, where moving the timer on every switch
 * would cost a queue operation per switch.  For a curr that runs (not
 * parked: callers check).
 *
 * hrtick_expiry(): when it must fire to end the request of @se, which
 * runs.
 */
static inline __attribute__((always_inline)) uint64_t
hrtick_expiry(struct rq *rq, struct sched_entity *se)
{
	int64_t vleft = (int64_t)(se->deadline - se->vruntime);

	if (vleft < 0)
		vleft = 0;
	/* Back to real time, rounded up so the request is surely used up. */
	return rq->clock_ns + ((uint64_t)vleft * se->weight + NICE_0_LOAD - 1) / NICE_0_LOAD;
}

/* Is the HRTICK armed to fire by @expiry?  Only this CPU arms or fires
 * it, and irqs are off: no race here; armed (t->cpu set) means armed
 * here. */
static inline bool hrtick_armed_by(struct rq *rq, uint64_t expiry)
{
	struct timer *t = &rq->cfs.hrtick;

	DEBUG_ASSERT(t->cpu < 0 || t->cpu == cpu_of(rq));
	return t->cpu >= 0 && t->deadline_ns <= expiry;
}

static inline __attribute__((always_inline)) void
__hrtick_start(struct rq *rq, struct sched_entity *se)
{
	uint64_t expiry;

	DEBUG_ASSERT(se == rq->cfs.curr && rq->cfs.nr_running >= 2 &&
		     rq == this_rq() && !rq->cfs.curr_parked);
	expiry = hrtick_expiry(rq, se);
	if (__builtin_expect(hrtick_armed_by(rq, expiry), 1))
		return;
	timer_arm(&rq->cfs.hrtick, expiry);
}

/* For rq->cfs.curr, which runs (callers check), when someone else is
 * queued and rq is this CPU's. */
static inline void hrtick_start(struct rq *rq)
{
	struct sched_entity *se = rq->cfs.curr;

	if (!se || rq->cfs.nr_running < 2 || rq != this_rq())
		return;
	__hrtick_start(rq, se);
}

static void task_tick_fair(struct rq *rq, struct task *p);

static void hrtick_fn(struct timer *t)
{
	struct rq *rq = t->data;
	uint64_t next, now;

	/* This CPU switches at the end of this interrupt anyway (a task
	 * woken here outranks curr): that switch charges curr (put_prev),
	 * and the next fair curr arms the HRTICK again.  Nothing to do, and
	 * the woken task should not wait for it (rt_wakeup_lat). */
	if (READ_ONCE(rq->cpu->need_resched))
		return;
	/* A stale expiry (the HRTICK is never cancelled): no fair task
	 * runs here now (a higher class took the CPU); the next fair curr
	 * arms it again.  Only this CPU changes its donor. */
	if (rq->donor->sched_class != &fair_sched_class)
		return;
	/* Run early (t->early) with another timer, and nothing to switch
	 * to: the request is not used up yet. */
	now = clock_ns();
	if (now < t->deadline_ns) {
		timer_arm(t, t->deadline_ns);
		return;
	}
	/* Another timer of this CPU is due right behind (or is due now and
	 * runs next in this interrupt): end the request after it, not now.
	 * Ending it switches to another fair task, and a task that timer
	 * wakes would wait for that switch (rt_wakeup_lat's worst case);
	 * then the switch is to it, or this runs again.  The request runs
	 * over by TIMER_EARLY_NS at most: the window in which the timers
	 * count a hint and a timer as one (timer.h). */
	next = timer_next_local();
	if (next <= now + TIMER_EARLY_NS) {
		timer_arm(t, next > now ? next : now);
		return;
	}
	spin_lock_raw(&rq->lock);
	update_rq_clock(rq);
	update_curr(rq);	/* renews the deadline, reschedules */
	if (rq->cfs.curr && !rq->cfs.curr_parked &&
	    !READ_ONCE(rq->cpu->need_resched)) {
		task_tick_fair(rq, task_of(rq->cfs.curr));
		if (!READ_ONCE(rq->cpu->need_resched))
			hrtick_start(rq);
	}
	spin_unlock_raw(&rq->lock);
}

/* ---- Class operations (rq->lock held, irqs off, for all) --------------- */

static void init_rq_fair(struct rq *rq)
{
	rq->cfs = (struct cfs_rq){ .tasks_timeline = RB_ROOT_CACHED };
	timer_init(&rq->cfs.hrtick, hrtick_fn, rq);
	rq->cfs.hrtick.early = true;	/* with a wakeup just before it */
	init_balance_fair(rq);
}

static void enqueue_task_fair(struct rq *rq, struct task *p, int flags)
{
	struct cfs_rq *cfs = &rq->cfs;
	struct sched_entity *se = &p->se;

	if (se->on_rq)
		panic("fair: %s enqueued twice on cpu%d", p->name,
		      cpu_of(rq));
	BUG_ON(!se->weight);
	sync_curr(rq);
	place_entity(cfs, se, flags);
	if (cfs->curr != se)
		__enqueue_entity(cfs, se);
	se->on_rq = true;
	cfs->load += se->weight;
	cfs->nr_running++;
	update_min_vruntime(cfs);
	add_nr_running(rq, 1);
	if (cfs->nr_running == 2 && !cfs->curr_parked)
		hrtick_start(rq);	/* now there is someone to switch to */
}

static void dequeue_task_fair(struct rq *rq, struct task *p, int flags)
{
	struct cfs_rq *cfs = &rq->cfs;
	struct sched_entity *se = &p->se;

	BUG_ON(!se->on_rq || !cfs->nr_running);
	sync_curr(rq);
	update_entity_lag(cfs, se);
	if (!(flags & DEQUEUE_SLEEP)) {
		/* Back soon (move, parameter change): keep the request. */
		se->deadline -= se->vruntime;
		se->rel_deadline = true;
	}
	if (cfs->curr != se) {
		__dequeue_entity(cfs, se);
	} else if (cfs->curr_parked) {
		/* Not running: no put_prev_task will come for it. */
		cfs->curr = NULL;
		cfs->curr_parked = false;
	}
	se->on_rq = false;
	cfs->load -= se->weight;
	cfs->nr_running--;
	update_min_vruntime(cfs);
	sub_nr_running(rq, 1);
	BUG_ON(!cfs->nr_running && (cfs->load || cfs->avg_load || cfs->avg_vruntime));
}

/*
 * yield(): skip the rest of the current request (Linux: deadline += one
 * request) and give up the lag that keeps the others waiting: vruntime
 * rises to the least-served queued task's, so that one is eligible and
 * -- with equal weights -- has the earlier deadline.  Linux stops at the
 * first part, so a yielder that others trail in vruntime runs again; a
 * caller of yield() here expects someone else to run, as POSIX says.
 */
static inline __attribute__((always_inline)) void
__yield_entity(struct sched_entity *se, uint64_t least)
{
	se->vruntime = MAX((int64_t)(se->vruntime - least), 0) + least;
	if ((int64_t)(se->deadline - se->vruntime) < 0)
		se->deadline = se->vruntime;
	se->deadline += calc_delta_fair(se->slice, se);
	se->protect = false;
	/* min_vruntime may lag behind now: only the keys' base, V does not
	 * depend on it; the next update_curr_fair() advances it. */
}

static inline __attribute__((always_inline)) void yield_task_fair(struct rq *rq)
{
	struct cfs_rq *cfs = &rq->cfs;
	struct sched_entity *se = &rq->donor->se;
	struct rb_node *root = cfs->tasks_timeline.rb_root.rb_node;

	if (cfs->nr_running <= 1 || cfs->curr != se || !root)
		return;
	__yield_entity(se, __node_2_se(root)->min_vruntime);
}

/*
 * @p woke onto @rq, whose donor is fair: preempt when p is the EEVDF pick
 * now.  A waker asking for a shorter slice than the running task's ends
 * the running task's protection (PREEMPT_SHORT).
 */
static void wakeup_preempt_fair(struct rq *rq, struct task *p)
{
	struct cfs_rq *cfs = &rq->cfs;
	struct sched_entity *se = &rq->donor->se, *pse = &p->se;

	if (se == pse || cfs->curr != se)
		return;
	sync_curr(rq);
	if (pse->slice < se->slice)
		se->protect = false;
	if (pick_eevdf(cfs, true) == pse)
		resched_curr(rq);
}

static struct task *pick_next_task_fair(struct rq *rq)
{
	if (!rq->cfs.nr_running)
		return NULL;
	return task_of(pick_eevdf(&rq->cfs, true));
}

/*
 * @p stops running.  Still queued, it is parked: it stays curr, out of
 * the tree and unprotected, and competes in the pick as curr does, which
 * is the order the tree would give it (after equal deadlines).  Most
 * often a higher class's task took the CPU (an RT wakeup over a fair
 * hog) and @p is what runs after it: then neither its insertion now nor
 * its removal then is needed.  set_next_task_fair() takes it back, or
 * puts it into the tree for another; dequeue_task_fair() drops it;
 * fair_unpark() puts it into the tree for whoever walks the tree.
 */
static void put_prev_task_fair(struct rq *rq, struct task *p)
{
	struct cfs_rq *cfs = &rq->cfs;
	struct sched_entity *se = &p->se;

	BUG_ON(cfs->curr != se || cfs->curr_parked);
	if (!se->on_rq) {
		cfs->curr = NULL;
		return;
	}
	se->protect = false;	/* its turn ended, as in the tree */
	cfs->curr_parked = true;
}

void fair_unpark(struct rq *rq)
{
	struct cfs_rq *cfs = &rq->cfs;

	if (!cfs->curr_parked)
		return;
	__enqueue_entity(cfs, cfs->curr);
	cfs->curr = NULL;
	cfs->curr_parked = false;
}

/* @p starts running: out of the tree, protected until its request ends. */
static void set_next_task_fair(struct rq *rq, struct task *p)
{
	struct cfs_rq *cfs = &rq->cfs;
	struct sched_entity *se = &p->se;

	BUG_ON(!se->on_rq);
	if (cfs->curr_parked && cfs->curr == se) {
		cfs->curr_parked = false;	/* it runs again */
	} else {
		fair_unpark(rq);
		BUG_ON(cfs->curr);
		__dequeue_entity(cfs, se);
		cfs->curr = se;
	}
	se->protect = true;
	hrtick_start(rq);
}

/*
 * core.c's fast path: @prev, the running fair task, stops (it may be
 * dequeued) and only fair tasks are queued.  As put_prev + pick + set_next
 * but picking first, prev competing as if in the tree (no run to parity:
 * it gives the CPU up), so the tree changes only if another task runs.
 * NULL, nothing done, if prev just entered the class (switched_to_fair).
 */
struct task *fair_pick_next(struct rq *rq, struct task *prev)
{
	struct cfs_rq *cfs = &rq->cfs;
	struct sched_entity *pse = &prev->se, *se;

	BUG_ON(cfs->curr != pse);
	DEBUG_ASSERT(!cfs->curr_parked);	/* a fair donor runs */
	if (cfs->full_pick) {
		cfs->full_pick = false;
		return NULL;
	}
	se = __pick_eevdf(cfs, false);
	if (se != pse) {
		if (!pse->on_rq) {
			__dequeue_entity(cfs, se);
		} else if (!__replace_entity(cfs, se, pse)) {
			__enqueue_entity(cfs, pse);
			__dequeue_entity(cfs, se);
		}
		cfs->curr = se;
	}
	se->protect = true;
	hrtick_start(rq);
	return task_of(se);
}

/* yield_pick_fair() for all but two fair tasks. */
static __attribute__((noinline)) struct task *
yield_pick_fair_slow(struct rq *rq, struct task *prev, uint64_t delta)
{
	if (delta)
		__update_curr_fair(rq, prev, delta, false);
	if (rq->nr_running != rq->cfs.nr_running || rq->cfs.full_pick)
		return NULL;
	yield_task_fair(rq);
	return fair_pick_next(rq, prev);
}

/* The end of yield_pick_fair() when it has work that calls out: the
 * key base to move on, the HRTICK to arm for @next. */
static __attribute__((noinline)) struct task *
yield_pick_fair_finish(struct rq *rq, struct sched_entity *next)
{
	update_min_vruntime(&rq->cfs);
	__hrtick_start(rq, next);
	return task_of(next);
}

/*
 * yield() of @prev, the running fair donor, as one step (the class op's
 * conditions, internal.h): the charge of @delta, then, when every queued
 * task is fair, the yield and core.c's fair fast path (fair_pick_next())
 * without the pick's class tests.  NULL, only the charge done,
 * otherwise, or when prev just entered the class (full_pick: the full
 * pick must look).
 *
 * Two tasks, the commonest yield, here; the rest in
 * yield_pick_fair_slow().  prev runs, the tree holds the other one.
 * The yield moves prev's vruntime to at least the other's, so the other
 * is eligible (V lies between the two) and prev only if at the other's
 * vruntime; of the eligible the earlier deadline runs, a tie going to
 * the queued one: the answer of __pick_eevdf(cfs, false) without V's
 * sums.  This case calls nothing unless the key base must move on or
 * the HRTICK be armed (yield_pick_fair_finish()), so that it needs no
 * saved registers.
 */
static struct task *yield_pick_fair(struct rq *rq, struct task *prev,
				    uint64_t delta)
{
	struct cfs_rq *cfs = &rq->cfs;
	struct sched_entity *se = &prev->se, *next;

	if (rq->nr_running != 2 || cfs->nr_running != 2 || cfs->full_pick)
		return yield_pick_fair_slow(rq, prev, delta);
	/* __update_curr_fair() but for the key base (below) and the
	 * resched (this is the pick). */
	BUG_ON(cfs->curr != se);
	se->vruntime += calc_delta_fair(delta, se);
	update_deadline(se);
	next = __node_2_se(cfs->tasks_timeline.rb_root.rb_node);
	DEBUG_ASSERT(se->on_rq && !cfs->curr_parked &&
		     !next->run_node.rb_left && !next->run_node.rb_right &&
		     next->min_vruntime == next->vruntime);
	__yield_entity(se, next->vruntime);
	if (se->vruntime == next->vruntime && entity_before(se, next))
		next = se;
	DEBUG_ASSERT(next == __pick_eevdf(cfs, false));
	if (next != se) {
		__replace_only(cfs, next, se);
		cfs->curr = next;
	}
	next->protect = true;
	/* prev's vruntime is the larger: the base may trail it by the
	 * slack (see update_curr_fair()). */
	if (__builtin_expect(min_vruntime_behind(cfs, se->vruntime) ||
			     !hrtick_armed_by(rq, hrtick_expiry(rq, next)), 0))
		return yield_pick_fair_finish(rq, next);
	return task_of(next);
}

/* Tick (core charged the time first): switch when someone else is the
 * pick, e.g. the running task became ineligible after its request. */
static void task_tick_fair(struct rq *rq, struct task *p)
{
	struct cfs_rq *cfs = &rq->cfs;

	if (cfs->nr_running > 1 && pick_eevdf(cfs, true) != &p->se)
		resched_curr(rq);
}

/* @p entered the class (sched_setattr).  If it runs, the CPU may have
 * lowered its class: the next pick must let the classes above pull
 * (->balance), which the fast path (fair_pick_next) skips. */
static void switched_to_fair(struct rq *rq, struct task *p)
{
	if (rq->donor == p)
		rq->cfs.full_pick = true;
}

const struct sched_class fair_sched_class = {
	.name = "fair",
	.rank = 1,
	.init_rq = init_rq_fair,			/* boot, no lock */
	.enqueue_task = enqueue_task_fair,		/* rq->lock */
	.dequeue_task = dequeue_task_fair,		/* rq->lock */
	.yield_task = yield_task_fair,			/* rq->lock */
	.yield_pick = yield_pick_fair,			/* rq->lock */
	.wakeup_preempt = wakeup_preempt_fair,		/* rq->lock */
	.pick_next_task = pick_next_task_fair,		/* rq->lock */
	.put_prev_task = put_prev_task_fair,		/* rq->lock */
	.set_next_task = set_next_task_fair,		/* rq->lock */
	.task_tick = task_tick_fair,			/* rq->lock */
	.update_curr = update_curr_fair,		/* rq->lock */
	.select_task_rq = select_task_rq_fair,		/* p->pi_lock */
	.balance = balance_fair,			/* rq->lock, dropped */
	.switched_to = switched_to_fair,		/* rq->lock, p->pi_lock */
};
