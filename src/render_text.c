/* render_text.c: what `trainbudget estimate` prints.
 *
 * A summary a person reads in 20 seconds: the verdict first (fits in
 * memory? meets the deadline? what it costs), then the three budgets
 * (compute, memory per GPU against capacity, time and money across the MFU
 * range), Chinchilla in two lines, and the warnings.  Always under 40
 * lines.  Figures come from the budget and are formatted by fmt.h: this
 * file chooses and lays out, it never computes a figure. */
#include "trainbudget/render.h"

#include <math.h>
#include <string.h>

#include "trainbudget/fmt.h"

#define S_LINES_MAX 39
#define S_COL 15

typedef struct S_text {
	tb_buf out;
	tb_buf cell;    /* scratch for one formatted figure */
	int lines;
} S_text;

static void S_pad(tb_buf *b, const char *s, size_t width, bool right)
{
	size_t w = tb_fmt_width(s);
	if (right && w >= width && width > 0)
		tb_buf_putc(b, ' ');    /* a figure wider than its column still stands apart */
	if (right)
		for (; w < width; w++)
			tb_buf_putc(b, ' ');
	tb_buf_puts(b, s);
	if (!right)
		for (; w < width; w++)
			tb_buf_putc(b, ' ');
}

static void S_nl(S_text *t)
{
	tb_buf_putc(&t->out, '\n');
	t->lines++;
}

/* The scratch cell, emptied: format one figure into it. */
static tb_buf *S_c(S_text *t)
{
	tb_buf_truncate(&t->cell, 0);
	return &t->cell;
}

static void S_put_cell(S_text *t, size_t width, bool right)
{
	S_pad(&t->out, t->cell.ptr, width, right);
}

static const char *S_zero_name(int z)
{
	static const char *const names[] = { "no ZeRO", "ZeRO-1", "ZeRO-2", "ZeRO-3" };
	return z >= 0 && z <= 3 ? names[z] : "ZeRO";
}

/* "2,368 GPUs would on compute; 4,096 with global batch 2,048 (or global
 * batch 2,368 on 2,368)": the count by compute, then the one the
 * scenario's global batch runs on, when they differ. */
static void S_deadline_gpus(S_text *t, const tb_time *tm, const tb_inputs *in,
                            const char *lead, const char *verb)
{
	tb_buf *o = &t->out;
	tb_fmt_grouped(S_c(t), tm->gpus_for_deadline_compute);
	tb_buf_printf(o, "%s%s GPUs%s", lead, t->cell.ptr, verb);
	if (tm->gpus_for_deadline == tm->gpus_for_deadline_compute)
		return;
	tb_fmt_grouped(S_c(t), tm->gpus_for_deadline);
	tb_buf_printf(o, "; %s with global batch ", t->cell.ptr);
	tb_fmt_grouped(S_c(t), (double)in->training.global_batch);
	tb_buf_puts(o, t->cell.ptr);
	if (tm->global_batch_for_compute > 0) {
		tb_fmt_grouped(S_c(t), tm->global_batch_for_compute);
		tb_buf_printf(o, " (or global batch %s on ", t->cell.ptr);
		tb_fmt_grouped(S_c(t), tm->gpus_for_deadline_compute);
		tb_buf_printf(o, "%s)", t->cell.ptr);
	}
}

/* The largest finite of three amounts: the style of a line of money. */
static double S_max3(const double v[3])
{
	double m = 0;
	for (int i = 0; i < 3; i++)
		if (isfinite(v[i]) && fabs(v[i]) > m)
			m = fabs(v[i]);
	return m;
}

/* What the bill holds beyond the compute, at the most likely MFU with
 * losses (bill.h). */
static void S_bill_line(S_text *t, const tb_budget *b, double ref)
{
	tb_buf *o = &t->out;
	tb_bill bill = tb_budget_bill(b);
	const tb_bill *bl = &bill;
	const char *cur = b->time.currency;
	tb_buf_puts(o, "                 billed: compute ");
	tb_fmt_money_ref(S_c(t), bl->compute - bl->ablations, cur, ref);
	tb_buf_puts(o, t->cell.ptr);
	if (bl->ablations > 0) {
		tb_fmt_money_ref(S_c(t), bl->ablations, cur, ref);
		tb_buf_printf(o, " + ablations %s", t->cell.ptr);
	}
	if (bl->reservation > 0) {
		tb_fmt_days(S_c(t), bl->booked_s);
		tb_buf_printf(o, "; %s booked ", t->cell.ptr);
		tb_fmt_money_ref(S_c(t), bl->reservation, cur, ref);
		tb_buf_printf(o, "%s, of it idle ", t->cell.ptr);
		tb_fmt_money_ref(S_c(t), bl->idle, cur, ref);
		tb_buf_puts(o, t->cell.ptr);
	}
	if (bl->storage > 0) {
		tb_fmt_money_ref(S_c(t), bl->storage, cur, ref);
		tb_buf_printf(o, "; storage %s", t->cell.ptr);
	}
}

/* What the expected time rests on: the MFU, or the stages. */
static void S_basis(S_text *t, const tb_budget *b)
{
	char basis[96];
	tb_budget_expected_basis(b, basis, sizeof basis);
	tb_buf_puts(&t->out, basis);
}

