/*
 * builtin.c - where scenarios come from: the ones embedded in the kernel
 * (every .scn file in tests/scenarios/ and docs/labs/, put in by the
 * Makefile as $(BUILD)/scenarios.S with a name table), the shell, and
 * the boot command line (`scenario=NAME|all|module`, the last reading
 * the boot module: a multiboot module on x86_64, the initrd on riscv64).
 *
 * Every front end prints the same KTAP: a top-level plan with one
 * subtest per scenario (run.c), so the host runner's parser and judge
 * are the ones of ktest=.
 */
#include "scenario.h"
#include "boot.h"
#include "cpu.h"
#include "ktap.h"
#include "trace.h"
#include <string.h>

const struct scn_builtin *scenario_builtin_find(const char *name)
{
	for (uint64_t i = 0; i < scenario_nr_builtins; i++)
		if (strcmp(scenario_builtins[i].name, name) == 0)
			return &scenario_builtins[i];
	return NULL;
}

void scenario_list(void)
{
	for (uint64_t i = 0; i < scenario_nr_builtins; i++)
		printk("  %-20s %s\n", scenario_builtins[i].name,
		       scenario_builtins[i].path);
}

struct totals {
	int pass, fail, skip;
};

/* KTAP: the scenarios' results; a scenario's own lines (run.c writes
 * those of a scenario that runs). */
static const struct ktap top = { .depth = 0 };
static const struct ktap sub = { .depth = 1 };

/*
 * Parse and run one script as subtest @idx.  A script that needs more
 * CPUs than are online is a SKIP when @skip_cpus (scenario=all: the same
 * kernel boots at several CPU counts), an error otherwise.  Returns true
 * if it passed (or was skipped).
 */
static bool run_one(const char *what, const char *src, size_t len, int idx,
		    bool skip_cpus, bool dump, struct totals *tot)
{
	char err[SCN_ERR_LEN];
	struct scn_result res;
	struct scenario *s;
	int need;

	s = scenario_parse(src, len, cpus_online(), err, &need);
	if (!s && need && skip_cpus) {
		ktap_header(&sub, what, 1);
		ktap_skip(&sub, 1, "finished", "needs %d CPUs, %d online", need,
			  cpus_online());
		ktap_result(&top, true, idx, what, KTAP_SKIP, NULL);
		tot->skip++;
		return true;
	}
	if (!s) {
		ktap_header(&sub, what, 1);
		ktap_diag(&sub, "error: %s", err);
		ktap_result(&sub, false, 1, "parse", KTAP_NONE, NULL);
		ktap_result(&top, false, idx, what, KTAP_NONE, NULL);
		tot->fail++;
		return false;
	}
	if (scenario_run(s, idx, &res)) {
		ktap_diag(&sub, "error: a scenario is already running or out "
			  "of memory");
		ktap_result(&top, false, idx, s->name, KTAP_NONE, NULL);
		res.passed = false;
	}
	if (dump)
		trace_dump();
	scenario_free(s);
	if (res.passed)
		tot->pass++;
	else
		tot->fail++;
	return res.passed;
}

static void totals(const struct totals *t)
{
	ktap_totals(&top, t->pass, t->fail, t->skip);
}

int scenario_run_text(const char *src, size_t len)
{
	char err[SCN_ERR_LEN];
	struct totals t = { 0, 0, 0 };
	struct scenario *s;
	int need;

	/* Checked before any KTAP line: a typo gives one error line. */
	s = scenario_parse(src, len, cpus_online(), err, &need);
	if (!s) {
		printk("error: %s\n", err);
		return 1;
	}
	scenario_free(s);
	ktap_header(&top, NULL, 1);
	run_one("script", src, len, 1, false, false, &t);
	totals(&t);
	return t.fail ? 1 : 0;
}

/* The boot module, without the NUL padding some loaders add. */
static bool boot_module(const char **src, size_t *len)
{
	if (!boot_info->module_size)
		return false;
	*src = (const char *)(uintptr_t)boot_info->module_base;
	*len = boot_info->module_size;
	while (*len && (*src)[*len - 1] == '\0')
		(*len)--;
	printk("scenario: boot module at 0x%llx, %zu bytes\n",
	       (unsigned long long)boot_info->module_base, *len);
	return true;
}

int scenario_boot(const char *arg, bool dump)
{
	struct totals t = { 0, 0, 0 };
	const struct scn_builtin *b;
	const char *src;
	size_t len;

	if (strcmp(arg, "module") == 0) {
		if (!boot_module(&src, &len)) {
			printk("scenario=module: no boot module / initrd "
			       "given\n");
			return 1;
		}
		ktap_header(&top, NULL, 1);
		run_one("module", src, len, 1, false, dump, &t);
	} else if (strcmp(arg, "all") == 0) {
		ktap_header(&top, NULL, scenario_nr_builtins);
		for (uint64_t i = 0; i < scenario_nr_builtins; i++) {
			b = &scenario_builtins[i];
			run_one(b->name, b->text, b->len, i + 1, true, dump,
				&t);
		}
	} else {
		b = scenario_builtin_find(arg);
		if (!b) {
			printk("scenario=%s: no such scenario; these are "
			       "built in:\n", arg);
			scenario_list();
			return 1;
		}
		ktap_header(&top, NULL, 1);
		run_one(b->name, b->text, b->len, 1, false, dump, &t);
	}
	totals(&t);
	return t.fail;
}
