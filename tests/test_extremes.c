/* test_extremes.c: extreme but valid scenarios, end to end.
 *
 * Each scenario goes through the loader, the calculators and every back
 * end.  What is pinned is not a figure but the project's promise for any
 * valid input: every number in the budget is finite, memory is never
 * negative, and no output prints NaN or inf.  The inputs are the corners
 * of the list: 1e30 tokens, 1 GPU, 100,000 GPUs, MFU 0.0001, one
 * layer, a vocabulary of 2, a model known only by its parameter count. */
#include <ctype.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <criterion/criterion.h>
#include "trainbudget/budget.h"
#include "trainbudget/buf.h"
#include "trainbudget/diag.h"
#include "trainbudget/render.h"
#include "trainbudget/report.h"
#include "trainbudget/scenario.h"

/* A shaped 7B-class model on H100s: every extreme is a --set on top. */
static const char S_base[] =
	"title: extremes\n"
	"date: 2024-01-01\n"
	"model:\n"
	"  layers: 32\n"
	"  hidden: 4096\n"
	"  heads: 32\n"
	"  ffn_hidden: 11008\n"
	"  vocab: 32000\n"
	"training:\n"
	"  tokens: 100B\n"
	"  seq_len: 4096\n"
	"  global_batch: 1024\n"
	"  micro_batch: 1\n"
	"hardware:\n"
	"  gpu: h100-sxm\n"
	"  count: 64\n"
	"  price_per_gpu_hour: 2.50\n"
	"plan:\n"
	"  deadline: 30 days\n"
	"  budget: 500000\n";

static const char S_count_only[] =
	"title: count only\n"
	"date: 2024-01-01\n"
	"model:\n"
	"  params: 7B\n"
	"training:\n"
	"  tokens: 100B\n"
	"hardware:\n"
	"  gpu: h100-sxm\n"
	"  count: 64\n";

/* The smallest shape: one layer, one head of width 2, a vocabulary of 2. */
static const char S_tiny[] =
	"title: tiny\n"
	"date: 2024-01-01\n"
	"model:\n"
	"  layers: 1\n"
	"  hidden: 2\n"
	"  heads: 1\n"
	"  ffn_hidden: 2\n"
	"  vocab: 2\n"
	"training:\n"
	"  tokens: 1\n"
	"  seq_len: 1\n"
	"  global_batch: 1\n"
	"  micro_batch: 1\n"
	"hardware:\n"
	"  gpu: h100-sxm\n"
	"  count: 1\n";

static tb_budget S_b;   /* large: off the stack */

#define FIN(x) cr_expect(isfinite((double)(x)), "%s = %g is not finite", #x, (double)(x))
#define MEM(x) do { FIN(x); cr_expect((double)(x) >= 0, "%s = %g bytes is negative", #x, (double)(x)); } while (0)

static void S_check_items(const tb_mem_items *m, const char *what)
{
	const double v[] = { m->weights, m->gradients, m->master_weights, m->optimizer,
	                     m->activations, m->other, m->total };
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		cr_expect(isfinite(v[i]) && v[i] >= 0,
		          "%s item %zu = %g: not a finite non-negative byte count", what, i, v[i]);
}