/* A run in stages, one line each: what each trains and what it costs
 * alone, then the whole run. */
static void S_stages(S_text *t, const tb_budget *b)
{
	tb_buf *o = &t->out;
	tb_buf_printf(o, "Stages (%d; each priced as the scenario alone would be)", b->n_stages);
	S_nl(t);
	for (int i = 0; i < b->n_stages; i++) {
		const tb_stage_row *r = &b->stages[i];
		tb_buf_printf(o, "  %d. %s: ", i + 1, r->name);
		tb_fmt_count(S_c(t), r->tokens);
		tb_buf_printf(o, "%s tokens of ", t->cell.ptr);
		tb_fmt_grouped(S_c(t), (double)r->seq_len);
		tb_buf_printf(o, "%s, batch ", t->cell.ptr);
		tb_fmt_grouped(S_c(t), (double)r->global_batch);
		tb_buf_puts(o, t->cell.ptr);
		if (r->method != TB_METHOD_FULL)
			tb_buf_printf(o, ", %s", tb_method_name(r->method));
		if (r->runs && r->layout.tensor > 0)
			tb_buf_printf(o, "; TP %lld PP %lld CP %lld DP %lld; ", (long long)r->layout.tensor,
			              (long long)r->layout.pipeline, (long long)r->layout.context,
			              (long long)r->layout.data);
		else
			tb_buf_puts(o, "; no layout fits; ");
		if (!r->runs || !r->known) {
			tb_buf_puts(o, r->runs ? "time unknown" : "cannot run");
		} else {
			tb_fmt_days(S_c(t), r->days * 86400);
			tb_buf_printf(o, "%s, ", t->cell.ptr);
			tb_fmt_count(S_c(t), r->gpu_hours);
			tb_buf_printf(o, "%s GPU-hours, ", t->cell.ptr);
			tb_fmt_money(S_c(t), r->cost, b->time.currency);
			tb_buf_printf(o, "%s expected", t->cell.ptr);
			/* the stage's middle MFU: its figures are its runs' mean over
			 * its band (tb_budget_expected_basis), not the run at it */
			tb_fmt_pct(S_c(t), r->mfu);
			tb_buf_printf(o, "; MFU %s", t->cell.ptr);
		}
		S_nl(t);
	}
	const tb_expected *x = &b->staged_total;
	if (x->known) {
		tb_buf_puts(o, "  total: ");
		tb_fmt_days(S_c(t), x->seconds);
		tb_buf_printf(o, "%s, ", t->cell.ptr);
		tb_fmt_count(S_c(t), x->gpu_hours);
		tb_buf_printf(o, "%s GPU-hours, ", t->cell.ptr);
		tb_fmt_money(S_c(t), x->cost, b->time.currency);
		tb_buf_puts(o, t->cell.ptr);
		S_nl(t);
	}
}

