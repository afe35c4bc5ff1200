/* report_compare.c: the comparison's report: one column per proposal.
 * Its own template (templates/compare.md) and names: the proposals and
 * their hashes, the verdicts, the inputs that differ, the headline figures
 * with the best in each row marked and the differences against the first
 * proposal, bars of days and cost per proposal with the deadline and
 * budget lines, memory per GPU by line item; with --sweep, report_sweep.c's
 * names over every proposal's sweep.  Selects and formats what the
 * comparison holds; computes nothing. */
#include "report_build.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "templates.h"
#include "trainbudget/compare.h"
#include "trainbudget/fmt.h"
#include "trainbudget/version.h"
#include "trainbudget/xalloc.h"

/* The mark of the best value in a row: in DejaVu's geometric shapes, so
 * the PDF draws it with the faces it embeds anyway. */
#define S_BEST "\u25c6"

static const tb_rgb S_RED = { 0xd6, 0x27, 0x28 };

static const tb_rfilter S_filter[] = {
	[TB_CFMT_COUNT] = TB_RF_COUNT, [TB_CFMT_SCI] = TB_RF_SCI, [TB_CFMT_BYTES] = TB_RF_BYTES,
	[TB_CFMT_PCT] = TB_RF_PCT, [TB_CFMT_DAYS] = TB_RF_DAYS, [TB_CFMT_GROUPED] = TB_RF_GROUPED,
	[TB_CFMT_MONEY] = TB_RF_MONEY, [TB_CFMT_PROB] = TB_RF_PROB,
};

static const char *const *S_headers(const tb_report *r, const char *first)
{
	static const char *h[TB_COMPARE_MAX + 1];
	h[0] = first;
	for (size_t i = 0; i < r->cmp->n; i++)
		h[i + 1] = r->cmp->p[i].label;
	return h;
}

/* "lrrr": the first column text, one per proposal. */
static const char *S_align(const tb_report *r, char c)
{
	static char a[TB_COMPARE_MAX + 2];
	a[0] = 'l';
	for (size_t i = 0; i < r->cmp->n; i++)
		a[i + 1] = c;
	a[r->cmp->n + 1] = '\0';
	return a;
}

/* ---- tables ------------------------------------------------------------ */

static void S_table_proposals(tb_report *r, tb_table *t)
{
	const tb_compare *c = r->cmp;
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, NULL, "lll", "Proposal", "Scenario", "File", NULL);
	for (size_t i = 0; i < c->n; i++) {
		const tb_scenario *sc = c->p[i].sc;
		tb_rtab_str(&tb, c->p[i].label);
		tb_rtab_str(&tb, sc->title && *sc->title ? sc->title : sc->name);
		/* as published: an absolute path by its base name */
		const char *shown = sc->signoff.nfiles ? sc->signoff.files[0].path : "?";
		tb_rtab_str(&tb, strcmp(shown, "-") == 0 ? "<stdin>" : shown);
	}
}

/* The hash of every input: each file as read (before --set), and the
 * proposal's inputs SHA-256 (the file, its config.json, the overrides
 * and the version), which the comparison's hash is over. */
static void S_table_hashes(tb_report *r, tb_table *t)
{
	const tb_compare *c = r->cmp;
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, NULL, "lll", "Proposal", "SHA-256 of the file",
	             "Inputs SHA-256", NULL);
	for (size_t i = 0; i < c->n; i++) {
		tb_rtab_str(&tb, c->p[i].label);
		tb_rtab_str(&tb, c->p[i].sc->sha256);
		tb_rtab_str(&tb, c->p[i].sc->signoff.digest);
	}
}

