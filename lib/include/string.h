/* string.h - freestanding string and memory functions (lib/string.c). */
#ifndef LIB_STRING_H
#define LIB_STRING_H
#include <stddef.h>
void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);
void *memmove(void *d, const void *s, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
/* First occurrence of @needle in @hay, or NULL. */
char *strstr(const char *hay, const char *needle);
/* Copies at most n-1 bytes and always terminates (n > 0). Returns strlen(src). */
size_t strlcpy(char *d, const char *s, size_t n);
/* Parse an integer (decimal, 0x hex); returns 0 or -EINVAL/-ERANGE. */
int parse_u64(const char *s, unsigned long long *out);
#endif