static void S_verdict(S_text *t, const tb_scenario *sc, const tb_inputs *in,
                      const tb_budget *b)
{
	const tb_memory *m = &b->memory;
	const tb_time *tm = &b->time;
	tb_buf *o = &t->out;

	tb_buf_puts(o, "Fits in memory?  ");
	if (b->n_stages > 0) {
		/* every stage's own check; the largest named */
		const tb_stage_row *big = &b->stages[b->stage_memory_max];
		bool all = true, known = true;
		for (int i = 0; i < b->n_stages; i++) {
			all = all && b->stages[i].fits;
			known = known && b->stages[i].fits_known;
		}
		tb_buf_puts(o, !known ? "UNKNOWN: " : all ? "YES: every stage; " : "NO: not every stage; ");
		tb_fmt_bytes(S_c(t), big->memory_per_gpu_bytes);
		tb_buf_printf(o, "the most, stage '%s', %s per GPU of ", big->name, t->cell.ptr);
		tb_fmt_bytes(S_c(t), big->capacity_bytes);
		tb_buf_puts(o, t->cell.ptr);
		S_nl(t);
	} else if (!m->activations_known) {
		/* the total then holds the known items only */
		tb_buf_puts(o, m->fits_known ? "NO: " : "UNKNOWN: ");
		tb_fmt_bytes(S_c(t), m->per_gpu.total);
		tb_buf_printf(o, "%s per GPU before activations (unknown for this model), ", t->cell.ptr);
	} else {
		tb_buf_puts(o, m->fits ? "YES: " : "NO: ");
		tb_fmt_bytes(S_c(t), m->per_gpu.total);
		tb_buf_printf(o, "%s per GPU, ", t->cell.ptr);
	}
	if (b->n_stages <= 0) {
		tb_fmt_bytes(S_c(t), m->capacity_bytes);
		tb_buf_printf(o, "%s available (%s)", t->cell.ptr, S_zero_name(in->parallelism.zero));
		S_nl(t);
	}
	if (b->n_stages <= 0 && m->activations_known && !m->fits) {
		/* The cheapest fix the budget already priced, if any. */
		const char *hint = NULL;
		double bytes = 0;
		if (m->checkpointing[TB_CKPT_SELECTIVE].fits) {
			hint = "selective checkpointing";
			bytes = m->checkpointing[TB_CKPT_SELECTIVE].total_bytes;
		} else if (m->checkpointing[TB_CKPT_FULL].fits) {
			hint = "full checkpointing";
			bytes = m->checkpointing[TB_CKPT_FULL].total_bytes;
		} else {
			for (int z = in->parallelism.zero + 1; z <= 3 && !hint; z++)
				if (z >= 0 && m->zero[z].fits) {
					hint = S_zero_name(z);
					bytes = m->zero[z].bytes.total;
				}
		}
		if (hint) {
			tb_fmt_bytes(S_c(t), bytes);
			tb_buf_printf(o, "                 with %s it fits: %s per GPU", hint, t->cell.ptr);
			S_nl(t);
		}
	}

	/* The verdicts count failures and checkpoints (b->losses).  Met at
	 * the most likely MFU but with less than a 90% chance is a risk, not a
	 * YES; without the confidence figures, missing at the low MFU is. */
	const tb_losses *l = &b->losses;
	const tb_risk *rk = &b->risk;
	tb_buf_puts(o, "Meets deadline?  ");
	bool cannot = b->n_stages > 0 ? !b->stages_all_run : b->answer.decided && !b->answer.runs;
	if (cannot) {
		tb_buf_puts(o, tm->has_deadline ? "NO: it cannot run on these GPUs (see Layout)"
		                                : "no time: it cannot run on these GPUs (see Layout)");
	} else if (!tm->known) {
		tb_buf_puts(o, "UNKNOWN: no time estimate (see warnings)");
	} else if (!l->known) {
		tb_buf_puts(o, tm->has_deadline ? "NO: " : "");
		tb_buf_puts(o, "failures come faster than the run recovers: it never finishes");
	} else if (!tm->has_deadline) {
		tb_fmt_days(S_c(t), tb_budget_expected(b).seconds);
		tb_buf_printf(o, "no deadline set; %s expected ", t->cell.ptr);
		S_basis(t, b);
		tb_buf_puts(o, " with failures and checkpoints");
		if (rk->known) {
			tb_fmt_days(S_c(t), rk->days_p50 * 86400);
			tb_buf_printf(o, "; P50 %s", t->cell.ptr);
			tb_fmt_days(S_c(t), rk->days_p90 * 86400);
			tb_buf_printf(o, ", P90 %s", t->cell.ptr);
		}
	} else {
		static const char *const word[] = { "NO", "AT RISK", "YES" };
		tb_verdict v = tb_budget_verdict(b, true);
		tb_buf_puts(o, word[v]);
		if (rk->known) {
			tb_fmt_prob(S_c(t), rk->p_meets_deadline);
			tb_buf_printf(o, " (%s likely)", t->cell.ptr);
		}
		/* expected: the mean of the simulated runs with failures */
		tb_fmt_days(S_c(t), tb_budget_expected(b).seconds);
		tb_buf_printf(o, ": %s expected ", t->cell.ptr);
		S_basis(t, b);
		tb_buf_puts(o, " with losses against ");
		tb_fmt_days(S_c(t), tm->deadline_s);
		tb_buf_puts(o, t->cell.ptr);
		if (rk->known) {
			tb_fmt_days(S_c(t), rk->days_p50 * 86400);
			tb_buf_printf(o, "; P50 %s", t->cell.ptr);
			tb_fmt_days(S_c(t), rk->days_p90 * 86400);
			tb_buf_printf(o, ", P90 %s", t->cell.ptr);
		} else if (v == TB_VERDICT_AT_RISK && b->n_stages <= 0) {
			tb_fmt_days(S_c(t), l->seconds[0]);
			tb_buf_printf(o, "; %s at ", t->cell.ptr);
			tb_fmt_pct(S_c(t), tm->mfu[0]);
			tb_buf_printf(o, "%s MFU", t->cell.ptr);
		}
		if (!tm->meets_deadline && b->n_stages <= 0)
			S_deadline_gpus(t, tm, in, "; ", " would on compute");
	}
	S_nl(t);

	tb_buf_puts(o, "Cost:            ");
	if (cannot) {
		tb_buf_puts(o, "none priced: it cannot run on these GPUs");
	} else if (!tm->known || !l->known) {
		tb_buf_puts(o, "UNKNOWN");
	} else {
		/* one style for the line's amounts: its largest's */
		double ref = S_max3(l->cost);
		bool billed = tb_bill_any(&b->bill_in);
		if (billed && tb_budget_expected(b).cost > ref)
			ref = tb_budget_expected(b).cost;
		if (rk->known && rk->cost_p90 > ref)
			ref = rk->cost_p90;
		if (tm->has_budget && tm->budget > ref)
			ref = tm->budget;
		tb_fmt_money_ref(S_c(t), tb_budget_expected(b).cost, tm->currency, ref);
		tb_buf_printf(o, "%s expected with losses", t->cell.ptr);
		if (rk->known) {
			tb_fmt_money_ref(S_c(t), rk->cost_p50, tm->currency, ref);
			tb_buf_printf(o, ", P50 %s", t->cell.ptr);
			tb_fmt_money_ref(S_c(t), rk->cost_p90, tm->currency, ref);
			tb_buf_printf(o, ", P90 %s", t->cell.ptr);
		} else if (!billed && l->cost[0] != l->cost[2]) {   /* an MFU range, not one value */
			tb_fmt_money_ref(S_c(t), l->cost[2], tm->currency, ref);
			tb_buf_printf(o, " (%s to ", t->cell.ptr);
			tb_fmt_money_ref(S_c(t), l->cost[0], tm->currency, ref);
			tb_buf_printf(o, "%s over the MFU range)", t->cell.ptr);
		}
		if (tm->has_budget) {
			static const char *const word[] = { "; OVER ", "; AT RISK: within ", "; within " };
			tb_verdict v = tb_budget_verdict(b, false);
			tb_buf_puts(o, word[v]);
			tb_fmt_money_ref(S_c(t), tm->budget, tm->currency, ref);
			tb_buf_puts(o, t->cell.ptr);
			if (rk->known) {
				tb_fmt_prob(S_c(t), rk->p_within_budget);
				tb_buf_printf(o, " (%s likely)", t->cell.ptr);
			} else if (v == TB_VERDICT_AT_RISK) {
				tb_buf_puts(o, " only at the most likely MFU");
			}
		}
		if (billed) {
			S_nl(t);
			S_bill_line(t, b, ref);
		}
	}
	S_nl(t);
	if (sc && sc->price_assumed) {
		tb_fmt_money(S_c(t), in->hardware.price_per_gpu_hour, tm->currency);
		tb_buf_printf(o, "                 at an assumed %s per GPU-hour (not in the scenario)",
		              t->cell.ptr);
		S_nl(t);
	}
	/* Defaults the loader changed so the scenario stays valid: every
	 * figure above rests on them. */
	for (size_t i = 0; sc && i < sc->nadapted; i++) {
		const tb_scenario_adapted *a = &sc->adapted[i];
		tb_buf line;
		tb_buf_init(&line);
		tb_buf_printf(&line, "%s %s instead of the default %s: %s", a->key, a->value, a->deflt, a->why);
		tb_buf_puts(o, i ? "                 " : "Adapted:         ");
		tb_diags_escape(o, line.ptr, line.len, NULL);
		tb_buf_release(&line);
		S_nl(t);
	}
}

