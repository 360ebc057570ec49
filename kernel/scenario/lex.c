/*
 * lex.c - the scenario parser's lower half: the script cut into lines
 * and words, with its numbers, durations and names checked, and the one
 * error a parse reports (parse.h).
 *
 * A line is at most SCN_LINE_MAX bytes of printable ASCII or tabs (any
 * other byte is named in the error: binary garbage is refused at its
 * first bad byte); '#' starts a comment; words are separated by spaces
 * and tabs; columns count bytes from 1.
 */
#include "parse.h"
#include <printf.h>
#include <string.h>

bool fail_at(struct parser *p, int col, const char *fmt, ...)
{
	int n;
	va_list ap;

	if (p->failed)
		return false;
	p->failed = true;
	n = snprintf(p->err, SCN_ERR_LEN, "%d:%d: ", p->line, col);
	va_start(ap, fmt);
	vsnprintf(p->err + n, SCN_ERR_LEN - n, fmt, ap);
	va_end(ap);
	return false;
}

/* Word @i, or NULL; a missing word is reported after the last one. */
const char *word(struct parser *p, int i)
{
	return i < p->nw ? p->w[i].s : NULL;
}

int col_of(struct parser *p, int i)
{
	if (i < p->nw)
		return p->w[i].col;
	return p->nw ? p->w[p->nw - 1].col + (int)strlen(p->w[p->nw - 1].s)
		     : 1;
}

bool no_more(struct parser *p, int i)
{
	if (i < p->nw)
		return fail_at(p, p->w[i].col, "unexpected '%s'", p->w[i].s);
	return true;
}

/* ---- Numbers, durations, names ------------------------------------- */

/* Decimal digits (an optional '-' if @neg_ok) into *@v. */
bool number(struct parser *p, const char *s, int col, bool neg_ok,
		   long long min, long long max, const char *what,
		   long long *v)
{
	const char *d = s;
	unsigned long long u = 0;

	if (neg_ok && *d == '-')
		d++;
	if (!*d)
		return fail_at(p, col, "bad number '%s'", s);
	for (; *d; d++) {
		if (*d < '0' || *d > '9')
			return fail_at(p, col, "bad number '%s'", s);
		if (u > (1ULL << 40))
			return fail_at(p, col, "number '%s' too large", s);
		u = u * 10 + (*d - '0');
	}
	*v = *s == '-' ? -(long long)u : (long long)u;
	if (*v < min || *v > max)
		return fail_at(p, col, "%s %lld out of range (%lld..%lld)",
			       what, *v, min, max);
	return true;
}

/* "20ms" -> ns, at most SCN_MAX_NS. */
bool duration(struct parser *p, const char *s, int col, uint64_t *ns)
{
	static const struct { const char *unit; uint64_t mul; } units[] = {
		{ "ns", 1 }, { "us", NSEC_PER_USEC }, { "ms", NSEC_PER_MSEC },
		{ "s", NSEC_PER_SEC },
	};
	const char *d = s;
	uint64_t v = 0;
	bool big = false;

	for (; *d >= '0' && *d <= '9'; d++) {
		if (v > SCN_MAX_NS)
			big = true;	/* keep scanning: the unit may be bad */
		else
			v = v * 10 + (*d - '0');
	}
	for (size_t i = 0; d != s && i < ARRAY_SIZE(units); i++) {
		if (strcmp(d, units[i].unit) != 0)
			continue;
		if (big || v > SCN_MAX_NS / units[i].mul)
			return fail_at(p, col, "duration '%s' out of range "
				       "(at most 60s)", s);
		*ns = v * units[i].mul;
		return true;
	}
	return fail_at(p, col, "bad duration '%s' (a number and ns, us, ms "
		       "or s)", s);
}

char *duration_str(uint64_t ns, char *buf, size_t len)
{
	static const struct { const char *unit; uint64_t div; } units[] = {
		{ "s", NSEC_PER_SEC }, { "ms", NSEC_PER_MSEC },
		{ "us", NSEC_PER_USEC }, { "ns", 1 },
	};
	size_t i = 0;

	while (ns && ns % units[i].div)
		i++;
	snprintf(buf, len, "%llu%s", (unsigned long long)(ns / units[i].div),
		 ns ? units[i].unit : "ns");
	return buf;
}

bool name_ok(struct parser *p, const char *s, int col)
{
	if (strlen(s) >= SCN_NAME_MAX)
		return fail_at(p, col, "name '%s' too long (at most %d "
			       "characters)", s, SCN_NAME_MAX - 1);
	for (const char *c = s; *c; c++) {
		bool alpha = (*c >= 'a' && *c <= 'z') ||
			     (*c >= 'A' && *c <= 'Z') || *c == '_';
		bool digit = (*c >= '0' && *c <= '9') || *c == '-';

		if (!alpha && !(digit && c != s))
			return fail_at(p, col, "bad name '%s' (letters, "
				       "digits, '_' and '-', not starting "
				       "with a digit)", s);
	}
	return true;
}

int find_name(char (*names)[SCN_NAME_MAX], int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	return -1;
}

/* ---- Lines ------------------------------------------------------------- */

/* Next line into p->raw / p->buf / p->w; false at the end or an error. */
bool next_line(struct parser *p)
{
	size_t start = p->pos, n;
	char *hash;

	if (p->pos >= p->len)
		return false;
	p->line++;
	while (p->pos < p->len && p->src[p->pos] != '\n')
		p->pos++;
	n = p->pos - start;
	if (p->pos < p->len)
		p->pos++;			/* the '\n' */
	if (n && p->src[start + n - 1] == '\r')
		n--;
	if (n > SCN_LINE_MAX)
		return fail_at(p, SCN_LINE_MAX + 1, "line too long (at most "
			       "%d characters)", SCN_LINE_MAX);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = p->src[start + i];

		if ((c < ' ' && c != '\t') || c > '~')
			return fail_at(p, i + 1, "bad byte 0x%02x (not "
				       "printable text)", c);
	}
	memcpy(p->raw, p->src + start, n);
	p->raw[n] = '\0';
	hash = strchr(p->raw, '#');
	if (hash)
		*hash = '\0';
	memcpy(p->buf, p->raw, n + 1);
	p->nw = 0;
	for (char *c = p->buf; *c;) {
		while (*c == ' ' || *c == '\t')
			*c++ = '\0';
		if (!*c)
			break;
		if (p->nw == MAX_WORDS)
			return fail_at(p, c - p->buf + 1, "more than %d words",
				       MAX_WORDS);
		p->w[p->nw].s = c;
		p->w[p->nw++].col = c - p->buf + 1;
		while (*c && *c != ' ' && *c != '\t')
			c++;
	}
	return true;
}

