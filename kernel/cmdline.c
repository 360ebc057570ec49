/* cmdline.c - look up "key=value" and bare "key" words. */
#include "cmdline.h"
#include "string.h"

bool cmdline_get(const char *s, const char *key, char *buf, size_t len)
{
	size_t klen = strlen(key);

	while (s && *s) {
		const char *w = s, *end;

		while (*w == ' ')
			w++;
		end = w;
		while (*end && *end != ' ')
			end++;
		if ((size_t)(end - w) >= klen && strncmp(w, key, klen) == 0 &&
		    (w[klen] == '=' || w + klen == end)) {
			const char *v = w[klen] == '=' ? w + klen + 1 : end;
			size_t n = end - v;

			if (len) {
				if (n >= len)
					n = len - 1;
				memcpy(buf, v, n);
				buf[n] = '\0';
			}
			return true;
		}
		s = end;
	}
	return false;
}
