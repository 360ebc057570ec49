/*
 * fair_params.c - a fair task's parameters: the weight of its nice level
 * (Linux's sched_prio_to_weight, nice 0 = 1024) and its request length,
 * set by sched_setattr() and at creation (setattr.c); a weight change
 * keeps the task's lag.  The queue and the pick are fair.c's.
 */
#include "fair_internal.h"

/*
 * Linux's table: nice -20..19; each step is ~10% of CPU time between two
 * competing tasks (weights ~1.25 apart).
 */
static const unsigned long sched_prio_to_weight[40] = {
	/* -20 */ 88761, 71755, 56483, 46273, 36291,
	/* -15 */ 29154, 23254, 18705, 14949, 11916,
	/* -10 */ 9548, 7620, 6100, 4904, 3906,
	/*  -5 */ 3121, 2501, 1991, 1586, 1277,
	/*   0 */ 1024, 820, 655, 526, 423,
	/*   5 */ 335, 272, 215, 172, 137,
	/*  10 */ 110, 87, 70, 56, 45,
	/*  15 */ 36, 29, 23, 18, 15,
};

/*
 * Weight from p->static_prio, slice from @attr.  p is not queued (the
 * caller dequeued it with DEQUEUE_SAVE, or it sleeps, or it is new).  A
 * weight change keeps the lag w * vlag, so vlag (and a relative deadline)
 * scale by old/new weight, as Linux's reweight_entity.  A task entering
 * the class from another starts afresh at V.
 */
void fair_set_params(struct task *p, const struct sched_attr *attr)
{
	struct sched_entity *se = &p->se;
	int idx = p->static_prio - NICE_TO_PRIO(NICE_MIN);
	unsigned long w;

	BUG_ON(se->on_rq);
	if (idx < 0 || idx >= (int)ARRAY_SIZE(sched_prio_to_weight))
		panic("fair_set_params: %s has static_prio %d", p->name, p->static_prio);
	w = sched_prio_to_weight[idx];
	if (p->sched_class != &fair_sched_class) {
		se->vlag = 0;
		se->rel_deadline = false;
	} else if (se->weight && se->weight != w) {
		se->vlag = mul_div_s64(se->vlag, se->weight, w);
		if (se->rel_deadline)
			se->deadline = (uint64_t)mul_div_s64((int64_t)se->deadline,
							     se->weight, w);
	}
	se->weight = w;
	se->custom_slice = attr && attr->slice_ns;
	se->slice = se->custom_slice ? attr->slice_ns : SCHED_BASE_SLICE_NS;
}
