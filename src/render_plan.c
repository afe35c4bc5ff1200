/* render_plan.c: what `trainbudget plan` prints, and estimate's one line
 * about a better layout.
 *
 * The best layouts as a table (days, cost, MFU, memory per GPU and
 * headroom), the scenario's own layout with its rank, where the step goes
 * for the best, the runner-up and the scenario's layout, why the winner
 * wins (tb_plan_explain), and, when the hardware is searched, the days
 * against cost front.  Chooses and lays out the budget's figures; never
 * computes one. */
#include "trainbudget/render.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/answer.h"
#include "trainbudget/ceiling.h"
#include "trainbudget/fmt.h"
#include "trainbudget/gpus.h"
#include "trainbudget/record.h"
#include "trainbudget/xalloc.h"

#define S_COLS 18
#define S_ROWS (TB_PLAN_TOP_MAX + 4)

/* A text table: cells formatted, then padded to their column's width. */
typedef struct S_tab {
	int ncols, nrows;
	bool right[S_COLS];
	char *cell[S_ROWS][S_COLS];
} S_tab;

static void S_tab_put(S_tab *t, int row, int col, tb_buf *b)
{
	if (row < S_ROWS && col < S_COLS)
		t->cell[row][col] = tb_buf_detach(b, NULL);
	else
		tb_buf_release(b);
}

static void S_tab_print(S_tab *t, tb_buf *o)
{
	size_t w[S_COLS] = { 0 };
	for (int r = 0; r < t->nrows; r++)
		for (int c = 0; c < t->ncols; c++)
			if (t->cell[r][c] && tb_fmt_width(t->cell[r][c]) > w[c])
				w[c] = tb_fmt_width(t->cell[r][c]);
	for (int r = 0; r < t->nrows; r++) {
		tb_buf_puts(o, " ");
		for (int c = 0; c < t->ncols; c++) {
			const char *s = t->cell[r][c] ? t->cell[r][c] : "";
			size_t sw = tb_fmt_width(s);
			tb_buf_putc(o, ' ');
			if (t->right[c])
				for (size_t k = sw; k < w[c]; k++)
					tb_buf_putc(o, ' ');
			tb_buf_puts(o, s);
			if (!t->right[c] && c + 1 < t->ncols)
				for (size_t k = sw; k < w[c]; k++)
					tb_buf_putc(o, ' ');
		}
		/* no trailing blanks */
		while (o->len && o->ptr[o->len - 1] == ' ')
			tb_buf_truncate(o, o->len - 1);
		tb_buf_putc(o, '\n');
	}
	for (int r = 0; r < S_ROWS; r++)
		for (int c = 0; c < S_COLS; c++)
			free(t->cell[r][c]);
}

static const char *S_card(const tb_plan_result *r, const tb_plan_layout *l)
{
	return l->gpu >= 0 && l->gpu < r->n_gpus ? r->gpus[l->gpu].gpu.name
	       : r->scenario_gpu.gpu.name;
}

static const char *S_currency(const tb_budget *b)
{
	return b->time.currency[0] ? b->time.currency : "USD";
}

