/* chart_int.h: what chart.c shares with the other chart layouts
 * (chart_heat.c); internal to the library.  Coordinates are points,
 * y-down, origin top-left, as in chart.h. */
#ifndef TB_CHART_INT_H
#define TB_CHART_INT_H

#include <stdbool.h>
#include <stddef.h>
#include "trainbudget/chart.h"

/* Typography and spacing, in points. */
#define TB_CHART_TITLE_PT   12.0
#define TB_CHART_LABEL_PT   9.0     /* tick labels, legend */
#define TB_CHART_AXIS_PT    10.0    /* axis titles */
#define TB_CHART_SMALL_PT   8.0     /* reference-line labels, stack totals */
#define TB_CHART_PAD        8.0

extern const tb_rgb tb_chart_white, tb_chart_ink, tb_chart_muted, tb_chart_vermilion;

/* A primitive appended to c, zeroed but for kind, role and series -1. */
tb_prim *tb_chart_push(tb_chart *c, tb_prim_kind kind, tb_prim_role role);
tb_prim *tb_chart_rect(tb_chart *c, tb_prim_role role, double x, double y,
                       double w, double h, tb_rgb fill);
tb_prim *tb_chart_line(tb_chart *c, tb_prim_role role, double x, double y,
                       double x2, double y2, tb_rgb stroke, double w);
tb_prim *tb_chart_text(tb_chart *c, tb_prim_role role, double x, double y,
                       const char *text, double pt, tb_anchor anchor, tb_rgb color);
/* A cross of half-size r centred on x, y: how flagged points are drawn. */
void tb_chart_cross(tb_chart *c, tb_prim_role role, double x, double y, double r,
                    tb_rgb color, int series);
/* Copies at most srccap bytes of src (a fixed array that may lack its
 * NUL) into dst, cut at a UTF-8 character boundary. */
void tb_chart_copy(char *dst, size_t dstcap, const char *src, size_t srccap);
/* Shortens s in place with an ellipsis until it fits in max_w at pt. */
void tb_chart_fit(char *s, size_t cap, double max_w, double pt);

/* ---- scales (chart_axis.c) ---- */

typedef struct tb_chart_axis {
	bool log;         /* log10 (y) or log2 (x) */
	double lo, hi;    /* display units; for log, the values themselves */
	size_t nticks;
	double ticks[32];
	double step;      /* linear tick step, for label precision */
} tb_chart_axis;

/* 1-2-5 steps covering lo..hi in 3 to 6 intervals (4 to 7 ticks). */
void tb_chart_axis_nice(tb_chart_axis *a, double lo, double hi);
/* Decades, 10^floor(log10 lo) .. 10^ceil(log10 hi), at most 7 ticks. */
void tb_chart_axis_log10(tb_chart_axis *a, double lo, double hi);
/* Powers of two (GPU counts), at most 31 of them. */
void tb_chart_axis_log2(tb_chart_axis *a, double lo, double hi);
/* n categories at 0..n-1, half a step of room at each end. */
void tb_chart_axis_cats(tb_chart_axis *a, size_t n);
/* Where v falls along the axis, 0..1, clamped. */
double tb_chart_axis_frac(const tb_chart_axis *a, double v);
/* A tick label: the step's decimals, grouped thousands, k/M/B/T by the
 * axis maximum, then the unit. */
void tb_chart_tick_label(char *out, size_t cap, const tb_chart_axis *a, double v,
                         const char *unit);

/* The heat map (chart_heat.c), below the title at `top`. */
void tb_chart_layout_heat(const tb_chart_spec *sp, tb_chart *out, double top);

#endif
