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

/* What a primitive is part of: back ends may ignore it (SVG writes it as a
 * class), tests use it to find bars and lines. */
typedef enum {
	TB_ROLE_NONE, TB_ROLE_BACKGROUND, TB_ROLE_TITLE, TB_ROLE_LEGEND,
	TB_ROLE_GRID, TB_ROLE_AXIS, TB_ROLE_TICK_LABEL, TB_ROLE_AXIS_LABEL,
	TB_ROLE_BAR, TB_ROLE_LINE, TB_ROLE_MARKER, TB_ROLE_REF,
	TB_ROLE_REF_LABEL, TB_ROLE_VALUE_LABEL, TB_ROLE_FRAME, TB_ROLE_NO_DATA
} tb_prim_role;

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
	double rotate_deg;      /* counter-clockwise, about (x, y): -90 or 0.
	                         * As SVG's rotate() in y-down space: -90 turns
	                         * text to read bottom to top (the y label). */
	/* Added by chart.c; text is drawn in `fill`. */
	tb_prim_role role;
	int series;             /* series index (bars, lines, markers, legend); -1 */
} tb_prim;

typedef struct tb_chart {
	char id[32];            /* "zero", "gpu-scan", "plans": file names */
	char title[96];
	char alt[240];          /* one-sentence description for screen readers */
	double width_pt, height_pt;
	size_t n, cap;
	tb_prim *prims;         /* owned */
	/* The plot area (inside the axes), in the same coordinates. */
	double plot_x_pt, plot_y_pt, plot_w_pt, plot_h_pt;
} tb_chart;

/* ---- what a chart shows ---------------------------------------------- */

typedef enum {
	TB_CHART_STACKED_BARS,  /* categories on x, series stacked */
	TB_CHART_GROUPED_BARS,  /* categories on x, series side by side */
	TB_CHART_LINES,         /* numeric x (xs[]), one line per series */
	TB_CHART_HEATMAP        /* a grid: columns cats[], rows rows[], a
	                         * coloured cell per heat[row][col] (chart_heat.c) */
} tb_chart_kind;

/* Bars: categories; a heat map: columns and rows; lines with x_cats. */
#define TB_CHART_MAX_CATS   16
/* Lines: points per series (a sweep of up to 128 values). */
#define TB_CHART_MAX_POINTS 128
#define TB_CHART_MAX_SERIES 8
#define TB_CHART_MAX_REFS   4

typedef struct tb_chart_series {
	char name[40];
	tb_rgb color;               /* {0,0,0}: tb_chart_palette(index) */
	double values[TB_CHART_MAX_POINTS];
	/* Lines: points drawn as a vermilion cross instead of a dot, and named
	 * in the legend by the spec's flag_label ("does not fit"). */
	bool flagged[TB_CHART_MAX_POINTS];
} tb_chart_series;

typedef struct tb_chart_ref {   /* a reference line with a label */
	bool vertical;              /* false: horizontal at y = value (data
	                             * units, before y_scale); true: at x =
	                             * value (lines), or at category index
	                             * `value` (bars, 0-based centre) */
	double value;
	char label[48];
	tb_rgb color;               /* {0,0,0}: vermilion */
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
	double xs[TB_CHART_MAX_POINTS]; /* TB_CHART_LINES: x of each point */
	/* Lines: x is the point's index, labelled cats[i] (values that are
	 * not numbers: GPU names); at most TB_CHART_MAX_CATS points. */
	bool x_cats;
	size_t nseries;
	tb_chart_series series[TB_CHART_MAX_SERIES];
	size_t nrefs;
	tb_chart_ref refs[TB_CHART_MAX_REFS];
	/* Linear y only: the axis spans the data (1-2-5 ticks around it)
	 * instead of starting at 0, so close values can be told apart.  Bars
	 * from a cut baseline would mislead, so bar kinds draw a dot per value
	 * with its number beside it; the y axis carries a break mark at its
	 * foot and the plot says "y axis does not start at 0". */
	bool y_zoom;
	/* The legend's name for flagged points and cells; "" names none. */
	char flag_label[40];
	/* TB_CHART_HEATMAP: nrows rows (drawn top to bottom) by ncats
	 * columns; heat[row][col] in data units (y_scale and y_unit label the
	 * cells and the colour key).  A non-finite cell is blank ("n/a"); a
	 * flagged one is crossed.  Darker is larger. */
	size_t nrows;
	char rows[TB_CHART_MAX_CATS][24];
	double heat[TB_CHART_MAX_CATS][TB_CHART_MAX_CATS];
	bool heat_flagged[TB_CHART_MAX_CATS][TB_CHART_MAX_CATS];
} tb_chart_spec;

/* Lays out `spec` into `out` (initialised here; release with
 * tb_chart_release).  Never fails: empty or non-finite data gives an empty
 * frame with a "no data" label.  Values that are non-finite or negative
 * (or <= 0 on a log axis) are skipped: no bar, a break in the line.  A
 * width or height that is not finite or below 120 x 90 pt gives 480 x 300.
 * Deterministic: the same spec gives the same primitives.
 *
 * The y axis starts at 0 (linear; see y_zoom) and has 4-7 ticks in 1-2-5 steps of
 * value / y_scale, labelled "<number> <y_unit>"; log_y puts ticks at
 * decades; log_x (lines) at powers of two.  Stacked bars carry their
 * total above the bar.  A legend (one swatch per named series) sits in
 * rows between the title and the plot. */
void tb_chart_layout(const tb_chart_spec *spec, double width_pt,
                     double height_pt, tb_chart *out);
void tb_chart_release(tb_chart *c);

/* Colour-blind-safe series colours (Okabe and Ito 2008), in the order
 * blue, orange, bluish green, vermilion, sky blue, reddish purple, yellow,
 * black; i wraps around. */
tb_rgb tb_chart_palette(size_t i);

/* The layout's estimate of a string's width: 0.55 x font size per
 * character (UTF-8 code points), close to DejaVu Sans' average advance for
 * digits and lower case.  Back ends with real metrics may measure instead. */
double tb_chart_text_width_pt(const char *utf8, double font_size_pt);

#endif
