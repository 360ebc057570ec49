/*
 * sched.h - tasks (kernel threads), runqueues and scheduling classes.
 *
 * Shape of Linux's kernel/sched: core.c is the mechanism, each policy is
 * one file ending with its struct sched_class: stop_task.c, deadline.c,
 * rt.c, fair.c, idle.c (a sentinel that always has a task).  The runqueue
 * already distinguishes the task whose code runs (rq->curr, the execution
 * context) from the task whose scheduling parameters are used (rq->donor,
 * the scheduling context); until proxy execution they are always equal.
 */
#ifndef SCHED_H
#define SCHED_H
#include "kernel.h"
#include "list.h"
#include "spinlock.h"
#include "arch.h"
#include "cpu.h"		/* preemption, this_cpu() */
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

/* Scheduling policies (Linux's numbers) and their classes. */
enum sched_policy {
	SCHED_NORMAL = 0,	/* fair class, EEVDF */
	SCHED_FIFO = 1,		/* RT class, run until block/yield/preempt */
	SCHED_RR = 2,		/* RT class, round robin at rt_rr_slice_ns */
	SCHED_DEADLINE = 6,	/* deadline class, EDF + CBS */
};
#define NICE_MIN (-20)
#define NICE_MAX 19
#define RT_PRIO_MIN 1		/* sched_attr.rt_priority: 1..99, higher wins */
#define RT_PRIO_MAX 99
#define MAX_RT_PRIO 100
/*
 * Effective priority, task->prio, on Linux's scale (lower is more
 * important): -1 deadline, 0..99 RT (99 - rt_priority), 100..139 fair
 * (120 + nice).  For display and RT queue indexing; classes compare their
 * own parameters.
 */
#define DL_PRIO (-1)
#define NICE_TO_PRIO(n) (120 + (n))

/*
 * struct sched_attr - what a task asks of the scheduler.  Fields that do
 * not belong to @policy must be zero.  All times in nanoseconds.
 */
struct sched_attr {
	int policy;			/* enum sched_policy */
	int nice;			/* SCHED_NORMAL: NICE_MIN..NICE_MAX */
	int rt_priority;		/* SCHED_FIFO/RR: RT_PRIO_MIN..RT_PRIO_MAX */
	uint64_t slice_ns;		/* SCHED_NORMAL: EEVDF request, 0 = default */
	uint64_t dl_runtime;		/* SCHED_DEADLINE: budget per period */
	uint64_t dl_deadline;		/*   relative deadline */
	uint64_t dl_period;		/*   period, 0 = dl_deadline */
};

/*
 * The range of deadline parameters: DL_RUNTIME_MIN_NS <= dl_runtime <=
 * dl_deadline <= period, DL_PERIOD_MIN_NS <= period <= DL_PERIOD_MAX_NS,
 * where period is dl_period, or dl_deadline when dl_period is 0.
 * sched_setattr() and thread_spawn() refuse anything else with -EINVAL,
 * the scenario parser with a line:column error naming the field.
 *
 * Each period costs the task's CPU a replenishment interrupt, a budget
 * interrupt and two switches, about 10 us under QEMU (TCG), and that
 * time is charged to the budget.  With a budget under 10 us the task
 * would hardly run, and its timers would come due again before the
 * interrupt that armed them had returned: with 1024 ns (the old limit)
 * the timer interrupt never returned and the CPU wedged.  The minimum
 * period is Linux's (sysctl_sched_dl_period_min, 100 us): it bounds the
 * interrupt load of one task to two per 100 us.  The maximum is Linux's
 * default too, and lets two periods multiply in 64 bits (deadline.c).
 */
#define DL_RUNTIME_MIN_NS (10 * NSEC_PER_USEC)
#define DL_PERIOD_MIN_NS (100 * NSEC_PER_USEC)
#define DL_PERIOD_MAX_NS (4 * NSEC_PER_SEC)

#include "sched_fair.h"		/* struct sched_entity */
#include "sched_rt.h"		/* struct sched_rt_entity */
#include "sched_dl.h"		/* struct sched_dl_entity */

/* Private to kernel/sched/ (internal.h): a class and a runqueue. */
struct sched_class;
struct rq;

