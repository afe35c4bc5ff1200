/* xalloc.h: allocation that aborts on failure, so callers need no checks.
 * Out of memory in a planning tool is not a recoverable condition. */
#ifndef TB_XALLOC_H
#define TB_XALLOC_H

#include <stddef.h>

void *tb_xmalloc(size_t n);
void *tb_xcalloc(size_t count, size_t size);
void *tb_xrealloc(void *p, size_t n);
char *tb_xstrdup(const char *s);          /* NULL in, NULL out */
char *tb_xstrndup(const char *s, size_t n);
/* An array p of *cap elements of `size` bytes, grown (doubling, from
 * `first`) to hold at least `need`; returns it. */
void *tb_xgrow(void *p, size_t *cap, size_t need, size_t size, size_t first);

#endif
