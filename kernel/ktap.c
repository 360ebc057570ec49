/*
 * ktap.c - KTAP version 1 lines (kernel/include/ktap.h): the formats of
 * the lines the host runner parses live here and nowhere else.
 *
 * A line is built whole in a buffer (indentation or quote, then the
 * text) and goes out with one printk(), which prints a line at once: a
 * line never mixes with another CPU's, also if the caller migrates
 * while it writes several.
 */
#include "ktap.h"
#include <printf.h>
#include <string.h>

#define KTAP_INDENT 4			/* spaces per level */

/* The start of every line of @k into @buf; returns its length. */
static size_t line_start(const struct ktap *k, char *buf, size_t len)
{
	size_t n;

	if (k->quote)
		return MIN(strlcpy(buf, k->quote, len), len - 1);
	n = MIN((size_t)k->depth * KTAP_INDENT, len - 1);
	memset(buf, ' ', n);
	buf[n] = '\0';
	return n;
}

/* One line of @k: @head (a constant), then @fmt formatted. */
static __printf(3, 0) void vline(const struct ktap *k, const char *head,
				 const char *fmt, va_list ap)
{
	char buf[KTAP_LINE_MAX];
	size_t n = line_start(k, buf, sizeof(buf));

	n += MIN(strlcpy(buf + n, head, sizeof(buf) - n), sizeof(buf) - n - 1);
	vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	printk("%s\n", buf);
}

static __printf(2, 3) void line(const struct ktap *k, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline(k, "", fmt, ap);
	va_end(ap);
}

void ktap_header(const struct ktap *k, const char *name, int plan)
{
	line(k, "KTAP version 1");
	if (name)
		line(k, "# Subtest: %s", name);
	line(k, "1..%d", plan);
}

static const char *const directives[] = {
	[KTAP_NONE] = "", [KTAP_SKIP] = " # SKIP", [KTAP_TODO] = " # TODO",
	[KTAP_TIMEOUT] = " # TIMEOUT",
};

void ktap_result(const struct ktap *k, bool ok, int n, const char *name,
		 enum ktap_directive d, const char *reason)
{
	bool why = d != KTAP_NONE && reason && reason[0];

	line(k, "%sok %d %s%s%s%s", ok ? "" : "not ", n, name, directives[d],
	     why ? " " : "", why ? reason : "");
}

void ktap_skip(const struct ktap *k, int n, const char *name,
	       const char *fmt, ...)
{
	char reason[KTAP_LINE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	ktap_result(k, true, n, name, KTAP_SKIP, reason);
}

void ktap_diag(const struct ktap *k, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline(k, "# ", fmt, ap);
	va_end(ap);
}

void ktap_totals(const struct ktap *k, int pass, int fail, int skip)
{
	line(k, "# Totals: pass:%d fail:%d skip:%d total:%d", pass, fail, skip,
	     pass + fail + skip);
}

char *ktap_diag_prefix(const struct ktap *k, const char *what, char *buf,
		       size_t len)
{
	size_t n = line_start(k, buf, len);

	snprintf(buf + n, len - n, "# %s", what);
	return buf;
}
