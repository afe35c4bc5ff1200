/* units.h: quantities with human units, parsed exactly.
 *
 *   counts     7B  1.5T  4M  6.7e9  7_000_000_000  12k
 *   bytes      80GB (1e9)  80GiB (2^30)  512MB  1.5TiB  -- kept distinct
 *   durations  30d  30 days  720h  1.8 s  350 ms  90min  2w
 *   fractions  0.35  35%
 *   rates      450GB/s  450GB  400Gbit/s  400Gb/s  400Gbps  (bytes per second)
 *
 * A value out goes through a pointer only on TB_UNITS_OK (curl's
 * tool_paramhlp).  Every result is finite; NaN/inf text is rejected. */
#ifndef TB_UNITS_H
#define TB_UNITS_H

typedef enum {
	TB_UNITS_OK,
	TB_UNITS_EMPTY,     /* nothing to parse */
	TB_UNITS_SYNTAX,    /* not a number */
	TB_UNITS_SUFFIX,    /* a number with an unknown unit */
	TB_UNITS_NEGATIVE,
	TB_UNITS_ZERO,      /* zero where a positive value is required */
	TB_UNITS_RANGE,     /* overflows, or NaN/inf */
	TB_UNITS_FRACTION   /* a fraction outside [0, 1] */
} tb_units_status;

tb_units_status tb_units_parse_count(const char *s, double *out);
tb_units_status tb_units_parse_bytes(const char *s, double *out_bytes);
tb_units_status tb_units_parse_duration(const char *s, double *out_s);
tb_units_status tb_units_parse_rate(const char *s, double *out_bytes_per_s);
tb_units_status tb_units_parse_fraction(const char *s, double *out);
/* A plain number, no unit (prices, multiples).  Must be finite and >= 0. */
tb_units_status tb_units_parse_number(const char *s, double *out);

/* What is wrong, for diagnostics: "a negative value", "an unknown unit".
 * The caller adds what was expected, which depends on the quantity. */
const char *tb_units_status_str(tb_units_status st);

#endif
