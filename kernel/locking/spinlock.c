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
 * fast paths, spin_lock() and spin_unlock() and their _raw forms, are
 * inline in cpu.h.
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
