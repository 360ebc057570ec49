/*
 * spinlock.c - test-and-set spinlocks with always-on misuse checks.
 *
 * Interrupts are disabled before spinning (so an interrupt handler on this
 * CPU can take the same lock) and the per-CPU preempt count is raised
 * while a lock is held, which lets schedule() catch "sleeping while
 * holding a spinlock".
 */
#include "spinlock.h"
#include "cpu.h"

void spin_init(spinlock_t *l, const char *name)
{
	l->locked = 0;
	l->owner = NULL;
	l->name = name;
}

/*
 * The misuse checks cost nothing on the uncontended path: a recursive
 * lock finds the lock busy, so it is looked for only then (the owner
 * field is this CPU only while this CPU holds the lock); an unlock
 * compares the owner once, and says what was wrong out of line.  The
 * fast paths are spin_lock_fast() and spin_unlock_fast() in cpu.h
 * (inline there, for the scheduler's hot paths).
 */
void __spin_lock_contended(spinlock_t *l, struct cpu *c)
{
	do {
		if (READ_ONCE(l->owner) == c)
			panic("spinlock '%s': recursive lock on cpu%d", l->name,
			      c->id);
		/* Spin on a plain load so the line stays shared. */
		while (READ_ONCE(l->locked))
			arch_cpu_relax();
	} while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE));
}

void __spin_unlock_bad(spinlock_t *l, struct cpu *c)
{
	struct cpu *owner = READ_ONCE(l->owner);

	if (!READ_ONCE(l->locked) || !owner)
		panic("spinlock '%s': unlock of a lock that is not held (cpu%d)",
		      l->name, c->id);
	panic("spinlock '%s': unlock on cpu%d but held by cpu%d", l->name,
	      c->id, owner->id);
}

void spin_lock_raw(spinlock_t *l)
{
	spin_lock_fast(l);
}

void spin_unlock_raw(spinlock_t *l)
{
	spin_unlock_fast(l);
}

unsigned long spin_lock(spinlock_t *l)
{
	unsigned long flags = arch_irq_save();

	spin_lock_raw(l);
	return flags;
}

void spin_unlock(spinlock_t *l, unsigned long flags)
{
	spin_unlock_raw(l);
	arch_irq_restore(flags);
	/* Linux's preempt_enable(): a wake_up() under the lock may have
	 * made someone more important runnable here. */
	if (READ_ONCE(this_cpu()->need_resched))
		preempt_check_resched();
}

bool spin_trylock(spinlock_t *l, unsigned long *flags)
{
	struct cpu *c;

	*flags = arch_irq_save();
	c = this_cpu();
	if (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE)) {
		arch_irq_restore(*flags);
		return false;
	}
	l->owner = c;
	c->preempt_count++;
	return true;
}

bool spin_held(spinlock_t *l)
{
	return READ_ONCE(l->locked) && READ_ONCE(l->owner) == this_cpu();
}