static void S_fit_cell(tb_rtab *tb, const tb_budget *b)
{
	tb_buf *o = tb_rtab_begin(tb);
	const tb_memory *m = &b->memory;
	switch (tb_rmem_fit(b)) {
	case TB_RFIT_YES:
		tb_buf_puts(o, "yes, ");
		tb_rfmt(o, TB_RF_BYTES, m->capacity_bytes - tb_budget_memory_per_gpu(b), NULL);
		tb_buf_puts(o, " to spare");
		break;
	case TB_RFIT_NO:
		tb_buf_puts(o, "no, ");
		tb_rfmt(o, TB_RF_BYTES, b->n_stages > 0 || m->activations_known ? tb_budget_memory_per_gpu(b)
		        : m->per_gpu.total - m->per_gpu.activations, NULL);
		tb_buf_puts(o, " of ");
		tb_rfmt(o, TB_RF_BYTES, m->capacity_bytes, NULL);
		break;
	case TB_RFIT_UNKNOWN:
		tb_buf_puts(o, "unknown (no activations for a count-only model)");
		break;
	}
	tb_rtab_end(tb);
}

static void S_plan_cell(tb_rtab *tb, const tb_report *r, const tb_budget *b, bool deadline)
{
	const tb_time *tm = &b->time;
	tb_buf *o = tb_rtab_begin(tb);
	bool has = deadline ? tm->has_deadline : tm->has_budget;
	if (b->answer.decided && !b->answer.runs) {
		tb_buf_puts(o, has ? "no: it cannot run on these GPUs" : "none priced: it cannot run");
	} else if (!has) {
		tb_buf_puts(o, deadline ? "no deadline set" : "no budget set");
	} else if (!b->losses.known) {
		tb_buf_puts(o, tm->known ? "no: the run never finishes" : "unknown: no time");
	} else {
		static const char *const word[] = { "no, ", "at risk, ", "yes, " };
		tb_buf_puts(o, word[tb_budget_verdict(b, deadline)]);
		if (deadline) {
			/* expected: the mean of the simulated runs, as the verdict */
			tb_rfmt(o, TB_RF_DAYS, tb_budget_expected(b).seconds, NULL);
			tb_buf_puts(o, " of ");
			tb_rfmt(o, TB_RF_DAYS, tm->deadline_s, NULL);
		} else {
			/* one style for both amounts: the larger's */
			double cost = tb_budget_expected(b).cost;
			double ref = fmax(fabs(cost), fabs(tm->budget));
			tb_fmt_money_ref(o, cost, tb_rcurrency(r), ref);
			tb_buf_puts(o, " of ");
			tb_fmt_money_ref(o, tm->budget, tb_rcurrency(r), ref);
		}
		if (b->risk.known) {
			tb_buf_puts(o, " (");
			tb_rfmt(o, TB_RF_PROB, deadline ? b->risk.p_meets_deadline : b->risk.p_within_budget, NULL);
			tb_buf_puts(o, " likely)");
		}
	}
	tb_rtab_end(tb);
}

static void S_table_verdicts(tb_report *r, tb_table *t)
{
	const tb_compare *c = r->cmp;
	tb_rtab tb;
	tb_rtab_init_v(&tb, t, r, NULL, S_align(r, 'l'), S_headers(r, "Verdict"), c->n + 1);
	/* what each column prices, first (answer.h) */
	tb_rtab_str(&tb, "Layout priced");
	for (size_t i = 0; i < c->n; i++) {
		const tb_answer *a = &c->p[i].b->answer;
		char lay[200];
		if (!a->decided) {
			tb_rtab_str(&tb, "as written");
		} else if (!a->runs) {
			tb_rtab_str(&tb, "none: it cannot run on these GPUs");
		} else {
			tb_plan_layout_text(&a->layout, lay, sizeof lay);
			tb_rtab_fmt(&tb, "%s (%s)", lay, a->source == TB_LAYOUT_WRITTEN ? "as written"
			            : a->source == TB_LAYOUT_REPLACED ? "what was written cannot run"
			            : "chosen by the layout search");
		}
	}
	tb_rtab_str(&tb, "Fits in memory");
	for (size_t i = 0; i < c->n; i++)
		S_fit_cell(&tb, c->p[i].b);
	tb_rtab_str(&tb, "Meets the deadline");
	for (size_t i = 0; i < c->n; i++)
		S_plan_cell(&tb, r, c->p[i].b, true);
	tb_rtab_str(&tb, "Within the budget");
	for (size_t i = 0; i < c->n; i++)
		S_plan_cell(&tb, r, c->p[i].b, false);
}

