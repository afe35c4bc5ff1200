/* report_plan.c: the layout search in a report: the best layouts (table),
 * where the step goes for the best, the runner-up and the scenario's
 * layout (table and stacked bars), the days-against-cost front (table and
 * chart), the placeholders and conditions of templates/plan.md and of the
 * default report's "Better layouts" section, and the explanations in
 * sentences (tb_plan_explain).  Selects and formats what b->plan holds;
 * computes nothing. */
#include "report_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/answer.h"
#include "trainbudget/ceiling.h"
#include "trainbudget/gpus.h"
#include "trainbudget/record.h"
#include "trainbudget/xalloc.h"

enum { S_TXT_RUNNER_UP, S_TXT_SCENARIO, S_TXT_BEST, S_TXT_OWN, S_TXT_BETTER, S_TXT_CAVEAT };

static const tb_plan_result *S_plan(const tb_report *r)
{
	return &r->b->plan;
}

static bool S_have(const tb_report *r)
{
	return S_plan(r)->known && S_plan(r)->n_layouts > 0;
}

/* The scenario's layout has a column beside the best: timed and not the
 * best itself. */
static bool S_scenario_explained(const tb_plan_result *p)
{
	return p->scenario_known && p->n_layouts > 0 &&
	       !tb_plan_same_layout(&p->scenario, &p->layouts[0]);
}

void tb_rplan_init(tb_report *r)
{
	const tb_plan_result *p = S_plan(r);
	if (!S_have(r))
		return;
	char buf[2048];
	if (tb_plan_explain_runner_up(p, buf, sizeof buf))
		r->plan_text[S_TXT_RUNNER_UP] = tb_xstrdup(buf);
	if (tb_plan_explain_scenario(p, buf, sizeof buf))
		r->plan_text[S_TXT_SCENARIO] = tb_xstrdup(buf);
	tb_plan_layout_text(&p->layouts[0], buf, sizeof buf);
	r->plan_text[S_TXT_BEST] = tb_xstrdup(buf);
	tb_plan_layout_text(&p->scenario, buf, sizeof buf);
	r->plan_text[S_TXT_OWN] = tb_xstrdup(buf);
	if (tb_plan_better_text(S_plan(r), buf, sizeof buf))
		r->plan_text[S_TXT_BETTER] = tb_xstrdup(buf);
	if (tb_plan_caveat(p))
		r->plan_text[S_TXT_CAVEAT] = tb_xstrdup(tb_plan_caveat(p));
}

/* ---- tables ------------------------------------------------------------ */

static const char *S_card(const tb_plan_result *p, const tb_plan_layout *l)
{
	return l->gpu >= 0 && l->gpu < p->n_gpus ? p->gpus[l->gpu].gpu.name
	       : p->scenario_gpu.gpu.name;
}

/* One row; `same` more layouts of the same cost follow l in the ranking:
 * listed in its layout cell ("or ..."), not as rows of their own. */
static void S_row(tb_rtab *tb, const char *label, const tb_plan_result *p,
                  const tb_plan_layout *l, bool timed, int same)
{
	tb_rtab_str(tb, label);
	tb_buf *o = tb_rtab_begin(tb);
	tb_rfmt(o, TB_RF_GROUPED, (double)l->count, NULL);
	tb_buf_printf(o, " × %s", S_card(p, l));
	tb_rtab_end(tb);
	char lay[256];
	tb_plan_layout_text(l, lay, sizeof lay);
	o = tb_rtab_begin(tb);
	tb_buf_puts(o, lay);
	for (int k = 1; k <= same; k++) {
		tb_plan_layout_text(l + k, lay, sizeof lay);
		tb_buf_printf(o, "; or %s", lay);
	}
	tb_rtab_end(tb);
	if (timed) {
		tb_rtab_fmt(tb, "%.3g s", l->step_s);
		tb_rtab_num(tb, TB_RF_PCT, l->mfu);
	} else {
		tb_rtab_str(tb, NULL);
		tb_rtab_str(tb, NULL);
	}
	o = tb_rtab_begin(tb);
	tb_rfmt(o, TB_RF_BYTES, l->memory_per_gpu_bytes, NULL);
	double head = l->capacity_bytes - l->memory_per_gpu_bytes;
	tb_buf_puts(o, head >= 0 ? " (" : " (over by ");
	tb_rfmt(o, TB_RF_BYTES, head >= 0 ? head : -head, NULL);
	tb_buf_puts(o, head >= 0 ? " free)" : ")");
	tb_rtab_end(tb);
	if (timed && l->seconds > 0) {
		tb_rtab_num(tb, TB_RF_DAYS, l->seconds);
		tb_rtab_num(tb, TB_RF_MONEY, l->cost);
	} else {
		tb_rtab_str(tb, NULL);
		tb_rtab_str(tb, NULL);
	}
}

