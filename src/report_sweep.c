/* report_sweep.c: a sweep in a report (`report --sweep`) or a comparison
 * (`compare --sweep`, one sweep per proposal): the table of every point,
 * line charts of days, cost, memory per GPU and predicted MFU against the
 * swept value (the deadline, budget and capacity lines drawn, the points
 * that do not fit crossed), a heat map for a grid (its table in
 * Markdown), and the cliffs in words.  Selects and formats what the
 * sweep holds; computes nothing. */
#include "report_build.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/fmt.h"
#include "trainbudget/sweep.h"
#include "trainbudget/xalloc.h"

static const tb_rgb S_RED = { 0xd6, 0x27, 0x28 };

static const tb_sweep *S_first(const tb_report *r)
{
	return r->sweeps.n ? r->sweeps.s[0] : NULL;
}

/* ---- placeholders and conditions ---------------------------------------- */

static const char *const S_value_names[] = {
	"sweep.key", "sweep.key2", "sweep.values", "sweep.values2", "sweep.points",
	"sweep.valid", "sweep.from", "sweep.to", "sweep.from2", "sweep.to2",
};
#define S_NVALUES (sizeof S_value_names / sizeof *S_value_names)

const char *tb_rsweep_value_name(size_t i)
{
	return i < S_NVALUES ? S_value_names[i] : NULL;
}

tb_tpl_status tb_rsweep_value(const tb_report *r, const char *name, const char *filter,
                              tb_buf *out)
{
	size_t k = 0;
	while (k < S_NVALUES && strcmp(S_value_names[k], name) != 0)
		k++;
	if (k == S_NVALUES)
		return TB_TPL_UNKNOWN_NAME;
	tb_rfilter f = TB_RF_GROUPED;
	if (filter && !tb_rfilter_find(filter, &f))
		return TB_TPL_UNKNOWN_FILTER;
	const tb_sweep *s = S_first(r);
	size_t a = k == 1 || k == 3 || k >= 8 ? 1 : 0;
	bool have = s && a < s->naxes;
	bool text = k == 0 || k == 1 || k >= 6;
	if (text && filter && strcmp(filter, "plain") != 0)
		return TB_TPL_BAD_FILTER;
	if (!have) {
		tb_buf_puts(out, "n/a");
		return TB_TPL_OK;
	}
	const tb_sweep_axis *ax = &s->axis[a];
	switch (k) {
	case 0: case 1: tb_buf_puts(out, ax->key); break;
	case 2: case 3: tb_rfmt(out, filter ? f : TB_RF_GROUPED, (double)ax->n, NULL); break;
	case 4: tb_rfmt(out, filter ? f : TB_RF_GROUPED, (double)s->npoints, NULL); break;
	case 5: tb_rfmt(out, filter ? f : TB_RF_GROUPED, (double)s->nvalid, NULL); break;
	case 6: case 8: tb_sweep_value_text(s, a, 0, out); break;
	default: tb_sweep_value_text(s, a, ax->n - 1, out); break;
	}
	return TB_TPL_OK;
}

static const char *const S_cond_names[] = {
	"sweep", "sweep_line", "sweep_grid", "sweep_cliffs", "sweep_invalid",
};
#define S_NCOND (sizeof S_cond_names / sizeof *S_cond_names)

const char *tb_rsweep_condition_name(size_t i)
{
	return i < S_NCOND ? S_cond_names[i] : NULL;
}

tb_tpl_status tb_rsweep_condition(const tb_report *r, const char *name, int *truth)
{
	size_t k = 0;
	while (k < S_NCOND && strcmp(S_cond_names[k], name) != 0)
		k++;
	if (k == S_NCOND)
		return TB_TPL_UNKNOWN_NAME;
	const tb_sweep *s = S_first(r);
	bool t = false;
	switch (k) {
	case 0: t = s != NULL; break;
	case 1: t = s && s->naxes == 1; break;
	case 2: t = s && s->naxes == 2; break;
	case 3:
		for (size_t i = 0; i < r->sweeps.n; i++)
			t |= r->sweeps.s[i]->ncliffs > 0;
		break;
	default:
		for (size_t i = 0; i < r->sweeps.n; i++)
			t |= r->sweeps.s[i]->nvalid < r->sweeps.s[i]->npoints;
		break;
	}
	*truth = t;
	return TB_TPL_OK;
}

/* ---- the table of points ----------------------------------------------- */

static const char *S_fit_word(const tb_sweep_point *p)
{
	return tb_sweep_point_replaced(p) ? "no*" : tb_rfits_word(p->f.fits, p->f.fits_known);
}