/* One layout's row of the table. */
static void S_row(S_tab *t, int row, const char *label, const tb_plan_result *r,
                  const tb_plan_layout *l, const tb_budget *b, bool timed)
{
	tb_buf c;
	tb_buf_init(&c);
	int k = 0;
	tb_buf_puts(&c, label);
	S_tab_put(t, row, k++, &c);
	tb_fmt_grouped(&c, (double)l->count);
	tb_buf_printf(&c, " %s", S_card(r, l));
	S_tab_put(t, row, k++, &c);
	const int64_t sizes[6] = { l->tensor, l->pipeline, l->virtual_pipeline, l->context,
	                           l->expert, l->data };
	for (int i = 0; i < 6; i++) {
		tb_fmt_grouped(&c, (double)sizes[i]);
		S_tab_put(t, row, k++, &c);
	}
	tb_buf_printf(&c, "%d", l->zero);
	S_tab_put(t, row, k++, &c);
	tb_buf_puts(&c, l->checkpointing == TB_CKPT_FULL ? "full"
	                : l->checkpointing == TB_CKPT_SELECTIVE ? "selective" : "none");
	S_tab_put(t, row, k++, &c);
	tb_buf_puts(&c, l->sequence_parallel ? "yes" : "-");
	S_tab_put(t, row, k++, &c);
	tb_fmt_grouped(&c, (double)l->micro_batch);
	S_tab_put(t, row, k++, &c);
	if (timed) {
		tb_fmt_sig(&c, l->step_s, 3);
		tb_buf_puts(&c, " s");
		S_tab_put(t, row, k++, &c);
		tb_fmt_pct(&c, l->mfu);
		S_tab_put(t, row, k++, &c);
	} else {
		for (int i = 0; i < 2; i++) {
			tb_buf_puts(&c, "n/a");
			S_tab_put(t, row, k++, &c);
		}
	}
	tb_fmt_bytes(&c, l->memory_per_gpu_bytes);
	S_tab_put(t, row, k++, &c);
	double head = l->capacity_bytes - l->memory_per_gpu_bytes;
	if (head >= 0)
		tb_fmt_bytes(&c, head);
	else {
		tb_buf_puts(&c, "-");
		tb_fmt_bytes(&c, -head);
	}
	S_tab_put(t, row, k++, &c);
	if (timed && l->seconds > 0) {
		tb_fmt_days(&c, l->seconds);
		S_tab_put(t, row, k++, &c);
		tb_fmt_money(&c, l->cost, S_currency(b));
		S_tab_put(t, row, k++, &c);
	} else {
		for (int i = 0; i < 2; i++) {
			tb_buf_puts(&c, "n/a");
			S_tab_put(t, row, k++, &c);
		}
	}
	tb_buf_release(&c);
}

static void S_header(S_tab *t)
{
	static const char *const h[S_COLS] = {
		"#", "GPUs", "TP", "PP", "V", "CP", "EP", "DP", "ZeRO", "recompute", "SP", "mb",
		"step", "MFU", "memory/GPU", "headroom", "time", "cost",
	};
	t->ncols = S_COLS;
	for (int c = 0; c < S_COLS; c++) {
		t->cell[0][c] = tb_xstrdup(h[c]);
		t->right[c] = c != 1 && c != 9 && c != 10;
	}
	t->right[0] = true;
}

/* Where the step goes: the terms that take 1% of any of the steps shown. */
static void S_breakdown(tb_buf *o, const tb_plan_layout *const *l, const char *const *names,
                        int n)
{
	S_tab t;
	memset(&t, 0, sizeof t);
	t.ncols = n + 1;
	t.cell[0][0] = tb_xstrdup("per step");
	for (int i = 0; i < n; i++) {
		t.cell[0][i + 1] = tb_xstrdup(names[i]);
		t.right[i + 1] = true;
	}
	int row = 1;
	tb_buf c;
	tb_buf_init(&c);
	for (int k = 0; k < TB_PERF_TERMS; k++) {
		bool show = false;
		for (int i = 0; i < n; i++)
			show = show || (l[i]->step_s > 0 && l[i]->breakdown_s[k] >= 0.01 * l[i]->step_s);
		if (!show)
			continue;
		tb_buf_puts(&c, tb_perf_term_label(k));
		S_tab_put(&t, row, 0, &c);
		for (int i = 0; i < n; i++) {
			double v = l[i]->breakdown_s[k];
			if (v >= 0.9995 || v == 0) {
				tb_fmt_sig(&c, v, 3);
				tb_buf_puts(&c, " s (");
			} else {
				tb_fmt_sig(&c, 1e3 * v, 3);
				tb_buf_puts(&c, " ms (");
			}
			tb_fmt_pct(&c, l[i]->step_s > 0 ? l[i]->breakdown_s[k] / l[i]->step_s : 0);
			tb_buf_putc(&c, ')');
			S_tab_put(&t, row, i + 1, &c);
		}
		row++;
	}
	tb_buf_puts(&c, "step");
	S_tab_put(&t, row, 0, &c);
	for (int i = 0; i < n; i++) {
		tb_fmt_sig(&c, l[i]->step_s, 3);
		tb_buf_puts(&c, " s");
		S_tab_put(&t, row, i + 1, &c);
	}
	t.nrows = row + 1;
	tb_buf_release(&c);
	S_tab_print(&t, o);
}

