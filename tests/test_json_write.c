/* test_json_write.c: JSON numbers are the bytes of the printf rule
 * json_write.c states (the shortest of %.15g, %.16g and %.17g that reads
 * back exactly; whole numbers below 2^53 as "%.0f"), whichever path wrote
 * them. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_write.h"

static void S_expect(double v)
{
	char want[400];
	if (v == trunc(v) && fabs(v) < 9007199254740992.0) {
		snprintf(want, sizeof want, "%.0f", v);
		if (v == 0)
			strcpy(want, "0");
	} else {
		for (int prec = 15; prec <= 17; prec++) {
			snprintf(want, sizeof want, "%.*g", prec, v);
			if (strtod(want, NULL) == v)
				break;
		}
	}
	tb_buf b;
	tb_buf_init(&b);
	tb_jw_number(&b, v);
	cr_assert_str_eq(b.ptr, want, "%.17g", v);
	tb_buf_release(&b);
}

/* Marsaglia's xorshift64: the same values on every machine. */
static uint64_t S_xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

Test(json_write, numbers_are_printf)
{
	uint64_t x = 0x9E3779B97F4A7C15u;
	for (int i = 0; i < 300000; i++) {
		S_xorshift(&x);
		int e = (int)(x % 30) - 12;
		int digits = 1 + (int)((x >> 6) % 17);
		double m = (double)(x >> 11) / 9007199254740992.0;
		/* a short decimal (what scenarios and rounded figures hold), or
		 * any double */
		double v = x & 2 ? nearbyint(m * pow(10, digits)) / pow(10, digits - e % 6)
		                 : m * pow(10, e);
		S_expect(x & 1 ? -v : v);
	}
	const double edge[] = { 0.0, -0.0, 0.1, 0.2, 0.3, 1e-4, 1.0000000000000001e-4, 9.9999e-5,
	                        0.35, 123456.789, 999999999.5, 1e9, 1e9 - 0.5, 1e15 + 0.5,
	                        9007199254740992.0, 9007199254740993.0, 4.35, 2.675, 1.0 / 3,
	                        0.123456789012345, 0.1234567890123456, 5e-324, 1.7976931348623157e308 };
	for (size_t k = 0; k < sizeof edge / sizeof edge[0]; k++) {
		S_expect(edge[k]);
		S_expect(-edge[k]);
	}
}

/* Where the digits are made without printf (1e-5 to 1e15): any double
 * there, log-uniform; beside each power of ten; and exact ties, where
 * printf rounds the half to even: a whole number of 13 to 15 digits plus
 * an eighth, a quarter or a half has its 5 at the 16th, 17th or 18th
 * significant digit. */
Test(json_write, digits_without_printf_are_printf)
{
	uint64_t x = 0xD1B54A32D192ED03u;
	for (int i = 0; i < 200000; i++) {
		S_xorshift(&x);
		double u = (double)(x >> 11) / 9007199254740992.0;
		double v = pow(10, -5.5 + 21 * u);
		S_expect(x & 1 ? -v : v);
	}
	for (int j = -6; j <= 16; j++) {
		double t = pow(10, j);
		double near[] = { t, nextafter(t, 0), nextafter(t, INFINITY),
		                  nextafter(nextafter(t, 0), 0), nextafter(nextafter(t, INFINITY), INFINITY) };
		for (size_t k = 0; k < sizeof near / sizeof near[0]; k++)
			S_expect(near[k]);
	}
	const double frac[] = { 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875 };
	for (int i = 0; i < 3000; i++) {
		S_xorshift(&x);
		int digits = 13 + i % 3;
		double lo = pow(10, digits - 1);
		double M = lo + (double)(x % (uint64_t)(9 * lo));
		S_expect(M + frac[(x >> 40) % 7]);
	}
}

Test(json_write, non_finite_is_null)
{
	tb_buf b;
	tb_buf_init(&b);
	tb_jw_number(&b, NAN);
	tb_jw_number(&b, -INFINITY);
	cr_assert_str_eq(b.ptr, "nullnull");
	tb_buf_release(&b);
}