static void S_layouts(tb_report *r, tb_table *t, int max)
{
	const tb_plan_result *p = S_plan(r);
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, NULL, "rllrrrrr", "Rank", "GPUs", "Layout", "Step", "MFU",
	             "Memory per GPU (headroom)", "Time", "Cost", NULL);
	if (!p->known)
		return;
	int n = p->n_layouts < max ? p->n_layouts : max;
	for (int i = 0; i < n;) {
		char lab[32];
		int k = tb_plan_same_cost_run(p, i, n, lab, sizeof lab);
		S_row(&tb, lab, p, &p->layouts[i], true, k - i - 1);
		i = k;
	}
	char lab[48];
	if (p->scenario_rank)
		snprintf(lab, sizeof lab, "yours (%llu)", (unsigned long long)p->scenario_rank);
	else
		snprintf(lab, sizeof lab, "yours");
	S_row(&tb, lab, p, &p->scenario, p->scenario_known, 0);
}

static void S_table_layouts(tb_report *r, tb_table *t)
{
	S_layouts(r, t, TB_PLAN_TOP_MAX);
}

static void S_table_better(tb_report *r, tb_table *t)
{
	S_layouts(r, t, 5);
}

static void S_table_counts(tb_report *r, tb_table *t)
{
	const tb_plan_result *p = S_plan(r);
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, NULL, "lrl", "Candidates", "Count", "Why", NULL);
	if (!p->known || !p->counted)
		return;
	struct { const char *label; uint64_t n; const char *why; } rows[] = {
		{ "Searched", p->searched, "every combination of the sizes, stages and modes (docs/plan.md)" },
		{ "Broke a framework rule", p->pruned_rules, "what Megatron-LM, DeepSpeed and PyTorch FSDP cannot run" },
		{ "Broke the batch rule", p->pruned_batch, "replicas x micro-batch does not divide the global batch" },
		{ "Did not fit", p->pruned_memory, "the busiest stage, with the overhead, above the card's memory" },
		{ "Feasible, timed and ranked", p->feasible, "by the step-time model" },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		tb_rtab_str(&tb, rows[i].label);
		tb_rtab_num(&tb, TB_RF_GROUPED, (double)rows[i].n);
		tb_rtab_str(&tb, rows[i].why);
	}
}


/* The best, the runner-up and the scenario's layout, side by side. */
static int S_columns(const tb_plan_result *p, const tb_plan_layout *cols[3], const char *names[3])
{
	int n = 0;
	if (p->n_layouts > 0) {
		cols[n] = &p->layouts[0];
		names[n++] = "Best";
	}
	if (p->n_layouts > 1) {
		cols[n] = &p->layouts[1];
		names[n++] = "Runner-up";
	}
	if (S_scenario_explained(p)) {
		cols[n] = &p->scenario;
		names[n++] = "Yours";
	}
	return n;
}

static void S_table_breakdown(tb_report *r, tb_table *t)
{
	const tb_plan_result *p = S_plan(r);
	const tb_plan_layout *cols[3];
	const char *names[3] = { NULL, NULL, NULL };
	int n = p->known ? S_columns(p, cols, names) : 0;
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, NULL, "lrrr", "Per step (share)",
	             names[0] ? names[0] : "Best", names[1], names[2], NULL);
	for (int k = 0; n && k < TB_PERF_TERMS; k++) {
		bool show = false;
		for (int i = 0; i < n; i++)
			show = show || cols[i]->breakdown_s[k] >= 0.01 * cols[i]->step_s;
		if (!show)
			continue;
		tb_rtab_str(&tb, tb_rperf_term_label[k]);
		for (int i = 0; i < n; i++) {
			tb_buf *o = tb_rtab_begin(&tb);
			double v = cols[i]->breakdown_s[k];
			if (v >= 0.9995 || v == 0)
				tb_buf_printf(o, "%.3g s (", v);
			else
				tb_buf_printf(o, "%.3g ms (", 1e3 * v);
			tb_rfmt(o, TB_RF_PCT, cols[i]->step_s > 0 ? cols[i]->breakdown_s[k] / cols[i]->step_s : 0,
			        NULL);
			tb_buf_putc(o, ')');
			tb_rtab_end(&tb);
		}
	}
	if (n) {
		tb_rtab_str(&tb, "Step");
		for (int i = 0; i < n; i++)
			tb_rtab_fmt(&tb, "%.3g s", cols[i]->step_s);
	}
}

