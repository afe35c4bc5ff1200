/* fmt.c: numbers for people.  The rules are listed in fmt.h; the code keeps
 * one principle: round first, then choose the unit or form, so 999.7 GB
 * becomes "1.00 TB" and never "1000 GB". */
#include "trainbudget/fmt.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define S_NA "n/a"

/* printf into a fixed buffer: 512 bytes hold %.0f of the largest double
 * (309 digits) with its thousands separators; callers pass finite values
 * only. */
typedef struct { char s[512]; } S_str;

/* Whether the plain decimal S_sig or S_fixed wrote ("-12.5", "1000") is
 * at least the whole number n > 0: its whole part says so exactly, as the
 * value strtod would read does, since a fraction lies between the whole
 * part and the next (and a figure sixteen digits long is past every n). */
static bool S_at_least(const S_str *o, long long n)
{
	const char *p = o->s;
	if (*p == '-')
		return false;
	long long w = 0;
	for (int digits = 0; *p >= '0' && *p <= '9'; p++, digits++) {
		if (digits == 16)
			return true;
		w = w * 10 + (*p - '0');
	}
	return w >= n;
}

static int S_clamp_sig(int sig)
{
	if (sig <= 0)
		return 3;
	return sig > 17 ? 17 : sig;
}

/* A printed "-0", "-0.0" or "-0.00" is a rounding artefact, never a
 * figure: drop the sign. */
static void S_fix_neg_zero(char *s)
{
	if (s[0] != '-')
		return;
	for (const char *p = s + 1; *p; p++)
		if (*p != '0' && *p != '.')
			return;
	memmove(s, s + 1, strlen(s));
}

/* printf's "%.*f", by hand where tb_fixed_str can tell the digits */
static void S_fixed(S_str *o, double v, int dec)
{
	if (!tb_fixed_str(o->s, v, dec))
		snprintf(o->s, sizeof o->s, "%.*f", dec, v);
}

static const double S_p10[23] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* v rounded to `sig` significant digits as %e rounds it, without printf
 * where that is exact: the digits r (exactly `sig` of them) and the
 * decimal exponent e.  The scaled value is below 1e9, so off by less than
 * 1.2e-7; a fraction more than 1e-3 from a half, and a scale that lands
 * between 10^(sig-1) and 10^sig (log10's floor can miss by one at a power
 * of ten), round the way the exact value does.  Else false: printf
 * decides. */
static bool S_sig_digits(double v, int sig, uint64_t *r, int *e)
{
	double a = fabs(v);
	if (sig > 9 || !(a >= 1e-12 && a < 1e15))
		return false;
	int e0 = (int)floor(log10(a));
	int k = sig - 1 - e0;
	double m = k >= 0 ? a * S_p10[k] : a / S_p10[-k];
	double lo = S_p10[sig - 1], hi = S_p10[sig];
	if (!(m >= lo && m < hi))
		return false;
	double q = nearbyint(m);
	if (!(fabs(fabs(m - q) - 0.5) > 1e-3))
		return false;
	if (q >= hi) {   /* 9.996 at 3 digits is 1.00e+01 */
		q = lo;
		e0++;
	}
	*r = (uint64_t)q;
	*e = e0;
	return true;
}

/* Decimal exponent of v after rounding to `sig` significant digits, where
 * S_sig_digits cannot tell it: %e rounds correctly, so 9.996 at 3 digits
 * reports 1 ("1.00e+01"). */
static int S_exp10_printf(double v, int sig)
{
	char tmp[64];
	snprintf(tmp, sizeof tmp, "%.*e", sig - 1, v);
	const char *ep = strchr(tmp, 'e');
	return ep ? atoi(ep + 1) : 0;
}

/* The `sig` digits of r, most significant first. */
static void S_digits(char *d, uint64_t r, int sig)
{
	for (int i = sig - 1; i >= 0; i--) {
		d[i] = (char)('0' + r % 10);
		r /= 10;
	}
}

/* v to `sig` significant digits, plain positional notation; trailing
 * zeros are kept because they carry the precision ("80.0", "0.350"). */
