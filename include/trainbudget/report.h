/* report.h: the report model every back end renders.
 *
 * A template (CommonMark) is parsed with cmark; placeholders are replaced
 * on the tree, never in the source text, so scenario text comes out
 * literally.  Tables, charts and derivations become CMARK_NODE_CUSTOM_BLOCK
 * nodes whose user_data is a tb_block.  The model is built from a scenario
 * and its budget and computes nothing itself beyond choosing and
 * formatting what the budget holds. */
#ifndef TB_REPORT_H
#define TB_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <cmark.h>
#include "trainbudget/budget.h"
#include "trainbudget/chart.h"
#include "trainbudget/diag.h"
#include "trainbudget/scenario.h"

typedef struct tb_table {
	size_t ncols, nrows;    /* nrows counts the header row (row 0) */
	char **cells;           /* owned, row-major, UTF-8 plain text */
	bool *numeric;          /* per column: right-aligned */
	char *caption;          /* owned or NULL */
} tb_table;

typedef struct tb_derivation {
	char *title;            /* "Training compute, 6ND rule" */
	char *formula;          /* "C = 6 · N · D" */
	char *substituted;      /* "C = 6 · 6.74 × 10⁹ · 1.00 × 10¹¹" */
	char *result;           /* "C = 4.04 × 10²¹ FLOP" */
	char *source;           /* "Kaplan et al. 2020, Sec. 2.1" */
	char **where;           /* "N: parameters = 6.74 × 10⁹", owned */
	size_t nwhere;
} tb_derivation;

/* TB_BLOCK_TITLE and TB_BLOCK_VERDICT come from the stand-alone template
 * directives {{title_block}} and {{verdict}}.  Their cmark children are
 * ordinary content (the title heading and its byline; the verdict and
 * key-figure tables), which Markdown and HTML render as they are; the PDF
 * draws its own title block and coloured verdict box from tb_report_meta
 * in their place instead, so a template decides where they go and nothing
 * is drawn twice. */
typedef enum {
	TB_BLOCK_TABLE, TB_BLOCK_CHART, TB_BLOCK_DERIVATION,
	TB_BLOCK_TITLE, TB_BLOCK_VERDICT
} tb_block_kind;

/* A TB_BLOCK_CHART may carry its figures in `table` too (a heat map):
 * Markdown, which shows pictures only as links, shows that table instead,
 * and no SVG is written for it. */
typedef struct tb_block {
	tb_block_kind kind;
	tb_table table;
	tb_chart chart;
	tb_derivation deriv;
} tb_block;

/* NONE: a finding with nothing to judge it against (no deadline set, no
 * budget set): neither a pass nor a warning. */
typedef enum { TB_OUTCOME_GOOD, TB_OUTCOME_WARN, TB_OUTCOME_BAD, TB_OUTCOME_NONE } tb_outcome;

typedef struct tb_verdict_line {
	tb_outcome outcome;
	char *text;             /* one plain sentence */
} tb_verdict_line;

typedef struct tb_report_meta {
	const char *title, *author, *date, *version, *sha256, *name;
	const char *lang;       /* BCP 47; NULL: "en" */
	const char *command;    /* the command that regenerates the document */
	/* What sha256 is the hash of, for its label: "inputs" for a report
	 * (the inputs digest, signoff.h), "proposals" for a comparison (over
	 * the proposals' inputs digests); NULL a bare scenario hash. */
	const char *hash_of;
	/* The inputs it covers, listed with their hashes on the sign-off
	 * page; NULL: none listed. */
	const tb_signoff *signoff;
	/* The roles the sign-off page has a signature field for, as a
	 * template's {{signoff ...}} names them; none: Requester, Reviewer,
	 * Approver. */
	size_t nroles;
	const char *const *roles;
	size_t nverdict;
	const tb_verdict_line *verdict;  /* fits, deadline, cost */
	size_t nkey;                     /* key figures: label/value pairs */
	const char *const *key_labels;
	const char *const *key_values;
} tb_report_meta;

struct tb_sweep;
struct tb_compare;

typedef struct tb_report_options {
	const char *template_path;  /* NULL: the built-in default report */
	/* When set, used instead of reading the path (the bytes the caller
	 * read once: they are what the report hashes and expands). */
	const char *template_text;
	size_t template_len;
	const char *date;           /* YYYY-MM-DD: the scenario's, else SOURCE_DATE_EPOCH's */
	const char *command;        /* for the reproducibility block */
	const struct tb_sweep *sweep;   /* `report --sweep`: borrowed; NULL: none */
} tb_report_options;

typedef struct tb_report tb_report;

/* Builds the report; NULL with errors in d (unknown placeholder, filter or
 * directive at TEMPLATE:LINE:COL).  Caller frees with tb_report_free.
 * The scenario and budget must outlive the report. */
tb_report *tb_report_new(const tb_scenario *sc, const tb_budget *b,
                         const tb_report_options *opt, tb_diags *d);

/* Reads a template file with the size cap (TB_TEMPLATE_MAX_BYTES); NULL
 * with an error in d.  "-" is a file of that name.  Caller frees. */
char *tb_report_read_template(const char *path, size_t *len, tb_diags *d);
void tb_report_free(tb_report *r);

/* The comparison's report (templates/compare.md unless opt names a
 * template): its own names, docs/templates.md.  The comparison must
 * outlive the report; opt->sweep is not used (each proposal has its own). */
/* The layout search's report (`trainbudget plan --format md,html,pdf`):
 * templates/plan.md unless opt names a template; the budget must hold the
 * search (tb_budget_compute_plan).  Every name of the default report is
 * available too (docs/templates.md). */
tb_report *tb_report_new_plan(const tb_scenario *sc, const tb_budget *b,
                              const tb_report_options *opt, tb_diags *d);

tb_report *tb_report_new_compare(const struct tb_compare *cmp, const tb_report_options *opt,
                                 tb_diags *d);

cmark_node *tb_report_root(const tb_report *r);        /* borrowed */
const tb_block *tb_report_block(cmark_node *node);     /* NULL if not ours */
const tb_report_meta *tb_report_get_meta(const tb_report *r);
size_t tb_report_nblocks(const tb_report *r);
const tb_block *tb_report_block_at(const tb_report *r, size_t i);

#endif