/* A sentence on its own lines, wrapped at 78 columns, indented. */
static void S_para(tb_buf *o, const char *s, size_t indent)
{
	tb_fmt_wrap(o, s, indent, 0);
}

static void S_title(tb_buf *o, const tb_scenario *sc)
{
	tb_buf one;
	tb_buf_init(&one);
	for (const char *p = sc && sc->title ? sc->title : "trainbudget plan"; *p; p++)
		tb_buf_putc(&one, (unsigned char)*p < 0x20 || *p == 0x7f ? ' ' : *p);
	tb_diags_escape(o, one.ptr, one.len, NULL);
	tb_buf_release(&one);
	tb_buf_putc(o, '\n');
}

/* The blank line before the first of the notes under the table. */
static void S_notes_open(tb_buf *o, bool *said)
{
	if (!*said)
		tb_buf_putc(o, '\n');
	*said = true;
}

char *tb_render_plan_text(const tb_scenario *sc, const tb_budget *b)
{
	const tb_plan_result *r = &b->plan;
	tb_buf o, c;
	tb_buf_init(&o);
	tb_buf_init(&c);
	S_title(&o, sc);
	tb_buf_putc(&o, '\n');
	if (!r->known) {
		tb_buf_printf(&o, "No layout search: %s.\n", r->why && *r->why ? r->why : "not run");
		tb_buf_release(&c);
		return tb_buf_detach(&o, NULL);
	}
	bool cost = r->objective == TB_PLAN_BY_COST;
	tb_buf line;
	tb_buf_init(&line);
	tb_fmt_grouped(&c, (double)r->searched);
	tb_buf_printf(&line, "Searched %s candidate layouts (docs/plan.md): ", c.ptr);
	tb_buf_truncate(&c, 0);
	tb_fmt_grouped(&c, (double)r->pruned_rules);
	tb_buf_printf(&line, "%s broke a framework rule, ", c.ptr);
	tb_buf_truncate(&c, 0);
	tb_fmt_grouped(&c, (double)r->pruned_batch);
	tb_buf_printf(&line, "%s the batch rule, ", c.ptr);
	tb_buf_truncate(&c, 0);
	tb_fmt_grouped(&c, (double)r->pruned_memory);
	tb_buf_printf(&line, "%s did not fit; ", c.ptr);
	tb_buf_truncate(&c, 0);
	tb_fmt_grouped(&c, (double)r->feasible);
	tb_buf_printf(&line, "%s feasible, timed and ranked by %s.", c.ptr, cost ? "cost" : "time");
	tb_buf_truncate(&c, 0);
	/* --calibrate: every step below is on the pilots' efficiencies, for
	 * their card only */
	const tb_calib *cal = sc ? &sc->inputs.calib : NULL;
	if (cal && cal->known) {
		tb_buf_printf(&line, " Step times on %s use the efficiencies %d pilot run%s measured "
		                     "(--calibrate): compute x%.2f, NVLink x%.2f, network x%.2f.",
		              cal->card, cal->npilots, cal->npilots == 1 ? "" : "s",
		              cal->factor[TB_CALIB_COMPUTE], cal->factor[TB_CALIB_NVLINK],
		              cal->factor[TB_CALIB_NETWORK]);
	}
	S_para(&o, line.ptr, 0);
	tb_buf_putc(&o, '\n');
	tb_buf_release(&line);

	if (r->n_layouts == 0) {
		tb_buf_puts(&o, "No layout fits in memory and passes the rules: more GPUs, a card with "
		                "more memory, or a smaller micro-batch or sequence would.\n");
	} else {
		S_tab t;
		memset(&t, 0, sizeof t);
		S_header(&t);
		int row = 1;
		tb_buf also;
		tb_buf_init(&also);
		for (int i = 0; i < r->n_layouts;) {
			/* layouts of the same cost: one row, the others named below */
			char lab[32];
			int k = tb_plan_same_cost_run(r, i, r->n_layouts, lab, sizeof lab);
			S_row(&t, row++, lab, r, &r->layouts[i], b, true);
			for (int v = i + 1; v < k; v++) {
				char lay[256];
				tb_plan_layout_text(&r->layouts[v], lay, sizeof lay);
				char same[400];
				snprintf(same, sizeof same, "%s also as %s: the same step and memory.", lab, lay);
				S_para(&also, same, 2);
			}
			i = k;
		}
		S_row(&t, row++, "yours", r, &r->scenario, b, r->scenario_known);
		t.nrows = row;
		S_tab_print(&t, &o);
		tb_buf_put(&o, also.ptr, also.len);
		tb_buf_release(&also);
	}
	tb_buf_putc(&o, '\n');

	/* the scenario's layout in a sentence */
	char lay[256];
	tb_plan_layout_text(&r->scenario, lay, sizeof lay);
	tb_buf yours;
	tb_buf_init(&yours);
	/* the keys the scenario leaves out are the answer's choice: "yours"
	 * is the layout estimate and report price (main.c) */
	const tb_answer *ans = &b->answer;
	if (ans->decided && ans->runs && ans->source == TB_LAYOUT_REPLACED) {
		char wl[256];
		tb_plan_layout_text(&ans->written, wl, sizeof wl);
		tb_buf_printf(&yours, "Your layout (%s) cannot run (%s%s%s); estimate and report "
		                      "price the fastest that runs (%s), which ", wl,
		              ans->written_why_not, ans->hints[0] ? "; " : "", ans->hints, lay);
	} else if (ans->decided && ans->runs && ans->source == TB_LAYOUT_CHOSEN) {
		tb_buf_printf(&yours, "The scenario writes no layout; estimate and report price the "
		                      "search's choice on its card (%s), which ", lay);
	} else if (ans->decided && ans->runs && ans->source == TB_LAYOUT_COMPLETED) {
		char keys[160];
		tb_answer_chosen_keys(ans, keys, sizeof keys);
		tb_buf_printf(&yours, "Your layout (%s; %s chosen by the search, as estimate prices it) ",
		              lay, keys);
	} else {
		tb_buf_printf(&yours, "Your layout (%s) ", lay);
	}
	double gain = 0;
	bool better = tb_plan_better(r, &gain);
	if (!r->scenario_known)
		tb_buf_puts(&yours, "cannot be timed by the step-time model.");
	else if (!r->scenario_fits) {
		tb_fmt_bytes(&c, r->scenario.memory_per_gpu_bytes);
		tb_buf_printf(&yours, "does not fit: it needs %s per GPU of ", c.ptr);
		tb_buf_truncate(&c, 0);
		tb_fmt_bytes(&c, r->scenario.capacity_bytes);
		tb_buf_printf(&yours, "%s.", c.ptr);
	} else {
		tb_fmt_grouped(&c, (double)r->scenario_rank);
		tb_buf_printf(&yours, "ranks %s of ", c.ptr);
		tb_buf_truncate(&c, 0);
		tb_fmt_grouped(&c, (double)r->feasible);
		tb_buf_printf(&yours, "%s", c.ptr);
		if (r->n_layouts > 0 && gain > 0.0005) {
			tb_buf_truncate(&c, 0);
			tb_fmt_pct(&c, gain);
			tb_buf_printf(&yours, "; the best is %s %s", c.ptr, cost ? "cheaper" : "faster");
		}
		tb_buf_puts(&yours, better ? "." : ", within 5% of the best.");
	}
	S_para(&o, yours.ptr, 0);
	tb_buf_release(&yours);
	tb_buf_truncate(&c, 0);

	if (r->n_layouts > 0) {
		const tb_plan_layout *cols[3];
		const char *names[3];
		int n = 0;
		cols[n] = &r->layouts[0];
		names[n++] = "best";
		if (r->n_layouts > 1) {
			cols[n] = &r->layouts[1];
			names[n++] = "runner-up";
		}
		if (r->scenario_known && !tb_plan_same_layout(&r->scenario, &r->layouts[0])) {
			cols[n] = &r->scenario;
			names[n++] = "yours";
		}
		tb_buf_puts(&o, "\nWhere the step goes\n");
		S_breakdown(&o, cols, names, n);
		tb_buf_puts(&o, "\nWhy\n");
		char why[2048];
		if (tb_plan_explain_runner_up(r, why, sizeof why))
			S_para(&o, why, 2);
		if (tb_plan_explain_scenario(r, why, sizeof why))
			S_para(&o, why, 2);
		if (tb_plan_caveat(r))
			S_para(&o, tb_plan_caveat(r), 2);
	}

	if (r->hardware_searched && r->n_front > 0) {
		tb_buf_puts(&o, "\nDays against cost: the fastest layout of each card and count that "
		                "no other beats on both\n");
		S_tab t;
		memset(&t, 0, sizeof t);
		t.ncols = 4;
		t.right[0] = true;
		t.right[2] = t.right[3] = true;
		static const char *const h[4] = { "GPUs", "layout", "time", "cost" };
		for (int k = 0; k < 4; k++)
			t.cell[0][k] = tb_xstrdup(h[k]);
		t.right[0] = false;
		int row = 1;
		for (int i = 0; i < r->n_front && row < S_ROWS; i++) {
			const tb_plan_layout *l = &r->front[i];
			tb_fmt_grouped(&c, (double)l->count);
			tb_buf_printf(&c, " %s", S_card(r, l));
			S_tab_put(&t, row, 0, &c);
			tb_plan_layout_text(l, lay, sizeof lay);
			tb_buf_puts(&c, lay);
			S_tab_put(&t, row, 1, &c);
			tb_fmt_days(&c, l->seconds);
			S_tab_put(&t, row, 2, &c);
			tb_fmt_money(&c, l->cost, S_currency(b));
			S_tab_put(&t, row, 3, &c);
			row++;
		}
		t.nrows = row;
		S_tab_print(&t, &o);
	}
	bool said = false;
	const tb_plan_layout *top = r->n_layouts > 0 ? &r->layouts[0] : NULL;
	/* the plan's MFUs are on the budget's count, the same model's */
	double scale = b->perf.known ? b->perf.mfu_causal_scale : 1;
	const tb_ceiling *best = top ? tb_ceiling_above(&r->gpus[top->gpu].gpu,
	                                                sc->inputs.training.precision,
	                                                top->mfu * scale) : NULL;
	if (best) {
		tb_buf_truncate(&c, 0);
		tb_buf_printf(&c, "The best layout's predicted MFU, %.1f%% (%.1f%% on causal attention), "
		                  "is above the best published on %s in %s: %.1f%%, %s "
		                  "(docs/validation.md). Nothing public backs a faster run: read its "
		                  "time and cost as a bound.",
		              100 * top->mfu, 100 * top->mfu * scale, best->card,
		              tb_ceiling_format(best), 100 * best->mfu, best->source);
		tb_buf_putc(&o, '\n');
		S_para(&o, c.ptr, 0);
		tb_buf_truncate(&c, 0);
		said = true;
	}
	/* the best layout's card's record, where beyond the bar (record.h) */
	const tb_record *rec = top ? tb_record_said(&sc->inputs, &r->gpus[top->gpu].gpu) : NULL;
	if (rec) {
		tb_buf_truncate(&c, 0);
		tb_buf_puts(&c, "Held-out record of the best layout's card: ");
		tb_record_say(rec, &c);
		tb_buf_putc(&c, '.');
		tb_buf_putc(&o, '\n');
		S_para(&o, c.ptr, 0);
		tb_buf_truncate(&c, 0);
		said = true;
	}
	/* the scenario's own stages, unloaded of the head: the budget's
	 * figure (perf.balanced_layout), since the search compares even
	 * splits only */
	if (b->perf.known && b->perf.balanced_layout[0] && r->scenario_known) {
		/* the figures as estimate's split line writes them (tb_fmt_sig) */
		tb_buf now, was;
		tb_buf_init(&now);
		tb_buf_init(&was);
		tb_fmt_sig(&now, b->perf.balanced.step_s, 3);
		tb_fmt_sig(&was, b->perf.r.step_s, 3);
		tb_buf_truncate(&c, 0);
		tb_buf_printf(&c, "Your layout's last pipeline stage holds the output head and is its "
		                  "slowest: with %lld layer%s on the last rank (parallelism.pipeline_layout "
		                  "\"%s\") it takes %s s a step instead of %s s. The search ranks even "
		                  "splits only.",
		              (long long)b->perf.balanced.stage_layers[2],
		              b->perf.balanced.stage_layers[2] == 1 ? "" : "s", b->perf.balanced_layout,
		              now.ptr, was.ptr);
		tb_buf_release(&now);
		tb_buf_release(&was);
		tb_buf_putc(&o, '\n');
		S_para(&o, c.ptr, 0);
		tb_buf_truncate(&c, 0);
		said = true;
	}
	bool fp8 = tb_precision_scaled(sc->inputs.training.precision);
	for (int i = 0; i < r->n_gpus; i++) {
		const char *copied = tb_gpus_assumed(tb_gpus_node(r->gpus[i].gpu.name), fp8,
		                                     tb_perf_attention_kernel(&sc->inputs, r->gpus[i].gpu.name));
		if (!copied)
			continue;
		S_notes_open(&o, &said);
		tb_buf_printf(&o, "%s is ranked on %s assumed from another card, not measured on "
		                  "it (gpus.c): its rows are less certain than a measured card's.\n",
		              r->gpus[i].gpu.name, copied);
	}
	for (int i = 0; sc->inputs.training.precision == TB_PREC_FP4_MIXED && i < r->n_gpus; i++) {
		const tb_gpu *g = &r->gpus[i].gpu;
		S_notes_open(&o, &said);
		const char *basis;
		double c4 = tb_gpus_fp4_ceiling(tb_gpus_node(g->name), &basis);
		if (g->peak_flops[TB_DTYPE_FP4] > 0)
			tb_buf_printf(&o, "%s's fp4 matmuls are ranked at %.0f%% of its fp4 peak (%s).\n",
			              g->name, 100 * c4, basis);
		else
			tb_buf_printf(&o, "%s has no fp4: it is ranked with its linear layers in %s, as "
			                  "fp8-mixed runs.\n", g->name,
			              tb_matmul_dtype(TB_PREC_FP4_MIXED, g) == TB_DTYPE_FP8 ? "fp8"
			              : "16 bits");
	}
	tb_fp8_recipe written = sc->inputs.training.fp8_recipe;
	for (int i = 0; i < r->n_gpus; i++) {
		if (r->gpus[i].fp8_recipe == written)
			continue;
		S_notes_open(&o, &said);
		tb_buf_printf(&o, "%s has no MX block scaling: it is ranked with training.fp8_recipe "
		                  "blockwise (1x128 and 128x128 blocks), the nearest recipe it runs.\n",
		              r->gpus[i].gpu.name);
	}
	/* the SMs the overlapped GEMMs give up, where a card's count is unknown */
	bool held = tb_overlap_tp_holds_sms(&sc->inputs.parallelism);
	for (int i = 0; held && i < r->n_gpus; i++) {
		if (tb_gpu_sms(&r->gpus[i].gpu) > 0)
			continue;
		S_notes_open(&o, &said);
		tb_buf_printf(&o, "%s has no known SM count: the SMs the overlapped GEMMs give up "
		                  "(parallelism.overlap_tp_sms) are not priced on it.\n",
		              r->gpus[i].gpu.name);
	}
	for (int i = 0; i < r->n_gpus; i++) {
		if (r->gpus[i].price_given)
			continue;
		S_notes_open(&o, &said);
		tb_fmt_money(&c, r->gpus[i].price_per_gpu_hour, S_currency(b));
		tb_buf_printf(&o, "%s is priced at the scenario's %s per GPU-hour (--gpu %s=PRICE "
		                  "gives its own).\n", r->gpus[i].gpu.name, c.ptr, r->gpus[i].gpu.name);
		tb_buf_truncate(&c, 0);
	}
	tb_buf_release(&c);
	return tb_buf_detach(&o, NULL);
}