struct task {
	struct arch_context ctx;	/* must stay first for asm offsets */
	int tid;
	char name[TASK_NAME_LEN] __attribute__((aligned(8)));	/* word copies
					   (trace_task_named) */
	volatile int state;		/* enum task_state */

	/* Scheduling: which class and with what (see sched_attr) */
	const struct sched_class *sched_class;
	int policy;			/* enum sched_policy */
	int prio;			/* effective, Linux scale (above) */
	int static_prio;		/* NICE_TO_PRIO(nice) */
	int rt_priority;		/* 1..99 for FIFO/RR, else 0 */
	struct sched_entity se;		/* fair class */
	struct sched_rt_entity rt;	/* RT class */
	struct sched_dl_entity dl;	/* deadline class */

	int on_rq;			/* queued on cpu's runqueue (rq lock) */
	volatile int on_cpu;		/* running, or still switching out;
					   cleared with a release store after
					   the switch (finish_task_switch) */
	int cpu;			/* CPU whose runqueue has/had it */
	int wake_cpu;			/* proxy: the CPU it left when it was
					   lent to an owner on another CPU, or
					   -1.  Set, it may not run where it is
					   queued: its wakeup moves it back
					   (try_to_wake_up) */
	uint64_t cpus_allowed;		/* affinity: bit n = may run on CPU n */
	uint64_t sum_exec_ns;		/* execution time: charged to the task
					   that ran (rq->curr) */
	uint64_t exec_start_ns;		/* when it last started running */
	uint64_t ready_ns;		/* when it was last queued by a wakeup
					   (rq clock; sched_verify) */
	uint64_t nr_switches;
	uint64_t nr_migrations;

	/* Wakeup serialisation (Linux's p->pi_lock). */
	spinlock_t pi_lock;

	/* Mutexes and proxy execution (mutex.h, kernel/sched/proxy.c).
	 * blocked_on and blocked_donor change under blocked_lock. */
	spinlock_t blocked_lock;
	struct mutex *blocked_on;	/* mutex waited for, PROXY_WAKING or
					   NULL */
	struct task *blocked_donor;	/* proxy: the donor that ran us last;
					   mutex_unlock hands the lock to it */
	struct list_head held_mutexes;	/* struct mutex.held_node, owned */
	struct list_head blocked_head;	/* proxy: donors parked on us while
					   we sleep (their blocked_node) */
	struct list_head blocked_node;	/* proxy: on the sleeping owner's
					   blocked_head */
	struct task *parked_on;		/* proxy: that owner, or NULL; with
					   blocked_node under the owner's
					   blocked_lock */
	int proxy_pins;			/* atomic: proxy_wake_donors() still
					   uses this task; task_free waits */
	struct task *pi_donor;		/* inherit: whose priority we run
					   with, or NULL */

	/* Lifetime */
	void (*fn)(void *);
	void *arg;
	int exit_code;
	struct task *joiner;		/* task sleeping in thread_join */
	bool detached;			/* freed at exit instead of joined */
	bool untraced;			/* its own wakeups and switches are
					   not recorded (trace.h,
					   sleep_ns_untraced()); set by the
					   task itself */
	unsigned ktest_id;		/* the test case it belongs to: set
					   for a case's thread, inherited by
					   every task created by a tagged one
					   (kernel/ktest.c); 0: none */
	struct list_head all_node;	/* all_tasks list (tasks_lock) */
	struct list_head rq_node;	/* on rq->tasks while queued (rq->lock) */

	/* Stack: [stack_base, stack_base + TASK_STACK_PAGES*PAGE_SIZE),
	 * with an unmapped guard page just below stack_base. */
	uintptr_t stack_base;
	int stack_slot;
};

/* ---- Thread API (kernel/sched/thread.c) ---------------------------------- */

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
/*
 * Create a thread with scheduling attributes and an affinity mask (0: all
 * CPUs), optionally detached.  Stores the task in *@out.  Returns 0,
 * -EINVAL (bad attributes, or no online CPU in @affinity), -EBUSY
 * (deadline admission refused) or -ENOMEM.  Task context.
 */
