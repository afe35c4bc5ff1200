/* Units: each expected value is the unit's definition (SI prefixes, IEC
 * binary prefixes, seconds per day), never a figure the code produced. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <string.h>

#include "trainbudget/units.h"
#include "trainbudget/inputs.h"

typedef struct S_case {
	char text[80];
	int kind;           /* 0 count, 1 bytes, 2 duration, 3 fraction, 4 number, 5 rate */
	tb_units_status st;
	double want;
} S_case;

static tb_units_status S_run(const S_case *c, double *v)
{
	switch (c->kind) {
	case 0: return tb_units_parse_count(c->text, v);
	case 1: return tb_units_parse_bytes(c->text, v);
	case 2: return tb_units_parse_duration(c->text, v);
	case 3: return tb_units_parse_fraction(c->text, v);
	case 5: return tb_units_parse_rate(c->text, v);
	default: return tb_units_parse_number(c->text, v);
	}
}

ParameterizedTestParameters(units, table)
{
	static S_case cases[] = {
		{ "7B", 0, TB_UNITS_OK, 7e9 },
		{ "1.5T", 0, TB_UNITS_OK, 1.5e12 },
		{ "4M", 0, TB_UNITS_OK, 4e6 },
		{ "12k", 0, TB_UNITS_OK, 12e3 },
		{ "6.7e9", 0, TB_UNITS_OK, 6.7e9 },
		{ "7_000_000_000", 0, TB_UNITS_OK, 7e9 },
		{ "100B", 0, TB_UNITS_OK, 1e11 },
		{ "15T", 0, TB_UNITS_OK, 1.5e13 },
		{ "1.1B", 0, TB_UNITS_OK, 1.1e9 },
		{ " 32 ", 0, TB_UNITS_OK, 32 },
		{ "7 B", 0, TB_UNITS_OK, 7e9 },
		{ "0.3e1k", 0, TB_UNITS_OK, 3e3 },
		{ "80GB", 1, TB_UNITS_OK, 80e9 },
		{ "80GiB", 1, TB_UNITS_OK, 80.0 * 1073741824.0 },
		{ "512MB", 1, TB_UNITS_OK, 512e6 },
		{ "512MiB", 1, TB_UNITS_OK, 512.0 * 1048576.0 },
		{ "1.5TiB", 1, TB_UNITS_OK, 1.5 * 1099511627776.0 },
		{ "2TB", 1, TB_UNITS_OK, 2e12 },
		{ "4KiB", 1, TB_UNITS_OK, 4096 },
		{ "4KB", 1, TB_UNITS_OK, 4000 },
		{ "1000", 1, TB_UNITS_OK, 1000 },
		{ "71 GiB", 1, TB_UNITS_OK, 71.0 * 1073741824.0 },
		/* rates: a bit is 1/8 byte; "/s" optional */
		{ "400Gbit/s", 5, TB_UNITS_OK, 50e9 },
		{ "400 Gbit/s", 5, TB_UNITS_OK, 50e9 },
		{ "400Gb/s", 5, TB_UNITS_OK, 50e9 },
		{ "200Gbps", 5, TB_UNITS_OK, 25e9 },
		{ "450GB/s", 5, TB_UNITS_OK, 450e9 },
		{ "450GB", 5, TB_UNITS_OK, 450e9 },
		{ "1.6Tbit/s", 5, TB_UNITS_OK, 200e9 },
		{ "64GiB/s", 5, TB_UNITS_OK, 64.0 * 1073741824.0 },
		{ "25e9", 5, TB_UNITS_OK, 25e9 },
		{ "400Gbits/s", 5, TB_UNITS_SUFFIX, 0 },
		{ "0Gbit/s", 5, TB_UNITS_ZERO, 0 },
		{ "-1GB/s", 5, TB_UNITS_NEGATIVE, 0 },
		{ "/s", 5, TB_UNITS_EMPTY, 0 },
		{ "30d", 2, TB_UNITS_OK, 30 * 86400.0 },
		{ "30 days", 2, TB_UNITS_OK, 30 * 86400.0 },
		{ "720h", 2, TB_UNITS_OK, 720 * 3600.0 },
		{ "1.8 s", 2, TB_UNITS_OK, 1.8 },
		{ "90min", 2, TB_UNITS_OK, 5400 },
		{ "350 ms", 2, TB_UNITS_OK, 0.35 },
		{ "1.5msec", 2, TB_UNITS_OK, 0.0015 },
		{ "2w", 2, TB_UNITS_OK, 14 * 86400.0 },
		{ "45", 2, TB_UNITS_OK, 45 },
		{ "1 day", 2, TB_UNITS_OK, 86400 },
		{ "0.35", 3, TB_UNITS_OK, 0.35 },
		{ "35%", 3, TB_UNITS_OK, 0.35 },
		{ "100%", 3, TB_UNITS_OK, 1.0 },
		{ "0", 3, TB_UNITS_OK, 0 },
		{ "2.50", 4, TB_UNITS_OK, 2.5 },
		{ "0", 4, TB_UNITS_OK, 0 },
		/* failures, each with its own status */
		{ "", 0, TB_UNITS_EMPTY, 0 },
		{ "   ", 1, TB_UNITS_EMPTY, 0 },
		{ "abc", 0, TB_UNITS_SYNTAX, 0 },
		{ "7X", 0, TB_UNITS_SUFFIX, 0 },
		{ "80Gb/s", 1, TB_UNITS_SUFFIX, 0 },
		{ "30 fortnights", 2, TB_UNITS_SUFFIX, 0 },
		{ "7B", 1, TB_UNITS_OK, 7 },          /* B is bytes here */
		{ "-7B", 0, TB_UNITS_NEGATIVE, 0 },
		{ "-1", 4, TB_UNITS_NEGATIVE, 0 },
		{ "-30d", 2, TB_UNITS_NEGATIVE, 0 },
		{ "0", 0, TB_UNITS_ZERO, 0 },
		{ "0GB", 1, TB_UNITS_ZERO, 0 },
		{ "0s", 2, TB_UNITS_ZERO, 0 },
		{ "1e400", 0, TB_UNITS_RANGE, 0 },
		{ "1e299T", 0, TB_UNITS_RANGE, 0 },
		{ "nan", 0, TB_UNITS_RANGE, 0 },
		{ ".nan", 4, TB_UNITS_RANGE, 0 },
		{ ".inf", 1, TB_UNITS_RANGE, 0 },
		{ "-inf", 2, TB_UNITS_RANGE, 0 },
		{ "Infinity", 4, TB_UNITS_RANGE, 0 },
		{ "1.5", 3, TB_UNITS_FRACTION, 0 },
		{ "135%", 3, TB_UNITS_FRACTION, 0 },
		{ "2", 3, TB_UNITS_FRACTION, 0 },
		{ "-0.1", 3, TB_UNITS_NEGATIVE, 0 },
		{ "7B", 4, TB_UNITS_SUFFIX, 0 },
		{ "1_", 0, TB_UNITS_SUFFIX, 0 },
		{ "_1", 0, TB_UNITS_SYNTAX, 0 },
		{ "1..2", 0, TB_UNITS_SYNTAX, 0 },
		{ "0x10", 0, TB_UNITS_SUFFIX, 0 },
		{ "12345678901234567890123456789012345678901234567890123456789012345", 0, TB_UNITS_RANGE, 0 },
	};
	return cr_make_param_array(S_case, cases, sizeof cases / sizeof *cases);
}

