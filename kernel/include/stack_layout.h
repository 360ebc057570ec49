/*
 * stack_layout.h - layout of thread stacks in the stack area.  Plain
 * #defines so that the arch trap entry (assembly) can use them too.
 *
 * The stack area (ARCH_STACK_AREA_BASE, arch_impl.h) is cut into slots of
 * STACK_SLOT_SIZE bytes, each aligned to its size:
 *
 *   slot + 0                  guard page, never mapped
 *   slot + PAGE_SIZE          lowest stack byte (task->stack_base)
 *   slot + STACK_TOP_OFFSET   initial stack pointer (stack grows down)
 *   ... up to slot + STACK_SLOT_SIZE: unmapped
 *
 * So an address a inside the stack area is in a guard page exactly when
 * (a & (STACK_SLOT_SIZE - 1)) < PAGE_SIZE, which a trap entry can test
 * with two instructions before it pushes anything on an overflowed stack.
 */
#ifndef STACK_LAYOUT_H
#define STACK_LAYOUT_H
#define STACK_SLOT_SIZE 0x8000
#define STACK_PAGES 4			/* == TASK_STACK_PAGES */
#define STACK_GUARD_SIZE 0x1000
#define STACK_TOP_OFFSET (STACK_GUARD_SIZE + STACK_PAGES * 0x1000)
#define STACK_SLOTS 1024		/* 32 MiB of address space */
#endif