static void S_compute(S_text *t, const tb_inputs *in, const tb_budget *b)
{
	tb_buf *o = &t->out;
	tb_buf_puts(o, "Compute");
	S_nl(t);
	tb_buf_puts(o, "  parameters  ");
	tb_fmt_count(S_c(t), b->params.total);
	tb_buf_puts(o, t->cell.ptr);
	if (b->params.active < b->params.total) {
		tb_fmt_count(S_c(t), b->params.active);
		tb_buf_printf(o, " total, %s active per token", t->cell.ptr);
	}
	if (in->training.method != TB_METHOD_FULL) {
		tb_fmt_count(S_c(t), b->params.trainable);
		tb_buf_printf(o, "; trained %s (%s", t->cell.ptr, tb_method_name(in->training.method));
		if (tb_method_adapters(in->training.method))
			tb_buf_printf(o, " rank %lld", (long long)in->training.lora.rank);
		if (in->training.quantization != TB_QUANT_NONE)
			tb_buf_printf(o, ", frozen weights %s", tb_quant_name(in->training.quantization));
		tb_buf_puts(o, ")");
	}
	S_nl(t);
	tb_buf_puts(o, "  6ND         ");
	tb_fmt_sci(S_c(t), b->flops.total_6nd, 3, false);
	tb_buf_printf(o, "%s FLOP; operator-level ", t->cell.ptr);
	tb_fmt_sci(S_c(t), b->flops.total_model, 3, false);
	tb_buf_printf(o, "%s; with recomputation ", t->cell.ptr);
	tb_fmt_sci(S_c(t), b->flops.total_hardware, 3, false);
	tb_buf_puts(o, t->cell.ptr);
	S_nl(t);
}

static void S_mem_cell(S_text *t, const char *label, double bytes, bool known)
{
	S_pad(&t->out, label, 16, false);
	if (known)
		tb_fmt_bytes(S_c(t), bytes);
	else
		tb_buf_puts(S_c(t), "unknown");
	S_put_cell(t, 10, true);
}

/* Two items a line, so the summary keeps room for its warnings. */
static void S_mem_pair(S_text *t, const char *l1, double b1, bool k1,
                       const char *l2, double b2, bool k2)
{
	tb_buf_puts(&t->out, "  ");
	S_mem_cell(t, l1, b1, k1);
	tb_buf_puts(&t->out, "    ");
	S_mem_cell(t, l2, b2, k2);
	S_nl(t);
}