/* Each proposal's warnings, one a row: what estimate says under each. */
static void S_table_warnings(tb_report *r, tb_table *t)
{
	const tb_compare *c = r->cmp;
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, NULL, "ll", "Proposal", "Warning", NULL);
	size_t n = 0;
	for (size_t i = 0; i < c->n; i++)
		for (int k = 0; k < c->p[i].b->n_warnings && k < TB_WARNINGS_MAX; k++, n++) {
			tb_rtab_str(&tb, c->p[i].label);
			tb_rtab_str(&tb, c->p[i].b->warnings[k]);
		}
	if (!n) {
		tb_rtab_str(&tb, "");
		tb_rtab_str(&tb, "None");
	}
}

static void S_table_inputs(tb_report *r, tb_table *t)
{
	const tb_compare *c = r->cmp;
	tb_rtab tb;
	tb_rtab_init_v(&tb, t, r, NULL, S_align(r, 'r'), S_headers(r, "Input"), c->n + 1);
	for (size_t k = 0; k < c->ninputs; k++) {
		tb_rtab_fmt(&tb, "%s (%s)", c->inputs[k].label, c->inputs[k].key);
		for (size_t i = 0; i < c->n; i++)
			tb_rtab_str(&tb, c->inputs[k].values[i]);
	}
	if (c->ninputs == 0) {
		tb_rtab_str(&tb, "None: the proposals price the same inputs");
		for (size_t i = 0; i < c->n; i++)
			tb_rtab_str(&tb, "");
	}
}

static void S_table_figures(tb_report *r, tb_table *t)
{
	const tb_compare *c = r->cmp;
	tb_rtab tb;
	char *caption = tb_rstrf(S_BEST " the best in its row; in brackets, the difference "
	                         "against %s", c->p[0].label);
	tb_rtab_init_v(&tb, t, r, caption, S_align(r, 'r'), S_headers(r, "Figure"), c->n + 1);
	free(caption);
	for (size_t k = 0; k < c->nfigures; k++) {
		const tb_compare_figure *f = &c->figures[k];
		bool any = false;
		for (size_t i = 0; i < c->n; i++)
			any |= f->known[i];
		if (!any)
			continue;   /* a figure no proposal has: no row of n/a */
		tb_rtab_str(&tb, f->label);
		/* a row of money in one style: its largest amount's */
		double ref = 0;
		for (size_t i = 0; i < c->n; i++)
			if (f->known[i] && isfinite(f->v[i]))
				ref = fmax(ref, fabs(f->v[i]));
		for (size_t i = 0; i < c->n; i++) {
			tb_buf *o = tb_rtab_begin(&tb);
			if (!f->known[i]) {
				tb_buf_puts(o, "n/a");
			} else if (S_filter[f->fmt] == TB_RF_MONEY && isfinite(f->v[i])) {
				tb_fmt_money_ref(o, f->v[i], tb_rcurrency(r), ref);
			} else {
				tb_rfmt(o, S_filter[f->fmt], f->v[i], tb_rcurrency(r));
			}
			if (f->known[i]) {
				if (f->delta_known[i]) {
					tb_buf_puts(o, " (");
					if (f->delta[i] > 0)
						tb_buf_putc(o, '+');
					tb_rfmt(o, TB_RF_PCT, f->delta[i], NULL);
					tb_buf_putc(o, ')');
				}
				if (f->best[i])
					tb_buf_puts(o, " " S_BEST);
			}
			tb_rtab_end(&tb);
		}
	}
}

/* ---- charts -------------------------------------------------------------- */

/* Reference lines for a per-proposal limit: one when every proposal that
 * has one agrees, else one per distinct value (as many as fit), each
 * named by the proposals it is for. */
