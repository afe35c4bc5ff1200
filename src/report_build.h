/* report_build.h: what the report model's files share; internal to the
 * library.
 *
 * report.c holds the entry points and the section table; each section
 * family (report_summary.c, report_compute.c, report_memory.c,
 * report_perf.c, report_time.c, report_scaling.c, report_risk.c) defines a
 * tb_rsection listing its
 * tables and charts; report_values.c holds the placeholders and
 * conditions, report_deriv.c the derivation blocks.  A new section is a
 * new file defining a tb_rsection plus a line in report.c's table; its
 * placeholders are lines in report_values.c's name table.
 *
 * The helpers here (report_build.c) are the report's own: tb_rfmt* format
 * a figure for people, tb_rtab_* fill a table row by row, tb_rchart_*
 * set up a chart spec.  Everything selects and formats; nothing computes
 * a figure the budget does not hold. */
#ifndef TB_REPORT_BUILD_H
#define TB_REPORT_BUILD_H

#include <stdbool.h>
#include <stddef.h>

#include "trainbudget/buf.h"
#include "template.h"
#include "trainbudget/report.h"

#define TB_REPORT_KEY_MAX 10

typedef struct tb_rsection tb_rsection;
struct tb_compare;
struct tb_sweep;

/* The sweeps a report shows: one for `report --sweep`, one per proposal
 * for `compare --sweep` (labels are the proposals' columns); n = 0 when
 * there is none. */
typedef struct tb_rsweeps {
	size_t n;
	const struct tb_sweep *s[8];
	const char *label[8];
} tb_rsweeps;

/* At most this many signature fields a sign-off page holds. */
#define TB_SIGNOFF_ROLES_MAX 8

struct tb_report {
	const tb_scenario *sc;
	const tb_budget *b;
	/* The families of sections whose tables and charts the template may
	 * name (report.c's list, or a comparison's). */
	const tb_rsection *const *sections;
	size_t nsections;
	/* names that place several blocks (tb_rmulti_def below) */
	const struct tb_rmulti_def *multis;
	size_t nmultis;
	tb_rsweeps sweeps;
	const struct tb_compare *cmp;   /* a comparison's report; else NULL */
	cmark_node *root;
	tb_block **blocks;
	size_t nblocks, cap;
	tb_report_meta meta;
	tb_verdict_line verdict[4];     /* the layout, memory, time, cost */
	char *key_labels[TB_REPORT_KEY_MAX];
	char *key_values[TB_REPORT_KEY_MAX];
	char *date, *command;
	char *owned_title;      /* a title the report made (a comparison's) */
	char short_hash[13];        /* the hash printed (the inputs' or the proposals') */
	char file_short[13];        /* the scenario file's */
	double money_ref;       /* tb_budget_money_ref: the style of the
	                         * headline money (verdicts, key figures,
	                         * placeholders) */
	/* the inputs the report rests on: the scenario's, with the template
	 * this report expanded in place of any other */
	tb_signoff signoff;
	/* the layout search's sentences and layouts in words (report_plan.c) */
	char *plan_text[6];
	/* the sign-off roles a template named ({{signoff ...}}) */
	char *roles[TB_SIGNOFF_ROLES_MAX];
};

/* ---- formatting ------------------------------------------------------ */

/* The template filters, in the order their names are listed. */
typedef enum {
	TB_RF_SCI, TB_RF_BYTES, TB_RF_GIB, TB_RF_COUNT, TB_RF_GROUPED, TB_RF_DAYS,
	TB_RF_MONEY, TB_RF_PCT, TB_RF_PLAIN, TB_RF_PROB, TB_RF_NFILTERS
} tb_rfilter;

/* "sci", "bytes", ...; NULL past the last. */
const char *tb_rfilter_name(size_t i);
bool tb_rfilter_find(const char *name, tb_rfilter *f);

/* Appends v as filter f shows it; "n/a" when v is not finite.  currency
 * (NULL: USD) only for money. */
void tb_rfmt(tb_buf *o, tb_rfilter f, double v, const char *currency);
/* The same as a string the caller frees. */
char *tb_rfmts(tb_rfilter f, double v, const char *currency);
/* A printf string the caller frees. */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
char *tb_rstrf(const char *fmt, ...);
/* Copies into a fixed array without cutting a UTF-8 sequence in half. */
void tb_rcopy(char *dst, size_t cap, const char *src);
/* A total in the report's currency and the style of its headline money
 * (r->money_ref), so the amounts of one sentence read alike.  A rate (the
 * price per GPU-hour) goes through tb_rfmt, in its own style. */
void tb_rmoney(tb_buf *o, const tb_report *r, double v);
char *tb_rmoneys(const tb_report *r, double v);
/* The currency code the figures are in. */
const char *tb_rcurrency(const tb_report *r);
const char *tb_ryesno(bool v);

/* Does it fit?  The budget says whether its answer is one (fits_known):
 * without activations only a NO is, when states and overhead alone
 * exceed the card. */