static void S_memory(S_text *t, const tb_inputs *in, const tb_budget *b)
{
	const tb_memory *m = &b->memory;
	const tb_mem_items *g = &m->per_gpu;
	tb_buf *o = &t->out;
	tb_buf_printf(o, "Memory per GPU (%s, %s gradients, %s, %s)", tb_precision_name(in->training.precision),
	              tb_grad_dtype_name(tb_grad_dtype_of(&in->training)),
	              tb_optimizer_name(in->training.optimizer), S_zero_name(in->parallelism.zero));
	S_nl(t);
	S_mem_pair(t, "weights", g->weights, true, "gradients", g->gradients, true);
	if (in->training.method != TB_METHOD_FULL)
		S_mem_pair(t, " of it frozen", g->frozen_weights, true, " adapters", g->adapters, true);
	if (g->fp8_weights > 0) {
		/* Transformer Engine's fp8 copies of the linear layers' weights,
		 * or those weights themselves under fp8_param_gather */
		tb_buf_puts(&t->out, "  ");
		S_mem_cell(t, in->training.precision == TB_PREC_FP4_MIXED ? " of it fp4" : " of it fp8",
		           g->fp8_weights, true);
		S_nl(t);
	}
	S_mem_pair(t, "master weights", g->master_weights, true, "optimizer", g->optimizer, true);
	S_mem_pair(t, "activations", g->activations, m->activations_known, "other", g->other, true);
	tb_buf_puts(o, "  ");
	S_pad(o, "total", 16, false);
	if (m->activations_known)
		tb_fmt_bytes(S_c(t), g->total);
	else
		tb_buf_puts(S_c(t), "unknown");
	S_put_cell(t, 10, true);
	tb_fmt_bytes(S_c(t), m->capacity_bytes);
	tb_buf_printf(o, " of %s", t->cell.ptr);
	if (m->activations_known) {
		tb_fmt_bytes(S_c(t), m->headroom_bytes >= 0 ? m->headroom_bytes : -m->headroom_bytes);
		tb_buf_printf(o, m->headroom_bytes >= 0 ? " (%s free)" : " (over by %s)", t->cell.ptr);
	}
	S_nl(t);
	/* the planning question, answered directly */
	tb_fmt_grouped(S_c(t), (double)in->hardware.count);
	tb_buf_printf(o, "  largest dense model whose training state fits on these %s GPUs: ", t->cell.ptr);
	tb_fmt_count(S_c(t), m->max_params_fully_sharded);
	tb_buf_printf(o, "%s with ZeRO-3, ", t->cell.ptr);
	tb_fmt_count(S_c(t), m->max_params_one_gpu);
	tb_buf_printf(o, "%s without sharding, ", t->cell.ptr);
	tb_fmt_count(S_c(t), m->max_params_this_layout);
	tb_buf_printf(o, "%s at this layout; before activations", t->cell.ptr);
	S_nl(t);
}

static void S_row3(S_text *t, const char *label, const double v[3],
                   void (*fmt)(tb_buf *, double))
{
	tb_buf_puts(&t->out, "  ");
	S_pad(&t->out, label, 10, false);
	for (int i = 0; i < 3; i++) {
		fmt(S_c(t), v[i]);
		S_put_cell(t, S_COL, true);
	}
	S_nl(t);
}

/* Energy in the unit a facility bill uses, kept narrow enough for a column. */
static void S_kwh(tb_buf *b, double kwh)
{
	if (kwh >= 1e9) {
		tb_fmt_sci(b, kwh / 1e6, 3, false);
		tb_buf_puts(b, " GWh");
	} else if (kwh >= 1e6) {
		tb_fmt_sig(b, kwh / 1e6, 3);
		tb_buf_puts(b, " GWh");
	} else if (kwh >= 1e4) {
		tb_fmt_sig(b, kwh / 1e3, 3);
		tb_buf_puts(b, " MWh");
	} else {
		tb_fmt_grouped(b, kwh);
		tb_buf_puts(b, " kWh");
	}
}

/* A row of the cost table, in the style of the table's largest amount. */
static void S_money3(S_text *t, const char *label, const double v[3], const char *currency,
                     double ref)
{
	tb_buf_puts(&t->out, "  ");
	S_pad(&t->out, label, 10, false);
	for (int i = 0; i < 3; i++) {
		tb_fmt_money_ref(S_c(t), v[i], currency, ref);
		S_put_cell(t, S_COL, true);
	}
	S_nl(t);
}

/* Two lines: what failures and checkpoints cost, and the spread. */
static void S_goodput(S_text *t, const tb_budget *b)
{
	const tb_goodput *g = &b->goodput;
	const tb_risk *rk = &b->risk;
	const char *cur = b->time.currency;
	tb_buf *o = &t->out;
	tb_buf_puts(o, "  failures: ");
	if (g->failures) {
		tb_fmt_days(S_c(t), g->mtbf_s);
		tb_buf_printf(o, "one every %s", t->cell.ptr);
	} else {
		tb_buf_puts(o, "none assumed");
	}
	tb_fmt_bytes(S_c(t), g->checkpoint_bytes);
	tb_buf_printf(o, "; checkpoints of %s", t->cell.ptr);
	if (g->checkpoint_interval_s > 0) {
		tb_fmt_days(S_c(t), g->checkpoint_save_s);
		tb_buf_printf(o, " take %s", t->cell.ptr);
		tb_fmt_days(S_c(t), g->checkpoint_interval_s);
		tb_buf_printf(o, " every %s", t->cell.ptr);
	} else {
		tb_buf_puts(o, " not needed");
	}
	if (g->progress) {
		/* three digits: 99.7%, not a rounded 100% */
		tb_fmt_sig(S_c(t), 100 * g->fraction, 3);
		tb_buf_printf(o, "; goodput %s%%", t->cell.ptr);
	}
	S_nl(t);
	if (!rk->known)
		return;
	tb_buf_puts(o, "  P10/P50/P90: ");
	const double d[3] = { rk->days_p10, rk->days_p50, rk->days_p90 };
	const double c[3] = { rk->cost_p10, rk->cost_p50, rk->cost_p90 };
	for (int i = 0; i < 3; i++) {
		tb_fmt_days(S_c(t), d[i] * 86400);
		tb_buf_printf(o, "%s%s", i ? " / " : "", t->cell.ptr);
	}
	tb_buf_puts(o, "; ");
	for (int i = 0; i < 3; i++) {
		tb_fmt_money_ref(S_c(t), c[i], cur, S_max3(c));
		tb_buf_printf(o, "%s%s", i ? " / " : "", t->cell.ptr);
	}
	S_nl(t);
}