static void S_limit_refs(const tb_report *r, tb_chart_spec *s, const char *what, double scale,
                         tb_rfilter f, const double *v, const bool *has)
{
	const tb_compare *c = r->cmp;
	bool done[TB_COMPARE_MAX] = { false };
	size_t distinct = 0;
	for (size_t i = 0; i < c->n; i++) {
		if (!has[i] || done[i])
			continue;
		distinct++;
		for (size_t k = i; k < c->n; k++)
			if (has[k] && v[k] == v[i])
				done[k] = true;
	}
	memset(done, 0, sizeof done);
	for (size_t i = 0; i < c->n; i++) {
		if (!has[i] || done[i])
			continue;
		tb_chart_ref *ref = tb_rchart_add_ref(s, v[i] / scale, S_RED);
		if (!ref)
			return;
		tb_buf o;
		tb_buf_init(&o);
		tb_buf_printf(&o, "%s ", what);
		tb_rfmt(&o, f, v[i], tb_rcurrency(r));
		if (distinct > 1) {
			const char *sep = " (";
			for (size_t k = i; k < c->n; k++)
				if (has[k] && v[k] == v[i]) {
					tb_buf_printf(&o, "%s%s", sep, c->p[k].label);
					sep = ", ";
				}
			tb_buf_putc(&o, ')');
		}
		for (size_t k = i; k < c->n; k++)
			if (has[k] && v[k] == v[i])
				done[k] = true;
		tb_rcopy(ref->label, sizeof ref->label, o.ptr);
		tb_buf_release(&o);
	}
}

static void S_cats(const tb_report *r, tb_chart_spec *s)
{
	s->ncats = r->cmp->n;
	for (size_t i = 0; i < r->cmp->n; i++)
		tb_rcopy(s->cats[i], sizeof s->cats[i], r->cmp->p[i].label);
}

static void S_chart_days(const tb_report *r, tb_chart_spec *s)
{
	const tb_compare *c = r->cmp;
	tb_rchart_init(s, TB_CHART_GROUPED_BARS, "compare-days", "Wall clock per proposal",
	               "Proposal", "Wall clock", "days", 1);
	S_cats(r, s);
	tb_rchart_series(s, "compute alone");
	tb_rchart_series(s, "expected (failures and checkpoints)");
	double v[TB_COMPARE_MAX];
	bool has[TB_COMPARE_MAX];
	for (size_t i = 0; i < c->n; i++) {
		const tb_budget *b = c->p[i].b;
		double alone_s, alone_cost;
		s->series[0].values[i] = tb_budget_compute_alone(b, &alone_s, &alone_cost)
		                         ? alone_s / 86400 : NAN;
		tb_expected x = tb_budget_expected(b);
		s->series[1].values[i] = x.known ? x.seconds / 86400 : NAN;
		v[i] = b->time.deadline_s;
		has[i] = b->time.has_deadline;
	}
	S_limit_refs(r, s, "deadline", 86400, TB_RF_DAYS, v, has);
}

static void S_chart_cost(const tb_report *r, tb_chart_spec *s)
{
	const tb_compare *c = r->cmp;
	char ylab[48];
	snprintf(ylab, sizeof ylab, "Cost (%s)", tb_rcurrency(r));
	tb_rchart_init(s, TB_CHART_GROUPED_BARS, "compare-cost", "Cost per proposal", "Proposal",
	               ylab, "", 1);
	S_cats(r, s);
	tb_rchart_series(s, "compute alone");
	tb_rchart_series(s, "expected (failures and checkpoints)");
	double v[TB_COMPARE_MAX];
	bool has[TB_COMPARE_MAX];
	for (size_t i = 0; i < c->n; i++) {
		const tb_budget *b = c->p[i].b;
		double alone_s, alone_cost;
		s->series[0].values[i] = tb_budget_compute_alone(b, &alone_s, &alone_cost)
		                         ? alone_cost : NAN;
		tb_expected x = tb_budget_expected(b);
		s->series[1].values[i] = x.known ? x.cost : NAN;
		v[i] = b->time.budget;
		has[i] = b->time.has_budget;
	}
	S_limit_refs(r, s, "budget", 1, TB_RF_MONEY, v, has);
}