static void S_sig(S_str *o, double v, int sig)
{
	if (v == 0) {
		snprintf(o->s, sizeof o->s, "0");
		return;
	}
	uint64_t r;
	int e;
	if (S_sig_digits(v, sig, &r, &e)) {
		/* what %.*f writes at sig - 1 - e decimals: the same rounding */
		char d[16];
		S_digits(d, r, sig);
		int dec = sig - 1 - e;
		char *w = o->s;
		if (v < 0)
			*w++ = '-';
		if (dec <= 0) {
			memcpy(w, d, (size_t)sig);
			w += sig;
			memset(w, '0', (size_t)-dec);
			w += -dec;
		} else if (dec >= sig) {
			*w++ = '0';
			*w++ = '.';
			memset(w, '0', (size_t)(dec - sig));
			w += dec - sig;
			memcpy(w, d, (size_t)sig);
			w += sig;
		} else {
			memcpy(w, d, (size_t)(sig - dec));
			w += sig - dec;
			*w++ = '.';
			memcpy(w, d + sig - dec, (size_t)dec);
			w += dec;
		}
		*w = '\0';
		return;
	}
	e = S_exp10_printf(v, sig);
	int dec = sig - 1 - e;
	if (dec < 0) {
		/* Digits left of the point beyond `sig` are not significant:
		 * 123456 prints "123000".  The %e text is the rounded value. */
		char tmp[64];
		snprintf(tmp, sizeof tmp, "%.*e", sig - 1, v);
		v = strtod(tmp, NULL);
		dec = 0;
	}
	snprintf(o->s, sizeof o->s, "%.*f", dec, v);
	S_fix_neg_zero(o->s);
}

/* Whole units with thousands separators: "6,738,415,616". */
static void S_grouped(S_str *o, double v)
{
	char digits[340];
	if (!tb_fixed_str(digits, v, 0))
		snprintf(digits, sizeof digits, "%.0f", v);
	S_fix_neg_zero(digits);
	const char *d = digits;
	char *w = o->s;
	if (*d == '-')
		*w++ = *d++;
	size_t n = strlen(d);
	for (size_t i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			*w++ = ',';
		*w++ = d[i];
	}
	*w = '\0';
}

void tb_fmt_sig(tb_buf *b, double v, int sig)
{
	if (!isfinite(v)) {
		tb_buf_puts(b, S_NA);
		return;
	}
	if (v != 0 && (fabs(v) < 1e-6 || fabs(v) >= 1e21)) {
		tb_fmt_sci(b, v, sig, false);   /* a power of ten, never 300 digits */
		return;
	}
	S_str o;
	S_sig(&o, v, S_clamp_sig(sig));
	tb_buf_puts(b, o.s);
}

static const char *const S_superscript[10] = {
	"\u2070", "\u00b9", "\u00b2", "\u00b3", "\u2074",
	"\u2075", "\u2076", "\u2077", "\u2078", "\u2079",
};

void tb_fmt_sci(tb_buf *b, double v, int sig, bool ascii)
{
	if (!isfinite(v)) {
		tb_buf_puts(b, S_NA);
		return;
	}
	sig = S_clamp_sig(sig);
	uint64_t r;
	int e = 0;
	bool fast = v != 0 && S_sig_digits(v, sig, &r, &e);
	if (v != 0 && !fast)
		e = S_exp10_printf(v, sig);
	if (e > -4 && e < 4) {
		tb_fmt_sig(b, v, sig);
		return;
	}
	char tmp[64];
	if (fast) {
		/* %e's mantissa: d.ddd */
		char d[16];
		S_digits(d, r, sig);
		char *w = tmp;
		if (v < 0)
			*w++ = '-';
		*w++ = d[0];
		if (sig > 1) {
			*w++ = '.';
			memcpy(w, d + 1, (size_t)(sig - 1));
			w += sig - 1;
		}
		*w = '\0';
	} else {
		snprintf(tmp, sizeof tmp, "%.*e", sig - 1, v);
		char *ep = strchr(tmp, 'e');
		if (ep)
			*ep = '\0';
	}
	tb_buf_puts(b, tmp);
	if (ascii) {
		tb_buf_printf(b, "e%d", e);
		return;
	}
	tb_buf_puts(b, " \u00d7 10");
	char digits[16];
	snprintf(digits, sizeof digits, "%d", e < 0 ? -e : e);
	if (e < 0)
		tb_buf_puts(b, "\u207b");
	for (const char *p = digits; *p; p++)
		tb_buf_puts(b, S_superscript[*p - '0']);
}

/* Shared by the decimal and binary byte scales: the unit is chosen after
 * rounding, and the last unit absorbs anything larger. */
static void S_scaled(tb_buf *b, double v, double step,
                     const char *const *units, size_t nunits)
{
	if (!isfinite(v) || v < 0) {
		/* A negative memory figure is always a bug upstream; showing it
		 * would put a wrong number in front of someone signing. */
		tb_buf_puts(b, S_NA);
		return;
	}
	size_t u = 0;
	double x = v;
	while (u + 1 < nunits) {
		S_str o;
		S_sig(&o, x, 3);
		if (x < step && !S_at_least(&o, (long long)step))
			break;
		x /= step;
		u++;
	}
	S_str o;
	if (u == 0 && x == floor(x))
		S_fixed(&o, x, 0); /* "512 B", not "512.0 B" */
	else
		S_sig(&o, x, 3);
	if (u + 1 == nunits && S_at_least(&o, 1000)) {
		/* Past the last unit: powers of ten read better than 13 digits. */
		tb_fmt_sci(b, v, 3, false);
		tb_buf_printf(b, " %s", units[0]);
		return;
	}
	tb_buf_puts(b, o.s);
	tb_buf_putc(b, ' ');
	tb_buf_puts(b, units[u]);
}