struct thread_opts {
	const struct sched_attr *attr;	/* NULL: SCHED_NORMAL, nice 0 */
	uint64_t affinity;		/* 0: every CPU */
	bool detached;
};
int thread_spawn(struct task **out, const char *name, void (*fn)(void *),
		 void *arg, const struct thread_opts *opts);
/* End the calling thread with @code.  Never returns.  Returning from fn
 * is thread_exit(0). */
void thread_exit(int code) __noreturn;
/* Wait until @t has exited, free it, return its exit code.  Task context.
 * -EINVAL if @t is detached, the caller, or already joined. */
int thread_join(struct task *t);

/* The running task on this CPU (rq->curr): one load (cpu.h). */
static inline struct task *current(void)
{
	return current_task();
}
/* Whose scheduling context this CPU runs with (rq->donor): current(), or
 * under proxy execution the blocked task current() runs on behalf of. */
struct task *current_donor(void);

/* ---- What runs: snapshots for ps, panic and assertions ---------------- */

/* The name of @p's class: "stop", "deadline", "rt", "fair" or "idle".
 * Racy (a class change may be under way); any context. */
const char *task_class_name(const struct task *p);
/* The name of the class tasks of @policy (SCHED_*) run in; NULL if it
 * is not a policy. */
const char *sched_policy_class_name(int policy);

/* What CPU @cpu runs, read without locks (consistent only inside
 * stop_machine(); panic reads it as it is).  Before the scheduler is up
 * on that CPU, curr and donor are NULL. */
struct sched_cpu_view {
	struct task *curr;		/* whose code runs */
	struct task *donor;		/* whose scheduling context: curr, or
					   under proxy execution the blocked
					   task curr runs for */
	unsigned nr_running;		/* queued tasks, idle excluded */
};
void sched_cpu_view(int cpu, struct sched_cpu_view *v);

/* The scheduling context the caller runs with, read at one moment under
 * its runqueue's lock: the donor (current(), or the blocked task it runs
 * for), that task's class name and effective priority.  Task context. */
struct sched_context {
	struct task *donor;
	const char *class_name;
	int prio;
};
void sched_current_context(struct sched_context *ctx);
/* The scheduling context task @p runs with, or would run with: its
 * CPU's donor while @p is that CPU's curr, else @p's own (possibly
 * inherited) parameters.  @p must not exit meanwhile.  Task context. */
void sched_task_context(struct task *p, struct sched_context *ctx);

/* Deadlock reports of proxy execution (kernel/sched/proxy.c), for the
 * scenario runner and the tests: how many blocked_on cycles were found,
 * and the last one, as printed. */
#define PROXY_REPORT_LEN 256
extern unsigned long proxy_nr_deadlocks;
extern char proxy_deadlock_report[PROXY_REPORT_LEN];

/* ---- Scheduler API (kernel/sched/core.c) ---------------------------- */

void sched_init(void);		/* boot CPU, once */
void sched_init_cpu(struct cpu *c);	/* each CPU: rq + idle task */
void sched_init_smp(void);	/* boot CPU, after smp_boot: stoppers */
/* Boot CPU, in smp_boot() before it starts another CPU: from now on
 * the scheduler keeps the state other CPUs read (sched_smp). */
void sched_smp_begin(void);
void schedule(void);		/* pick and switch; task context */
void yield(void);
/* Sleep for at least @ns nanoseconds.  Task context. */
void sleep_ns(uint64_t ns);
/* Sleep until clock_ns() >= @deadline_ns.  Task context. */
void sleep_until(uint64_t deadline_ns);
/* CPU time @p has had, including the stretch it is running now.  A
 * snapshot; any context but under a runqueue lock (it takes p's). */
uint64_t task_exec_ns(struct task *p);
/*
 * Block: the caller sets current()->state = TASK_SLEEPING, publishes
 * itself somewhere a waker will find it, then calls schedule().
 * wake_up() makes @p runnable (on its CPU, or another chosen by its class)
 * and returns true if it was sleeping.  Any context.  Remote runqueues get
 * an IPI_RESCHED when the woken task should preempt.
 */
