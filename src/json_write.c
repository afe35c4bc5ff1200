/* json_write.c: the JSON writer the JSON back ends share (json_write.h). */
#include "json_write.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

void tb_jw_string(tb_buf *out, const char *s)
{
	tb_buf_putc(out, '"');
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	while (*p) {
		unsigned char c = *p;
		if (c == '"' || c == '\\') {
			tb_buf_putc(out, '\\');
			tb_buf_putc(out, (char)c);
			p++;
		} else if (c < 0x20 || c == 0x7F) {
			switch (c) {
			case '\n': tb_buf_puts(out, "\\n"); break;
			case '\r': tb_buf_puts(out, "\\r"); break;
			case '\t': tb_buf_puts(out, "\\t"); break;
			case '\b': tb_buf_puts(out, "\\b"); break;
			case '\f': tb_buf_puts(out, "\\f"); break;
			default: tb_buf_printf(out, "\\u%04x", c); break;
			}
			p++;
		} else if (c < 0x80) {
			tb_buf_putc(out, (char)c);
			p++;
		} else {
			/* stops at the NUL: it continues no sequence */
			size_t n = tb_utf8_seq(p, 4, NULL);
			if (n) {
				tb_buf_put(out, p, n);
				p += n;
			} else {
				tb_buf_puts(out, "\\ufffd");
				p++;
			}
		}
	}
	tb_buf_putc(out, '"');
}

/* A short decimal, as "%.15g" writes it, without printf: v is the nearest
 * double to r / 10^k (the division is correctly rounded, so equality
 * proves it) with r below 10^15.  Such a decimal is the one 15-digit
 * figure within half a unit of v, so %.15g rounds v to it, reads back as
 * v, and between 1e-4 and 1e9 writes it positionally without trailing
 * zeros.  Returns false where printf must decide. */
static bool S_short_decimal(tb_buf *out, double v)
{
	static const double p10[10] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9 };
	double a = fabs(v);
	if (!(a >= 1e-4 && a < 1e9))
		return false;
	for (int k = 1; k <= 9; k++) {
		double r = nearbyint(a * p10[k]);
		if (r >= 1e15)
			return false;
		if (r / p10[k] != a)
			continue;
		/* %.*f at k decimals rounds v to r itself (it lies a hair from
		 * it, never near a half); past its 1e12 range, printf */
		return tb_buf_fixed_trim(out, v, k);
	}
	return false;
}