static void S_check_budget(const tb_budget *b)
{
	const tb_params *p = &b->params;
	FIN(p->total); FIN(p->active); FIN(p->embedding); FIN(p->attention);
	FIN(p->mlp); FIN(p->router); FIN(p->norm); FIN(p->output);
	FIN(p->position); FIN(p->per_layer);

	const tb_flops *f = &b->flops;
	FIN(f->per_token_6n); FIN(f->per_token_model); FIN(f->per_token_hardware);
	FIN(f->total_6nd); FIN(f->total_model); FIN(f->total_hardware);
	FIN(f->fwd_matmul_per_token); FIN(f->fwd_attention_per_token);
	FIN(f->fwd_logits_per_token); FIN(f->recompute_per_token);
	FIN(f->model_over_6n);

	const tb_memory *m = &b->memory;
	MEM(m->bytes_per_param.weights); MEM(m->bytes_per_param.gradients);
	MEM(m->bytes_per_param.master_weights); MEM(m->bytes_per_param.optimizer);
	MEM(m->bytes_per_param.total);
	MEM(m->model_states_bytes);
	MEM(m->activations_per_layer_bytes); MEM(m->activations_bytes);
	MEM(m->logits_bytes); MEM(m->embedding_dropout_bytes);
	cr_expect(m->n_act_items >= 0 && m->n_act_items <= TB_ACT_ITEMS_MAX);
	for (int i = 0; i < m->n_act_items && i < TB_ACT_ITEMS_MAX; i++)
		MEM(m->act_items[i].bytes);
	S_check_items(&m->per_gpu, "memory.per_gpu");
	MEM(m->capacity_bytes);
	FIN(m->headroom_bytes);  /* negative by contract when it does not fit */
	cr_expect(m->max_micro_batch >= 0);
	for (int z = 0; z < 4; z++)
		S_check_items(&m->zero[z].bytes, "memory.zero");
	for (int c = 0; c < 3; c++) {
		MEM(m->checkpointing[c].activations_bytes);
		MEM(m->checkpointing[c].total_bytes);
		FIN(m->checkpointing[c].extra_flops_fraction);
	}
	MEM(m->kv_cache_bytes_per_token); MEM(m->kv_cache_bytes_per_sequence);
	MEM(m->max_params_fully_sharded); MEM(m->max_params_this_layout);

	const tb_time *t = &b->time;
	FIN(t->peak_flops_per_gpu);
	for (int i = 0; i < 3; i++) {
		FIN(t->mfu[i]); FIN(t->seconds[i]); FIN(t->gpu_hours[i]);
		FIN(t->cost[i]); FIN(t->energy_kwh[i]);
	}
	FIN(t->deadline_s); FIN(t->gpus_for_deadline); FIN(t->tokens_in_deadline);
	FIN(t->budget); FIN(t->tokens_in_budget);
	cr_expect(t->n_gpu_scan >= 0 && t->n_gpu_scan <= TB_GPU_SCAN_MAX);
	for (int i = 0; i < t->n_gpu_scan && i < TB_GPU_SCAN_MAX; i++)
		for (int k = 0; k < 3; k++) {
			FIN(t->gpu_scan[i].seconds[k]);
			FIN(t->gpu_scan[i].cost[k]);
		}
	FIN(t->achieved_mfu); FIN(t->achieved_hfu); FIN(t->measured_seconds);
	FIN(t->measured_peak_bytes); FIN(t->memory_estimate_error);

	const tb_chinchilla *c = &b->chinchilla;
	FIN(c->compute_flops); FIN(c->optimal_params); FIN(c->optimal_tokens);
	FIN(c->tokens_per_param); FIN(c->loss); FIN(c->loss_epoch);
	const tb_optimum *o[] = { &c->run, &c->deadline, &c->budget };
	for (size_t i = 0; i < 3; i++) {
		FIN(o[i]->compute_flops); FIN(o[i]->params); FIN(o[i]->tokens);
		FIN(o[i]->params_fit); FIN(o[i]->tokens_fit);
		FIN(o[i]->params_epoch); FIN(o[i]->tokens_epoch);
	}
	cr_expect(c->n_plans >= 0 && c->n_plans <= TB_PLANS_MAX);
	for (int i = 0; i < c->n_plans && i < TB_PLANS_MAX; i++) {
		const tb_plan_row *r = &c->plans[i];
		FIN(r->params); FIN(r->tokens); FIN(r->flops); FIN(r->seconds);
		FIN(r->cost); FIN(r->loss); FIN(r->loss_epoch); FIN(r->lifetime_flops);
	}
	cr_expect(b->n_levers >= 0 && b->n_levers <= TB_LEVERS_MAX);
	for (int i = 0; i < b->n_levers && i < TB_LEVERS_MAX; i++) {
		FIN(b->levers[i].seconds); FIN(b->levers[i].cost);
		FIN(b->levers[i].delta_seconds_frac); FIN(b->levers[i].delta_cost_frac);
	}
	const tb_goodput *g = &b->goodput;
	const double gv[] = {
		g->nodes, g->failure_rate_per_s, g->mtbf_s, g->checkpoint_bytes,
		g->write_bytes_per_s, g->checkpoint_save_s, g->checkpoint_interval_s,
		g->restart_s, g->segment_s, g->lost_per_failure_s, g->checkpoint_overhead,
		g->failure_overhead, g->fraction, g->compute_s, g->checkpoint_s, g->lost_s,
		g->wall_s, g->expected_failures,
	};
	for (size_t i = 0; i < sizeof gv / sizeof gv[0]; i++)
		cr_expect(isfinite(gv[i]) && gv[i] >= 0, "goodput field %zu = %g", i, gv[i]);
	const tb_losses *l = &b->losses;
	for (int i = 0; i < 3; i++) {
		FIN(l->seconds[i]); FIN(l->gpu_hours[i]); FIN(l->cost[i]); FIN(l->energy_kwh[i]);
		cr_expect(!l->known || l->seconds[i] >= t->seconds[i], "losses never shorten a run");
	}
	const tb_risk *k = &b->risk;
	FIN(k->days_p10); FIN(k->days_p50); FIN(k->days_p90); FIN(k->days_mean);
	FIN(k->cost_p10); FIN(k->cost_p50); FIN(k->cost_p90); FIN(k->cost_mean);
	FIN(k->failures_mean); FIN(k->budget_p90);
	cr_expect(k->p_meets_deadline >= 0 && k->p_meets_deadline <= 1);
	cr_expect(k->p_within_budget >= 0 && k->p_within_budget <= 1);
	cr_expect(!k->known || (k->days_p10 <= k->days_p50 && k->days_p50 <= k->days_p90));
	for (int i = 0; i < TB_RISK_CDF_POINTS; i++) {
		FIN(k->days_cdf[i]);
		FIN(k->cost_cdf[i]);
	}
	for (int i = 0; i < TB_RISK_BINS; i++) {
		FIN(k->days_hist[i]);
		FIN(k->cost_hist[i]);
	}
	cr_expect(b->n_derivs >= 0 && b->n_derivs <= TB_DERIVS_MAX);
	for (int i = 0; i < b->n_derivs && i < TB_DERIVS_MAX; i++) {
		const tb_deriv *d = &b->derivs[i];
		cr_expect(isfinite(d->result), "derivation %s = %g is not finite",
		          d->key ? d->key : "?", d->result);
		for (int v = 0; v < d->nvars && v < TB_DERIV_VARS; v++)
			cr_expect(isfinite(d->vars[v].value), "derivation %s: %s = %g is not finite",
			          d->key ? d->key : "?", d->vars[v].sym ? d->vars[v].sym : "?",
			          d->vars[v].value);
	}
}

