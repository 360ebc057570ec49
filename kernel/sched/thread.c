/*
 * thread.c - kernel threads: create, exit, join, and the list of all
 * tasks for `ps`.
 *
 * Lifetime: a thread is created runnable; it ends in thread_exit(), which
 * marks it TASK_DEAD under its pi_lock and switches away for good.  The
 * joiner frees it, but only once on_cpu has dropped, i.e. once the dead
 * task's last switch has finished using its stack.  A detached thread is
 * freed by the task that runs after it (finish_task_switch).
 */
#include "internal.h"
#include "mutex.h"
#include "mm.h"
#include "string.h"
#include "trace.h"

static spinlock_t tasks_lock = SPINLOCK_INIT("tasks");
static LIST_HEAD(all_tasks);
static int next_tid = 1;

void task_init_common(struct task *t, const char *name)
{
	unsigned long flags;

	static const struct sched_attr normal = { .policy = SCHED_NORMAL };

	strlcpy(t->name, name, sizeof(t->name));
	spin_init(&t->pi_lock, "pi_lock");
	spin_init(&t->blocked_lock, "blocked_lock");
	list_init(&t->held_mutexes);
	list_init(&t->rq_node);
	list_init(&t->blocked_head);
	list_init(&t->blocked_node);
	t->sched_class = &fair_sched_class;
	t->policy = SCHED_NORMAL;
	t->static_prio = t->prio = NICE_TO_PRIO(0);
	fair_set_params(t, &normal);
	dl_init_task(t);
	t->cpus_allowed = ~0ULL;
	t->wake_cpu = -1;
	t->stack_slot = -1;
	flags = spin_lock(&tasks_lock);
	t->tid = next_tid++;
	list_add_tail(&t->all_node, &all_tasks);
	spin_unlock(&tasks_lock, flags);
	trace_task_named(t);
}

/*
 * Task cache: a freed task keeps its stack slot (the slot's pages stay
 * mapped anyway, see stack.c, and its guard page stays unmapped) and
 * waits here for the next task_alloc, which then skips kmalloc (a poison
 * check of the 1 KiB block), its zeroing, kfree's poisoning and the
 * stack slot search.  Bounded: a burst of many threads leaves at most
 * TASK_CACHE_MAX of them cached, and memory pressure empties it
 * (task_cache_drain, called by kmalloc before it gives up).
 *
 * A cached task is off all_tasks, so `ps`, the ktest leftovers check and
 * the trace's name table never see it; it is neither queued nor pinned
 * (task_free waited for proxy_pins, and for on_cpu through its callers).
 */
#define TASK_CACHE_MAX 8

static struct task *task_cache[TASK_CACHE_MAX];	/* tasks_lock */
static int task_cache_n;

/* Zero a task but for its stack, so a recycled task starts exactly like
 * a fresh kmalloc'd one.  Unrolled word stores, cheaper than memset()'s
 * alignment and length tests for this one fixed size; gcc must not turn
 * the loop back into a memset call. */
__attribute__((optimize("no-tree-loop-distribute-patterns")))
static void task_clear(struct task *t)
{
	uintptr_t base = t->stack_base;
	int slot = t->stack_slot;
	uint64_t *w = (uint64_t *)t;

	_Static_assert(sizeof(struct task) % sizeof(uint64_t) == 0,
		       "struct task is cleared in words");
#pragma GCC unroll 8
	for (size_t i = 0; i < sizeof(*t) / sizeof(uint64_t); i++)
		w[i] = 0;
	t->stack_base = base;
	t->stack_slot = slot;
}

static struct task *task_cache_get(void)
{
	struct task *t = NULL;
	unsigned long flags = spin_lock(&tasks_lock);

	if (task_cache_n > 0)
		t = task_cache[--task_cache_n];
	spin_unlock(&tasks_lock, flags);
	return t;
}

static void task_release(struct task *t)
{
	if (t->stack_slot >= 0)
		stack_free(t->stack_slot);
	kfree(t);
}

int task_cache_drain(void)
{
	int n = 0;
	struct task *t;

	while ((t = task_cache_get()) != NULL) {
		task_release(t);
		n++;
	}
	return n;
}

int task_cache_count(void)
{
	return READ_ONCE(task_cache_n);
}

static struct task *task_new(void)
{
	struct task *t = task_cache_get();
	int slot;

	if (t) {
		task_clear(t);
		return t;
	}
	t = kmalloc(sizeof(*t));
	if (!t)
		return NULL;
	t->stack_base = stack_alloc(&slot);
	if (!t->stack_base) {
		kfree(t);
		return NULL;
	}
	t->stack_slot = slot;
	return t;
}

struct task *task_alloc(const char *name, void (*fn)(void *), void *arg)
{
	struct task *t = task_new();
	int slot;

	if (!t)
		return NULL;
	slot = t->stack_slot;
	task_init_common(t, name);	/* sets stack_slot = -1 */
	t->stack_slot = slot;
	stack_set_owner(slot, t->name);
	t->fn = fn;
	t->arg = arg;
	t->state = TASK_SLEEPING;	/* not runnable until woken */
	if (fn)
		arch_context_init(&t->ctx,
				  (void *)(t->stack_base + TASK_STACK_PAGES * PAGE_SIZE),
				  task_trampoline, NULL);
	return t;
}

