/* fuzz_units.c: libFuzzer target for the tb_units_parse_* functions.
 *
 * Beyond "does not crash", it checks the contract in units.h: a value comes
 * out only on TB_UNITS_OK, and then it is finite and non-negative (a
 * fraction in [0, 1]).  A violation aborts, so libFuzzer keeps the input. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "trainbudget/units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void S_check(tb_units_status st, double v, double sentinel, int fraction)
{
	if (tb_units_status_str(st) == NULL)
		abort();
	if (st != TB_UNITS_OK) {
		/* the out value must be left alone on failure */
		if (memcmp(&v, &sentinel, sizeof v) != 0)
			abort();
		return;
	}
	if (!isfinite(v) || v < 0)
		abort();
	if (fraction && v > 1)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The parsers take C strings: an exact-size copy lets ASan see any
	 * read past the terminator. */
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';

	const double sentinel = -12345.0;
	double v;
	v = sentinel; S_check(tb_units_parse_count(s, &v), v, sentinel, 0);
	v = sentinel; S_check(tb_units_parse_bytes(s, &v), v, sentinel, 0);
	v = sentinel; S_check(tb_units_parse_duration(s, &v), v, sentinel, 0);
	v = sentinel; S_check(tb_units_parse_fraction(s, &v), v, sentinel, 1);
	v = sentinel; S_check(tb_units_parse_number(s, &v), v, sentinel, 0);
	v = sentinel; S_check(tb_units_parse_rate(s, &v), v, sentinel, 0);
	free(s);
	return 0;
}
