#include "trainbudget/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void S_oom(size_t n)
{
	fprintf(stderr, "trainbudget: out of memory (%zu bytes)\n", n);
	abort();
}

void *tb_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		S_oom(n);
	return p;
}

void *tb_xcalloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);
	if (!p)
		S_oom(count * size);
	return p;
}

void *tb_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		S_oom(n);
	return q;
}

char *tb_xstrndup(const char *s, size_t n)
{
	if (!s)
		return NULL;
	char *d = tb_xmalloc(n + 1);
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

char *tb_xstrdup(const char *s)
{
	return s ? tb_xstrndup(s, strlen(s)) : NULL;
}