static void S_table(tb_report *r, tb_table *t)
{
	const tb_sweep *s0 = S_first(r);
	tb_rtab tb;
	if (!s0) {
		tb_rtab_init(&tb, t, r, NULL, "l", "No sweep was asked for (--sweep)", NULL);
		return;
	}
	bool several = r->sweeps.n > 1, invalid = false;
	for (size_t k = 0; k < r->sweeps.n; k++)
		invalid |= r->sweeps.s[k]->nvalid < r->sweeps.s[k]->npoints;
	const char *h[12];
	char align[12];
	size_t n = 0;
	if (several) {
		align[n] = 'l';
		h[n++] = "Proposal";
	}
	for (size_t a = 0; a < s0->naxes; a++) {
		align[n] = s0->axis[a].numeric ? 'r' : 'l';
		h[n++] = s0->axis[a].key;
	}
	static const char *const cols[] = { "Fits", "Memory per GPU", "Predicted MFU",
	                                    "Wall clock", "GPU-hours", "Cost" };
	for (size_t c = 0; c < 6; c++) {
		align[n] = c == 0 ? 'l' : 'r';
		h[n++] = cols[c];
	}
	if (invalid) {
		align[n] = 'l';
		h[n++] = "Not valid because";
	}
	align[n] = '\0';
	bool replaced = false;
	for (size_t k = 0; k < r->sweeps.n; k++)
		for (size_t p = 0; p < r->sweeps.s[k]->npoints; p++)
			replaced |= tb_sweep_point_replaced(&r->sweeps.s[k]->points[p]);
	tb_rtab_init_v(&tb, t, r, replaced
	               ? "Wall clock and cost expected: the mean of simulated runs, failures and "
	                 "checkpoints included; memory of the layout priced, except no*: "
	                 TB_SWEEP_REPLACED_NOTE
	               : "Wall clock and cost expected: the mean of simulated runs, failures and "
	                 "checkpoints included; memory of the layout priced", align, h, n);
	/* the cost column in one style: its largest amount's */
	for (size_t k = 0; k < r->sweeps.n; k++)
		for (size_t p = 0; p < r->sweeps.s[k]->npoints; p++) {
			const tb_sweep_point *pt = &r->sweeps.s[k]->points[p];
			if (pt->valid && pt->f.time_known && isfinite(pt->f.cost))
				tb.money_ref = fmax(tb.money_ref, fabs(pt->f.cost));
		}
	for (size_t k = 0; k < r->sweeps.n; k++) {
		const tb_sweep *s = r->sweeps.s[k];
		for (size_t p = 0; p < s->npoints; p++) {
			const tb_sweep_point *pt = &s->points[p];
			if (several)
				tb_rtab_str(&tb, r->sweeps.label[k]);
			for (size_t a = 0; a < s->naxes; a++) {
				tb_sweep_value_text(s, a, a ? pt->j : pt->i, tb_rtab_begin(&tb));
				tb_rtab_end(&tb);
			}
			if (!pt->valid) {
				tb_rtab_str(&tb, "not valid");
				for (int c = 0; c < 5; c++)
					tb_rtab_str(&tb, "");
				tb_rtab_str(&tb, pt->why ? pt->why : "");
				continue;
			}
			const tb_sweep_figures *f = &pt->f;
			tb_rtab_str(&tb, S_fit_word(pt));
			if (f->activations_known)
				tb_rtab_num(&tb, TB_RF_BYTES, f->memory_per_gpu_bytes);
			else
				tb_rtab_str(&tb, "n/a");
			if (f->perf_known)
				tb_rtab_num(&tb, TB_RF_PCT, f->mfu_predicted);
			else
				tb_rtab_str(&tb, "n/a");
			if (f->time_known) {
				tb_rtab_num(&tb, TB_RF_DAYS, f->seconds);
				tb_rtab_num(&tb, TB_RF_GROUPED, f->gpu_hours);
				tb_rtab_num(&tb, TB_RF_MONEY, f->cost);
			} else {
				tb_rtab_str(&tb, f->seconds_compute > 0 ? "never finishes" : "n/a");
				tb_rtab_str(&tb, "n/a");
				tb_rtab_str(&tb, "n/a");
			}
			if (invalid)
				tb_rtab_str(&tb, "");
		}
	}
}

/* ---- line charts ----------------------------------------------------- */

typedef enum { S_DAYS, S_COST, S_MEMORY, S_MFU } S_metric;