/* "nan", "inf" or "infinity" as a word of their own (case-insensitive):
 * "inference" or "information" in prose are fine. */
static const char *S_find_nonfinite(const char *s)
{
	for (const char *p = s; *p; p++) {
		if (p > s && isalpha((unsigned char)p[-1]))
			continue;
		size_t n = 0;
		if (strncasecmp(p, "infinity", 8) == 0)
			n = 8;
		else if (strncasecmp(p, "nan", 3) == 0 || strncasecmp(p, "inf", 3) == 0)
			n = 3;
		if (n && !isalpha((unsigned char)p[n]))
			return p;
	}
	return NULL;
}

/* A minus sign in front of a byte figure: "-3.2 GB", "−1.0 GiB". */
static int S_has_negative_memory(const char *s)
{
	regex_t re;
	int rc = regcomp(&re, "(-|\xe2\x88\x92)[0-9][0-9.,]* ?([kKMGTP]i?)?B([^A-Za-z]|$)",
	                 REG_EXTENDED | REG_NOSUB);
	cr_assert_eq(rc, 0);
	int found = regexec(&re, s, 0, NULL, 0) == 0;
	regfree(&re);
	return found;
}

static void S_check_output(const char *what, const char *out)
{
	cr_assert_not_null(out, "%s: no output", what);
	const char *bad = S_find_nonfinite(out);
	cr_expect_null(bad, "%s prints a non-finite number: ...%.40s...", what,
	               bad ? (bad - out > 20 ? bad - 20 : out) : "");
	if (strcmp(what, "json") != 0)   /* JSON's headroom is signed by contract */
		cr_expect(!S_has_negative_memory(out), "%s prints a negative memory figure", what);
}

