/*
 * shell.h - the serial shell (kernel/shell.c).
 */
#ifndef SHELL_H
#define SHELL_H
/* Thread body of the interactive shell. */
void shell_main(void *arg);
#endif