static bool S_metric_of(const tb_sweep_point *p, S_metric m, double *v)
{
	const tb_sweep_figures *f = &p->f;
	if (!p->valid)
		return false;
	switch (m) {
	case S_DAYS: *v = f->seconds / 86400; return f->time_known;
	case S_COST: *v = f->cost; return f->time_known;
	case S_MEMORY: *v = f->memory_per_gpu_bytes; return f->activations_known;
	case S_MFU: *v = f->mfu_predicted; return f->perf_known;
	}
	return false;
}

/* A horizontal line where every valid point of every sweep agrees on the
 * value (the deadline, the budget, the card); none where they differ. */
static bool S_common(const tb_report *r, S_metric m, double *v)
{
	bool any = false;
	for (size_t k = 0; k < r->sweeps.n; k++) {
		const tb_sweep *s = r->sweeps.s[k];
		for (size_t p = 0; p < s->npoints; p++) {
			const tb_sweep_figures *f = &s->points[p].f;
			if (!s->points[p].valid)
				continue;
			double x;
			if (m == S_DAYS && f->has_deadline)
				x = f->deadline_s;
			else if (m == S_COST && f->has_budget)
				x = f->budget;
			else if (m == S_MEMORY)
				x = f->capacity_bytes;
			else
				return false;
			if (any && x != *v)
				return false;
			*v = x;
			any = true;
		}
	}
	return any;
}

/* Keys whose values are usually powers of two: a log axis when they span
 * 16x or more. */
static bool S_log_key(const tb_sweep_axis *ax)
{
	static const char *const keys[] = { "hardware.count", "training.seq_len",
	                                    "training.micro_batch", "training.global_batch" };
	bool known = false;
	for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
		known |= strcmp(keys[k], ax->key) == 0;
	if (!known || !ax->numeric)
		return false;
	double lo = INFINITY, hi = 0;
	for (size_t i = 0; i < ax->n; i++) {
		if (!(ax->x[i] > 0))
			return false;
		lo = fmin(lo, ax->x[i]);
		hi = fmax(hi, ax->x[i]);
	}
	return hi / lo >= 16;
}

static void S_line_chart(const tb_report *r, tb_chart_spec *c, S_metric m)
{
	static const char *const ids[] = { "sweep-days", "sweep-cost", "sweep-memory", "sweep-mfu" };
	static const char *const what[] = { "Wall clock", "Cost", "Memory per GPU", "Predicted MFU" };
	const tb_sweep *s0 = S_first(r);
	char title[96];
	snprintf(title, sizeof title, "%s against %s", what[m], s0 ? s0->axis[0].key : "the swept value");
	const char *unit = m == S_DAYS ? "days" : m == S_MEMORY ? "GB" : m == S_MFU ? "%" : "";
	double scale = m == S_MEMORY ? 1e9 : m == S_MFU ? 0.01 : m == S_COST ? 1 : 1;
	char ylab[48];
	if (m == S_COST)
		snprintf(ylab, sizeof ylab, "Cost (%s)", tb_rcurrency(r));
	else
		snprintf(ylab, sizeof ylab, "%s", what[m]);
	tb_rchart_init(c, TB_CHART_LINES, ids[m], title, s0 ? s0->axis[0].key : "", ylab, unit, scale);
	tb_rcopy(c->flag_label, sizeof c->flag_label, "does not fit");
	if (!s0)
		return;
	const tb_sweep_axis *ax = &s0->axis[0];
	c->x_cats = !ax->numeric;
	c->log_x = S_log_key(ax);
	size_t max = c->x_cats ? TB_CHART_MAX_CATS : TB_CHART_MAX_POINTS;
	c->ncats = ax->n < max ? ax->n : max;
	for (size_t i = 0; i < c->ncats; i++) {
		c->xs[i] = ax->x[i];
		if (i < TB_CHART_MAX_CATS) {
			tb_buf o;
			tb_buf_init(&o);
			tb_sweep_value_text(s0, 0, i, &o);
			tb_rcopy(c->cats[i], sizeof c->cats[i], o.ptr);
			tb_buf_release(&o);
		}
	}
	/* a series per proposal, and on a grid per value of the second key */
	for (size_t k = 0; k < r->sweeps.n; k++) {
		const tb_sweep *s = r->sweeps.s[k];
		size_t n1 = s->naxes == 2 ? s->axis[1].n : 1;
		for (size_t j = 0; j < n1 && c->nseries < TB_CHART_MAX_SERIES; j++) {
			tb_buf name;
			tb_buf_init(&name);
			if (r->sweeps.n > 1)
				tb_buf_puts(&name, r->sweeps.label[k]);
			if (s->naxes == 2) {
				if (name.len)
					tb_buf_puts(&name, ", ");
				tb_sweep_value_words(s, 1, j, &name);
			}
			tb_rchart_series(c, name.ptr);
			tb_buf_release(&name);
			tb_chart_series *se = &c->series[c->nseries - 1];
			for (size_t i = 0; i < c->ncats; i++) {
				const tb_sweep_point *p = tb_sweep_at(s, i, j);
				double v;
				se->values[i] = p && S_metric_of(p, m, &v) ? v : NAN;
				se->flagged[i] = p && p->valid && p->f.fits_known && !p->f.fits;
			}
		}
	}
	double v;
	if (m == S_DAYS && S_common(r, m, &v))
		tb_rchart_ref(c, v / 86400, "deadline ", TB_RF_DAYS, v, S_RED);
	else if (m == S_COST && S_common(r, m, &v)) {
		tb_chart_ref *ref = tb_rchart_add_ref(c, v, S_RED);
		if (ref) {
			char *money = tb_rfmts(TB_RF_MONEY, v, tb_rcurrency(r));
			snprintf(ref->label, sizeof ref->label, "budget %s", money);
			free(money);
		}
	} else if (m == S_MEMORY && S_common(r, m, &v))
		tb_rchart_ref(c, v, "capacity ", TB_RF_BYTES, v, S_RED);
}