bool wake_up(struct task *p);
/*
 * Change @p's policy and parameters (see struct sched_attr).  Takes
 * effect at once, also for a running or queued task.  Returns 0, -EINVAL
 * for an invalid or inconsistent attribute (never clamped; deadline
 * parameters outside DL_RUNTIME_MIN_NS etc., above), -EBUSY when
 * deadline admission control refuses the bandwidth, -ESRCH for a change
 * into or out of SCHED_DEADLINE of a task that is exiting.  Task context.
 */
int sched_setattr(struct task *p, const struct sched_attr *attr);
void sched_getattr(struct task *p, struct sched_attr *attr);
/*
 * Restrict @p to the CPUs in @mask.  A task running or queued on a CPU
 * outside the mask is moved (by the stop class when it is running) before
 * this returns.  -EINVAL if @mask has no online CPU.  Task context.
 */
int sched_setaffinity(struct task *p, uint64_t mask);

/* RT throttling, per CPU (rt.c): RT may use @runtime_ns of every
 * @period_ns while lower-class tasks wait (default 950 ms / 1 s;
 * runtime == period: never throttle); time used past the budget is owed
 * by the next periods.  Setting it starts every CPU's period afresh,
 * with nothing owed.  -EINVAL unless 0 < runtime <= period and
 * 10 ms <= period <= 10 s.  Any context. */
int sched_rt_set_bandwidth(uint64_t runtime_ns, uint64_t period_ns);
void sched_rt_get_bandwidth(uint64_t *runtime_ns, uint64_t *period_ns);

/* The SCHED_RR slice (rt.c), default 100 ms (Linux's RR_TIMESLICE).
 * Takes effect at each task's next refill.  -EINVAL below TICK_NS (RR
 * rotates at the tick, a shorter slice would be silently rounded up) or
 * above 10 s.  Any context. */
int sched_rr_set_slice(uint64_t ns);
uint64_t sched_rr_get_slice(void);

/*
 * Deadline admission (deadline.c): the limit, in percent of all online
 * CPUs together (default 95).  Set: 0, -EINVAL outside 1..100, -EBUSY if
 * the deadline tasks admitted now would exceed it.  dl_bw_total():
 * admitted bandwidth, 1 << 20 == one CPU.  Any task context.
 */
int dl_bw_limit_set(unsigned percent);
unsigned dl_bw_limit_get(void);
uint64_t dl_bw_total(void);

/*
 * Run fn(arg) on @cpu in its stopper (stop class: nothing else runs
 * there meanwhile) and wait for it; returns fn's result, -EINVAL for an
 * offline CPU.  Task context.
 */
int stop_one_cpu(int cpu, int (*fn)(void *), void *arg);
/*
 * Run fn(arg) once, on the calling CPU with interrupts off, while every
 * other online CPU spins in its stopper with interrupts off: a consistent
 * snapshot of scheduler state (the shell's `ps`).  fn must be short and
 * must not sleep.  Returns fn's result.  Task context.
 */
int stop_machine(int (*fn)(void *), void *arg);

/* Enter the idle loop of this CPU; used by kmain/secondary_main. */
void cpu_idle_loop(void) __noreturn;

/* Called by the tick (timer.c) on every CPU. */
void scheduler_tick(void);
/* ---- Priority inheritance support (kernel/sched/inherit.c) ---------- */

/*
 * True if @a's effective scheduling context (its own, or the one it
 * inherited) should run before @b's: deadline before RT before fair; an
 * earlier absolute deadline; a higher RT priority.  Fair tasks never
 * rank before each other here (inherit mode boosts only RT and deadline,
 * like Linux's rt_mutex).  Any context; racy reads are fine for ranking.
 */
bool sched_prio_before(struct task *a, struct task *b);

/*
 * Inherit mode: run @p with @donor's scheduling context (class, RT
 * priority or absolute deadline) if that ranks before p's own, or with
 * its own if @donor is NULL or does not.  Requeues p where it is
 * queued.  Task or irq context; takes p->pi_lock and p's rq lock.
 */
void sched_set_pi_donor(struct task *p, struct task *donor);

/* Walk every task for `ps` (holding tasks_lock; fn must not sleep). */
void for_each_task(void (*fn)(struct task *t, void *arg), void *arg);
#endif
