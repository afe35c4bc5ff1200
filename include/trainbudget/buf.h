/* buf.h: a growable byte buffer, always NUL-terminated (git's strbuf).
 * Storage is the caller's: tb_buf_init / tb_buf_release.  Allocation
 * failure aborts (xalloc.h), so appends cannot fail. */
#ifndef TB_BUF_H
#define TB_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

typedef struct tb_buf {
	char *ptr;      /* NUL-terminated; never NULL after init */
	size_t len;
	size_t cap;
} tb_buf;

void tb_buf_init(tb_buf *b);
void tb_buf_release(tb_buf *b);
void tb_buf_grow(tb_buf *b, size_t extra);
void tb_buf_put_slow(tb_buf *b, const void *data, size_t len);

/* The appends a renderer makes hundreds of thousands of times, inline:
 * a call, a capacity test and a libc memcpy of one byte were a tenth of
 * a report's instructions.  Anything that needs room goes the slow way. */
static inline void tb_buf_put(tb_buf *b, const void *data, size_t len)
{
	if (len && b->len + len < b->cap) {
		const char *d = (const char *)data;
		char *w = b->ptr + b->len;
		for (size_t i = 0; i < len && i < 8; i++)
			w[i] = d[i];
		if (len > 8)
			memcpy(w + 8, d + 8, len - 8);
		b->len += len;
		b->ptr[b->len] = '\0';
		return;
	}
	tb_buf_put_slow(b, data, len);
}

static inline void tb_buf_putc(tb_buf *b, char c)
{
	if (b->len + 1 < b->cap) {
		b->ptr[b->len++] = c;
		b->ptr[b->len] = '\0';
		return;
	}
	tb_buf_put_slow(b, &c, 1);
}

void tb_buf_puts(tb_buf *b, const char *s);
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void tb_buf_printf(tb_buf *b, const char *fmt, ...);
void tb_buf_vprintf(tb_buf *b, const char *fmt, va_list ap);
/* printf's "%lld" and "%04lX", by hand: a PDF writes thousands. */
void tb_buf_int(tb_buf *b, long long v);
void tb_buf_hex4(tb_buf *b, unsigned long v);
/* v as printf's "%.*f" with `decimals` writes it, by hand where
 * |v x 10^decimals| <= 1e12 and decimals is 0 to 9 (else printf): the
 * same bytes in a tenth of the instructions.  tb_fixed_round gives the
 * integer those digits spell (v x 10^decimals rounded as printf rounds
 * the exact binary value: to nearest, halves to even), or false out of
 * range; tb_fixed_str writes the digits to `out` (NUL-terminated) and
 * returns their length, or 0 out of range. */
#define TB_FIXED_MAX 40
bool tb_fixed_round(double v, int decimals, double *q);
size_t tb_fixed_str(char out[TB_FIXED_MAX], double v, int decimals);
/* Appends the same digits without trailing zeros or a trailing point,
 * "-0" as "0" (the PDF's numbers, JSON's short decimals); false, and
 * nothing written, out of range. */
bool tb_buf_fixed_trim(tb_buf *b, double v, int decimals);
void tb_buf_fixed(tb_buf *b, double v, int decimals);
void tb_buf_truncate(tb_buf *b, size_t len);
/* Hands the string to the caller (free()); b is left empty and initialised. */
char *tb_buf_detach(tb_buf *b, size_t *len_out);

#endif