static void S_chart_days(const tb_report *r, tb_chart_spec *c) { S_line_chart(r, c, S_DAYS); }
static void S_chart_cost(const tb_report *r, tb_chart_spec *c) { S_line_chart(r, c, S_COST); }
static void S_chart_memory(const tb_report *r, tb_chart_spec *c) { S_line_chart(r, c, S_MEMORY); }
static void S_chart_mfu(const tb_report *r, tb_chart_spec *c) { S_line_chart(r, c, S_MFU); }

/* ---- the grid: a heat map per sweep, its table for Markdown ------------- */

static void S_grid(tb_report *r, cmark_node *into)
{
	for (size_t k = 0; k < r->sweeps.n; k++) {
		const tb_sweep *s = r->sweeps.s[k];
		tb_chart_spec *c = tb_xcalloc(1, sizeof *c);
		char id[32], title[96];
		if (r->sweeps.n > 1)
			snprintf(id, sizeof id, "sweep-grid-%zu", k + 1);
		else
			snprintf(id, sizeof id, "sweep-grid");
		if (s->naxes < 2) {
			snprintf(title, sizeof title, "No grid: one setting swept");
			tb_rchart_init(c, TB_CHART_HEATMAP, id, title, "", "", "", 1);
			tb_rchart_place(r, c, into);
			free(c);
			continue;
		}
		/* the keys' last parts: the axes carry the full names */
		const char *k0 = strrchr(s->axis[0].key, '.'), *k1 = strrchr(s->axis[1].key, '.');
		k0 = k0 ? k0 + 1 : s->axis[0].key;
		k1 = k1 ? k1 + 1 : s->axis[1].key;
		if (r->sweeps.n > 1)
			snprintf(title, sizeof title, "%s: wall clock (days) by %s and %s", r->sweeps.label[k],
			         k0, k1);
		else
			snprintf(title, sizeof title, "Wall clock (days) by %s and %s", k0, k1);
		tb_rchart_init(c, TB_CHART_HEATMAP, id, title, s->axis[0].key, s->axis[1].key, "days", 86400);
		tb_rcopy(c->flag_label, sizeof c->flag_label, "does not fit");
		size_t n0 = s->axis[0].n < TB_CHART_MAX_CATS ? s->axis[0].n : TB_CHART_MAX_CATS;
		size_t n1 = s->axis[1].n < TB_CHART_MAX_CATS ? s->axis[1].n : TB_CHART_MAX_CATS;
		c->ncats = n0;
		c->nrows = n1;
		for (size_t i = 0; i < n0; i++) {
			tb_buf o;
			tb_buf_init(&o);
			tb_sweep_value_text(s, 0, i, &o);
			tb_rcopy(c->cats[i], sizeof c->cats[i], o.ptr);
			tb_buf_release(&o);
		}
		for (size_t j = 0; j < n1; j++) {
			tb_buf o;
			tb_buf_init(&o);
			tb_sweep_value_text(s, 1, j, &o);
			tb_rcopy(c->rows[j], sizeof c->rows[j], o.ptr);
			tb_buf_release(&o);
			for (size_t i = 0; i < n0; i++) {
				const tb_sweep_point *p = tb_sweep_at(s, i, j);
				bool have = p->valid && p->f.time_known;
				c->heat[j][i] = have ? p->f.seconds : NAN;
				c->heat_flagged[j][i] = p->valid && p->f.fits_known && !p->f.fits;
			}
		}
		tb_block *blk = tb_rchart_place(r, c, into);
		free(c);
		/* Markdown cannot colour a cell: the same grid as a table */
		const char **h = tb_xcalloc(n0 + 1, sizeof *h);
		char **owned = tb_xcalloc(n0 + 1, sizeof *owned);
		char *align = tb_xcalloc(n0 + 2, 1);
		owned[0] = tb_rstrf("%s \\ %s", s->axis[1].key, s->axis[0].key);
		h[0] = owned[0];
		align[0] = 'l';
		for (size_t i = 0; i < n0; i++) {
			tb_buf o;
			tb_buf_init(&o);
			tb_sweep_value_text(s, 0, i, &o);
			owned[i + 1] = tb_buf_detach(&o, NULL);
			h[i + 1] = owned[i + 1];
			align[i + 1] = 'r';
		}
		tb_rtab tb;
		tb_rtab_init_v(&tb, &blk->table, r, "Wall clock (days, expected, failures and checkpoints included); "
		               "\u00d7: does not fit", align, h, n0 + 1);
		for (size_t j = 0; j < n1; j++) {
			tb_sweep_value_text(s, 1, j, tb_rtab_begin(&tb));
			tb_rtab_end(&tb);
			for (size_t i = 0; i < n0; i++) {
				const tb_sweep_point *p = tb_sweep_at(s, i, j);
				if (!p->valid) {
					tb_rtab_str(&tb, "not valid");
					continue;
				}
				tb_buf *o = tb_rtab_begin(&tb);
				if (p->f.time_known)
					tb_fmt_sig(o, p->f.seconds / 86400, 3);
				else
					tb_buf_puts(o, "n/a");
				if (p->f.fits_known && !p->f.fits)
					tb_buf_puts(o, " \u00d7");
				tb_rtab_end(&tb);
			}
		}
		for (size_t i = 0; i <= n0; i++)
			free(owned[i]);
		free(owned);
		free(h);
		free(align);
	}
}