void task_free(struct task *t)
{
	unsigned long flags;
	bool kept;

	/* A waker bringing back donors parked on t (or t itself, parked)
	 * may still hold a pointer to it for a moment (proxy.c). */
	while (__atomic_load_n(&t->proxy_pins, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
	flags = spin_lock(&tasks_lock);
	list_del_init(&t->all_node);
	/* Off all_tasks and into the cache in one step (same lock). */
	kept = t->stack_slot >= 0 && task_cache_n < TASK_CACHE_MAX;
	if (kept)
		task_cache[task_cache_n++] = t;
	spin_unlock(&tasks_lock, flags);
	if (!kept)
		task_release(t);
}

/* First code of every new thread, entered from its first switch with
 * interrupts off and the runqueue lock held by the switch. */
void task_trampoline(void *unused)
{
	struct task *self;

	(void)unused;
	finish_task_switch();
	arch_irq_enable();
	self = current();
	self->fn(self->arg);
	thread_exit(0);
}

int thread_spawn(struct task **out, const char *name, void (*fn)(void *),
		 void *arg, const struct thread_opts *opts)
{
	static const struct thread_opts none;
	uint64_t allowed, online;
	struct task *t;
	int err;

	if (!opts)
		opts = &none;
	allowed = opts->affinity ? opts->affinity : ~0ULL;
	online = allowed & cpus_online_mask();
	if (!fn || !online)
		return -EINVAL;
	t = task_alloc(name, fn, arg);
	if (!t)
		return -ENOMEM;
	t->detached = opts->detached;
	t->cpus_allowed = allowed;
	/* Like Linux's current->kunit_test: a task created while a test
	 * case runs belongs to it, so that the case's leftovers can be
	 * found if it times out. */
	t->ktest_id = current()->ktest_id;
	/* Start from this CPU if allowed, else the first allowed one; the
	 * class's select_task_rq makes the real choice. */
	t->cpu = smp_processor_id();
	while (!(online >> t->cpu & 1))
		t->cpu = (t->cpu + 1) % ncpus;
	if (opts->attr) {
		err = sched_setattr(t, opts->attr);
		if (err) {
			task_free(t);
			return err;
		}
	}
	if (out)
		*out = t;
	wake_up_new_task(t);
	return 0;
}

static struct task *create(const char *name, void (*fn)(void *), void *arg,
			   int cpu, bool detached)
{
	struct thread_opts o = { .detached = detached };
	struct task *t;

	if (cpu >= ncpus || (cpu >= 0 && !cpus[cpu].online))
		return NULL;
	if (cpu >= 0)
		o.affinity = 1ULL << cpu;
	return thread_spawn(&t, name, fn, arg, &o) ? NULL : t;
}

struct task *thread_create(const char *name, void (*fn)(void *), void *arg,
			   int cpu)
{
	return create(name, fn, arg, cpu, false);
}

struct task *thread_create_detached(const char *name, void (*fn)(void *),
				    void *arg, int cpu)
{
	return create(name, fn, arg, cpu, true);
}

void thread_exit(int code)
{
	struct task *self, *joiner;

	mutex_check_exit(current());	/* exiting with a mutex held panics */
	/* No preemption from here: a preempted dead task would still be
	 * queued while its joiner frees it. */
	arch_irq_disable();
	self = this_cpu()->curr;
	if (self == this_cpu()->idle)
		panic("the idle task of cpu%d called thread_exit", self->cpu);
	/* Deadline bandwidth back, and no replenishment timer left armed
	 * for a task that once was throttled (any class now). */
	dl_task_dead(self);
	spin_lock_raw(&self->pi_lock);
	self->exit_code = code;
	WRITE_ONCE(self->state, TASK_DEAD);
	joiner = self->joiner;
	spin_unlock_raw(&self->pi_lock);
	if (joiner)
		wake_up(joiner);
	schedule();
	panic("dead task %s was scheduled again", self->name);
}

int thread_join(struct task *t)
{
	struct task *self = current();
	unsigned long flags;
	int code;

	if (!t || t == self || t->detached)
		return -EINVAL;
	for (;;) {
		WRITE_ONCE(self->state, TASK_SLEEPING);
		smp_mb();
		flags = spin_lock(&t->pi_lock);
		if (t->joiner && t->joiner != self) {
			spin_unlock(&t->pi_lock, flags);
			WRITE_ONCE(self->state, TASK_RUNNING);
			return -EINVAL;		/* someone else joins it */
		}
		if (t->state == TASK_DEAD) {
			spin_unlock(&t->pi_lock, flags);
			break;
		}
		t->joiner = self;
		spin_unlock(&t->pi_lock, flags);
		schedule();
		/* Woken.  TASK_DEAD is final and only we free t, so seeing it
		 * needs no pi_lock: the acquire keeps the on_cpu loads below
		 * after it (as the lock did), and exit_code is ordered by the
		 * on_cpu acquire (finish_task_switch's release follows
		 * thread_exit's stores on that CPU).  Not dead yet: a spurious
		 * wakeup, go round under the lock. */
		if (smp_load_acquire(&t->state) == TASK_DEAD)
			break;
	}
	WRITE_ONCE(self->state, TASK_RUNNING);
	/* Its last switch may still be running on its stack. */
	while (smp_load_acquire(&t->on_cpu))
		arch_cpu_relax();
	code = t->exit_code;
	task_free(t);
	return code;
}

void for_each_task(void (*fn)(struct task *t, void *arg), void *arg)
{
	unsigned long flags = spin_lock(&tasks_lock);
	struct list_head *pos;

	list_for_each(pos, &all_tasks)
		fn(list_entry(pos, struct task, all_node), arg);
	spin_unlock(&tasks_lock, flags);
}