static void S_table_front(tb_report *r, tb_table *t)
{
	const tb_plan_result *p = S_plan(r);
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, NULL, "llrrr", "GPUs", "Layout", "MFU", "Time", "Cost", NULL);
	for (int i = 0; p->known && i < p->n_front; i++) {
		const tb_plan_layout *l = &p->front[i];
		tb_buf *o = tb_rtab_begin(&tb);
		tb_rfmt(o, TB_RF_GROUPED, (double)l->count, NULL);
		tb_buf_printf(o, " × %s", S_card(p, l));
		tb_rtab_end(&tb);
		char lay[256];
		tb_plan_layout_text(l, lay, sizeof lay);
		tb_rtab_str(&tb, lay);
		tb_rtab_num(&tb, TB_RF_PCT, l->mfu);
		tb_rtab_num(&tb, TB_RF_DAYS, l->seconds);
		tb_rtab_num(&tb, TB_RF_MONEY, l->cost);
	}
}

static void S_table_cards(tb_report *r, tb_table *t)
{
	const tb_plan_result *p = S_plan(r);
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, NULL, "llrllll", "Card", "Label", "Price per GPU-hour", "Price from",
	             "Matmul and attention efficiencies", "Best published MFU",
	             "Held-out record (median step error)", NULL);
	tb_precision prec = r->sc->inputs.training.precision;
	for (int i = 0; p->known && i < p->n_gpus; i++) {
		tb_rtab_str(&tb, p->gpus[i].gpu.name);
		tb_rtab_str(&tb, p->gpus[i].gpu.label);
		tb_rtab_num(&tb, TB_RF_MONEY, p->gpus[i].price_per_gpu_hour);
		tb_rtab_str(&tb, p->gpus[i].price_given ? "given" : "the scenario's (an assumption)");
		/* a card ranked on another card's fractions says so beside it,
		 * and one ranked on another fp8 recipe than the scenario's */
		const char *copied = tb_gpus_assumed(tb_gpus_node(p->gpus[i].gpu.name),
		                                     tb_precision_scaled(prec),
		                                     tb_perf_attention_kernel(&r->sc->inputs,
		                                                              p->gpus[i].gpu.name));
		bool fp4 = prec == TB_PREC_FP4_MIXED, has4 = p->gpus[i].gpu.peak_flops[TB_DTYPE_FP4] > 0;
		const char *basis;
		tb_gpus_fp4_ceiling(tb_gpus_node(p->gpus[i].gpu.name), &basis);
		tb_rtab_fmt(&tb, "%s%s%s%s%s", copied ? copied : "measured",
		            copied ? " assumed from another card (not measured)" : "",
		            p->gpus[i].fp8_recipe != r->sc->inputs.training.fp8_recipe
		            ? "; fp8 ranked with blockwise scaling (no MX block scaling)" : "",
		            !fp4 ? "" : has4 ? "; fp4 matmuls: " : "; no fp4 on the card: ranked as fp8-mixed",
		            fp4 && has4 ? basis : "");
		/* what the card's layouts are held against (ceiling.h) */
		const tb_ceiling *c = tb_ceiling_for(&p->gpus[i].gpu, prec);
		if (c)
			tb_rtab_fmt(&tb, "%.1f%%, %s", 100 * c->mfu, c->source);
		else
			tb_rtab_str(&tb, "none in docs/validation.md");
		/* how the model fared on the card's held-out runs (record.h) */
		const tb_record *rec = tb_record_for(&p->gpus[i].gpu, prec);
		if (rec)
			tb_rtab_fmt(&tb, "%+.1f%% over %d source%s, %d within %.0f%%%s", 100 * rec->median_err,
			            rec->sources, rec->sources == 1 ? "" : "s", rec->sources_within,
			            100 * TB_RECORD_BAR, tb_record_said(&r->sc->inputs, &p->gpus[i].gpu)
			            ? "; said with its predictions" : "");
		else
			tb_rtab_str(&tb, "no held-out run");
	}
}