/* hi:lo = a x b, exactly. */
static void S_mul64(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
	uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
	uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
	uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
	*lo = (mid << 32) | (p00 & 0xFFFFFFFFu);
	*hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/* hi:lo / 2^sh rounded to the nearest integer, ties to even, and *trunc
 * the quotient cut (sh 1..127; the quotient below 2^64). */
static uint64_t S_round_shift(uint64_t hi, uint64_t lo, int sh, uint64_t *trunc)
{
	uint64_t q, rhi, rlo, hhi, hlo;         /* quotient, remainder, half */
	if (sh < 64) {
		q = (lo >> sh) | (hi << (64 - sh));
		rhi = 0;
		rlo = lo & ((UINT64_C(1) << sh) - 1);
		hhi = 0;
		hlo = UINT64_C(1) << (sh - 1);
	} else if (sh == 64) {
		q = hi;
		rhi = 0;
		rlo = lo;
		hhi = 0;
		hlo = UINT64_C(1) << 63;
	} else {
		q = hi >> (sh - 64);
		rhi = hi & ((UINT64_C(1) << (sh - 64)) - 1);
		rlo = lo;
		hhi = UINT64_C(1) << (sh - 65);
		hlo = 0;
	}
	*trunc = q;
	if (rhi > hhi || (rhi == hhi && rlo > hlo) || (rhi == hhi && rlo == hlo && (q & 1)))
		q++;
	return q;
}

/* v's first p significant digits (15 to 17) as printf rounds them, from
 * the exact value, ties to even: the integer D of p digits and the
 * decimal exponent X of its first, v ~ D x 10^(X - p + 1).  v = m x 2^e
 * exactly, so v x 10^k = m x 5^k x 2^(e + k) is a 128-bit integer shifted:
 * no rounding before the one printf makes.  Between 1e-5 and 1e15 only
 * (10^k then needs k from 0 to 21); false elsewhere. */
static bool S_digits(double a, int p, uint64_t *D, int *X)
{
	static const uint64_t p5[22] = {
		1, 5, 25, 125, 625, 3125, 15625, 78125, 390625, 1953125, 9765625, 48828125,
		244140625, 1220703125, 6103515625, 30517578125, 152587890625, 762939453125,
		3814697265625, 19073486328125, 95367431640625, 476837158203125 };
	static const uint64_t p10[18] = {
		1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000,
		10000000000, 100000000000, 1000000000000, 10000000000000, 100000000000000,
		1000000000000000, 10000000000000000, 100000000000000000 };
	if (!(a >= 1e-5 && a < 1e15))
		return false;
	int ex;
	double f = frexp(a, &ex);
	uint64_t m = (uint64_t)ldexp(f, 53);
	int e = ex - 53;
	/* log10 may miss by one beside a power of ten: the exact value's
	 * digits before rounding correct it */
	int x = (int)floor(log10(a));
	for (int tries = 0; tries < 3; tries++) {
		int k = p - 1 - x;
		if (k < 0 || k > 21 || -(e + k) < 1 || -(e + k) > 127)
			return false;
		uint64_t hi, lo, cut;
		S_mul64(m, p5[k], &hi, &lo);
		uint64_t q = S_round_shift(hi, lo, -(e + k), &cut);
		if (cut >= p10[p]) {
			x++;
		} else if (cut < p10[p - 1]) {
			x--;
		} else {
			/* 9.99... rounded up to 10.0: one digit more, as printf
			 * then writes it */
			*D = q < p10[p] ? q : p10[p - 1];
			*X = q < p10[p] ? x : x + 1;
			return true;
		}
	}
	return false;
}

/* D (p digits) at exponent X as "%.*g" writes it with precision p. */
static size_t S_put_g(char *s, bool neg, uint64_t D, int X, int p)
{
	char d[20];
	for (int i = p - 1; i >= 0; i--) {
		d[i] = (char)('0' + D % 10);
		D /= 10;
	}
	int nd = p;
	while (nd > 1 && d[nd - 1] == '0')
		nd--;
	size_t n = 0;
	if (neg)
		s[n++] = '-';
	if (X < -4 || X >= p) {
		s[n++] = d[0];
		if (nd > 1) {
			s[n++] = '.';
			memcpy(s + n, d + 1, (size_t)nd - 1);
			n += (size_t)nd - 1;
		}
		int ax = X < 0 ? -X : X;       /* 1 to 5 here: two digits */
		s[n++] = 'e';
		s[n++] = X < 0 ? '-' : '+';
		s[n++] = (char)('0' + ax / 10);
		s[n++] = (char)('0' + ax % 10);
	} else if (X >= 0) {
		memcpy(s + n, d, (size_t)X + 1);
		n += (size_t)X + 1;
		if (nd > X + 1) {
			s[n++] = '.';
			memcpy(s + n, d + X + 1, (size_t)(nd - X - 1));
			n += (size_t)(nd - X - 1);
		}
	} else {
		s[n++] = '0';
		s[n++] = '.';
		for (int i = 0; i < -X - 1; i++)
			s[n++] = '0';
		memcpy(s + n, d, (size_t)nd);
		n += (size_t)nd;
	}
	s[n] = '\0';
	return n;
}

/* "%.15g", "%.16g" or "%.17g", the first that reads back as v, without
 * printf where the digits can be made exactly (S_digits); a decimal of
 * fewer than 2^53 is read back by one correctly rounded division, as
 * strtod would, larger ones by strtod.  False: printf must. */
static bool S_shortest_g(tb_buf *out, double v)
{
	static const double p10[22] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	                                1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
	                                1e20, 1e21 };
	double a = fabs(v);
	char s[40];
	for (int p = 15; p <= 17; p++) {
		uint64_t D;
		int X;
		if (!S_digits(a, p, &D, &X))
			return false;
		size_t n = S_put_g(s, v < 0, D, X, p);
		int k = p - 1 - X;
		bool back = D < (UINT64_C(1) << 53) ? (double)D / p10[k] == a : strtod(s, NULL) == v;
		if (back || p == 17) {
			tb_buf_put(out, s, n);
			return true;
		}
	}
	return false;
}

