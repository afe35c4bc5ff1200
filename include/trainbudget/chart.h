/* chart.h: charts as a display list in points, apart from drawing.
 *
 * report.c describes a chart (tb_chart_spec: categories, series, reference
 * lines); tb_chart_layout() computes scales, ticks, legend and labels and
 * emits primitives in a width x height box, origin top-left, y downwards
 * (SVG's convention; the PDF back end flips y).  render_svg.c and
 * render_pdf.c only draw primitives: they never compute a figure. */
#ifndef TB_CHART_H
#define TB_CHART_H

#include <stdbool.h>
#include <stddef.h>

typedef struct tb_rgb { unsigned char r, g, b; } tb_rgb;

typedef enum {
	TB_PRIM_RECT,   /* x, y, w, h; fill (+ stroke when stroke_w > 0) */
	TB_PRIM_LINE,   /* x, y -> x2, y2; stroke, stroke_w, dashed */
	TB_PRIM_CIRCLE, /* centre x, y; radius w; fill */
	TB_PRIM_TEXT    /* baseline at x, y; text, size, anchor, bold, rotate */
} tb_prim_kind;

typedef enum { TB_ANCHOR_START, TB_ANCHOR_MIDDLE, TB_ANCHOR_END } tb_anchor;

typedef struct tb_prim {
	tb_prim_kind kind;
	double x, y, w, h, x2, y2;
	tb_rgb fill, stroke;
	double stroke_w;
	bool dashed;
	char text[80];          /* UTF-8 */
	double font_size;
	tb_anchor anchor;
	bool bold;
	double rotate_deg;      /* counter-clockwise, about (x, y): -90 or 0 */
} tb_prim;

typedef struct tb_chart {
	char id[32];            /* "zero", "gpu-scan", "plans": file names */
	char title[96];
	char alt[240];          /* one-sentence description for screen readers */
	double width_pt, height_pt;
	size_t n, cap;
	tb_prim *prims;         /* owned */
} tb_chart;

/* ---- what a chart shows ---------------------------------------------- */

typedef enum {
	TB_CHART_STACKED_BARS,  /* categories on x, series stacked */
	TB_CHART_GROUPED_BARS,  /* categories on x, series side by side */
	TB_CHART_LINES          /* numeric x (xs[]), one line per series */
} tb_chart_kind;

#define TB_CHART_MAX_CATS   16
#define TB_CHART_MAX_SERIES 6
#define TB_CHART_MAX_REFS   4

typedef struct tb_chart_series {
	char name[40];
	tb_rgb color;
	double values[TB_CHART_MAX_CATS];
} tb_chart_series;

typedef struct tb_chart_ref {   /* a reference line with a label */
	bool vertical;              /* false: horizontal at y = value */
	double value;
	char label[48];
	tb_rgb color;
} tb_chart_ref;

typedef struct tb_chart_spec {
	tb_chart_kind kind;
	char id[32];
	char title[96];
	char x_label[48], y_label[48];
	char y_unit[16];            /* appended to tick labels: "GB", "days" */
	double y_scale;             /* values are divided by this for ticks (1e9 for GB) */
	bool log_x, log_y;
	size_t ncats;
	char cats[TB_CHART_MAX_CATS][24];
	double xs[TB_CHART_MAX_CATS]; /* TB_CHART_LINES: x of each point */
	size_t nseries;
	tb_chart_series series[TB_CHART_MAX_SERIES];
	size_t nrefs;
	tb_chart_ref refs[TB_CHART_MAX_REFS];
} tb_chart_spec;

/* Lays out `spec` into `out` (initialised here; release with
 * tb_chart_release).  Never fails: empty or non-finite data gives an empty
 * frame with a "no data" label. */
void tb_chart_layout(const tb_chart_spec *spec, double width_pt,
                     double height_pt, tb_chart *out);
void tb_chart_release(tb_chart *c);

#endif