/* ---- charts ------------------------------------------------------------ */

static void S_chart_breakdown(const tb_report *r, tb_chart_spec *s)
{
	const tb_plan_result *p = S_plan(r);
	tb_rchart_init(s, TB_CHART_STACKED_BARS, "plan-step", "Where a step goes, best layouts and yours",
	               "Layout", "Time per step", "s", 1);
	tb_rchart_step_series(s);
	const tb_plan_layout *cols[3];
	const char *names[3];
	int n = p->known ? S_columns(p, cols, names) : 0;
	s->ncats = (size_t)n;
	for (int i = 0; i < n; i++)
		tb_rchart_step_column(s, (size_t)i, names[i], cols[i]->breakdown_s);
}

/* Days on x, cost on y: the front from fastest to cheapest. */
static void S_chart_front(const tb_report *r, tb_chart_spec *s)
{
	const tb_plan_result *p = S_plan(r);
	char cur[16];
	snprintf(cur, sizeof cur, "%s", tb_rcurrency(r));
	tb_rchart_init(s, TB_CHART_LINES, "plan-front", "Days against cost, the best of each card and count",
	               "Days", "Cost", cur, 1);
	tb_rchart_series(s, "best of each card and count");
	size_t n = p->known ? (size_t)p->n_front : 0;
	if (n > TB_CHART_MAX_POINTS)
		n = TB_CHART_MAX_POINTS;
	s->ncats = n;
	for (size_t i = 0; i < n; i++) {
		s->xs[i] = p->front[i].seconds / 86400.0;
		s->series[0].values[i] = p->front[i].cost;
		if (i < TB_CHART_MAX_CATS)
			snprintf(s->cats[i], sizeof s->cats[i], "%lld", (long long)p->front[i].count);
	}
}

static const tb_rtable_def S_tables[] = {
	{ "plan.layouts", S_table_layouts },
	{ "plan.better", S_table_better },
	{ "plan.counts", S_table_counts },
	{ "plan.breakdown", S_table_breakdown },
	{ "plan.front", S_table_front },
	{ "plan.cards", S_table_cards },
};

static const tb_rchart_def S_charts[] = {
	{ "plan-step", S_chart_breakdown },
	{ "plan-front", S_chart_front },
};

const tb_rsection tb_rsection_plan = {
	S_tables, sizeof S_tables / sizeof S_tables[0],
	S_charts, sizeof S_charts / sizeof S_charts[0],
};

/* ---- placeholders and conditions --------------------------------------- */

static const char *const S_value_names[] = {
	"plan.searched", "plan.feasible", "plan.pruned_rules", "plan.pruned_batch",
	"plan.pruned_memory", "plan.scenario_rank", "plan.objective", "plan.gain",
	"plan.best.layout", "plan.best.step_s", "plan.best.mfu", "plan.best.seconds",
	"plan.best.cost", "plan.best.memory_per_gpu_bytes", "plan.scenario.layout",
	"plan.scenario.step_s", "plan.scenario.mfu", "plan.scenario.seconds",
	"plan.scenario.cost", "plan.scenario.memory_per_gpu_bytes",
	"plan.explain.runner_up", "plan.explain.scenario", "plan.better", "plan.caveat",
	"plan.why", "plan.scenario.answer",
};
#define S_NVALUES (sizeof S_value_names / sizeof *S_value_names)

const char *tb_rplan_value_name(size_t i)
{
	return i < S_NVALUES ? S_value_names[i] : NULL;
}