/* The step-time model: one line of figures, one of where the time goes
 * (terms of at least 1% of the step). */
static void S_perf(S_text *t, const tb_budget *b)
{
	const tb_perf_budget *pb = &b->perf;
	tb_buf *o = &t->out;
	if (!pb->known) {
		tb_buf_puts(o, "  step      not predicted: ");
		tb_buf_puts(o, pb->why ? pb->why : "");
		S_nl(t);
		return;
	}
	const tb_perf_result *r = &pb->r;
	tb_buf_puts(o, "  step      ");
	tb_fmt_sig(S_c(t), r->step_s, 3);
	tb_buf_printf(o, "%s s %s, ", t->cell.ptr, pb->calibrated ? "calibrated" : "predicted");
	tb_fmt_grouped(S_c(t), r->tokens_per_s_per_gpu);
	tb_buf_printf(o, "%s tokens/s per GPU; MFU ", t->cell.ptr);
	tb_fmt_pct(S_c(t), r->mfu);
	tb_buf_printf(o, "%s (band ", t->cell.ptr);
	tb_fmt_pct(S_c(t), pb->mfu_band[0]);
	tb_buf_printf(o, "%s-", t->cell.ptr);
	tb_fmt_pct(S_c(t), pb->mfu_band[1]);
	tb_buf_printf(o, "%s), HFU ", t->cell.ptr);
	tb_fmt_pct(S_c(t), r->hfu);
	tb_buf_printf(o, "%s%s", t->cell.ptr,
	              b->answer.decided && !b->answer.runs ? "; as written, which cannot run"
	              : b->time.mfu_measured ? "; the time uses the measured step"
	              : pb->source_predicted ? "" : "; the time uses hardware.mfu");
	S_nl(t);
	tb_buf_puts(o, "            ");
	bool first = true;
	for (int i = 0; i < TB_PERF_TERMS; i++) {
		double share = r->breakdown_s[i] / r->step_s;
		if (!(share >= 0.01))
			continue;
		tb_fmt_pct(S_c(t), share);
		tb_buf_printf(o, "%s%s %s", first ? "" : ", ", tb_perf_term_label(i), t->cell.ptr);
		first = false;
	}
	S_nl(t);
}

/* --calibrate: the builder test in a line per pilot, then what it did to
 * this run's step. */
static void S_pilots(S_text *t, const tb_inputs *in, const tb_budget *b)
{
	const tb_calib *c = &in->calib;
	const tb_perf_budget *pb = &b->perf;
	if (!c->known || !pb->calibrated)
		return;
	tb_buf *o = &t->out;
	for (int i = 0; i < c->npilots; i++) {
		const tb_calib_pilot *p = &c->pilots[i];
		tb_buf_puts(o, "  pilot     ");
		tb_diags_escape(o, p->path, strlen(p->path), NULL);
		tb_fmt_grouped(S_c(t), (double)p->gpus);
		tb_buf_printf(o, ": %s x %s measured ", t->cell.ptr, p->card);
		tb_fmt_sig(S_c(t), p->step_s, 3);
		tb_buf_printf(o, "%s s a step, the model ", t->cell.ptr);
		tb_fmt_sig(S_c(t), p->predicted_s, 3);
		tb_buf_printf(o, "%s s%s: ", t->cell.ptr, p->has_trace ? " (terms from its trace)" : "");
		char fx[160];
		tb_calib_factors_text(p, fx, sizeof fx);
		tb_buf_puts(o, fx);
		S_nl(t);
	}
	tb_buf_puts(o, "            this run: ");
	tb_fmt_sig(S_c(t), pb->step_uncalibrated_s, 3);
	tb_buf_printf(o, "%s s a step before calibration (MFU ", t->cell.ptr);
	tb_fmt_pct(S_c(t), pb->mfu_uncalibrated);
	tb_buf_printf(o, "%s), ", t->cell.ptr);
	tb_fmt_sig(S_c(t), pb->r.step_s, 3);
	tb_buf_printf(o, "%s s after (MFU ", t->cell.ptr);
	tb_fmt_pct(S_c(t), pb->r.mfu);
	tb_buf_printf(o, "%s)", t->cell.ptr);
	S_nl(t);
}

