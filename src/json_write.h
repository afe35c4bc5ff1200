/* json_write.h: the JSON writer the JSON back ends share (render_json.c
 * with render_json_inputs.c and render_json_calib.c, render_json_compare.c);
 * internal to the library.
 *
 * Keys in the order written, two-space indents, short number arrays on
 * one line, numbers in the shortest form that reads back to the same
 * double (whole numbers below 2^53 as integers), anything non-finite as
 * null, strings as valid UTF-8 (a stray byte becomes U+FFFD): the same
 * data gives the same bytes. */
#ifndef TB_JSON_WRITE_H
#define TB_JSON_WRITE_H

#include <stdbool.h>
#include "trainbudget/budget.h"
#include "trainbudget/buf.h"
#include "trainbudget/scenario.h"

#define TB_JW_DEPTH_MAX 24

typedef struct tb_jw {
	tb_buf *out;
	int depth;
	bool first[TB_JW_DEPTH_MAX];
	bool inline_[TB_JW_DEPTH_MAX];  /* short number arrays on one line */
} tb_jw;

void tb_jw_string(tb_buf *out, const char *s);
void tb_jw_number(tb_buf *out, double v);
/* Separator and key before a value; key NULL inside arrays. */
void tb_jw_pre(tb_jw *j, const char *key);
void tb_jw_obj(tb_jw *j, const char *key);
void tb_jw_obj_end(tb_jw *j);
void tb_jw_arr(tb_jw *j, const char *key);
void tb_jw_arr_inline(tb_jw *j, const char *key);
void tb_jw_arr_end(tb_jw *j);
void tb_jw_num(tb_jw *j, const char *key, double v);
void tb_jw_null(tb_jw *j, const char *key);
/* v when known, else null. */
void tb_jw_numk(tb_jw *j, const char *key, double v, bool known);
void tb_jw_bool(tb_jw *j, const char *key, bool v);
void tb_jw_str(tb_jw *j, const char *key, const char *s);   /* NULL: null */

/* render_json_inputs.c: `inputs`, the checked scenario echoed back. */
void tb_render_json_inputs(tb_jw *j, const tb_scenario *sc);
/* render_json_calib.c: `calibration` for the pilots of `in` (null
 * without any). */
void tb_render_json_calibration(tb_jw *j, const tb_inputs *in, const tb_budget *b);
void tb_jw_nums3(tb_jw *j, const char *key, const double v[3], bool known);

/* render_json.c: the members of `estimate --format json` (version,
 * scenario, inputs, ..., warnings) into the object j has open. */
void tb_render_json_members(tb_jw *j, const tb_scenario *sc, const tb_budget *b);
/* A layout's ten keys (tensor ... micro_batch) into the object j has open:
 * answer.layout, written.layout, plan.layouts[] and a sweep point's. */
void tb_render_json_layout_keys(tb_jw *j, const tb_plan_layout *l);
/* The `answer` object alone (render_json.c), for a comparison's summary. */
void tb_render_json_answer(tb_jw *j, const tb_scenario *sc, const tb_budget *b);

#endif