static void S_chart_memory(const tb_report *r, tb_chart_spec *s)
{
	const tb_compare *c = r->cmp;
	tb_rchart_init(s, TB_CHART_STACKED_BARS, "compare-memory", "Memory per GPU by line item",
	               "Proposal", "Memory per GPU", "GB", 1e9);
	S_cats(r, s);
	tb_rchart_series(s, "Weights");
	tb_rchart_series(s, "Gradients");
	tb_rchart_series(s, "Master weights");
	tb_rchart_series(s, "Optimizer state");
	tb_rchart_series(s, "Activations");
	tb_rchart_series(s, "Other");
	double v[TB_COMPARE_MAX];
	bool has[TB_COMPARE_MAX];
	for (size_t i = 0; i < c->n; i++) {
		const tb_memory *m = &c->p[i].b->memory;
		s->series[0].values[i] = m->per_gpu.weights;
		s->series[1].values[i] = m->per_gpu.gradients;
		s->series[2].values[i] = m->per_gpu.master_weights;
		s->series[3].values[i] = m->per_gpu.optimizer;
		/* unknown activations draw no bar at all, rather than one of 0 B */
		s->series[4].values[i] = m->activations_known ? m->per_gpu.activations : NAN;
		s->series[5].values[i] = m->per_gpu.other;
		v[i] = m->capacity_bytes;
		has[i] = m->capacity_bytes > 0;
	}
	S_limit_refs(r, s, "capacity", 1, TB_RF_BYTES, v, has);
}

/* ---- placeholders and conditions --------------------------------------- */

static const char *const S_value_names[] = {
	"compare.count", "compare.names", "compare.sha256", "compare.sha256_short",
	"compare.currency", "compare.fastest", "compare.cheapest", "compare.first",
	"report.date", "report.version", "report.command",
};
#define S_NVALUES (sizeof S_value_names / sizeof *S_value_names)

const char *tb_rcompare_value_name(size_t i)
{
	return i < S_NVALUES ? S_value_names[i] : NULL;
}

/* The proposal(s) with the best value of figure `key`, or n/a. */
static void S_best_names(const tb_compare *c, const char *key, tb_buf *out)
{
	const tb_compare_figure *f = tb_compare_figure_find(c, key);
	size_t n = 0;
	for (size_t i = 0; f && i < c->n; i++)
		if (f->best[i])
			tb_buf_printf(out, "%s%s", n++ ? " and " : "", c->p[i].label);
	if (!n)
		tb_buf_puts(out, "n/a");
}

static tb_tpl_status S_value(void *ctx, const char *name, const char *filter, tb_buf *out)
{
	const tb_report *r = ctx;
	const tb_compare *c = r->cmp;
	size_t k = 0;
	while (k < S_NVALUES && strcmp(S_value_names[k], name) != 0)
		k++;
	if (k == S_NVALUES)
		return tb_rsweep_value(r, name, filter, out);
	tb_rfilter f;
	if (filter && !tb_rfilter_find(filter, &f))
		return TB_TPL_UNKNOWN_FILTER;
	if (k == 0) {
		tb_rfmt(out, filter ? f : TB_RF_GROUPED, (double)c->n, NULL);
		return TB_TPL_OK;
	}
	if (filter && strcmp(filter, "plain") != 0)
		return TB_TPL_BAD_FILTER;
	switch (k) {
	case 1:
		for (size_t i = 0; i < c->n; i++)
			tb_buf_printf(out, "%s%s", i == 0 ? "" : i + 1 == c->n ? " and " : ", ", c->p[i].label);
		break;
	case 2: tb_buf_puts(out, c->sha256); break;
	case 3: tb_buf_puts(out, r->short_hash); break;
	case 4: tb_buf_puts(out, c->currency); break;
	case 5: S_best_names(c, "seconds", out); break;
	case 6: S_best_names(c, "cost", out); break;
	case 7: tb_buf_puts(out, c->p[0].label); break;
	case 8: tb_buf_puts(out, r->date); break;
	case 9: tb_buf_puts(out, TB_VERSION); break;
	default: tb_buf_puts(out, r->command); break;
	}
	return TB_TPL_OK;
}

