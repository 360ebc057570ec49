/*
 * crash.h - the deliberate-failure scenarios (tests/crash.c) that the
 * boot option crash=NAME runs: stack overflow, NULL dereference,
 * spinlock recursion, ...  Each must end in a PANIC the host runner
 * checks.
 */
#ifndef CRASH_H
#define CRASH_H
/* Run scenario @name; returns only if @name is unknown (after printing
 * the list). */
void crash_run(const char *name);
#endif