/* ---- the cliffs, in words -------------------------------------------- */

void tb_rsweep_cliffs_block(tb_report *r, cmark_node *into)
{
	cmark_node *list = cmark_node_new(CMARK_NODE_LIST);
	cmark_node_set_list_type(list, CMARK_BULLET_LIST);
	cmark_node_set_list_tight(list, true);
	size_t items = 0;
	for (size_t k = 0; k < r->sweeps.n; k++) {
		const tb_sweep *s = r->sweeps.s[k];
		size_t n = s->ncliffs ? s->ncliffs : 1;
		for (size_t c = 0; c < n; c++) {
			tb_buf o;
			tb_buf_init(&o);
			if (r->sweeps.n > 1)
				tb_buf_printf(&o, "%s: ", r->sweeps.label[k]);
			if (s->ncliffs)
				tb_sweep_cliff_words(s, &s->cliffs[c], &o);
			else
				tb_buf_puts(&o, "no cliff within the values swept");
			tb_buf_putc(&o, '.');
			cmark_node *item = cmark_node_new(CMARK_NODE_ITEM);
			cmark_node *para = cmark_node_new(CMARK_NODE_PARAGRAPH);
			cmark_node *text = cmark_node_new(CMARK_NODE_TEXT);
			tb_buf clean;
			tb_buf_init(&clean);
			tb_template_put_utf8(&clean, o.ptr, o.len);
			cmark_node_set_literal(text, clean.ptr);
			tb_buf_release(&clean);
			tb_buf_release(&o);
			cmark_node_append_child(para, text);
			cmark_node_append_child(item, para);
			cmark_node_append_child(list, item);
			items++;
		}
	}
	if (items)
		cmark_node_append_child(into, list);
	else {
		cmark_node_free(list);
		tb_rnote(into, "No sweep was asked for (--sweep).");
	}
}

static const tb_rtable_def S_tables[] = {
	{ "sweep", S_table },
};

static const tb_rchart_def S_charts[] = {
	{ "sweep-days", S_chart_days },
	{ "sweep-cost", S_chart_cost },
	{ "sweep-memory", S_chart_memory },
	{ "sweep-mfu", S_chart_mfu },
};

const tb_rmulti_def tb_rsweep_multis[] = {
	{ "chart", "sweep-grid", S_grid },
};
const size_t tb_rsweep_nmultis = sizeof tb_rsweep_multis / sizeof tb_rsweep_multis[0];

const tb_rsection tb_rsection_sweep = {
	S_tables, sizeof S_tables / sizeof S_tables[0],
	S_charts, sizeof S_charts / sizeof S_charts[0],
};