static void S_time(S_text *t, const tb_inputs *in, const tb_budget *b)
{
	const tb_time *tm = &b->time;
	tb_buf *o = &t->out;
	tb_fmt_grouped(S_c(t), (double)in->hardware.count);
	tb_buf_printf(o, "Time and money (%s x %s", t->cell.ptr,
	              in->hardware.gpu.name[0] ? in->hardware.gpu.name : "GPU");
	if (tm->peak_flops_per_gpu > 0) {
		/* Peaks are quoted in TFLOP/s on every datasheet. */
		tb_fmt_sig(S_c(t), tm->peak_flops_per_gpu / 1e12, 4);
		tb_buf_printf(o, ", %s peak %s TFLOP/s", tb_dtype_name(tm->dtype), t->cell.ptr);
	}
	tb_buf_putc(o, ')');
	S_nl(t);
	S_perf(t, b);
	S_pilots(t, in, b);
	char better[512];
	if (tb_plan_better_text(&b->plan, better, sizeof better)) {
		tb_buf_printf(o, "  layout    the search finds one %s", better);
		S_nl(t);
	}
	/* the budget's split for a head-heavy last stage (perf.balanced_layout),
	 * which the search, ranking even splits only, does not offer */
	const tb_perf_budget *pb = &b->perf;
	if (pb->known && pb->balanced_layout[0]) {
		int64_t last = pb->balanced.stage_layers[2];
		tb_fmt_sig(S_c(t), pb->balanced.step_s, 3);
		tb_buf_printf(o, "  split     the last stage, with the output head, is the slowest: "
		              "parallelism.pipeline_layout \"%s\" gives the last rank %lld layer%s, "
		              "%s s a step (%.0f%% less)", pb->balanced_layout,
		              (long long)last, last == 1 ? "" : "s", t->cell.ptr,
		              100 * tb_perf_balanced_saving(pb));
		S_nl(t);
	}
	if (!tm->known) {
		tb_buf_puts(o, "  unknown: see warnings");
		S_nl(t);
		return;
	}
	const tb_losses *l = &b->losses;
	S_row3(t, "MFU", tm->mfu, tb_fmt_pct);
	S_row3(t, "time", tm->seconds, tb_fmt_days);
	if (l->known)
		S_row3(t, "+ losses", l->seconds, tb_fmt_days);
	S_row3(t, "GPU-hours", tm->gpu_hours, tb_fmt_grouped);
	double ref = S_max3(tm->cost);
	if (l->known && S_max3(l->cost) > ref)
		ref = S_max3(l->cost);
	S_money3(t, "cost", tm->cost, tm->currency, ref);
	if (l->known)
		S_money3(t, "+ losses", l->cost, tm->currency, ref);
	if (tm->energy_known)
		S_row3(t, in->hardware.node_power_w > 0 ? "node energy" : "GPU energy", tm->energy_kwh,
		       S_kwh);   /* the GPUs at TDP x PUE, or the nodes' draw x PUE */
	S_goodput(t, b);
	if (tm->has_deadline) {
		tb_fmt_count(S_c(t), tm->tokens_in_deadline);
		tb_buf_printf(o, "  by the deadline: %s tokens", t->cell.ptr);
		S_deadline_gpus(t, tm, in, "; ", " would meet it on compute");
		S_nl(t);
	}
	if (tm->has_budget && tm->tokens_in_budget > 0) {
		tb_fmt_money(S_c(t), tm->budget, tm->currency);
		tb_buf_printf(o, "  the budget of %s buys ", t->cell.ptr);
		tb_fmt_count(S_c(t), tm->tokens_in_budget);
		tb_buf_printf(o, "%s tokens", t->cell.ptr);
		S_nl(t);
	}
}

/* A real run, when the scenario gives one: what it says about the MFU
 * assumed and the memory estimate. */
static void S_measured(S_text *t, const tb_budget *b)
{
	const tb_time *tm = &b->time;
	if (!tm->has_measured_step && !tm->has_measured_memory)
		return;
	tb_buf *o = &t->out;
	S_nl(t);
	tb_buf_puts(o, "Measured");
	if (tm->has_measured_step) {
		tb_buf_puts(o, "    achieved MFU ");
		tb_fmt_pct(S_c(t), tm->achieved_mfu);
		tb_buf_printf(o, "%s (HFU ", t->cell.ptr);
		tb_fmt_pct(S_c(t), tm->achieved_hfu);
		if (tm->mfu_measured && b->perf.known) {
			/* the measurement is the basis: the prediction is the comparison */
			tb_buf_printf(o, "%s) against ", t->cell.ptr);
			tb_fmt_pct(S_c(t), b->perf.r.mfu);
			tb_buf_printf(o, "%s predicted; the whole run ", t->cell.ptr);
		} else {
			tb_buf_printf(o, "%s) against ", t->cell.ptr);
			tb_fmt_pct(S_c(t), tm->mfu[1]);
			tb_buf_printf(o, "%s assumed; the whole run ", t->cell.ptr);
		}
		tb_fmt_days(S_c(t), tm->measured_seconds);
		tb_buf_puts(o, t->cell.ptr);
	}
	if (tm->has_measured_memory) {
		if (tm->has_measured_step) {
			S_nl(t);
			tb_buf_puts(o, "        ");
		}
		tb_buf_puts(o, "    peak memory ");
		tb_fmt_gib(S_c(t), tm->measured_peak_bytes);
		tb_buf_printf(o, "%s; the estimate is ", t->cell.ptr);
		tb_fmt_pct(S_c(t), fabs(tm->memory_estimate_error));
		tb_buf_printf(o, "%s %s", t->cell.ptr, tm->memory_estimate_error >= 0 ? "over" : "under");
	}
	S_nl(t);
}

