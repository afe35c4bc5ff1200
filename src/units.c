/* units.c: quantities with human units, parsed exactly.
 *
 * The number and its unit are rewritten as one decimal literal
 * ("1.5T" -> "1.5e12") and converted by strtod once, so decimal units are
 * correctly rounded rather than multiplied; binary units scale by a power
 * of two, which is exact. */
#include "trainbudget/units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Longer numerals are not quantities anyone types; refusing them bounds
 * the scratch buffer. */
#define S_MAX_NUMERAL 64

typedef struct S_unit {
	const char *name;
	int exp10;          /* decimal units: value x 10^exp10 */
	double factor;      /* otherwise: value x factor (exact powers of two, or seconds) */
} S_unit;

static const S_unit S_count_units[] = {
	{ "k", 3, 0 }, { "K", 3, 0 }, { "M", 6, 0 }, { "B", 9, 0 },
	{ "b", 9, 0 }, { "T", 12, 0 }, { "t", 12, 0 }, { "P", 15, 0 },
};

static const S_unit S_byte_units[] = {
	{ "B", 0, 0 }, { "kB", 3, 0 }, { "KB", 3, 0 }, { "MB", 6, 0 },
	{ "GB", 9, 0 }, { "TB", 12, 0 }, { "PB", 15, 0 },
	{ "KiB", 0, 1024.0 }, { "MiB", 0, 1048576.0 },
	{ "GiB", 0, 1073741824.0 }, { "TiB", 0, 1099511627776.0 },
	{ "PiB", 0, 1125899906842624.0 },
};

/* Link rates: bytes per second as the byte units, and bits per second as
 * networks are sold (400Gbit/s = 50 GB/s).  "/s" is optional and dropped
 * before the look-up; a lower-case b is a bit, as in Gb/s and Gbps. */
static const S_unit S_rate_units[] = {
	{ "B", 0, 0 }, { "kB", 3, 0 }, { "KB", 3, 0 }, { "MB", 6, 0 },
	{ "GB", 9, 0 }, { "TB", 12, 0 }, { "PB", 15, 0 },
	{ "KiB", 0, 1024.0 }, { "MiB", 0, 1048576.0 },
	{ "GiB", 0, 1073741824.0 }, { "TiB", 0, 1099511627776.0 },
	{ "bit", 0, 0.125 }, { "kbit", 3, 0.125 }, { "Kbit", 3, 0.125 },
	{ "Mbit", 6, 0.125 }, { "Gbit", 9, 0.125 }, { "Tbit", 12, 0.125 },
	{ "kb", 3, 0.125 }, { "Kb", 3, 0.125 }, { "Mb", 6, 0.125 },
	{ "Gb", 9, 0.125 }, { "Tb", 12, 0.125 },
	{ "bps", 0, 0.125 }, { "kbps", 3, 0.125 }, { "Kbps", 3, 0.125 },
	{ "Mbps", 6, 0.125 }, { "Gbps", 9, 0.125 }, { "Tbps", 12, 0.125 },
};

static const S_unit S_duration_units[] = {
	{ "ms", -3, 0 }, { "msec", -3, 0 },
	{ "s", 0, 1 }, { "sec", 0, 1 }, { "secs", 0, 1 }, { "second", 0, 1 },
	{ "seconds", 0, 1 }, { "min", 0, 60 }, { "mins", 0, 60 },
	{ "minute", 0, 60 }, { "minutes", 0, 60 }, { "h", 0, 3600 },
	{ "hr", 0, 3600 }, { "hrs", 0, 3600 }, { "hour", 0, 3600 },
	{ "hours", 0, 3600 }, { "d", 0, 86400 }, { "day", 0, 86400 },
	{ "days", 0, 86400 }, { "w", 0, 604800 }, { "wk", 0, 604800 },
	{ "week", 0, 604800 }, { "weeks", 0, 604800 },
};

static bool S_is_nonfinite_word(const char *p)
{
	/* YAML spells them .nan/.inf; C and Python spell them nan/inf. */
	while (*p == '+' || *p == '-' || *p == '.')
		p++;
	return strncasecmp(p, "nan", 3) == 0 || strncasecmp(p, "inf", 3) == 0;
}

/* Scans an unsigned decimal numeral with optional '_' separators between
 * digits, fraction and exponent into buf (separators removed).  Returns
 * the end of the numeral, or NULL when there is none. */
static const char *S_scan_numeral(const char *p, char *buf, size_t *blen,
                                  bool *too_long)
{
	size_t n = 0;
	bool digits = false;
#define S_PUT(c) do { if (n + 1 >= S_MAX_NUMERAL) *too_long = true; else buf[n++] = (c); } while (0)
	while (isdigit((unsigned char)*p) || (*p == '_' && digits && isdigit((unsigned char)p[1]))) {
		if (*p != '_')
			S_PUT(*p);
		digits = true;
		p++;
	}
	if (*p == '.' && isdigit((unsigned char)p[1])) {
		S_PUT('.');
		p++;
		while (isdigit((unsigned char)*p) || (*p == '_' && isdigit((unsigned char)p[1]))) {
			if (*p != '_')
				S_PUT(*p);
			digits = true;
			p++;
		}
	} else if (*p == '.' && digits) {
		p++;    /* "7." is a number */
	}
	if (!digits)
		return NULL;
	if ((*p == 'e' || *p == 'E') &&
	    (isdigit((unsigned char)p[1]) ||
	     ((p[1] == '+' || p[1] == '-') && isdigit((unsigned char)p[2])))) {
		S_PUT('e');
		p++;
		if (*p == '+' || *p == '-')
			S_PUT(*p++);
		int ed = 0;
		while (isdigit((unsigned char)*p)) {
			if (ed++ < 6)
				S_PUT(*p);
			else
				*too_long = true;
			p++;
		}
	}
#undef S_PUT
	buf[n] = '\0';
	*blen = n;
	return p;
}