ParameterizedTest(S_case *c, units, table)
{
	double v = -12345;
	tb_units_status st = S_run(c, &v);
	cr_assert_eq(st, c->st, "'%s' (kind %d): status %d, expected %d", c->text, c->kind, st, c->st);
	if (st == TB_UNITS_OK)
		cr_assert_eq(v, c->want, "'%s': %.17g, expected %.17g", c->text, v, c->want);
	else
		cr_assert_eq(v, -12345, "'%s': out written on failure", c->text);
}

Test(units, gb_and_gib_distinct)
{
	double gb = 0, gib = 0;
	cr_assert_eq(tb_units_parse_bytes("80GB", &gb), TB_UNITS_OK);
	cr_assert_eq(tb_units_parse_bytes("80GiB", &gib), TB_UNITS_OK);
	cr_assert_eq(gb, 80000000000.0);
	cr_assert_eq(gib, 85899345920.0);
}

Test(units, null_is_empty)
{
	double v;
	cr_assert_eq(tb_units_parse_count(NULL, &v), TB_UNITS_EMPTY);
}

Test(units, status_strings_distinct)
{
	for (int a = TB_UNITS_OK; a <= TB_UNITS_FRACTION; a++)
		for (int b = a + 1; b <= TB_UNITS_FRACTION; b++)
			cr_assert_str_neq(tb_units_status_str((tb_units_status)a),
			                  tb_units_status_str((tb_units_status)b));
}

Test(units, precision_compute_dtype)
{
	cr_assert_eq(tb_precision_compute_dtype(TB_PREC_FP32), TB_DTYPE_TF32);
	cr_assert_eq(tb_precision_compute_dtype(TB_PREC_BF16_MIXED), TB_DTYPE_BF16);
	cr_assert_eq(tb_precision_compute_dtype(TB_PREC_BF16), TB_DTYPE_BF16);
	cr_assert_eq(tb_precision_compute_dtype(TB_PREC_FP16_MIXED), TB_DTYPE_FP16);
	cr_assert_eq(tb_precision_compute_dtype(TB_PREC_FP8_MIXED), TB_DTYPE_FP8);
	cr_assert_str_eq(tb_precision_name(TB_PREC_BF16_MIXED), "bf16-mixed");
	cr_assert_str_eq(tb_optimizer_name(TB_OPT_ADAMW_8BIT), "adamw-8bit");
	cr_assert_str_eq(tb_positions_name(TB_POS_ALIBI), "alibi");
	cr_assert_str_eq(tb_dtype_name(TB_DTYPE_TF32), "tf32");
}