void tb_fmt_bytes(tb_buf *b, double bytes)
{
	static const char *const units[] = { "B", "kB", "MB", "GB", "TB", "PB", "EB" };
	S_scaled(b, bytes, 1000.0, units, sizeof units / sizeof units[0]);
}

void tb_fmt_gib(tb_buf *b, double bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	S_scaled(b, bytes, 1024.0, units, sizeof units / sizeof units[0]);
}

void tb_fmt_count(tb_buf *b, double v)
{
	static const char *const suffix[] = { "", "k", "M", "B", "T" };
	if (!isfinite(v)) {
		tb_buf_puts(b, S_NA);
		return;
	}
	double a = fabs(v);
	if (a > 0 && a < 1e-3) {
		tb_fmt_sci(b, v, 3, false); /* not 300 zeros: "3.56 × 10⁻¹⁸" */
		return;
	}
	size_t u = 0;
	while (u + 1 < sizeof suffix / sizeof suffix[0]) {
		S_str o;
		S_sig(&o, a, 3);
		if (!S_at_least(&o, 1000))
			break;
		a /= 1000.0;
		u++;
	}
	S_str o;
	if (u == 0 && a == floor(a))
		S_fixed(&o, a, 0); /* "8" GPUs, not "8.00" */
	else
		S_sig(&o, a, 3);
	bool neg = v < 0 && strcmp(o.s, "0") != 0;
	if (S_at_least(&o, 1000)) {
		tb_fmt_sci(b, v, 3, false); /* beyond 999T: "1.00 × 10³⁰" */
		return;
	}
	if (neg)
		tb_buf_putc(b, '-');
	tb_buf_puts(b, o.s);
	tb_buf_puts(b, suffix[u]);
}

void tb_fmt_grouped(tb_buf *b, double v)
{
	if (!isfinite(v)) {
		tb_buf_puts(b, S_NA);
		return;
	}
	if (fabs(v) >= 1e15) {
		tb_fmt_sci(b, v, 3, false); /* past a quadrillion digits stop helping */
		return;
	}
	S_str o;
	S_grouped(&o, v);
	tb_buf_puts(b, o.s);
}

/* Rounds x to `dec` decimals as printf would, to test unit boundaries. */
static double S_round_dec(double x, int dec)
{
	char tmp[340];
	if (!tb_fixed_str(tmp, x, dec))
		snprintf(tmp, sizeof tmp, "%.*f", dec, x);
	return strtod(tmp, NULL);
}

void tb_fmt_days(tb_buf *b, double seconds)
{
	if (!isfinite(seconds) || seconds < 0) {
		tb_buf_puts(b, S_NA);
		return;
	}
	double minutes = seconds / 60.0;
	double hours = seconds / 3600.0;
	double days = seconds / 86400.0;
	if (S_round_dec(hours, 1) >= 24.0) {
		if (S_round_dec(days, 0) >= 1e6) {
			tb_fmt_sci(b, days, 3, false);
			tb_buf_puts(b, " days");
		} else if (S_round_dec(days, 1) >= 100.0) {
			S_str o;
			S_grouped(&o, days);
			tb_buf_puts(b, o.s);
			tb_buf_puts(b, " days");
		} else {
			tb_buf_fixed(b, days, 1);
			tb_buf_puts(b, " days");
		}
	} else if (S_round_dec(minutes, 0) >= 60.0) {
		tb_buf_fixed(b, hours, 1);
		tb_buf_puts(b, " hours");
	} else if (S_round_dec(seconds, 1) >= 60.0) {
		double m = S_round_dec(minutes, 0);
		tb_buf_printf(b, "%.0f minute%s", m, m == 1.0 ? "" : "s");
	} else if (seconds == 0) {
		tb_buf_puts(b, "0 s");
	} else if (seconds < 1e-3) {
		/* a failure rate of 1e-300 saves checkpoints for 4.9e-98 s: a
		 * power of ten, as elsewhere, not 100 zeros */
		tb_fmt_sci(b, seconds, 2, false);
		tb_buf_puts(b, " s");
	} else {
		S_str o;
		S_sig(&o, seconds, 2);
		if (S_at_least(&o, 10)) /* "42 s" but "8.3 s" */
			S_fixed(&o, seconds, 0);
		tb_buf_puts(b, o.s);
		tb_buf_puts(b, " s");
	}
}