static void S_chinchilla(S_text *t, const tb_budget *b)
{
	const tb_chinchilla *c = &b->chinchilla;
	tb_buf *o = &t->out;
	if (!(c->compute_flops > 0))
		return;
	tb_buf_puts(o, "Chinchilla  for ");
	tb_fmt_sci(S_c(t), c->compute_flops, 3, false);
	tb_buf_printf(o, "%s FLOP the optimum is ", t->cell.ptr);
	tb_fmt_count(S_c(t), c->optimal_params);
	tb_buf_printf(o, "%s params on ", t->cell.ptr);
	tb_fmt_count(S_c(t), c->optimal_tokens);
	tb_buf_printf(o, "%s tokens (20/param; Hoffmann fit ", t->cell.ptr);
	tb_fmt_count(S_c(t), c->run.params_fit);
	tb_buf_printf(o, "%s on ", t->cell.ptr);
	tb_fmt_count(S_c(t), c->run.tokens_fit);
	tb_buf_printf(o, "%s)", t->cell.ptr);
	S_nl(t);
	tb_buf_puts(o, "  this run  ");
	tb_fmt_count(S_c(t), c->scenario_tokens_per_param);
	tb_buf_printf(o, "%s tokens/param", t->cell.ptr);
	if (c->loss_known) {
		tb_fmt_sig(S_c(t), c->loss, 3);
		tb_buf_printf(o, "; predicted loss %s (Hoffmann), ", t->cell.ptr);
		tb_fmt_sig(S_c(t), c->loss_epoch, 3);
		tb_buf_printf(o, "%s (Epoch AI)", t->cell.ptr);
	}
	S_nl(t);
}

char *tb_render_text(const tb_scenario *sc, const tb_budget *b)
{
	static const tb_inputs none;
	const tb_inputs *in = sc ? &sc->inputs : &none;
	S_text t;
	tb_buf_init(&t.out);
	tb_buf_init(&t.cell);
	t.lines = 0;

	/* A title is one line here: its line ends and other C0 controls
	 * become spaces; anything else a terminal would act on (a
	 * bidirectional override, a byte that is not UTF-8) shows escaped. */
	tb_buf one;
	tb_buf_init(&one);
	for (const char *p = sc && sc->title ? sc->title : "trainbudget estimate"; *p; p++)
		tb_buf_putc(&one, (unsigned char)*p < 0x20 || *p == 0x7f ? ' ' : *p);
	tb_diags_escape(&t.out, one.ptr, one.len, NULL);
	tb_buf_release(&one);
	S_nl(&t);
	S_nl(&t);
	char ans[600];
	if (tb_answer_text(&b->answer, ans, sizeof ans)) {
		/* what is priced, before the figures */
		tb_buf_puts(&t.out, "Layout:          ");
		tb_fmt_wrap(&t.out, ans, 17, 17);
		t.lines++;
		/* the batch in sequences and in tokens: papers quote the latter */
		tb_fmt_grouped(S_c(&t), (double)in->training.global_batch);
		tb_buf_printf(&t.out, "Batch:           %s sequences of ", t.cell.ptr);
		tb_fmt_grouped(S_c(&t), (double)in->training.seq_len);
		tb_buf_printf(&t.out, "%s tokens, ", t.cell.ptr);
		tb_fmt_count(S_c(&t), (double)in->training.global_batch * (double)in->training.seq_len);
		tb_buf_printf(&t.out, "%s tokens a step", t.cell.ptr);
		if (in->training.padding_fraction > 0) {
			/* what the data holds against what the GPUs process */
			tb_fmt_pct(S_c(&t), in->training.padding_fraction);
			tb_buf_printf(&t.out, "; %s of them padding", t.cell.ptr);
			tb_fmt_count(S_c(&t), in->training.data_tokens);
			tb_buf_printf(&t.out, " (%s tokens of data, not packed)", t.cell.ptr);
		}
		S_nl(&t);
	}
	S_verdict(&t, sc, in, b);
	S_nl(&t);
	if (b->n_stages > 0) {
		S_stages(&t, b);
		S_nl(&t);
	}
	S_compute(&t, in, b);
	S_nl(&t);
	S_memory(&t, in, b);
	S_nl(&t);
	S_time(&t, in, b);
	S_nl(&t);
	S_chinchilla(&t, b);
	S_measured(&t, b);

	if (b->n_warnings > 0) {
		S_nl(&t);
		tb_buf_puts(&t.out, "Warnings");
		S_nl(&t);
		for (int i = 0; i < b->n_warnings && i < TB_WARNINGS_MAX; i++) {
			int left = b->n_warnings - i;
			if (t.lines + 1 >= S_LINES_MAX && left > 1) {
				/* the summary keeps to its 40 lines: what does not fit is
				 * counted, never dropped unsaid */
				if (i == 0)
					tb_buf_printf(&t.out, "  %d warnings, not shown here: see --format json or the report", left);
				else
					tb_buf_printf(&t.out, "  ... and %d more (see --format json)", left);
				S_nl(&t);
				break;
			}
			tb_buf_puts(&t.out, "  - ");
			tb_diags_escape(&t.out, b->warnings[i], strlen(b->warnings[i]), NULL);
			S_nl(&t);
		}
	}
	tb_buf_release(&t.cell);
	return tb_buf_detach(&t.out, NULL);
}