tb_tpl_status tb_rplan_value(const tb_report *r, const char *name, const char *filter,
                             tb_buf *out)
{
	size_t k = 0;
	while (k < S_NVALUES && strcmp(S_value_names[k], name) != 0)
		k++;
	if (k == S_NVALUES)
		return TB_TPL_UNKNOWN_NAME;
	const tb_plan_result *p = S_plan(r);
	const tb_plan_layout *best = &p->layouts[0], *own = &p->scenario;
	bool have = S_have(r);
	double num = 0;
	tb_rfilter deflt = TB_RF_GROUPED;
	const char *txt = NULL;
	bool is_num = true, known = p->known;
	double gain = 0;
	char answer[600];
	switch (k) {
	case 0: num = (double)p->searched; break;
	/* the counts, unknown from a search that skipped them (plan.h) */
	case 1: num = (double)p->feasible; known = known && p->counted; break;
	case 2: num = (double)p->pruned_rules; known = known && p->counted; break;
	case 3: num = (double)p->pruned_batch; known = known && p->counted; break;
	case 4: num = (double)p->pruned_memory; known = known && p->counted; break;
	case 5: num = (double)p->scenario_rank; known = known && p->scenario_rank > 0; break;
	case 6: is_num = false; txt = p->objective == TB_PLAN_BY_COST ? "cost" : "time"; break;
	case 7: tb_plan_better(p, &gain); num = gain; deflt = TB_RF_PCT;
		known = have && p->scenario_known && p->scenario_fits; break;
	case 8: is_num = false; txt = r->plan_text[S_TXT_BEST]; break;
	case 9: num = best->step_s; deflt = TB_RF_PLAIN; known = have; break;
	case 10: num = best->mfu; deflt = TB_RF_PCT; known = have; break;
	case 11: num = best->seconds; deflt = TB_RF_DAYS; known = have; break;
	case 12: num = best->cost; deflt = TB_RF_MONEY; known = have; break;
	case 13: num = best->memory_per_gpu_bytes; deflt = TB_RF_BYTES; known = have; break;
	case 14: is_num = false; txt = r->plan_text[S_TXT_OWN]; break;
	case 15: num = own->step_s; deflt = TB_RF_PLAIN; known = known && p->scenario_known; break;
	case 16: num = own->mfu; deflt = TB_RF_PCT; known = known && p->scenario_known; break;
	case 17: num = own->seconds; deflt = TB_RF_DAYS; known = known && p->scenario_known; break;
	case 18: num = own->cost; deflt = TB_RF_MONEY; known = known && p->scenario_known; break;
	case 19: num = own->memory_per_gpu_bytes; deflt = TB_RF_BYTES; break;
	case 20: is_num = false; txt = r->plan_text[S_TXT_RUNNER_UP]; break;
	case 21: is_num = false; txt = r->plan_text[S_TXT_SCENARIO]; break;
	case 22: is_num = false; txt = r->plan_text[S_TXT_BETTER]; break;
	case 23: is_num = false; txt = r->plan_text[S_TXT_CAVEAT]; break;
	case 25:
		/* how the layout ranked as the scenario's own was decided: the
		 * line estimate and the report's verdict print (answer.h) */
		is_num = false;
		tb_answer_text(&r->b->answer, answer, sizeof answer);
		txt = answer;
		break;
	default: is_num = false; txt = p->known ? NULL : p->why; break;
	}
	tb_rfilter f = deflt;
	if (filter && !tb_rfilter_find(filter, &f))
		return TB_TPL_UNKNOWN_FILTER;
	if (!is_num) {
		if (filter && strcmp(filter, "plain") != 0)
			return TB_TPL_BAD_FILTER;
		tb_buf_puts(out, txt && *txt ? txt : "n/a");
		return TB_TPL_OK;
	}
	if (!known) {
		tb_buf_puts(out, "n/a");
		return TB_TPL_OK;
	}
	tb_rfmt(out, f, num, tb_rcurrency(r));
	return TB_TPL_OK;
}

static const char *const S_cond_names[] = {
	"plan", "better_layout", "plan_front", "plan_scenario_fits", "plan_runner_up",
	"plan_caveat",
};
#define S_NCOND (sizeof S_cond_names / sizeof *S_cond_names)

const char *tb_rplan_condition_name(size_t i)
{
	return i < S_NCOND ? S_cond_names[i] : NULL;
}

tb_tpl_status tb_rplan_condition(const tb_report *r, const char *name, int *truth)
{
	size_t k = 0;
	while (k < S_NCOND && strcmp(S_cond_names[k], name) != 0)
		k++;
	const tb_plan_result *p = S_plan(r);
	double gain;
	switch (k) {
	case 0: *truth = S_have(r); break;
	case 1: *truth = tb_plan_better(p, &gain); break;
	case 2: *truth = p->known && p->hardware_searched && p->n_front > 1; break;
	case 3: *truth = p->known && p->scenario_fits; break;
	case 4: *truth = p->known && p->n_layouts > 1; break;
	case 5: *truth = r->plan_text[S_TXT_CAVEAT] != NULL; break;
	default: return TB_TPL_UNKNOWN_NAME;
	}
	return TB_TPL_OK;
}