void tb_fmt_money_ref(tb_buf *b, double amount, const char *currency, double ref)
{
	if (!isfinite(amount)) {
		tb_buf_puts(b, S_NA);
		return;
	}
	const char *sym = NULL;
	if (!currency || !*currency || !strcasecmp(currency, "USD") || !strcmp(currency, "$"))
		sym = "$";
	else if (!strcasecmp(currency, "EUR") || !strcmp(currency, "\u20ac"))
		sym = "\u20ac";
	else if (!strcasecmp(currency, "GBP") || !strcmp(currency, "\u00a3"))
		sym = "\u00a3";

	double a = fabs(amount);
	/* The style is the largest amount's, so "$15.65 ... within $1,500"
	 * never happens: the amounts of one line read alike. */
	double top = isfinite(ref) && fabs(ref) > a ? fabs(ref) : a;
	const char *suffix = "";
	S_str o;
	if (amount > 0 && S_round_dec(a, 2) == 0) {
		/* under half a cent: the figure, not a "$0.00" that reads as free */
		tb_buf b2;
		tb_buf_init(&b2);
		tb_fmt_sci(&b2, a, 3, false);
		snprintf(o.s, sizeof o.s, "%s", b2.ptr);
		tb_buf_release(&b2);
	} else if (S_round_dec(top, 2) < 1000.0 || (amount > 0 && S_round_dec(a, 0) == 0)) {
		/* cents; also for a positive amount whole units would show as 0 */
		S_fixed(&o, a, 2);
	} else if (S_round_dec(top, 0) < 1e9) {
		S_grouped(&o, a);
	} else {
		/* Past a billion the cents and units are noise in an estimate. */
		double unit = 1e9;
		suffix = "B";
		S_sig(&o, top / unit, 3);
		if (S_at_least(&o, 1000)) {
			unit = 1e12;
			suffix = "T";
		}
		S_sig(&o, a / unit, 3);
		if (S_at_least(&o, 1000)) {
			tb_buf b2;
			tb_buf_init(&b2);
			tb_fmt_sci(&b2, a, 3, false);
			snprintf(o.s, sizeof o.s, "%s", b2.ptr);
			tb_buf_release(&b2);
			suffix = "";
		}
	}
	bool neg = amount < 0 && strspn(o.s, "0.,") != strlen(o.s);
	if (neg)
		tb_buf_putc(b, '-');
	if (sym)
		tb_buf_puts(b, sym);
	tb_buf_puts(b, o.s);
	tb_buf_puts(b, suffix);
	if (!sym) {
		tb_buf_putc(b, ' ');
		tb_buf_puts(b, currency);
	}
}

void tb_fmt_money(tb_buf *b, double amount, const char *currency)
{
	tb_fmt_money_ref(b, amount, currency, amount);
}

void tb_fmt_pct(tb_buf *b, double fraction)
{
	if (!isfinite(fraction)) {
		tb_buf_puts(b, S_NA);
		return;
	}
	double p = fraction * 100.0;
	if (!isfinite(p)) {     /* a finite fraction past 1.8e306 */
		tb_buf_puts(b, S_NA);
		return;
	}
	if (p != 0 && fabs(p) < 1e-6) {
		tb_fmt_sci(b, p, 2, false);
		tb_buf_putc(b, '%');
		return;
	}
	S_str o;
	if (fabs(S_round_dec(p, 1)) >= 10.0) {
		S_fixed(&o, p, 0);
		S_fix_neg_zero(o.s);
	} else {
		S_sig(&o, p, 2);
	}
	tb_buf_puts(b, o.s);
	tb_buf_putc(b, '%');
}

void tb_fmt_prob(tb_buf *b, double p)
{
	if (!isfinite(p) || p < 0 || p > 1) {
		tb_buf_puts(b, S_NA);
		return;
	}
	if (p >= 0.995)
		tb_buf_puts(b, "over 99%");
	else if (p < 0.005)
		tb_buf_puts(b, "under 1%");
	else
		tb_buf_printf(b, "%.0f%%", fmin(99, fmax(1, floor(100 * p + 0.5))));
}

void tb_fmt_wrap(tb_buf *o, const char *s, size_t indent, size_t col)
{
	const char *p = s;
	while (*p) {
		const char *sp = strchr(p, ' ');
		size_t len = sp ? (size_t)(sp - p) : strlen(p);
		if (col > indent && col + 1 + len > 78) {
			tb_buf_putc(o, '\n');
			col = 0;
		}
		if (col == 0) {
			for (size_t k = 0; k < indent; k++)
				tb_buf_putc(o, ' ');
			col = indent;
		} else if (col > indent || p != s) {
			tb_buf_putc(o, ' ');
			col++;
		}
		tb_buf_put(o, p, len);
		col += len;
		p += len;
		while (*p == ' ')
			p++;
	}
	tb_buf_putc(o, '\n');
}

size_t tb_fmt_width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		if (((unsigned char)*s & 0xC0) != 0x80)
			w++;
	return w;
}