static void S_run(const char *yaml, const char *const *sets, size_t nsets)
{
	tb_diags d;
	tb_diags_init(&d);
	tb_scenario *sc = tb_scenario_load("extreme.yaml", yaml, strlen(yaml), sets, nsets, &d);
	char *msg = tb_diags_format(&d);
	cr_assert_not_null(sc, "a valid extreme scenario was rejected:\n%s", msg);
	free(msg);

	memset(&S_b, 0xff, sizeof S_b);  /* a field left unwritten shows as NaN */
	tb_budget_compute(&sc->inputs, &S_b);
	tb_budget_compute_risk(&sc->inputs, &S_b);
	S_check_budget(&S_b);

	char *text = tb_render_text(sc, &S_b);
	S_check_output("text", text);
	free(text);
	char *json = tb_render_json(sc, &S_b);
	S_check_output("json", json);
	free(json);

	tb_report_options opt;
	memset(&opt, 0, sizeof opt);
	opt.date = "2024-01-01";
	opt.command = "trainbudget report extreme.yaml";
	tb_report *r = tb_report_new(sc, &S_b, &opt, &d);
	msg = tb_diags_format(&d);
	cr_assert_not_null(r, "the default report failed:\n%s", msg);
	free(msg);
	char *md = tb_render_md(r, "extreme-");
	S_check_output("markdown", md);
	free(md);
	char *html = tb_render_html(r);
	S_check_output("html", html);
	free(html);
	for (size_t i = 0; i < tb_report_nblocks(r); i++) {
		const tb_block *blk = tb_report_block_at(r, i);
		if (blk && blk->kind == TB_BLOCK_CHART) {
			char *svg = tb_render_svg(&blk->chart);
			S_check_output("svg", svg);
			free(svg);
		}
	}
	tb_buf pdf;
	tb_buf_init(&pdf);
	tb_pdf_options po = { .paper = TB_PAPER_A4 };
	int prc = tb_render_pdf(r, &po, &pdf, &d);
	msg = tb_diags_format(&d);
	cr_expect_eq(prc, 0, "the PDF failed:\n%s", msg);
	cr_expect_gt(pdf.len, 0);
	free(msg);
	tb_buf_release(&pdf);
	tb_report_free(r);
	tb_scenario_free(sc);
	tb_diags_release(&d);
}

#define SETS(...) \
	do { \
		static const char *const sets_[] = { __VA_ARGS__ }; \
		S_run(S_base, sets_, sizeof sets_ / sizeof sets_[0]); \
	} while (0)

Test(extremes, base_scenario) { S_run(S_base, NULL, 0); }
Test(extremes, tokens_1e30) { SETS("training.tokens=1e30"); }
Test(extremes, one_gpu) { SETS("hardware.count=1"); }
Test(extremes, gpus_100k) { SETS("hardware.count=100000", "training.global_batch=100000"); }
Test(extremes, mfu_1e_4) { SETS("hardware.mfu=0.0001"); }
Test(extremes, mfu_range_tiny) { SETS("hardware.mfu=[0.0001, 0.0002, 1]"); }
Test(extremes, one_layer) { SETS("model.layers=1"); }
Test(extremes, vocab_2) { SETS("model.vocab=2"); }
/* PyTorch's eager loss (12 bytes a logit) at the loader's largest
 * vocabulary and a long sequence: 1.2e17 bytes of loss on the last stage,
 * finite, never negative, the layout simply not fitting */
Test(extremes, eager_loss_largest_vocab) {
	SETS("training.cross_entropy=eager", "model.vocab=100000000", "model.max_positions=100000000",
	     "training.seq_len=100000000");
}
/* FSDP's working set at the loader's largest vocabulary (the head its
 * largest unit) and under a pipeline (the stage held whole) */
Test(extremes, fsdp_working_set_largest_vocab) {
	SETS("parallelism.framework=fsdp", "parallelism.zero=3", "model.vocab=100000000");
}
Test(extremes, fsdp_pipeline_held_zero3_100k_gpus) {
	SETS("parallelism.framework=fsdp", "parallelism.zero=3", "parallelism.pipeline=4",
	     "hardware.count=100000", "training.global_batch=100000");
}
Test(extremes, worst_case_time) {
	SETS("training.tokens=1e30", "hardware.count=1", "hardware.mfu=0.0001");
}
Test(extremes, huge_batch_full_ckpt) {
	SETS("training.micro_batch=1024", "training.global_batch=65536",
	     "training.checkpointing=full",
	     "training.flash_attention=false");
}
Test(extremes, zero3_100k_gpus) {
	SETS("hardware.count=100000", "training.global_batch=100000", "parallelism.zero=3");
}
Test(extremes, count_only_model) { S_run(S_count_only, NULL, 0); }
Test(extremes, count_only_1e15_params) {
	static const char *const sets[] = { "model.params=1e15", "training.tokens=1e30" };
	S_run(S_count_only, sets, 2);
}
Test(extremes, tiny_model) { S_run(S_tiny, NULL, 0); }
/* Failures: none at all; a million GPUs, which fail faster than they
 * restart (the run never finishes); a failure rate and restart at their
 * limits; a checkpoint interval far shorter than a step. */