/* Shortest of %.15g/%.16g/%.17g that reads back exactly; whole numbers
 * below 2^53 as integers.  Non-finite is null (the calculators never
 * produce one; this is the last guard). */
void tb_jw_number(tb_buf *out, double v)
{
	if (!isfinite(v)) {
		tb_buf_puts(out, "null");
		return;
	}
	if (v == 0) {
		tb_buf_putc(out, '0');
		return;
	}
	if (v == trunc(v) && fabs(v) < 9007199254740992.0) {
		tb_buf_int(out, (long long)v);      /* "%.0f"'s digits */
		return;
	}
	if (S_short_decimal(out, v) || S_shortest_g(out, v))
		return;
	char s[40];
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(s, sizeof s, "%.*g", prec, v);
		if (strtod(s, NULL) == v)
			break;
	}
	tb_buf_puts(out, s);
}

static void S_indent(tb_jw *j)
{
	tb_buf_putc(j->out, '\n');
	for (int i = 0; i < j->depth; i++)
		tb_buf_puts(j->out, "  ");
}

/* Separator and key before a value; key NULL inside arrays. */
void tb_jw_pre(tb_jw *j, const char *key)
{
	if (j->depth > 0) {
		if (!j->first[j->depth])
			tb_buf_putc(j->out, ',');
		j->first[j->depth] = false;
		if (j->inline_[j->depth]) {
			if (j->out->ptr[j->out->len - 1] == ',')
				tb_buf_putc(j->out, ' ');
		} else {
			S_indent(j);
		}
	}
	if (key) {
		tb_jw_string(j->out, key);
		tb_buf_puts(j->out, ": ");
	}
}

static void S_open(tb_jw *j, const char *key, char brace, bool inl)
{
	tb_jw_pre(j, key);
	tb_buf_putc(j->out, brace);
	if (j->depth + 1 < TB_JW_DEPTH_MAX)
		j->depth++;
	j->first[j->depth] = true;
	j->inline_[j->depth] = inl;
}

static void S_close(tb_jw *j, char brace)
{
	bool empty = j->first[j->depth];
	bool inl = j->inline_[j->depth];
	j->depth--;
	if (!empty && !inl)
		S_indent(j);
	tb_buf_putc(j->out, brace);
}

void tb_jw_obj(tb_jw *j, const char *key) { S_open(j, key, '{', false); }
void tb_jw_obj_end(tb_jw *j) { S_close(j, '}'); }
void tb_jw_arr(tb_jw *j, const char *key) { S_open(j, key, '[', false); }
void tb_jw_arr_inline(tb_jw *j, const char *key) { S_open(j, key, '[', true); }
void tb_jw_arr_end(tb_jw *j) { S_close(j, ']'); }

void tb_jw_num(tb_jw *j, const char *key, double v)
{
	tb_jw_pre(j, key);
	tb_jw_number(j->out, v);
}

void tb_jw_null(tb_jw *j, const char *key)
{
	tb_jw_pre(j, key);
	tb_buf_puts(j->out, "null");
}

/* v when known, else null. */
void tb_jw_numk(tb_jw *j, const char *key, double v, bool known)
{
	if (known)
		tb_jw_num(j, key, v);
	else
		tb_jw_null(j, key);
}

void tb_jw_bool(tb_jw *j, const char *key, bool v)
{
	tb_jw_pre(j, key);
	tb_buf_puts(j->out, v ? "true" : "false");
}

void tb_jw_str(tb_jw *j, const char *key, const char *s)
{
	tb_jw_pre(j, key);
	if (s)
		tb_jw_string(j->out, s);
	else
		tb_buf_puts(j->out, "null");
}

void tb_jw_nums3(tb_jw *j, const char *key, const double v[3], bool known)
{
	if (!known) {
		tb_jw_null(j, key);
		return;
	}
	tb_jw_arr_inline(j, key);
	for (int i = 0; i < 3; i++)
		tb_jw_num(j, NULL, v[i]);
	tb_jw_arr_end(j);
}