/* Parses "<number> [unit]" against a unit table.  A bare number takes
 * factor 1.  Zero and negatives get their own statuses. */
static tb_units_status S_parse(const char *s, const S_unit *units, size_t nunits,
                               bool allow_zero, double *out)
{
	if (!s)
		return TB_UNITS_EMPTY;
	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return TB_UNITS_EMPTY;
	if (S_is_nonfinite_word(s))
		return TB_UNITS_RANGE;
	bool negative = false;
	if (*s == '+' || *s == '-') {
		negative = *s == '-';
		s++;
	}
	char num[S_MAX_NUMERAL + 16];
	size_t nlen = 0;
	bool too_long = false;
	const char *p = S_scan_numeral(s, num, &nlen, &too_long);
	if (!p)
		return TB_UNITS_SYNTAX;
	if (too_long)
		return TB_UNITS_RANGE;
	while (*p == ' ')
		p++;
	const char *u = p;
	size_t ulen = strlen(u);
	while (ulen && isspace((unsigned char)u[ulen - 1]))
		ulen--;

	int exp10 = 0;
	double factor = 1.0;
	if (ulen) {
		const S_unit *hit = NULL;
		for (size_t i = 0; i < nunits; i++) {
			if (strlen(units[i].name) == ulen && strncmp(units[i].name, u, ulen) == 0) {
				hit = &units[i];
				break;
			}
		}
		if (!hit)
			return isdigit((unsigned char)*u) || *u == '.' ? TB_UNITS_SYNTAX : TB_UNITS_SUFFIX;
		exp10 = hit->exp10;
		factor = hit->factor ? hit->factor : 1.0;
	}
	if (exp10) {
		/* Fold the unit's power of ten into the literal's exponent. */
		char *e = strchr(num, 'e');
		long ex = 0;
		if (e) {
			ex = strtol(e + 1, NULL, 10);
			*e = '\0';
		}
		snprintf(num + strlen(num), sizeof num - strlen(num), "e%ld", ex + exp10);
	}
	errno = 0;
	double v = strtod(num, NULL);
	/* Both ways: a literal that underflows (1e-400, or a subnormal) is as
	 * unknown as one that overflows; read as 0 it would be "free". */
	if (errno == ERANGE)
		return TB_UNITS_RANGE;
	v *= factor;
	if (!isfinite(v) || v > 1e300 || (v != 0 && v < 1e-300))
		return TB_UNITS_RANGE;
	if (negative && v != 0)
		return TB_UNITS_NEGATIVE;
	if (v == 0 && !allow_zero)
		return TB_UNITS_ZERO;
	*out = v;
	return TB_UNITS_OK;
}

tb_units_status tb_units_parse_count(const char *s, double *out)
{
	return S_parse(s, S_count_units, sizeof S_count_units / sizeof *S_count_units, false, out);
}

tb_units_status tb_units_parse_bytes(const char *s, double *out_bytes)
{
	return S_parse(s, S_byte_units, sizeof S_byte_units / sizeof *S_byte_units, false, out_bytes);
}

tb_units_status tb_units_parse_rate(const char *s, double *out_bytes_per_s)
{
	if (!s)
		return TB_UNITS_EMPTY;
	char buf[S_MAX_NUMERAL + 64];
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (n >= 2 && n < sizeof buf && s[n - 2] == '/' && s[n - 1] == 's') {
		memcpy(buf, s, n - 2);
		buf[n - 2] = '\0';
		s = buf;
	}
	return S_parse(s, S_rate_units, sizeof S_rate_units / sizeof *S_rate_units, false,
	               out_bytes_per_s);
}

tb_units_status tb_units_parse_duration(const char *s, double *out_s)
{
	return S_parse(s, S_duration_units, sizeof S_duration_units / sizeof *S_duration_units, false, out_s);
}

tb_units_status tb_units_parse_fraction(const char *s, double *out)
{
	static const S_unit pct[] = { { "%", -2, 0 } };
	double v = 0;
	tb_units_status st = S_parse(s, pct, 1, true, &v);
	if (st != TB_UNITS_OK)
		return st;
	if (v > 1.0)
		return TB_UNITS_FRACTION;
	*out = v;
	return TB_UNITS_OK;
}

tb_units_status tb_units_parse_number(const char *s, double *out)
{
	return S_parse(s, NULL, 0, true, out);
}

const char *tb_units_status_str(tb_units_status st)
{
	switch (st) {
	case TB_UNITS_OK: return "a valid quantity";
	case TB_UNITS_EMPTY: return "an empty value";
	case TB_UNITS_SYNTAX: return "not a number";
	case TB_UNITS_SUFFIX: return "an unknown unit";
	case TB_UNITS_NEGATIVE: return "a negative value";
	case TB_UNITS_ZERO: return "zero";
	case TB_UNITS_RANGE: return "out of range (too large, too small, NaN or infinite)";
	case TB_UNITS_FRACTION: return "a fraction outside [0, 1]";
	}
	return "an invalid quantity";
}
