/*
 * stack.c - thread stacks with an unmapped guard page below each.
 *
 * Stacks live in the arch's stack area, cut into STACK_SLOT_SIZE slots
 * (layout in stack_layout.h).  A slot's pages are mapped the first time it
 * is used and stay mapped when the stack is freed: the next thread reuses
 * slot and pages, so no mapping is ever removed and no TLB shootdown is
 * needed.  The guard page is never mapped, so running off the bottom of a
 * stack faults, and the fault handler names the owner via
 * stack_guard_slot() + stack_owner_name().
 */
#include "kernel.h"
#include "mm.h"
#include "spinlock.h"
#include "cpu.h"		/* spin_lock() */
#include "stack_layout.h"
#include "string.h"

_Static_assert(ARCH_STACK_AREA_SIZE >= (uint64_t)STACK_SLOTS * STACK_SLOT_SIZE,
	       "stack area too small for STACK_SLOTS");
_Static_assert((ARCH_STACK_AREA_BASE & (STACK_SLOT_SIZE - 1)) == 0,
	       "stack area must be slot aligned");

static spinlock_t lock = SPINLOCK_INIT("stacks");
static uint8_t state[STACK_SLOTS];	/* 0 never used, 1 free+mapped, 2 in use */
static const char *owner[STACK_SLOTS];

static inline uintptr_t slot_addr(int slot)
{
	return ARCH_STACK_AREA_BASE + (uintptr_t)slot * STACK_SLOT_SIZE;
}

static int map_slot(int slot)
{
	for (int i = 0; i < STACK_PAGES; i++) {
		uintptr_t pa = page_alloc(0);
		int err;

		/* Pages mapped so far stay with the slot; a retry maps the rest. */
		if (!pa)
			return -ENOMEM;
		err = arch_map_page(slot_addr(slot) + STACK_GUARD_SIZE + i * PAGE_SIZE,
				    pa, MAP_READ | MAP_WRITE);
		if (err) {
			page_free(pa, 0);
			return err;
		}
	}
	return 0;
}

uintptr_t stack_alloc(int *slotp)
{
	unsigned long flags = spin_lock(&lock);
	int slot = -1;

	/* Prefer an already mapped slot. */
	for (int i = 0; i < STACK_SLOTS && slot < 0; i++)
		if (state[i] == 1)
			slot = i;
	for (int i = 0; i < STACK_SLOTS && slot < 0; i++)
		if (state[i] == 0)
			slot = i;
	if (slot < 0) {
		spin_unlock(&lock, flags);
		return 0;
	}
	bool fresh = state[slot] == 0;

	state[slot] = 2;
	owner[slot] = "?";
	spin_unlock(&lock, flags);

	if (fresh && map_slot(slot) != 0) {
		flags = spin_lock(&lock);
		state[slot] = 0;	/* partially mapped: remapping is harmless */
		spin_unlock(&lock, flags);
		return 0;
	}
	*slotp = slot;
	return slot_addr(slot) + STACK_GUARD_SIZE;
}

void stack_free(int slot)
{
	unsigned long flags;

	if (slot < 0 || slot >= STACK_SLOTS || state[slot] != 2)
		panic("stack_free: slot %d is not in use", slot);
	flags = spin_lock(&lock);
	state[slot] = 1;
	owner[slot] = NULL;
	spin_unlock(&lock, flags);
}

void stack_set_owner(int slot, const char *name)
{
	if (slot >= 0 && slot < STACK_SLOTS)
		owner[slot] = name;
}

int stack_guard_slot(uintptr_t addr)
{
	uintptr_t off;
	int slot;

	if (addr < ARCH_STACK_AREA_BASE ||
	    addr >= ARCH_STACK_AREA_BASE + (uintptr_t)STACK_SLOTS * STACK_SLOT_SIZE)
		return -1;
	slot = (addr - ARCH_STACK_AREA_BASE) / STACK_SLOT_SIZE;
	off = addr & (STACK_SLOT_SIZE - 1);
	if (off < STACK_GUARD_SIZE)
		return slot;
	/* Above a stack's top: a frame of the next slot's stack that jumped
	 * over its guard page. */
	if (off >= STACK_TOP_OFFSET && slot + 1 < STACK_SLOTS)
		return slot + 1;
	return -1;
}

const char *stack_owner_name(int slot)
{
	if (slot < 0 || slot >= STACK_SLOTS || !owner[slot])
		return "?";
	return owner[slot];
}
