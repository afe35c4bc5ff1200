#include "trainbudget/buf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/xalloc.h"

/* Shared empty string so an initialised buffer is valid without a malloc. */
static char S_empty[1];

void tb_buf_init(tb_buf *b)
{
	b->ptr = S_empty;
	b->len = 0;
	b->cap = 0;
}

void tb_buf_release(tb_buf *b)
{
	if (b->cap)
		free(b->ptr);
	tb_buf_init(b);
}

void tb_buf_grow(tb_buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;
	if (need <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap += cap / 2 + 64;
	if (b->cap) {
		b->ptr = tb_xrealloc(b->ptr, cap);
	} else {
		b->ptr = tb_xmalloc(cap);
		b->ptr[0] = '\0';
	}
	b->cap = cap;
}

void tb_buf_put_slow(tb_buf *b, const void *data, size_t len)
{
	if (!len)
		return;
	tb_buf_grow(b, len);
	memcpy(b->ptr + b->len, data, len);
	b->len += len;
	b->ptr[b->len] = '\0';
}

void tb_buf_puts(tb_buf *b, const char *s)
{
	tb_buf_put(b, s, strlen(s));
}

void tb_buf_vprintf(tb_buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n <= 0)
		return;
	tb_buf_grow(b, (size_t)n);
	vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void tb_buf_printf(tb_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tb_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void tb_buf_truncate(tb_buf *b, size_t len)
{
	if (len < b->len) {
		b->len = len;
		b->ptr[len] = '\0';
	}
}

char *tb_buf_detach(tb_buf *b, size_t *len_out)
{
	char *s = b->cap ? b->ptr : tb_xstrdup("");
	if (len_out)
		*len_out = b->len;
	tb_buf_init(b);
	return s;
}

void tb_buf_int(tb_buf *b, long long v)
{
	unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
	char s[24];
	char *p = s + sizeof s;
	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	tb_buf_put(b, p, (size_t)(s + sizeof s - p));
}

void tb_buf_hex4(tb_buf *b, unsigned long v)
{
	static const char digit[16] = "0123456789ABCDEF";
	char s[20];
	char *p = s + sizeof s;
	do {
		*--p = digit[v & 15];
		v >>= 4;
	} while (v || s + sizeof s - p < 4);
	tb_buf_put(b, p, (size_t)(s + sizeof s - p));
}

bool tb_fixed_round(double v, int decimals, double *q)
{
	static const double scale[10] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9 };
	if (decimals < 0 || decimals > 9)
		return false;
	double m = v * scale[decimals];
	if (!(fabs(m) <= 1e12))
		return false;
	double r = nearbyint(m);
	/* within 1e12 the product is off by at most 1.2e-4, so a fraction
	 * more than 1e-3 from a half rounds the way the exact value does */
	if (fabs(fabs(m - r) - 0.5) <= 1e-3) {
		/* Near a half, the exact product is m + err (fma's residual is
		 * exact), and m - h is exact (Sterbenz: both lie within 1e-3 of
		 * each other and at least 0.5 from zero); their sum is zero only
		 * when the product is the half itself, which printf rounds to
		 * even, as nearbyint does in the default rounding mode. */
		double lo = floor(m), h = lo + 0.5;
		double side = (m - h) + fma(v, scale[decimals], -m);
		r = side > 0 ? lo + 1 : side < 0 ? lo : nearbyint(h);
	}
	*q = r;
	return true;
}

/* q / 10^decimals in positional notation, a minus first when asked,
 * written backwards from the end of s: returns where it starts. */
static const char *S_fixed_digits(char s[TB_FIXED_MAX], long long q, int decimals, bool minus)
{
	unsigned long long u = q < 0 ? 0ull - (unsigned long long)q : (unsigned long long)q;
	char *p = s + TB_FIXED_MAX;
	for (int i = 0; i < decimals; i++) {
		*--p = (char)('0' + u % 10);
		u /= 10;
	}
	if (decimals > 0)
		*--p = '.';
	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (minus)
		*--p = '-';
	return p;
}

size_t tb_fixed_str(char out[TB_FIXED_MAX], double v, int decimals)
{
	double r;
	if (!tb_fixed_round(v, decimals, &r))
		return 0;
	long long q = (long long)r;
	char s[TB_FIXED_MAX];
	/* printf keeps the sign of a negative that rounds to zero ("-0.00") */
	const char *p = S_fixed_digits(s, q, decimals, q < 0 || (q == 0 && signbit(v)));
	size_t n = (size_t)(s + sizeof s - p);
	memcpy(out, p, n);
	out[n] = '\0';
	return n;
}

bool tb_buf_fixed_trim(tb_buf *b, double v, int decimals)
{
	double r;
	if (!tb_fixed_round(v, decimals, &r))
		return false;
	long long q = (long long)r;
	while (decimals > 0 && q % 10 == 0) {
		q /= 10;
		decimals--;
	}
	char s[TB_FIXED_MAX];
	const char *p = S_fixed_digits(s, q, decimals, q < 0);
	tb_buf_put(b, p, (size_t)(s + sizeof s - p));
	return true;
}

void tb_buf_fixed(tb_buf *b, double v, int decimals)
{
	char s[TB_FIXED_MAX];
	size_t n = tb_fixed_str(s, v, decimals);
	if (n)
		tb_buf_put(b, s, n);
	else
		tb_buf_printf(b, "%.*f", decimals < 0 ? 0 : decimals, v);
}
