/* chart_int.h: what chart.c shares with the other chart layouts
 * (chart_heat.c); internal to the library.  Coordinates are points,
 * y-down, origin top-left, as in chart.h. */
#ifndef TB_CHART_INT_H
#define TB_CHART_INT_H

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

/* The heat map (chart_heat.c), below the title at `top`. */
void tb_chart_layout_heat(const tb_chart_spec *sp, tb_chart *out, double top);

#endif