static const char *const S_cond_names[] = {
	"inputs_differ", "deadline", "budget", "risk", "overrides",
};
#define S_NCOND (sizeof S_cond_names / sizeof *S_cond_names)

const char *tb_rcompare_condition_name(size_t i)
{
	return i < S_NCOND ? S_cond_names[i] : NULL;
}

static tb_tpl_status S_condition(void *ctx, const char *name, int *truth)
{
	const tb_report *r = ctx;
	const tb_compare *c = r->cmp;
	size_t k = 0;
	while (k < S_NCOND && strcmp(S_cond_names[k], name) != 0)
		k++;
	if (k == S_NCOND)
		return tb_rsweep_condition(r, name, truth);
	bool t = false;
	for (size_t i = 0; i < c->n; i++) {
		const tb_budget *b = c->p[i].b;
		switch (k) {
		case 0: t = c->ninputs > 0; break;
		case 1: t |= b->time.has_deadline; break;
		case 2: t |= b->time.has_budget; break;
		case 3: t |= b->risk.known; break;
		default: t = c->p[0].sc->nsets > 0; break;
		}
	}
	*truth = t;
	return TB_TPL_OK;
}

/* ---- the title block ------------------------------------------------------ */

static void S_text(cmark_node *parent, bool strong, bool code, const char *s)
{
	tb_buf t;
	tb_buf_init(&t);
	tb_template_put_utf8(&t, s ? s : "", s ? strlen(s) : 0);
	for (size_t i = 0; i < t.len; i++)
		if (t.ptr[i] == '\n' || t.ptr[i] == '\r')
			t.ptr[i] = ' ';
	cmark_node *n = cmark_node_new(code ? CMARK_NODE_CODE : CMARK_NODE_TEXT);
	cmark_node_set_literal(n, t.ptr);
	tb_buf_release(&t);
	if (strong) {
		cmark_node *w = cmark_node_new(CMARK_NODE_STRONG);
		cmark_node_append_child(w, n);
		n = w;
	}
	cmark_node_append_child(parent, n);
}

/* The heading and byline, which the PDF replaces with its own title block
 * drawn from the meta; the overrides outside it, so every back end shows
 * what --set changed. */
void tb_rcompare_title_block(tb_report *r, cmark_node *into)
{
	const tb_compare *c = r->cmp;
	tb_rblock_new(r, TB_BLOCK_TITLE, into);
	cmark_node *node = cmark_node_last_child(into);
	cmark_node *h = cmark_node_new(CMARK_NODE_HEADING);
	cmark_node_set_heading_level(h, 1);
	S_text(h, false, false, r->meta.title);
	cmark_node_append_child(node, h);
	if (r->meta.author && *r->meta.author) {
		cmark_node *p = cmark_node_new(CMARK_NODE_PARAGRAPH);
		S_text(p, true, false, "Author:");
		S_text(p, false, false, " ");
		S_text(p, false, false, r->meta.author);
		cmark_node_append_child(node, p);
	}
	cmark_node *p = cmark_node_new(CMARK_NODE_PARAGRAPH);
	S_text(p, true, false, "Date:");
	S_text(p, false, false, " ");
	S_text(p, false, false, r->date);
	S_text(p, false, false, " \xC2\xB7 ");
	S_text(p, true, false, "Tool:");
	S_text(p, false, false, " trainbudget " TB_VERSION " \xC2\xB7 ");
	S_text(p, true, false, "Proposals SHA-256:");
	S_text(p, false, false, " ");
	S_text(p, false, true, c->sha256);
	cmark_node_append_child(node, p);
	tb_rsummary_overrides(c->p[0].sc, "to every proposal after its file was read; each "
	                      "proposal's inputs SHA-256 covers them", into);
}