typedef enum { TB_RFIT_YES, TB_RFIT_NO, TB_RFIT_UNKNOWN } tb_rfit;
tb_rfit tb_rfit_of(bool fits, bool fits_known);
tb_rfit tb_rmem_fit(const tb_budget *b);
const char *tb_rfits_word(bool fits, bool fits_known);   /* yes, no, unknown */

/* ---- blocks ---------------------------------------------------------- */

/* A block owned by r, appended to `into` as a custom cmark node. */
tb_block *tb_rblock_new(tb_report *r, tb_block_kind kind, cmark_node *into);
void tb_rblock_free(tb_block *blk);
/* An emphasised paragraph of plain text: "not computed for this scenario". */
void tb_rnote(cmark_node *into, const char *text);

/* ---- tables ---------------------------------------------------------- */

/* Fills a tb_table cell by cell, row-major. */
typedef struct tb_rtab {
	tb_table *t;
	const tb_report *r;     /* for the currency of money cells */
	double money_ref;       /* the style of its money cells (the largest
	                         * amount in the table); 0: the report's */
	size_t cap, col;
	tb_buf cell;            /* the cell tb_rtab_begin opened */
} tb_rtab;

/* Starts table t: `align` has one letter per column ('r' right-aligns a
 * numeric column, anything else left); the column headers follow, ended
 * by NULL (so a header given as NULL ends the table there). */
#if defined(__GNUC__)
__attribute__((sentinel))
#endif
void tb_rtab_init(tb_rtab *tb, tb_table *t, const tb_report *r, const char *caption,
                  const char *align, ...);
/* The same with the headers in an array of n (columns that depend on
 * the data: a comparison's proposal column). */
void tb_rtab_init_v(tb_rtab *tb, tb_table *t, const tb_report *r, const char *caption,
                    const char *align, const char *const *headers, size_t n);
/* Takes ownership of s. */
void tb_rtab_own(tb_rtab *tb, char *s);
/* NULL is a figure the budget lacks ("n/a"); "" is a cell left blank. */
void tb_rtab_str(tb_rtab *tb, const char *s);
void tb_rtab_num(tb_rtab *tb, tb_rfilter f, double v);
/* A cell written piece by piece: append to the buffer tb_rtab_begin
 * returns, then tb_rtab_end puts it in the table. */
tb_buf *tb_rtab_begin(tb_rtab *tb);
void tb_rtab_end(tb_rtab *tb);
/* A change: "+12%" or "-3%". */
void tb_rtab_delta(tb_rtab *tb, double frac);
/* v / total as a share, or "n/a" without a total. */
void tb_rtab_share(tb_rtab *tb, double v, double total);
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void tb_rtab_fmt(tb_rtab *tb, const char *fmt, ...);

/* ---- charts ---------------------------------------------------------- */

/* Clears s and sets what every chart states; y_unit may be "". */
void tb_rchart_init(tb_chart_spec *s, tb_chart_kind kind, const char *id,
                    const char *title, const char *x_label, const char *y_label,
                    const char *y_unit, double y_scale);
/* Adds a series in the report's palette. */
void tb_rchart_series(tb_chart_spec *s, const char *name);
/* Sets s->ncats to n rows of a budget array of `max`, and to at most
 * TB_CHART_MAX_CATS; returns it. */
size_t tb_rchart_ncats(tb_chart_spec *s, int n, int max);
/* Adds a reference line at `value` with no label yet; NULL (nothing
 * added) when the chart holds TB_CHART_MAX_REFS already. */
tb_chart_ref *tb_rchart_add_ref(tb_chart_spec *s, double value, tb_rgb color);
/* The same, labelled "PREFIX<shown as filter f>": "capacity 80 GB". */
tb_chart_ref *tb_rchart_ref(tb_chart_spec *s, double value, const char *prefix,
                            tb_rfilter f, double shown, tb_rgb color);
/* The dark grey of reference lines that are not a limit. */
extern const tb_rgb tb_rchart_ref_grey;
/* A step's ten terms (perf.h) as the six series of a stacked bar
 * (report_perf.c): compute, recomputation, tensor/context/expert
 * communication, bubble and sends, data-parallel communication, optimizer
 * and the rest.  _series adds the six; _column fills bar i. */
void tb_rchart_step_series(tb_chart_spec *s);
/* The step's ten terms as the reports' tables name them (report_perf.c). */
extern const char *const tb_rperf_term_label[TB_PERF_TERMS];
void tb_rchart_step_column(tb_chart_spec *s, size_t i, const char *label,
                           const double *breakdown_s);

/* ---- sections -------------------------------------------------------- */

typedef struct tb_rtable_def {
	const char *name;       /* {{table NAME}} */
	void (*build)(tb_report *r, tb_table *t);
} tb_rtable_def;

typedef struct tb_rchart_def {
	const char *name;       /* {{chart NAME}} */
	void (*build)(const tb_report *r, tb_chart_spec *s);
} tb_rchart_def;

/* A table or chart name that places several blocks, or a block that
 * also carries a table (a heat map, which Markdown shows as its table):
 * the builder appends what it makes to `into` itself. */
struct tb_rmulti_def {
	const char *kind;       /* "table" or "chart" */
	const char *name;
	void (*build)(tb_report *r, cmark_node *into);
};
typedef struct tb_rmulti_def tb_rmulti_def;

