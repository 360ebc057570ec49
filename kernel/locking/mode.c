/*
 * mode.c - the locking mode (mutex.h, enum locking_mode): what a task
 * blocked on a mutex lends its owner.  Proxy execution by default;
 * priority inheritance and none for comparison (docs/locking.md).  Each
 * wait reads the mode once; it changes only while no task is blocked.
 */
#include "blocked_on.h"
#include "mutex.h"
#include "cpu.h"
#include "errno.h"
#include "string.h"

enum locking_mode locking_mode = LOCKING_PROXY;

static const char *const mode_names[] = {
	[LOCKING_PROXY] = "proxy",
	[LOCKING_INHERIT] = "inherit",
	[LOCKING_NONE] = "none",
};

const char *locking_mode_name(enum locking_mode mode)
{
	if ((unsigned)mode < ARRAY_SIZE(mode_names))
		return mode_names[mode];
	return "?";
}

/*
 * The check against blocked tasks is a snapshot under mode_lock: a task
 * that starts waiting after it uses the new mode throughout (each wait
 * reads the mode once).  Switch modes while the system is quiet.
 */
int locking_set_mode(const char *name)
{
	static spinlock_t mode_lock = SPINLOCK_INIT("locking mode");

	for (unsigned i = 0; i < ARRAY_SIZE(mode_names); i++) {
		unsigned long flags;
		int ret = 0;

		if (!name || strcmp(name, mode_names[i]) != 0)
			continue;
		flags = spin_lock(&mode_lock);
		if (__atomic_load_n(&mutex_nr_blocked, __ATOMIC_SEQ_CST))
			ret = -EBUSY;
		else
			WRITE_ONCE(locking_mode, (enum locking_mode)i);
		spin_unlock(&mode_lock, flags);
		return ret;
	}
	return -EINVAL;
}