/* ---- the report ---------------------------------------------------------- */

static const tb_rtable_def S_tables[] = {
	{ "compare.proposals", S_table_proposals },
	{ "compare.hashes", S_table_hashes },
	{ "compare.verdicts", S_table_verdicts },
	{ "compare.warnings", S_table_warnings },
	{ "compare.inputs", S_table_inputs },
	{ "compare.figures", S_table_figures },
};

static const tb_rchart_def S_charts[] = {
	{ "compare-days", S_chart_days },
	{ "compare-cost", S_chart_cost },
	{ "compare-memory", S_chart_memory },
};

const tb_rsection tb_rsection_compare = {
	S_tables, sizeof S_tables / sizeof S_tables[0],
	S_charts, sizeof S_charts / sizeof S_charts[0],
};

static const tb_rsection *const S_sections[] = { &tb_rsection_compare, &tb_rsection_sweep };

/* "a vs b vs c": the proposals' columns, for the title and the PDF's. */
static char *S_title(const tb_compare *c)
{
	tb_buf o;
	tb_buf_init(&o);
	tb_buf_puts(&o, "Comparison: ");
	for (size_t i = 0; i < c->n; i++)
		tb_buf_printf(&o, "%s%s", i ? " vs " : "", c->p[i].label);
	return tb_buf_detach(&o, NULL);
}

tb_report *tb_report_new_compare(const tb_compare *cmp, const tb_report_options *opt,
                                 tb_diags *d)
{
	tb_report_options none;
	memset(&none, 0, sizeof none);
	if (!opt)
		opt = &none;
	tb_report *r = tb_xcalloc(1, sizeof *r);
	r->cmp = cmp;
	r->sc = cmp->p[0].sc;
	r->b = cmp->p[0].b;
	r->sections = S_sections;
	r->nsections = sizeof S_sections / sizeof *S_sections;
	r->multis = tb_rsweep_multis;
	r->nmultis = tb_rsweep_nmultis;
	for (size_t i = 0; i < cmp->n; i++)
		if (cmp->p[i].sweep) {
			r->sweeps.s[r->sweeps.n] = cmp->p[i].sweep;
			r->sweeps.label[r->sweeps.n++] = cmp->p[i].label;
		}
	/* The latest of the proposals' dates: a comparison is no older than
	 * its newest input.  Else SOURCE_DATE_EPOCH's, as for a report. */
	const char *date = NULL;
	for (size_t i = 0; i < cmp->n; i++) {
		const char *dt = cmp->p[i].sc->date;
		if (dt && *dt && (!date || strcmp(dt, date) > 0))
			date = dt;
	}
	r->date = tb_xstrdup(date ? date : opt->date && *opt->date ? opt->date : "undated");
	r->command = tb_xstrdup(opt->command && *opt->command ? opt->command : "trainbudget compare");
	tb_rcopy(r->short_hash, sizeof r->short_hash, cmp->sha256);
	r->owned_title = S_title(cmp);
	r->meta.title = r->owned_title;
	/* one author when every proposal names the same one */
	const char *author = cmp->p[0].sc->author;
	for (size_t i = 1; i < cmp->n && author; i++)
		if (!cmp->p[i].sc->author || strcmp(cmp->p[i].sc->author, author) != 0)
			author = NULL;
	r->meta.author = author;
	r->meta.date = r->date;
	r->meta.version = TB_VERSION;
	r->meta.sha256 = cmp->sha256;
	r->meta.hash_of = "proposals";
	r->meta.name = cmp->p[0].sc->name;
	r->meta.command = r->command;

	tb_tpl_env env = { r, S_value, S_condition, tb_rdirective, tb_rsuggest, tb_rpipe_table };
	return tb_report_expand(r, opt, tb_template_compare_md, tb_template_compare_md_len,
	                        "templates/compare.md", &env, d);
}
