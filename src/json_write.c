/* json_write.c: the JSON writer the JSON back ends share (json_write.h). */
#include "json_write.h"

#include <math.h>
#include <stdbool.h>
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
	if (S_short_decimal(out, v))
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
