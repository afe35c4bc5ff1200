/* PLACEHOLDER: replaced by its owner; see include/trainbudget/. */
#include "trainbudget/units.h"
tb_units_status tb_units_parse_count(const char *s, double *o) { (void)s; (void)o; return TB_UNITS_SYNTAX; }
tb_units_status tb_units_parse_bytes(const char *s, double *o) { (void)s; (void)o; return TB_UNITS_SYNTAX; }
tb_units_status tb_units_parse_duration(const char *s, double *o) { (void)s; (void)o; return TB_UNITS_SYNTAX; }
tb_units_status tb_units_parse_fraction(const char *s, double *o) { (void)s; (void)o; return TB_UNITS_SYNTAX; }
tb_units_status tb_units_parse_number(const char *s, double *o) { (void)s; (void)o; return TB_UNITS_SYNTAX; }
const char *tb_units_status_str(tb_units_status st) { (void)st; return ""; }
