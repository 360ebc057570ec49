/*
 * kernel.h - basic types, macros, printk and panic used everywhere.
 */
#ifndef KERNEL_H
#define KERNEL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "errno.h"

#define KERNEL_NAME "kestrel"
#define KERNEL_VERSION "0.1"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ALIGN_UP(x, a) (((x) + ((a) - 1)) & ~((__typeof__(x))(a) - 1))
#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a) - 1))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#define __unused __attribute__((unused))
/* A static function that only a programming lab's solution region calls
 * (docs/labs/README.md): the lab's handout, whose stub does not call
 * it, still compiles with -Werror. */
#define __lab_helper __attribute__((unused))
#define __noreturn __attribute__((noreturn))
#define __packed __attribute__((packed))
#define __aligned(x) __attribute__((aligned(x)))
#define __section(s) __attribute__((section(s)))
#define __printf(a, b) __attribute__((format(printf, a, b)))
/* A hot leaf, or a function that only tail-calls: no frame pointer of
 * its own (riscv64's gcc sets one up even for a tail call; x86_64's
 * shrink-wraps it).  A backtrace or profile sample taken inside a leaf
 * marked so skips its direct caller; a tail-calling one loses nothing
 * (its frame is gone before the callee runs anyway).  Never for a
 * function that makes other calls: their backtraces would stop here. */
#define __no_frame __attribute__((optimize("omit-frame-pointer")))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#define NSEC_PER_USEC 1000ULL
#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC 1000000000ULL

/*
 * printk - formatted output to the console.
 * Every line is prefixed "[cpuN] " and a whole line is emitted under the
 * console lock, so lines from different CPUs never interleave.  Text
 * without a trailing newline is buffered per CPU until the newline (or a
 * full buffer).  Any context, including interrupts and panic.
 * Formats: %d %i %u %x %X %p %s %c %% with l/ll/z modifiers, width, '-',
 * '0' padding and precision for %s.
 */
int printk(const char *fmt, ...) __printf(1, 2);
int vprintk(const char *fmt, va_list ap);
/* Raw output with no prefix (the shell prompt, KTAP lines are printed with
 * printk like everything else).  Still whole-line atomic. */
void console_write(const char *s, size_t len);

/*
 * panic - report a fatal error and stop the machine.
 * Prints "PANIC at file:line on cpuN (task <name>): message", a backtrace,
 * stops every other CPU with an IPI, and powers QEMU off with a failure
 * status.  The host runner recognises the "PANIC" line.
 */
void __panic(const char *file, int line, const char *fmt, ...)
	__printf(3, 4) __noreturn;
#define panic(...) __panic(__FILE__, __LINE__, __VA_ARGS__)

/* BUG_ON / ASSERT: cheap invariant checks, always on. */
#define BUG_ON(cond)                                                    \
	do {                                                            \
		if (unlikely(cond))                                     \
			panic("BUG_ON(%s)", #cond);                     \
	} while (0)
#define ASSERT(cond) BUG_ON(!(cond))

/*
 * DEBUG_ASSERT: a check a hot path keeps only in the DEBUG=1 build
 * (-Og, KESTREL_DEBUG): one whose cost shows in `make bench` and whose
 * condition the tests already prove in the normal build.  The condition
 * is still compiled (and type-checked) in every build, never evaluated
 * outside the debug one.
 */
#ifdef KESTREL_DEBUG
#define DEBUG_ASSERT(cond) ASSERT(cond)
#else
#define DEBUG_ASSERT(cond) do { if (0) ASSERT(cond); } while (0)
#endif

#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
#define barrier() __asm__ __volatile__("" ::: "memory")
/* The compiler forgets how @var was computed (an empty asm that may
 * change it), so it keeps the value in a register rather than computing
 * it again (Linux's OPTIMIZER_HIDE_VAR). */
#define OPTIMIZER_HIDE_VAR(var) __asm__("" : "+r"(var))
#define smp_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_store_release(p, v) __atomic_store_n(p, v, __ATOMIC_RELEASE)
#define smp_load_acquire(p) __atomic_load_n(p, __ATOMIC_ACQUIRE)

#endif /* KERNEL_H */
