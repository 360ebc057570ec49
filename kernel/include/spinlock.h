/*
 * spinlock.h - spinlocks that disable interrupts.
 *
 * spin_lock() saves the interrupt state and disables interrupts before it
 * spins, so a lock taken in task context can also be taken by an
 * interrupt handler on the same CPU without deadlock.  Checks, always on:
 * taking a lock this CPU already holds (recursion) and releasing a lock
 * this CPU does not hold (wrong CPU / not held) panic with the lock's
 * name.  Holding a spinlock also disables preemption.
 *
 * The lock and unlock operations are inline, in cpu.h (they raise this
 * CPU's preempt count, which lives in struct cpu): include "cpu.h" to use
 * them.  Their checks and the contended wait are out of line, here and in
 * spinlock.c, so an uncontended lock and unlock is a few instructions.
 */
#ifndef SPINLOCK_H
#define SPINLOCK_H
#include "kernel.h"

struct cpu;

typedef struct spinlock {
	/* No tickets: 0 when free, else the struct cpu of the holder,
	 * which the lock's compare-and-swap writes, so the checks cost no
	 * store of their own (spin_owner()).  A machine word (lr.d/sc.d on
	 * riscv64). */
	volatile unsigned long locked;
	const char *name;
} spinlock_t;

#define SPINLOCK_INIT(n) { .locked = 0, .name = (n) }

/* The CPU holding @l, or NULL. */
static inline struct cpu *spin_owner(const spinlock_t *l)
{
	return (struct cpu *)l->locked;
}

void spin_init(spinlock_t *l, const char *name);

/* Returns true and fills *flags if the lock was free. */
bool spin_trylock(spinlock_t *l, unsigned long *flags);
/* True if this CPU holds @l. */
bool spin_held(spinlock_t *l);

/* The out-of-line halves of cpu.h's spin_lock_raw() and
 * spin_unlock_raw() (spinlock.c). */
void __spin_lock_contended(spinlock_t *l, struct cpu *c);
void __attribute__((noreturn, cold)) __spin_unlock_bad(spinlock_t *l,
						      struct cpu *c);
#endif
