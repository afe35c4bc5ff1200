/* Tests for fmt.c: the exact strings people read.  Expected strings are
 * worked out by hand from the rules in fmt.h (and, where noted, from
 * published figures: Llama 2 7B has 6,738,415,616 parameters per its model
 * card and Hugging Face config). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/buf.h"
#include "trainbudget/fmt.h"

/* Each helper formats into a fresh buffer and compares the whole string. */
#define EXPECT_FMT(call, want)                                           \
	do {                                                             \
		tb_buf b_;                                               \
		tb_buf_init(&b_);                                        \
		tb_buf *b = &b_;                                         \
		call;                                                    \
		cr_expect_str_eq(b_.ptr, (want), "%s", #call);           \
		tb_buf_release(&b_);                                     \
	} while (0)

Test(fmt, sig_keeps_significant_zeros)
{
	EXPECT_FMT(tb_fmt_sig(b, 0.35, 3), "0.350");
	EXPECT_FMT(tb_fmt_sig(b, 80.0, 3), "80.0");
	EXPECT_FMT(tb_fmt_sig(b, 123.456, 3), "123");
	EXPECT_FMT(tb_fmt_sig(b, 9.996, 3), "10.0");
	EXPECT_FMT(tb_fmt_sig(b, 123456, 3), "123000");
	EXPECT_FMT(tb_fmt_sig(b, 2.0 / 3.0, 0), "0.667"); /* 0 means default 3 */
	EXPECT_FMT(tb_fmt_sig(b, 0, 3), "0");
}

Test(fmt, never_nan_inf_or_negative_zero)
{
	EXPECT_FMT(tb_fmt_sig(b, NAN, 3), "n/a");
	EXPECT_FMT(tb_fmt_sig(b, INFINITY, 3), "n/a");
	EXPECT_FMT(tb_fmt_sci(b, -INFINITY, 3, false), "n/a");
	EXPECT_FMT(tb_fmt_bytes(b, NAN), "n/a");
	EXPECT_FMT(tb_fmt_gib(b, INFINITY), "n/a");
	EXPECT_FMT(tb_fmt_count(b, NAN), "n/a");
	EXPECT_FMT(tb_fmt_grouped(b, NAN), "n/a");
	EXPECT_FMT(tb_fmt_days(b, INFINITY), "n/a");
	EXPECT_FMT(tb_fmt_money(b, NAN, "USD"), "n/a");
	EXPECT_FMT(tb_fmt_pct(b, NAN), "n/a");
	EXPECT_FMT(tb_fmt_pct(b, 1.28e308), "n/a");  /* finite, but x100 is not */
	EXPECT_FMT(tb_fmt_sig(b, -0.0001, 3), "-0.000100");
	EXPECT_FMT(tb_fmt_sig(b, -0.0, 3), "0");
	EXPECT_FMT(tb_fmt_grouped(b, -0.4), "0");
	EXPECT_FMT(tb_fmt_pct(b, -0.0000001), "-0.000010%");
	EXPECT_FMT(tb_fmt_pct(b, -0.0), "0%");
	EXPECT_FMT(tb_fmt_count(b, -0.0), "0");
	EXPECT_FMT(tb_fmt_money(b, -0.001, "USD"), "$0.00");
}

Test(fmt, sci_unicode)
{
	/* Chinchilla 70B: 6 x 70e9 x 1.4e12 = 5.88e23 FLOPs. */
	EXPECT_FMT(tb_fmt_sci(b, 6 * 70e9 * 1.4e12, 3, false), "5.88 \u00d7 10\u00b2\u00b3");
	EXPECT_FMT(tb_fmt_sci(b, 4.2e21, 3, false), "4.20 \u00d7 10\u00b2\u00b9");
	EXPECT_FMT(tb_fmt_sci(b, 1.5e-5, 3, false), "1.50 \u00d7 10\u207b\u2075");
	EXPECT_FMT(tb_fmt_sci(b, 1e4, 3, false), "1.00 \u00d7 10\u2074");
	EXPECT_FMT(tb_fmt_sci(b, 9999.9, 3, false), "1.00 \u00d7 10\u2074");
	EXPECT_FMT(tb_fmt_sci(b, -3.14159e10, 3, false), "-3.14 \u00d7 10\u00b9\u2070");
	EXPECT_FMT(tb_fmt_sci(b, 1e100, 2, false), "1.0 \u00d7 10\u00b9\u2070\u2070");
}

Test(fmt, sci_plain_below_four_digits_of_exponent)
{
	EXPECT_FMT(tb_fmt_sci(b, 123, 3, false), "123");
	EXPECT_FMT(tb_fmt_sci(b, 0.35, 3, false), "0.350");
	EXPECT_FMT(tb_fmt_sci(b, 1234, 3, false), "1230");
	EXPECT_FMT(tb_fmt_sci(b, 0.001, 3, false), "0.00100");
	EXPECT_FMT(tb_fmt_sci(b, 0, 3, false), "0");
}

Test(fmt, sci_ascii)
{
	EXPECT_FMT(tb_fmt_sci(b, 4.2e21, 3, true), "4.20e21");
	EXPECT_FMT(tb_fmt_sci(b, 1.5e-5, 3, true), "1.50e-5");
	EXPECT_FMT(tb_fmt_sci(b, 123, 3, true), "123");
}

Test(fmt, bytes_decimal_units)
{
	EXPECT_FMT(tb_fmt_bytes(b, 80e9), "80.0 GB");
	EXPECT_FMT(tb_fmt_bytes(b, 1.12e12), "1.12 TB");
	/* Llama 2 7B weights in 16-bit: 6,738,415,616 x 2 bytes. */
	EXPECT_FMT(tb_fmt_bytes(b, 6738415616.0 * 2), "13.5 GB");
	EXPECT_FMT(tb_fmt_bytes(b, 16.6e9), "16.6 GB");
	EXPECT_FMT(tb_fmt_bytes(b, 999.7e9), "1.00 TB");
	EXPECT_FMT(tb_fmt_bytes(b, 512), "512 B");
	EXPECT_FMT(tb_fmt_bytes(b, 0), "0 B");
	EXPECT_FMT(tb_fmt_bytes(b, 1500), "1.50 kB");
	EXPECT_FMT(tb_fmt_bytes(b, 2.5e15), "2.50 PB");
	EXPECT_FMT(tb_fmt_bytes(b, -1), "n/a");
}

Test(fmt, gib_binary_units)
{
	/* An "80GB" H100 card has 80 GiB = 85,899,345,920 bytes. */
	EXPECT_FMT(tb_fmt_gib(b, 85899345920.0), "80.0 GiB");
	EXPECT_FMT(tb_fmt_gib(b, 80e9), "74.5 GiB");
	EXPECT_FMT(tb_fmt_gib(b, 1024), "1.00 KiB");
	EXPECT_FMT(tb_fmt_gib(b, 1023), "1023 B");
	EXPECT_FMT(tb_fmt_gib(b, 1099511627776.0), "1.00 TiB");
	EXPECT_FMT(tb_fmt_gib(b, -5), "n/a");
}

Test(fmt, count_suffixes)
{
	EXPECT_FMT(tb_fmt_count(b, 6738415616.0), "6.74B");
	EXPECT_FMT(tb_fmt_count(b, 100e9), "100B");
	EXPECT_FMT(tb_fmt_count(b, 1.4e12), "1.40T");
	EXPECT_FMT(tb_fmt_count(b, 4e6), "4.00M");
	EXPECT_FMT(tb_fmt_count(b, 12000), "12.0k");
	EXPECT_FMT(tb_fmt_count(b, 999), "999");
	EXPECT_FMT(tb_fmt_count(b, 8), "8");
	EXPECT_FMT(tb_fmt_count(b, 12.5), "12.5");
	EXPECT_FMT(tb_fmt_count(b, 999999), "1.00M");
	EXPECT_FMT(tb_fmt_count(b, -2e9), "-2.00B");
}

Test(fmt, grouped)
{
	EXPECT_FMT(tb_fmt_grouped(b, 6738415616.0), "6,738,415,616");
	EXPECT_FMT(tb_fmt_grouped(b, 999), "999");
	EXPECT_FMT(tb_fmt_grouped(b, 1000), "1,000");
	EXPECT_FMT(tb_fmt_grouped(b, 1234567.6), "1,234,568");
	EXPECT_FMT(tb_fmt_grouped(b, -1234567), "-1,234,567");
	EXPECT_FMT(tb_fmt_grouped(b, 0), "0");
}

Test(fmt, days_hours_minutes_seconds)
{
	EXPECT_FMT(tb_fmt_days(b, 23.4 * 86400), "23.4 days");
	EXPECT_FMT(tb_fmt_days(b, 2.3 * 86400), "2.3 days");
	EXPECT_FMT(tb_fmt_days(b, 1.5 * 86400), "1.5 days");
	EXPECT_FMT(tb_fmt_days(b, 5.1 * 3600), "5.1 hours");
	EXPECT_FMT(tb_fmt_days(b, 42 * 60), "42 minutes");
	EXPECT_FMT(tb_fmt_days(b, 60), "1 minute");
	EXPECT_FMT(tb_fmt_days(b, 8.3), "8.3 s");
	EXPECT_FMT(tb_fmt_days(b, 42), "42 s");
	EXPECT_FMT(tb_fmt_days(b, 0.35), "0.35 s");
	EXPECT_FMT(tb_fmt_days(b, 0), "0 s");
	EXPECT_FMT(tb_fmt_days(b, 1234.4 * 86400), "1,234 days");
	EXPECT_FMT(tb_fmt_days(b, -1), "n/a");
	/* issue 18: checkpoints of a run that almost never fails, 150 digits
	 * long before; a power of ten, as elsewhere */
	EXPECT_FMT(tb_fmt_days(b, 0.0049), "0.0049 s");
	EXPECT_FMT(tb_fmt_days(b, 4.9e-97), "4.9 \u00d7 10\u207b\u2079\u2077 s");
	EXPECT_FMT(tb_fmt_sig(b, 1e-200, 3), "1.00 \u00d7 10\u207b\u00b2\u2070\u2070");
	EXPECT_FMT(tb_fmt_sig(b, 0.00000012, 2), "1.2 \u00d7 10\u207b\u2077");
	EXPECT_FMT(tb_fmt_sig(b, 0.000012, 2), "0.000012");
	/* and a step of an absurd card (an fp4 peak of 1e-30 FLOP/s) */
	EXPECT_FMT(tb_fmt_sig(b, 3.13e46, 3), "3.13 \u00d7 10\u2074\u2076");
	EXPECT_FMT(tb_fmt_sig(b, 1e300, 2), "1.0 \u00d7 10\u00b3\u2070\u2070");
}

/* A unit moves on where the rounded figure reaches the next: decided on
 * the figure as written, its whole part (a fraction lies between it and
 * the next whole number), never on the value before rounding. */
Test(fmt, the_unit_moves_on_the_figure_as_written)
{
	EXPECT_FMT(tb_fmt_bytes(b, 999.4e3), "999 kB");
	EXPECT_FMT(tb_fmt_bytes(b, 999.5e3), "1.00 MB");
	/* 1,023.6 KiB is 1,020 to three digits, short of 1,024 */
	EXPECT_FMT(tb_fmt_gib(b, 1023.6 * 1024), "1020 KiB");
	EXPECT_FMT(tb_fmt_gib(b, 1024.0 * 1024), "1.00 MiB");
	EXPECT_FMT(tb_fmt_count(b, 999.4e3), "999k");
	EXPECT_FMT(tb_fmt_count(b, 999.5e3), "1.00M");
	EXPECT_FMT(tb_fmt_days(b, 9.94), "9.9 s");
	EXPECT_FMT(tb_fmt_days(b, 9.96), "10 s");
	/* past the largest unit: a power of ten */
	EXPECT_FMT(tb_fmt_count(b, 999.4e12), "999T");
	EXPECT_FMT(tb_fmt_count(b, 999.5e12), "1.00 \u00d7 10\u00b9\u2075");
}

Test(fmt, days_rounding_moves_to_the_next_unit)
{
	EXPECT_FMT(tb_fmt_days(b, 86400 - 60), "1.0 days");   /* 23.98 hours */
	EXPECT_FMT(tb_fmt_days(b, 3600 - 10), "1.0 hours");   /* 59.8 minutes */
	EXPECT_FMT(tb_fmt_days(b, 59.97), "1 minute");
}

Test(fmt, money)
{
	EXPECT_FMT(tb_fmt_money(b, 12345.4, "USD"), "$12,345");
	EXPECT_FMT(tb_fmt_money(b, 2.5, "USD"), "$2.50");
	EXPECT_FMT(tb_fmt_money(b, 999.999, "USD"), "$1,000");
	EXPECT_FMT(tb_fmt_money(b, 12345678.9, "USD"), "$12,345,679");
	EXPECT_FMT(tb_fmt_money(b, 1.234e9, "USD"), "$1.23B");
	EXPECT_FMT(tb_fmt_money(b, 2.5e12, "USD"), "$2.50T");
	EXPECT_FMT(tb_fmt_money(b, 1200000, "EUR"), "\u20ac1,200,000");
	EXPECT_FMT(tb_fmt_money(b, 1234, "GBP"), "\u00a31,234");
	EXPECT_FMT(tb_fmt_money(b, 1234, "CHF"), "1,234 CHF");
	EXPECT_FMT(tb_fmt_money(b, 1234, NULL), "$1,234");
	EXPECT_FMT(tb_fmt_money(b, -1234, "USD"), "-$1,234");
}

/* Money in one line keeps one style, the largest amount's: "$15.65 ...
 * within $1,500" mixed cents with whole units, "$950,000,000 to $1.20B"
 * whole units with billions. */
Test(fmt, money_in_the_style_of_a_reference)
{
	EXPECT_FMT(tb_fmt_money_ref(b, 15.65, "USD", 1500), "$16");
	EXPECT_FMT(tb_fmt_money_ref(b, 1500, "USD", 1500), "$1,500");
	EXPECT_FMT(tb_fmt_money_ref(b, 15.65, "USD", 22), "$15.65");
	EXPECT_FMT(tb_fmt_money_ref(b, 22, "USD", 22), "$22.00");
	EXPECT_FMT(tb_fmt_money_ref(b, 950e6, "USD", 1.2e9), "$0.950B");
	EXPECT_FMT(tb_fmt_money_ref(b, 1.2e9, "USD", 1.2e9), "$1.20B");
	EXPECT_FMT(tb_fmt_money_ref(b, 5e11, "EUR", 2e12), "\u20ac0.500T");
	EXPECT_FMT(tb_fmt_money_ref(b, 999.999, "USD", 10), "$1,000");   /* its own, larger */
	EXPECT_FMT(tb_fmt_money_ref(b, 12.6, "CHF", 5000), "13 CHF");
	EXPECT_FMT(tb_fmt_money_ref(b, -12.6, "USD", 5000), "-$13");
	EXPECT_FMT(tb_fmt_money_ref(b, 12.5, "USD", NAN), "$12.50");
	EXPECT_FMT(tb_fmt_money_ref(b, NAN, "USD", 5000), "n/a");
	EXPECT_FMT(tb_fmt_money_ref(b, 2e15, "USD", 2e15), "$2.00 \u00d7 10\u00b9\u2075");
}

Test(fmt, pct)
{
	EXPECT_FMT(tb_fmt_pct(b, 0.35), "35%");
	EXPECT_FMT(tb_fmt_pct(b, 0.027), "2.7%");
	EXPECT_FMT(tb_fmt_pct(b, 0.0035), "0.35%");
	EXPECT_FMT(tb_fmt_pct(b, 1.0), "100%");
	EXPECT_FMT(tb_fmt_pct(b, 0.02), "2.0%");
	EXPECT_FMT(tb_fmt_pct(b, 0.0996), "10%");
	EXPECT_FMT(tb_fmt_pct(b, 0.354), "35%");
	EXPECT_FMT(tb_fmt_pct(b, -0.25), "-25%");
	EXPECT_FMT(tb_fmt_pct(b, 0), "0%");
}

Test(fmt, beyond_the_largest_unit)
{
	EXPECT_FMT(tb_fmt_count(b, 1e30), "1.00 \u00d7 10\u00b3\u2070");
	EXPECT_FMT(tb_fmt_count(b, 999e12), "999T");
	EXPECT_FMT(tb_fmt_bytes(b, 2e21), "2.00 \u00d7 10\u00b2\u00b9 B");
	EXPECT_FMT(tb_fmt_bytes(b, 999e18), "999 EB");
	EXPECT_FMT(tb_fmt_money(b, 1e30, "USD"), "$1.00 \u00d7 10\u00b3\u2070");
	EXPECT_FMT(tb_fmt_money(b, 999e12, "USD"), "$999T");
	EXPECT_FMT(tb_fmt_days(b, 86400e7), "1.00 \u00d7 10\u2077 days");
	EXPECT_FMT(tb_fmt_days(b, 86400.0 * 999999), "999,999 days");
}

/* Figures far below a unit print as powers of ten, never as a wall of
 * zeros, and never as a zero that reads as a verdict ("$0.00", "0%"). */
Test(fmt, tiny_and_huge_figures)
{
	EXPECT_FMT(tb_fmt_count(b, 3.56e-18), "3.56 \u00d7 10\u207b\u00b9\u2078");
	EXPECT_FMT(tb_fmt_count(b, 0.005), "0.00500");
	EXPECT_FMT(tb_fmt_pct(b, 1e-30), "1.0 \u00d7 10\u207b\u00b2\u2078%");
	EXPECT_FMT(tb_fmt_pct(b, 1e-4), "0.010%");
	EXPECT_FMT(tb_fmt_grouped(b, 1.29e26), "1.29 \u00d7 10\u00b2\u2076");
	EXPECT_FMT(tb_fmt_grouped(b, 999999999999999.0), "999,999,999,999,999");
	EXPECT_FMT(tb_fmt_money(b, 2e-5, "USD"), "$2.00 \u00d7 10\u207b\u2075");
	EXPECT_FMT(tb_fmt_money(b, 0.004, "USD"), "$0.00400");
	EXPECT_FMT(tb_fmt_money(b, 0.005, "USD"), "$0.01");
	EXPECT_FMT(tb_fmt_money(b, 0, "USD"), "$0.00");
}

Test(fmt, appends_to_existing_content)
{
	tb_buf b;
	tb_buf_init(&b);
	tb_buf_puts(&b, "total: ");
	tb_fmt_bytes(&b, 80e9);
	cr_expect_str_eq(b.ptr, "total: 80.0 GB");
	tb_buf_release(&b);
}

/* Columns of text tables: code points, not bytes (× is 2 bytes, ² 2, € 3). */
Test(fmt, width_counts_code_points)
{
	cr_expect_eq(tb_fmt_width(""), 0);
	cr_expect_eq(tb_fmt_width("6.74B"), 5);
	cr_expect_eq(tb_fmt_width("4.04 × 10²¹"), 11);
	cr_expect_eq(tb_fmt_width("€1,500"), 6);
}

/* fmt.h's rule for significant digits, written with printf alone: the
 * exponent of "%.*e" at sig - 1 decimals, then "%.*f" at sig - 1 - e of
 * them (the %e value itself where that is below zero).  fmt.c formats
 * most figures by hand; these are the bytes it must write. */
static void S_sig_printf(char *out, size_t n, double v, int sig)
{
	char tmp[64];
	snprintf(tmp, sizeof tmp, "%.*e", sig - 1, v);
	int e = atoi(strchr(tmp, 'e') + 1);
	int dec = sig - 1 - e;
	if (dec < 0) {
		v = strtod(tmp, NULL);
		dec = 0;
	}
	snprintf(out, n, "%.*f", dec, v);
}

Test(fmt, sig_and_sci_are_printf)
{
	uint64_t x = 0x2545F4914F6CDD1Du;
	char want[512], mant[64];
	for (int i = 0; i < 400000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		double m = 1.0 + (double)(x >> 11) / 9007199254740992.0 * 9.0;
		int e = (int)(x % 23) - 5;
		int sig = 1 + (int)((x >> 8) % 6);
		/* every fourth value a short decimal, the kind a scenario holds,
		 * whose halves printf decides */
		double v = (x & 2) && (x & 4) ? floor(m * 1000) / 1000 * pow(10, e) : m * pow(10, e);
		if (x & 1)
			v = -v;
		S_sig_printf(want, sizeof want, v, sig);
		EXPECT_FMT(tb_fmt_sig(b, v, sig), want);
		if (fabs(v) >= 1e4) {
			snprintf(mant, sizeof mant, "%.*e", sig - 1, v);
			*strchr(mant, 'e') = '\0';
			tb_buf got;
			tb_buf_init(&got);
			tb_fmt_sci(&got, v, sig, true);
			cr_assert(!strncmp(got.ptr, mant, strlen(mant)) && got.ptr[strlen(mant)] == 'e',
			          "%.17g at %d: %s, printf's mantissa %s", v, sig, got.ptr, mant);
			tb_buf_release(&got);
		}
	}
	/* the edges of the hand path: powers of ten, carries, halves */
	const double edge[] = { 1, 10, 100, 1e14, 9.9999999e14, 1e15, 0.001, 1e-6, 9.995, 9.996,
	                        99.95, 0.12345, 999.5, 1.0000000001, 0.99999999999, 2.5, 0.25,
	                        123456789.5, 1e-12, 9.99999e-7 };
	for (size_t k = 0; k < sizeof edge / sizeof edge[0]; k++)
		for (int sig = 1; sig <= 9; sig++) {
			if (edge[k] < 1e-6)
				continue;   /* tb_fmt_sig writes those as powers of ten */
			S_sig_printf(want, sizeof want, edge[k], sig);
			EXPECT_FMT(tb_fmt_sig(b, edge[k], sig), want);
		}
}
