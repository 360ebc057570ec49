/*
 * helpers.c - helpers shared by the in-kernel test suites (helpers.h).
 */
#include "helpers.h"
#include "cpu.h"
#include "mm.h"
#include "sched.h"
#include "timer.h"
#include "trace.h"
#include <printf.h>

struct percpu_start {
	struct percpu_work work;
	void (*fn)(struct percpu_work *w);
};

static void percpu_thread(void *arg)
{
	struct percpu_start *s = arg;

	s->fn(&s->work);
}

int run_on_each_cpu(struct ktest *t, const char *name, int per_cpu,
		    void (*fn)(struct percpu_work *w), void *data)
{
	struct percpu_start *starts;
	struct task **tasks;
	int n = 0;

	starts = kmalloc(PERCPU_MAX_THREADS * sizeof(*starts));
	tasks = kmalloc(PERCPU_MAX_THREADS * sizeof(*tasks));
	if (!starts || !tasks) {
		ktest_fail(t, __FILE__, __LINE__, "out of memory");
		kfree(starts);
		kfree(tasks);
		return 0;
	}
	for (int cpu = 0; cpu < ncpus; cpu++) {
		if (!cpu_by_id(cpu)->online)
			continue;
		for (int k = 0; k < per_cpu && n < PERCPU_MAX_THREADS; k++) {
			struct percpu_start *s = &starts[n];

			s->work = (struct percpu_work){ t, cpu, n, data };
			s->fn = fn;
			tasks[n] = thread_create(name, percpu_thread, s, cpu);
			if (!tasks[n]) {
				ktest_fail(t, __FILE__, __LINE__,
					   "thread_create on cpu%d failed", cpu);
				continue;
			}
			n++;
		}
	}
	for (int i = 0; i < n; i++) {
		int code = thread_join(tasks[i]);

		if (code != 0)
			ktest_fail(t, __FILE__, __LINE__,
				   "worker %d (cpu%d) exited with %d", i,
				   starts[i].work.cpu, code);
	}
	kfree(starts);
	kfree(tasks);
	return n;
}

int online_cpus(void)
{
	int n = 0;

	for (int i = 0; i < ncpus; i++)
		n += READ_ONCE(cpu_by_id(i)->online) ? 1 : 0;
	return n;
}

int spare_online_cpu(uint64_t used)
{
	for (int c = 0; c < ncpus; c++)
		if (READ_ONCE(cpu_by_id(c)->online) && !((used >> c) & 1))
			return c;
	return -1;
}

int other_online_cpu(void)
{
	int self = smp_processor_id();
	int c = spare_online_cpu(1ULL << self);

	return c < 0 ? self : c;
}

void spin_delay_ns(uint64_t ns)
{
	uint64_t end = clock_ns() + ns;

	while (clock_ns() < end)
		arch_cpu_relax();
}

static bool in_window(const struct trace_event *ev, uint64_t from,
		      uint64_t to, uint64_t cpus)
{
	return ev->ts >= from && ev->ts <= to && ((cpus >> ev->cpu) & 1);
}

void print_trace_window(uint64_t from, uint64_t to, uint64_t cpus,
			unsigned max_lines, const char *what)
{
	static struct trace_event ev;	/* too big for a stack; one case runs */
	struct trace_snapshot *s = trace_snapshot();
	uint64_t n = 0, skip;

	if (!s)
		return;
	while (trace_snapshot_next(s, &ev))
		n += in_window(&ev, from, to, cpus);
	trace_snapshot_free(s);
	if (!n || !(s = trace_snapshot()))
		return;
	skip = n > max_lines ? n - max_lines : 0;
	printk("# trace of cpus %#llx from %llu to %llu, %s (%llu events%s):\n",
	       (unsigned long long)cpus, (unsigned long long)from,
	       (unsigned long long)to, what, (unsigned long long)n,
	       skip ? ", the last ones" : "");
	while (trace_snapshot_next(s, &ev)) {
		if (!in_window(&ev, from, to, cpus) || (skip && skip--))
			continue;
		printk("#   %llu %d %s\n", (unsigned long long)ev.ts, ev.cpu,
		       ev.line);
	}
	trace_snapshot_free(s);
}
