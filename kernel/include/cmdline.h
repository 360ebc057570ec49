/*
 * cmdline.h - kernel command line, "key=value key2 ..." words.
 *   ktest=all | ktest=suite1,suite2   run tests then power off
 *   bench=all | bench=name1,name2     run benchmarks then power off
 *   scenario=NAME|all|module          run scenario scripts then power off
 *   trace=dump                        with scenario=: dump the trace after
 *   trace=off | trace=on              record the scheduler trace (default on)
 *   locking=proxy|inherit|none        mutex locking mode (main.c)
 *   (otherwise the shell starts on the console)
 */
#ifndef CMDLINE_H
#define CMDLINE_H
#include <stdbool.h>
#include <stddef.h>
/* Copy the value of @key into @buf; true if present ("" for a bare word). */
bool cmdline_get(const char *cmdline, const char *key, char *buf, size_t len);
#endif
