/*
 * scn_lint.c - check a scenario script on the host with the kernel's own
 * parser (kernel/scenario/, built unchanged with scn_host.c):
 *
 *   scn_lint [--cpus N] FILE
 *
 * prints nothing and exits 0 if the kernel would accept FILE with N
 * CPUs online (default 64, the most a scenario may ask for: then only
 * the script itself is judged); else prints
 *
 *   FILE:LINE:COL: message
 *       the line of FILE
 *       ^ under the column
 *
 * and exits 1 (2: FILE cannot be read).  `make lab-check SCENARIO=FILE`
 * and `tools/runner.py lab --lint FILE` run it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"

/* Line @n (1..) of @src into @out (at most @size - 1 bytes), without
 * its newline. */
static void source_line(const char *src, size_t len, int n, char *out,
			size_t size)
{
	size_t i = 0, o = 0;

	for (int l = 1; l < n && i < len; i++)
		if (src[i] == '\n')
			l++;
	while (i < len && src[i] != '\n' && src[i] != '\r' && o + 1 < size)
		out[o++] = src[i++];
	out[o] = '\0';
}

/* The source line, then a caret under column @col: the line's own tabs
 * are kept before it, so that it lines up however tabs are shown, and
 * a byte that is not printable is shown as '?'. */
static void show(const char *src, size_t len, int line, int col)
{
	char text[SCN_LINE_MAX * 4 + 8];

	source_line(src, len, line, text, sizeof(text));
	for (char *c = text; *c; c++)
		if ((*c < ' ' && *c != '\t') || *c > '~')
			*c = '?';
	printf("    %s\n    ", text);
	for (int i = 0; i < col - 1; i++)
		putchar(i < (int)strlen(text) && text[i] == '\t' ? '\t' : ' ');
	printf("^\n");
}

int main(int argc, char **argv)
{
	const char *path = NULL;
	int online = NR_CPUS, need, line, col, off;
	char err[SCN_ERR_LEN];
	struct scenario *s;
	size_t len = 0, cap = 4096, n;
	char *src;
	FILE *f;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--cpus") == 0 && i + 1 < argc)
			online = atoi(argv[++i]);
		else if (!path && argv[i][0] != '-')
			path = argv[i];
		else
			path = NULL, i = argc;
	}
	if (!path || online < 1) {
		fprintf(stderr, "usage: scn_lint [--cpus N] FILE\n");
		return 2;
	}
	f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return 2;
	}
	src = malloc(cap);
	while (src && (n = fread(src + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap)
			src = realloc(src, cap *= 2);
	}
	fclose(f);
	if (!src) {
		fprintf(stderr, "%s: out of memory\n", path);
		return 2;
	}
	while (len && src[len - 1] == '\0')	/* loader padding, as boots */
		len--;
	s = scenario_parse(src, len, online, err, &need);
	if (s) {
		scenario_free(s);
		free(src);
		return 0;
	}
	printf("%s:%s\n", path, err);
	if (sscanf(err, "%d:%d:%n", &line, &col, &off) == 2 && line > 0)
		show(src, len, line, col);
	free(src);
	return 1;
}