Test(extremes, no_failures) { SETS("hardware.failures_per_node_day=0"); }
Test(extremes, gpus_1m_never_finish) {
	SETS("hardware.count=1048576", "training.global_batch=1048576", "parallelism.zero=3");
}
Test(extremes, failure_rate_at_limit) {
	SETS("hardware.failures_per_node_day=1000", "hardware.restart_time=30 days",
	     "hardware.checkpoint_bandwidth=1MB/s");  /* the least a rate may be */
}
Test(extremes, tiny_checkpoint_interval) {
	SETS("training.checkpoint_interval=1ms", "hardware.restart_time=0");
}

/* The absurd input: 10^30 tokens at an MFU of 10^-300.  The loader
 * refuses an MFU under TB_MFU_FLOOR (the catalogue pins its message);
 * inputs built around the loader get no verdict from an overflowed figure:
 * the time is unknown, never "YES: 0 s" and "$0.00". */
Test(extremes, absurd_mfu_refused_and_overflow_unknown)
{
	static const char *const bad[] = { "training.tokens=1e30", "hardware.mfu=1e-300" };
	tb_diags d;
	tb_diags_init(&d);
	tb_scenario *sc = tb_scenario_load("absurd.yaml", S_base, strlen(S_base), bad, 2, &d);
	cr_expect_null(sc, "an MFU of 1e-300 was accepted");
	char *msg = tb_diags_format(&d);
	cr_expect(msg && strstr(msg, "hardware.mfu '1e-300' is below 0.0001"), "%s", msg ? msg : "");
	free(msg);
	tb_scenario_free(sc);
	tb_diags_release(&d);

	static const char *const ok[] = { "training.tokens=1e30", "hardware.count=1",
	                                   "hardware.mfu=0.0001" };
	tb_diags_init(&d);
	sc = tb_scenario_load("absurd.yaml", S_base, strlen(S_base), ok, 3, &d);
	cr_assert_not_null(sc);
	for (int i = 0; i < 3; i++)
		sc->inputs.hardware.mfu[i] = 1e-300;   /* past the loader */
	memset(&S_b, 0xff, sizeof S_b);
	tb_budget_compute(&sc->inputs, &S_b);
	tb_budget_compute_risk(&sc->inputs, &S_b);
	S_check_budget(&S_b);
	cr_expect(!S_b.time.known, "an overflowed time is known");
	cr_expect(!S_b.time.meets_deadline && !S_b.time.within_budget);
	cr_expect(!S_b.losses.known);
	char *text = tb_render_text(sc, &S_b);
	S_check_output("text", text);
	cr_expect(strstr(text, "Meets deadline?  UNKNOWN") != NULL, "%s", text);
	cr_expect(strstr(text, "YES") == NULL && strstr(text, "$0.00") == NULL &&
	          strstr(text, " 0 s") == NULL, "%s", text);
	cr_expect(strstr(text, "Time and cost overflow") != NULL || strstr(text, "more (see") != NULL,
	          "%s", text);
	free(text);
	char *json = tb_render_json(sc, &S_b);
	S_check_output("json", json);
	cr_expect(strstr(json, "\"meets_deadline\": null") != NULL, "%s", json);
	free(json);
	tb_report_options opt;
	memset(&opt, 0, sizeof opt);
	opt.date = "2024-01-01";
	opt.command = "trainbudget report absurd.yaml";
	tb_report *r = tb_report_new(sc, &S_b, &opt, &d);
	cr_assert_not_null(r);
	const tb_report_meta *m = tb_report_get_meta(r);
	for (size_t i = 0; i < m->nverdict; i++)
		cr_expect(m->verdict[i].outcome != TB_OUTCOME_GOOD, "%s", m->verdict[i].text);
	cr_expect(strstr(m->verdict[1].text, "unknown") != NULL, "%s", m->verdict[1].text);
	cr_expect(strstr(m->verdict[2].text, "unknown") != NULL, "%s", m->verdict[2].text);
	tb_report_free(r);
	tb_scenario_free(sc);
	tb_diags_release(&d);
}
