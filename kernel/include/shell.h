/*
 * shell.h - the serial shell and the boot-time modes kmain dispatches to.
 */
#ifndef SHELL_H
#define SHELL_H
/* Thread body of the interactive shell (kernel/shell.c). */
void shell_main(void *arg);
/*
 * crash=NAME on the command line: run deliberate-failure scenario NAME
 * (tests/crash.c: stack overflow, NULL dereference, spinlock recursion,
 * ...).  Each must end in a PANIC the host runner checks; returns only if
 * NAME is unknown (after printing the list).
 */
void crash_run(const char *name);
#endif
