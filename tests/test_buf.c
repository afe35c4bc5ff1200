/* test_buf.c: the byte buffer (src/buf.c). */
#include <criterion/criterion.h>
#include <limits.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "trainbudget/buf.h"

static void expect_printf(double v, int dec)
{
	char want[512];
	snprintf(want, sizeof want, "%.*f", dec, v);
	tb_buf b;
	tb_buf_init(&b);
	tb_buf_fixed(&b, v, dec);
	cr_assert_str_eq(b.ptr, want, "%.17g at %d decimals", v, dec);
	tb_buf_release(&b);
}

/* The hand path against printf: a million values over every scale a
 * chart or a table writes, the halves that send it to printf, the signed
 * zeros and the values past its bound. */
Test(buf, fixed_is_printf)
{
	uint64_t x = 0x9E3779B97F4A7C15u;
	for (int i = 0; i < 1000000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		double mant = (double)(x >> 11) / 9007199254740992.0;
		int e = (int)(x % 25) - 12;
		double v = (x & 1 ? -1 : 1) * mant * pow(10, e);
		expect_printf(v, (int)((x >> 5) % 10));
	}
	const double special[] = { 0.0, -0.0, 0.5, -0.5, 1.5, 2.5, 0.125, 0.005, -0.005, 0.015,
	                           1.005, 2.675, 1e9, -1e9, 1e9 + 0.5, 1e12, -3e15, 123456.785,
	                           0.0049999999999999999, -0.001, 999.9995, 1e-300 };
	for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
		for (int d = 0; d <= 9; d++)
			expect_printf(special[i], d);
	for (int k = -100000; k <= 100000; k++)
		for (int d = 0; d <= 3; d++)
			expect_printf(k / 2000.0, d);
	/* decimals ending in 5 one place past the last kept: a hair either
	 * side of a half, which the exact product decides */
	for (int d = 0; d <= 9; d++)
		for (long k = -20000; k <= 20000; k++)
			expect_printf((double)(k * 10 + 5) / pow(10, d + 1), d);
	for (int d = 0; d <= 9; d++)
		for (long k = 1; k <= 2000; k++)
			expect_printf((double)(k * 7919 * 10 + 5) / pow(10, d + 1), d);
	/* binary fractions: exact halves at every number of decimals, which
	 * printf rounds to even */
	for (int k = -70000; k <= 70000; k++)
		for (int d = 0; d <= 9; d++)
			expect_printf(k / 1024.0, d);
}

/* The hand path must take the common cases, or it saves nothing. */
Test(buf, fixed_str_takes_exact_halves)
{
	char s[TB_FIXED_MAX];
	cr_assert_eq(tb_fixed_str(s, 0.125, 2), 4);
	cr_assert_str_eq(s, "0.12");
	cr_assert_eq(tb_fixed_str(s, -2.5, 0), 2);
	cr_assert_str_eq(s, "-2");
	/* 1.005 is 1.00499999999999989...: the exact product decides */
	cr_assert_eq(tb_fixed_str(s, 1.005, 2), 4);
	cr_assert_str_eq(s, "1.00");
	cr_assert_eq(tb_fixed_str(s, 2.675, 2), 4);
	cr_assert_str_eq(s, "2.67");
	cr_assert_eq(tb_fixed_str(s, 1.015, 2), 4);
	cr_assert_str_eq(s, "1.01");
	cr_assert_eq(tb_fixed_str(s, 0.125, 2), 4);
	cr_assert_eq(tb_fixed_str(s, 1e13, 0), 0);
	cr_assert_eq(tb_fixed_str(s, 1.0, 10), 0);
}

Test(buf, fixed_out_of_range_decimals_fall_back)
{
	expect_printf(3.14159265, 12);
	expect_printf(-2.5e-7, 15);
	expect_printf(6.02e23, 2);
}

Test(buf, int_and_hex4_are_printf)
{
	const long long iv[] = { 0, 1, -1, 9, 10, -10, 65535, 1234567890123LL, LLONG_MAX, LLONG_MIN };
	const unsigned long hv[] = { 0, 0xA, 0xFFF, 0x1000, 0xFFFF, 0x10000, 0xD800, 0xDFFF, 0x10FFFF,
	                             0xFFFFFFFFul };
	char want[64];
	for (size_t i = 0; i < sizeof iv / sizeof iv[0]; i++) {
		tb_buf b;
		tb_buf_init(&b);
		tb_buf_int(&b, iv[i]);
		snprintf(want, sizeof want, "%lld", iv[i]);
		cr_assert_str_eq(b.ptr, want);
		tb_buf_release(&b);
	}
	for (size_t i = 0; i < sizeof hv / sizeof hv[0]; i++) {
		tb_buf b;
		tb_buf_init(&b);
		tb_buf_hex4(&b, hv[i]);
		snprintf(want, sizeof want, "%04lX", hv[i]);
		cr_assert_str_eq(b.ptr, want);
		tb_buf_release(&b);
	}
}

/* tb_buf_fixed_trim: printf's "%.*f" less its trailing zeros and point,
 * "-0" as "0"; nothing and false out of range. */
Test(buf, fixed_trim_is_printf_trimmed)
{
	uint64_t x = 0xD1B54A32D192ED03u;
	char want[64];
	for (int i = 0; i < 300000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		int d = (int)((x >> 5) % 10);
		double v = (x & 1 ? -1 : 1) * (double)(x >> 20) / pow(10, (double)((x >> 8) % 12));
		snprintf(want, sizeof want, "%.*f", d, v);
		size_t n = strlen(want);
		if (strchr(want, '.')) {
			while (want[n - 1] == '0')
				n--;
			if (want[n - 1] == '.')
				n--;
		}
		want[n] = '\0';
		if (!strcmp(want, "-0"))
			strcpy(want, "0");
		tb_buf b;
		tb_buf_init(&b);
		bool in = tb_buf_fixed_trim(&b, v, d);
		cr_assert(in ? !strcmp(b.ptr, want) : fabs(v) * pow(10, d) > 1e12,
		          "%.17g at %d: %s, printf %s", v, d, b.ptr, want);
		if (!in)
			cr_assert_eq(b.len, 0);
		tb_buf_release(&b);
	}
}
