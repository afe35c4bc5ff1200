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

void *tb_xgrow(void *p, size_t *cap, size_t need, size_t size, size_t first)
{
	if (need <= *cap)
		return p;
	size_t c = *cap ? *cap : first;
	while (c < need)
		c *= 2;
	if (c > (size_t)-1 / size)
		S_oom(c);
	*cap = c;
	return tb_xrealloc(p, c * size);
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
