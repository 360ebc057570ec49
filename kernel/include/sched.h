/*
 * sched.h - tasks (kernel threads), runqueues and scheduling classes.
 *
 * Shape of Linux's kernel/sched: core.c is the mechanism, each policy is
 * one file ending with its struct sched_class.  This issue has one simple
 * class (fair.c, round robin) and the idle class (idle.c, a sentinel that
 * always has a task).  The next issues add stop, deadline and RT classes
 * and proxy execution: the runqueue already distinguishes the task whose
 * code runs (rq->curr, the execution context) from the task whose
 * scheduling parameters are used (rq->donor, the scheduling context).
 * Without proxy execution they are always equal.
 */
#ifndef SCHED_H
#define SCHED_H
#include "kernel.h"
#include "list.h"
#include "spinlock.h"
#include "arch.h"
#include "stack_layout.h"

struct cpu;
struct rq;
struct task;

enum task_state {
	TASK_RUNNING,		/* runnable or running */
	TASK_SLEEPING,		/* waiting for a wakeup */
	TASK_DEAD,		/* exited, waiting to be joined */
};

#define TASK_NAME_LEN 24
#define TASK_STACK_PAGES STACK_PAGES	/* stack_layout.h */

struct task {
	struct arch_context ctx;	/* must stay first for asm offsets */
	int tid;
	char name[TASK_NAME_LEN];
	volatile int state;		/* enum task_state */

	/* Scheduling */
	const struct sched_class *sched_class;
	int on_rq;			/* queued on cpu's runqueue (rq lock) */
	volatile int on_cpu;		/* running, or still switching out;
					   cleared with a release store after
					   the switch (finish_task_switch) */
	int cpu;			/* CPU whose runqueue has/had it */
	uint64_t cpus_allowed;		/* affinity: bit n = may run on CPU n */
	struct list_head run_node;	/* fair.c list (rq lock) */
	uint64_t slice_end_ns;		/* fair.c: preempt after this */
	uint64_t sum_exec_ns;		/* execution time charged to it */
	uint64_t exec_start_ns;		/* when it last started running */
	uint64_t nr_switches;
	int prio;			/* reserved for the classes to come */

	/* Wakeup serialisation (Linux's p->pi_lock). */
	spinlock_t pi_lock;

	/* Lifetime */
	void (*fn)(void *);
	void *arg;
	int exit_code;
	struct task *joiner;		/* task sleeping in thread_join */
	bool detached;			/* freed at exit instead of joined */
	struct list_head all_node;	/* all_tasks list (tasks_lock) */

	/* Stack: [stack_base, stack_base + TASK_STACK_PAGES*PAGE_SIZE),
	 * with an unmapped guard page just below stack_base. */
	uintptr_t stack_base;
	int stack_slot;
};

/*
 * struct rq - one CPU's runqueue.  Every field is protected by rq->lock.
 */
struct rq {
	spinlock_t lock;
	struct cpu *cpu;
	struct task *curr;		/* execution context: code running */
	struct task *donor;		/* scheduling context (== curr here) */
	struct task *idle;
	unsigned nr_running;		/* queued tasks, idle excluded */
	struct list_head fair_queue;	/* fair.c: FIFO of runnable tasks */
	uint64_t clock_ns;		/* updated by update_rq_clock() */
	uint64_t nr_switches;
	struct task *prev;		/* set across a switch, see core.c */
};

/*
 * struct sched_class - one scheduling policy.  Classes are linked from the
 * highest (idle last); pick walks them in order and idle always returns a
 * task.  Every op is called with rq->lock held and interrupts disabled.
 */
struct sched_class {
	const char *name;
	const struct sched_class *next;	/* lower priority class */
	void (*enqueue_task)(struct rq *rq, struct task *p, int flags);
	void (*dequeue_task)(struct rq *rq, struct task *p, int flags);
	void (*yield_task)(struct rq *rq);
	/* Should @p (just woken on rq) preempt rq->donor? */
	void (*wakeup_preempt)(struct rq *rq, struct task *p);
	struct task *(*pick_next_task)(struct rq *rq);
	void (*put_prev_task)(struct rq *rq, struct task *p);
	void (*set_next_task)(struct rq *rq, struct task *p);
	void (*task_tick)(struct rq *rq, struct task *p);
	/* Choose a CPU for a waking/new task; caller holds p->pi_lock only. */
	int (*select_task_rq)(struct task *p, int prev_cpu);
};

extern const struct sched_class fair_sched_class;
extern const struct sched_class idle_sched_class;
#define sched_class_highest (&fair_sched_class)

/* ---- Thread API (kernel/thread.c) ---------------------------------- */

/*
 * Create a kernel thread running fn(arg), runnable at once on @cpu
 * (-1: let the scheduler choose).  Task context.  Returns the task or NULL
 * (out of memory / stack slots).  The task must be joined with
 * thread_join() unless created detached (thread_create_detached()).
 */
struct task *thread_create(const char *name, void (*fn)(void *), void *arg,
			   int cpu);
struct task *thread_create_detached(const char *name, void (*fn)(void *),
				    void *arg, int cpu);
/* End the calling thread with @code.  Never returns.  Returning from fn
 * is thread_exit(0). */
void thread_exit(int code) __noreturn;
/* Wait until @t has exited, free it, return its exit code.  Task context.
 * -EINVAL if @t is detached, the caller, or already joined. */
int thread_join(struct task *t);

/* The running task on this CPU (rq->curr). */
struct task *current(void);

/* ---- Scheduler API (kernel/sched/core.c) ---------------------------- */

void sched_init(void);		/* boot CPU, once */
void sched_init_cpu(struct cpu *c);	/* each CPU: rq + idle task */
void schedule(void);		/* pick and switch; task context */
void yield(void);
/* Sleep for at least @ns nanoseconds.  Task context. */
void sleep_ns(uint64_t ns);
/*
 * Block: the caller sets current()->state = TASK_SLEEPING, publishes
 * itself somewhere a waker will find it, then calls schedule().
 * wake_up() makes @p runnable (on its CPU, or another chosen by its class)
 * and returns true if it was sleeping.  Any context.  Remote runqueues get
 * an IPI_RESCHED when the woken task should preempt.
 */
bool wake_up(struct task *p);
/* Enter the idle loop of this CPU; used by kmain/secondary_main. */
void cpu_idle_loop(void) __noreturn;

/* Preemption: a per-CPU count; hardirq nesting is kept in the high bits. */
#define PREEMPT_MASK 0x0000ffff
#define HARDIRQ_OFFSET 0x00010000
void preempt_disable(void);
void preempt_enable(void);
bool in_interrupt(void);

/* Called by the tick (timer.c) on every CPU. */
void scheduler_tick(void);
/* Walk every task for `ps` (holding tasks_lock; fn must not sleep). */
void for_each_task(void (*fn)(struct task *t, void *arg), void *arg);
#endif