/* A family of report sections: its tables and charts. */
struct tb_rsection {
	const tb_rtable_def *tables;
	size_t ntables;
	const tb_rchart_def *charts;
	size_t ncharts;
};

extern const tb_rsection tb_rsection_summary;   /* report_summary.c */
extern const tb_rsection tb_rsection_compute;   /* report_compute.c */
extern const tb_rsection tb_rsection_memory;    /* report_memory.c */
extern const tb_rsection tb_rsection_perf;      /* report_perf.c */
extern const tb_rsection tb_rsection_time;      /* report_time.c */
extern const tb_rsection tb_rsection_scaling;   /* report_scaling.c */
extern const tb_rsection tb_rsection_risk;      /* report_risk.c */
extern const tb_rsection tb_rsection_sweep;     /* report_sweep.c */
extern const tb_rsection tb_rsection_compare;   /* report_compare.c */
extern const tb_rsection tb_rsection_plan;      /* report_plan.c */
extern const tb_rmulti_def tb_rsweep_multis[];  /* report_sweep.c: sweep-grid */
extern const size_t tb_rsweep_nmultis;

/* Lays out spec as a chart block appended to `into`, keeping the spec's
 * id and title (report.c's directive does the same for {{chart X}}). */
tb_block *tb_rchart_place(tb_report *r, const tb_chart_spec *spec, cmark_node *into);

/* Expands the template opt names (else the built-in `deflt`, named
 * `deflt_name`) into r->root with env's names; returns r, or frees r and
 * returns NULL with errors in d.  The constructors' common end. */
tb_report *tb_report_expand(tb_report *r, const tb_report_options *opt, const char *deflt,
                            size_t deflt_len, const char *deflt_name, tb_tpl_env *env,
                            tb_diags *d);
/* report.c's directive, suggestion and table callbacks over r->sections,
 * for a constructor's environment. */
tb_tpl_status tb_rdirective(void *ctx, const char *kind, const char *arg, cmark_node *into);
const char *tb_rsuggest(void *ctx, const char *what, const char *word);
void tb_rpipe_table(void *ctx, size_t ncols, size_t nrows, const char *const *cells,
                    const char *align, cmark_node *into);

/* ---- sweeps (report_sweep.c), in a report or a comparison ------------ */

/* {{sweep.key}} and the other sweep placeholders; UNKNOWN_NAME for names
 * it does not have, which the caller's own lookup answers. */
tb_tpl_status tb_rsweep_value(const tb_report *r, const char *name, const char *filter,
                              tb_buf *out);
tb_tpl_status tb_rsweep_condition(const tb_report *r, const char *name, int *truth);
const char *tb_rsweep_value_name(size_t i);
const char *tb_rsweep_condition_name(size_t i);
/* The {{sweep_cliffs}} block: a list of the cliffs in words. */
void tb_rsweep_cliffs_block(tb_report *r, cmark_node *into);

/* ---- the layout search (report_plan.c) ------------------------------- */

/* Writes the search's sentences into r->plan_text once, at the start. */
void tb_rplan_init(tb_report *r);
/* {{plan.searched}} and the other plan placeholders and conditions;
 * UNKNOWN_NAME for names it does not have. */
tb_tpl_status tb_rplan_value(const tb_report *r, const char *name, const char *filter,
                             tb_buf *out);
tb_tpl_status tb_rplan_condition(const tb_report *r, const char *name, int *truth);
const char *tb_rplan_value_name(size_t i);
const char *tb_rplan_condition_name(size_t i);

/* ---- a comparison (report_compare.c) --------------------------------- */

void tb_rcompare_title_block(tb_report *r, cmark_node *into);
const char *tb_rcompare_value_name(size_t i);
const char *tb_rcompare_condition_name(size_t i);

/* report_summary.c: the verdict lines and key figures (r->meta), and the
 * {{title_block}} and {{verdict}} blocks. */
void tb_rsummary_meta(tb_report *r);
void tb_rsummary_title_block(tb_report *r, cmark_node *into);
/* The --set and --unset a scenario was priced under, as published
 * (tb_scenario_public_override), and why they are covered; nothing when
 * there are none. */
void tb_rsummary_overrides(const tb_scenario *sc, const char *why, cmark_node *into);
void tb_rsummary_verdict_block(tb_report *r, cmark_node *into);

/* ---- placeholders and conditions (report_values.c) ------------------- */

tb_tpl_status tb_rvalue(void *ctx, const char *name, const char *filter, tb_buf *out);
tb_tpl_status tb_rcondition(void *ctx, const char *name, int *truth);
/* Their names, for "did you mean"; NULL past the last. */
const char *tb_rvalue_name(size_t i);
const char *tb_rcondition_name(size_t i);

/* ---- derivations (report_deriv.c) ------------------------------------ */

/* Fills a derivation block from the budget's record. */
void tb_rderiv_fill(tb_derivation *dv, const tb_deriv *src, const char *currency);
/* A key the calculators document; NULL past the last. */
const char *tb_rderiv_key(size_t i);

#endif
