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
	l->name = name;
}

/*
 * The misuse checks cost nothing on the uncontended path: a recursive
 * lock finds the lock busy, so it is looked for only then (the lock
 * word is this CPU only while this CPU holds the lock); an unlock
 * compares the word once, and says what was wrong out of line.  The
 * fast paths, spin_lock() and spin_unlock() and their _raw forms, are
 * inline in cpu.h.
 */
void __spin_lock_contended(spinlock_t *l, struct cpu *c)
{
	unsigned long free;

	do {
		if (spin_owner(l) == c)
			panic("spinlock '%s': recursive lock on cpu%d", l->name,
			      c->id);
		/* Spin on a plain load so the line stays shared. */
		while (READ_ONCE(l->locked))
			arch_cpu_relax();
		free = 0;
	} while (!__atomic_compare_exchange_n(&l->locked, &free,
					      (unsigned long)c, false,
					      __ATOMIC_ACQUIRE,
					      __ATOMIC_RELAXED));
}

void __spin_unlock_bad(spinlock_t *l, struct cpu *c)
{
	struct cpu *owner = spin_owner(l);

	if (!owner)
		panic("spinlock '%s': unlock of a lock that is not held (cpu%d)",
		      l->name, c->id);
	panic("spinlock '%s': unlock on cpu%d but held by cpu%d", l->name,
	      c->id, owner->id);
}

bool spin_trylock(spinlock_t *l, unsigned long *flags)
{
	unsigned long free = 0;
	struct cpu *c;

	*flags = arch_irq_save();
	c = this_cpu();
	if (!__atomic_compare_exchange_n(&l->locked, &free, (unsigned long)c,
					 false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED)) {
		arch_irq_restore(*flags);
		return false;
	}
	c->preempt_count++;
	return true;
}

bool spin_held(spinlock_t *l)
{
	return spin_owner(l) == this_cpu();
}
