/* render_json.c: the budget as JSON, the contract documented key by key in
 * docs/json.md.
 *
 * SI units throughout (counts, FLOP, bytes, seconds).  A figure the budget
 * marks unknown is null, and a warning says why.  Output is a pure function
 * of the scenario and the budget: numbers print in the shortest form that
 * reads back to the same double, keys in a fixed order, so the same input
 * gives byte-identical JSON. */
#include "trainbudget/render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/ceiling.h"
#include "trainbudget/gpus.h"
#include "trainbudget/version.h"

#include "json_write.h"

/* The shared writer (json_write.c) under this file's short names. */
typedef tb_jw S_json;
static void S_obj(S_json *j, const char *key) { tb_jw_obj(j, key); }
static void S_obj_end(S_json *j) { tb_jw_obj_end(j); }
static void S_arr(S_json *j, const char *key) { tb_jw_arr(j, key); }
static void S_arr_inline(S_json *j, const char *key) { tb_jw_arr_inline(j, key); }
static void S_arr_end(S_json *j) { tb_jw_arr_end(j); }
static void S_num(S_json *j, const char *key, double v) { tb_jw_num(j, key, v); }
static void S_null(S_json *j, const char *key) { tb_jw_null(j, key); }
static void S_numk(S_json *j, const char *key, double v, bool known) { tb_jw_numk(j, key, v, known); }
static void S_bool(S_json *j, const char *key, bool v) { tb_jw_bool(j, key, v); }
static void S_str(S_json *j, const char *key, const char *s) { tb_jw_str(j, key, s); }
static void S_nums3(S_json *j, const char *key, const double v[3], bool known)
{
	tb_jw_nums3(j, key, v, known);
}

/* ---- sections ---------------------------------------------------------- */

static void S_parameters(S_json *j, const tb_params *p)
{
	bool k = p->known_breakdown;
	S_obj(j, "parameters");
	S_num(j, "total", p->total);
	S_num(j, "active", p->active);
	S_numk(j, "embedding", p->embedding, k);
	S_numk(j, "attention", p->attention, k);
	S_numk(j, "mlp", p->mlp, k);
	S_numk(j, "norm", p->norm, k);
	S_numk(j, "output", p->output, k);
	S_numk(j, "router", p->router, k);
	S_numk(j, "experts", p->experts, k);
	S_num(j, "mtp", p->mtp);
	S_numk(j, "position", p->position, k);
	S_numk(j, "per_layer", p->per_layer, k);
	S_num(j, "trainable", p->trainable);
	S_num(j, "adapters", p->adapters);
	S_obj_end(j);
}

static void S_flops(S_json *j, const tb_flops *f)
{
	S_obj(j, "flops");
	S_num(j, "per_token_6n", f->per_token_6n);
	S_num(j, "per_token_model", f->per_token_model);
	S_num(j, "per_token_hardware", f->per_token_hardware);
	S_num(j, "total_6nd", f->total_6nd);
	S_num(j, "total_model", f->total_model);
	S_num(j, "total_hardware", f->total_hardware);
	S_num(j, "fwd_matmul_per_token", f->fwd_matmul_per_token);
	S_num(j, "fwd_attention_per_token", f->fwd_attention_per_token);
	S_num(j, "fwd_logits_per_token", f->fwd_logits_per_token);
	S_num(j, "recompute_per_token", f->recompute_per_token);
	S_num(j, "model_over_6n", f->model_over_6n);
	S_obj_end(j);
}

/* One GPU's line items.  Without activations the total is unknown, and
 * `fits` is null unless the budget knows the answer anyway. */
static void S_items(S_json *j, const tb_mem_items *m, bool act, bool fits,
                    bool fits_known)
{
	S_num(j, "weights", m->weights);
	S_num(j, "frozen_weights", m->frozen_weights);
	S_num(j, "fp8_weights", m->fp8_weights);
	S_num(j, "adapters", m->adapters);
	S_num(j, "gradients", m->gradients);
	S_num(j, "gathered_weights", m->gathered_weights);
	S_num(j, "gathered_gradients", m->gathered_gradients);
	S_num(j, "master_weights", m->master_weights);
	S_num(j, "optimizer", m->optimizer);
	S_numk(j, "activations", m->activations, act);
	S_num(j, "other", m->other);
	S_numk(j, "total", m->total, act);
	if (fits_known)
		S_bool(j, "fits", fits);
	else
		S_null(j, "fits");
}

static void S_memory(S_json *j, const tb_memory *m)
{
	bool act = m->activations_known;
	S_obj(j, "memory");
	S_obj(j, "bytes_per_param");
	S_num(j, "weights", m->bytes_per_param.weights);
	S_num(j, "gradients", m->bytes_per_param.gradients);
	S_num(j, "master_weights", m->bytes_per_param.master_weights);
	S_num(j, "optimizer", m->bytes_per_param.optimizer);
	S_num(j, "total", m->bytes_per_param.total);
	S_obj_end(j);
	S_num(j, "model_states_bytes", m->model_states_bytes);
	S_num(j, "frozen_weights_bytes", m->frozen_weights_bytes);
	S_num(j, "fp8_weights_bytes", m->fp8_weights_bytes);
	S_num(j, "fp8_replaced_bytes", m->fp8_replaced_bytes);
	S_num(j, "trained_weights_bytes", m->trained_weights_bytes);
	S_numk(j, "activations_per_layer_bytes", m->activations_per_layer_bytes, act);
	S_numk(j, "activations_bytes", m->activations_bytes, act);
	S_numk(j, "logits_bytes", m->logits_bytes, act);
	S_numk(j, "embedding_dropout_bytes", m->embedding_dropout_bytes, act);
	S_numk(j, "inflight_microbatches", (double)m->inflight_microbatches, act);
	S_numk(j, "inflight_chunks", (double)m->inflight_chunks, act);
	S_arr(j, "activation_items");
	for (int i = 0; act && i < m->n_act_items && i < TB_ACT_ITEMS_MAX; i++) {
		S_obj(j, NULL);
		S_str(j, "name", m->act_items[i].name);
		S_str(j, "shape", m->act_items[i].shape);
		S_num(j, "bytes", m->act_items[i].bytes);
		S_obj_end(j);
	}
	S_arr_end(j);
	S_num(j, "layers_on_busiest_stage", (double)m->layers_on_busiest_stage);
	S_bool(j, "gradients_whole", m->gradients_whole);
	S_bool(j, "weights_whole", m->weights_whole);

	S_obj(j, "per_gpu");
	S_items(j, &m->per_gpu, act, m->fits, m->fits_known);
	S_num(j, "capacity", m->capacity_bytes);
	S_numk(j, "headroom", m->headroom_bytes, act);
	S_numk(j, "max_micro_batch", (double)m->max_micro_batch, act);
	S_obj_end(j);
	S_numk(j, "fewest_recompute_layers", (double)m->fewest_recompute_layers,
	       m->fewest_recompute_layers > 0);
	S_numk(j, "fewest_recompute_bytes", m->fewest_recompute_bytes, m->fewest_recompute_layers > 0);

	S_arr(j, "zero");
	for (int z = 0; z < 4; z++) {
		S_obj(j, NULL);
		S_num(j, "stage", m->zero[z].stage);
		S_items(j, &m->zero[z].bytes, act, m->zero[z].fits, m->zero[z].fits_known);
		S_obj_end(j);
	}
	S_arr_end(j);

	static const char *const ck[3] = { "none", "selective", "full" };
	S_arr(j, "checkpointing");
	for (int c = 0; c < 3; c++) {
		const tb_ckpt_row *r = &m->checkpointing[c];
		S_obj(j, NULL);
		S_str(j, "mode", ck[c]);
		S_numk(j, "activations_bytes", r->activations_bytes, act);
		S_num(j, "extra_flops_fraction", r->extra_flops_fraction);
		S_numk(j, "total_bytes", r->total_bytes, act);
		if (r->fits_known)
			S_bool(j, "fits", r->fits);
		else
			S_null(j, "fits");
		S_obj_end(j);
	}
	S_arr_end(j);

	S_numk(j, "kv_cache_bytes_per_token", m->kv_cache_bytes_per_token, m->kv_cache_known);
	S_numk(j, "kv_cache_bytes_per_sequence", m->kv_cache_bytes_per_sequence, m->kv_cache_known);
	S_num(j, "max_params_fully_sharded", m->max_params_fully_sharded);
	S_num(j, "max_params_one_gpu", m->max_params_one_gpu);
	S_num(j, "max_params_this_layout", m->max_params_this_layout);
	S_obj_end(j);
}

static void S_time(S_json *j, const tb_time *t)
{
	bool k = t->known;
	S_obj(j, "time");
	S_str(j, "dtype", tb_dtype_name(t->dtype));
	S_numk(j, "peak_flops_per_gpu", t->peak_flops_per_gpu, t->peak_flops_per_gpu > 0);
	S_nums3(j, "mfu", t->mfu, true);
	S_nums3(j, "seconds", t->seconds, k);
	S_nums3(j, "gpu_hours", t->gpu_hours, k);
	S_nums3(j, "cost", t->cost, k);
	S_nums3(j, "energy_kwh", t->energy_kwh, k && t->energy_known);
	S_str(j, "currency", t->currency);

	S_numk(j, "deadline_s", t->deadline_s, t->has_deadline);
	if (t->has_deadline)
		S_bool(j, "meets_deadline", t->meets_deadline);
	else
		S_null(j, "meets_deadline");
	S_numk(j, "gpus_for_deadline_compute", t->gpus_for_deadline_compute, t->has_deadline);
	S_numk(j, "gpus_for_deadline", t->gpus_for_deadline, t->has_deadline);
	S_numk(j, "global_batch_for_compute", t->global_batch_for_compute,
	       t->has_deadline && t->global_batch_for_compute > 0);
	S_numk(j, "tokens_in_deadline", t->tokens_in_deadline, t->has_deadline);

	S_numk(j, "budget", t->budget, t->has_budget);
	if (t->has_budget)
		S_bool(j, "within_budget", t->within_budget);
	else
		S_null(j, "within_budget");
	S_numk(j, "tokens_in_budget", t->tokens_in_budget, t->has_budget && t->tokens_in_budget > 0);

	S_arr(j, "gpu_scan");
	for (int i = 0; k && i < t->n_gpu_scan && i < TB_GPU_SCAN_MAX; i++) {
		S_obj(j, NULL);
		S_num(j, "gpus", (double)t->gpu_scan[i].gpus);
		S_nums3(j, "seconds", t->gpu_scan[i].seconds, true);
		S_nums3(j, "cost", t->gpu_scan[i].cost, true);
		S_obj_end(j);
	}
	S_arr_end(j);

	S_obj(j, "measured");
	S_numk(j, "achieved_mfu", t->achieved_mfu, t->has_measured_step);
	S_numk(j, "achieved_hfu", t->achieved_hfu, t->has_measured_step);
	S_numk(j, "seconds", t->measured_seconds, t->has_measured_step);
	S_numk(j, "peak_memory_bytes", t->measured_peak_bytes, t->has_measured_memory);
	S_numk(j, "memory_estimate_error", t->memory_estimate_error, t->has_measured_memory);
	S_obj_end(j);
	S_obj_end(j);
}

static void S_goodput(S_json *j, const tb_budget *b)
{
	const tb_goodput *g = &b->goodput;
	const tb_losses *l = &b->losses;
	bool f = g->failures, w = b->time.known && g->progress;
	S_obj(j, "goodput");
	S_num(j, "gpus_per_node", g->gpus_per_node);
	S_num(j, "nodes", g->nodes);
	S_numk(j, "failure_rate_per_s", g->failure_rate_per_s, f);
	S_numk(j, "mtbf_s", g->mtbf_s, f);
	S_num(j, "checkpoint_bytes", g->checkpoint_bytes);
	S_num(j, "write_bytes_per_s", g->write_bytes_per_s);
	S_num(j, "checkpoint_save_s", g->checkpoint_save_s);
	S_numk(j, "checkpoint_interval_s", g->checkpoint_interval_s, g->checkpoint_interval_s > 0);
	S_str(j, "checkpoint_interval_source",
	      g->interval_from_user ? "scenario" : g->interval_is_step ? "one step"
	      : g->checkpoint_interval_s > 0 ? "young" : "none");
	S_num(j, "restart_s", g->restart_s);
	S_numk(j, "lost_per_failure_s", g->lost_per_failure_s, f);
	S_bool(j, "finishes", g->progress);
	S_numk(j, "expected_failures", g->expected_failures, w);
	S_numk(j, "checkpoint_s", g->checkpoint_s, w);
	S_numk(j, "lost_s", g->lost_s, w);
	S_numk(j, "fraction", g->fraction, g->progress);
	S_nums3(j, "seconds", l->seconds, l->known);
	S_nums3(j, "gpu_hours", l->gpu_hours, l->known);
	S_nums3(j, "cost", l->cost, l->known);
	S_nums3(j, "energy_kwh", l->energy_kwh, l->known && b->time.energy_known);
	S_obj_end(j);
}

static void S_cdf(S_json *j, const char *key, const double *v, bool known)
{
	if (!known) {
		S_null(j, key);
		return;
	}
	S_arr_inline(j, key);
	for (int i = 0; i < TB_RISK_CDF_POINTS; i++)
		S_num(j, NULL, v[i]);
	S_arr_end(j);
}

static void S_risk(S_json *j, const tb_budget *b)
{
	const tb_risk *r = &b->risk;
	bool k = r->known;
	static const char *const kinds[] = { "fixed", "triangular", "normal", "lognormal" };
	const tb_dist *u = &b->risk_mfu;
	S_obj(j, "risk");
	S_num(j, "samples", r->samples);
	char seed[24];   /* a 64-bit seed does not survive a JSON number */
	snprintf(seed, sizeof seed, "0x%016llx", (unsigned long long)r->seed);
	S_str(j, "seed", seed);
	S_obj(j, "mfu_band");
	S_str(j, "kind", (unsigned)u->kind < 4 ? kinds[u->kind] : "fixed");
	S_num(j, "a", u->a);
	S_num(j, "b", u->b);
	S_num(j, "c", u->c);
	S_obj_end(j);
	S_bool(j, "finishes", r->finishes);
	S_numk(j, "days_p10", r->days_p10, k);
	S_numk(j, "days_p50", r->days_p50, k);
	S_numk(j, "days_p90", r->days_p90, k);
	S_numk(j, "days_mean", r->days_mean, k);
	S_numk(j, "cost_p10", r->cost_p10, k);
	S_numk(j, "cost_p50", r->cost_p50, k);
	S_numk(j, "cost_p90", r->cost_p90, k);
	S_numk(j, "cost_mean", r->cost_mean, k);
	S_numk(j, "failures_mean", r->failures_mean, k);
	S_numk(j, "p_meets_deadline", r->p_meets_deadline, r->has_deadline && (k || !r->finishes));
	S_numk(j, "p_within_budget", r->p_within_budget, r->has_budget && (k || !r->finishes));
	S_numk(j, "budget_p90", r->budget_p90, k);
	S_cdf(j, "days_percentiles", r->days_cdf, k);
	S_cdf(j, "cost_percentiles", r->cost_cdf, k);
	S_obj_end(j);
}

/* The step-time model: null with a reason when it has no prediction. */
static void S_perf(S_json *j, const tb_perf_budget *pb)
{
	if (!pb->known) {
		S_null(j, "perf");
		S_str(j, "perf_why", pb->why ? pb->why : "");
		return;
	}
	const tb_perf_result *r = &pb->r;
	S_obj(j, "perf");
	S_num(j, "step_s", r->step_s);
	S_num(j, "tokens_per_s_per_gpu", r->tokens_per_s_per_gpu);
	S_num(j, "mfu", r->mfu);
	S_num(j, "hfu", r->hfu);
	S_num(j, "tflops_per_gpu", r->tflops_per_gpu);
	S_arr_inline(j, "mfu_band");
	S_num(j, NULL, pb->mfu_band[0]);
	S_num(j, NULL, pb->mfu_band[1]);
	S_arr_end(j);
	S_str(j, "source", tb_perf_source(pb));
	S_bool(j, "assumption_above_prediction", pb->assumption_above);
	if (pb->record) {
		S_obj(j, "held_out_record");
		S_str(j, "card", pb->record->card);
		S_str(j, "format", tb_ceiling_format_dtype(pb->record->dtype));
		S_num(j, "median_error", pb->record->median_err);
		S_num(j, "sources", (double)pb->record->sources);
		S_num(j, "runs", (double)pb->record->runs);
		S_num(j, "sources_within", (double)pb->record->sources_within);
		S_bool(j, "said", pb->record_said);
		S_obj_end(j);
	} else {
		S_null(j, "held_out_record");
	}
	S_obj(j, "breakdown_s");
	for (int i = 0; i < TB_PERF_TERMS; i++)
		S_num(j, tb_perf_term_name(i), r->breakdown_s[i]);
	S_obj_end(j);
	S_num(j, "microbatches", (double)r->microbatches);
	S_num(j, "bubble_fraction", r->bubble_fraction);
	S_obj(j, "stage_layers");
	S_num(j, "first", (double)r->stage_layers[0]);
	S_num(j, "middle", (double)r->stage_layers[1]);
	S_num(j, "last", (double)r->stage_layers[2]);
	S_obj_end(j);
	static const char *const stages[3] = { "first", "middle", "last" };
	S_str(j, "busiest_stage", stages[r->busiest_stage >= 0 && r->busiest_stage < 3 ? r->busiest_stage : 0]);
	S_num(j, "expert_load", r->expert_load);
	if (pb->balanced_layout[0]) {
		S_obj(j, "balanced_layout");
		S_str(j, "pipeline_layout", pb->balanced_layout);
		S_num(j, "last_layers", (double)pb->balanced.stage_layers[2]);
		S_num(j, "step_s", pb->balanced.step_s);
		S_obj_end(j);
	} else {
		S_null(j, "balanced_layout");
	}
	S_obj(j, "node");
	S_num(j, "gpus", (double)pb->in.hw.gpus_per_node);
	S_num(j, "nvlink_bytes_per_s", pb->in.hw.nvlink_bytes_per_s);
	S_num(j, "network_bytes_per_s", pb->in.hw.network_bytes_per_s);
	S_obj_end(j);
	if (pb->in.matmul_bytes == 1) {
		S_obj(j, "fp8");
		S_str(j, "recipe", tb_fp8_recipe_name(pb->in.fp8_recipe));
		S_num(j, "cast_bytes_per_element", pb->in.fp8_cast_bytes);
		S_num(j, "weight_cast_bytes_per_element",
		      pb->in.fp8_weight_cast_f_bytes + pb->in.fp8_weight_cast_b_bytes);
		S_bool(j, "weights_gathered_in_fp8", pb->in.fp8_gather);
		S_num(j, "cast_bandwidth_fraction", tb_perf_cast_bw_fraction(&pb->in, NULL));
		S_num(j, "gemm_time_ratio", pb->in.hw.recipe_gemm_ratio > 0 ? pb->in.hw.recipe_gemm_ratio : 1);
		S_obj_end(j);
	} else {
		S_null(j, "fp8");
	}
	if (pb->in.hw.attention_fp8_fwd_ratio > 0) {
		S_obj(j, "fp8_attention");
		S_str(j, "recipe", pb->in.fp8_attention_recipe == TB_FP8_DELAYED ? "delayed"
		                   : pb->in.fp8_attention_recipe == TB_FP8_MXFP8 ? "mxfp8" : "current");
		char rel[16];
		S_str(j, "release", tb_gpus_cudnn_name(pb->in.fp8_attention_table, rel));
		S_num(j, "forward_ratio", pb->in.hw.attention_fp8_fwd_ratio);
		S_num(j, "backward_ratio", pb->in.hw.attention_fp8_bwd_ratio);
		S_bool(j, "copied", pb->in.fp8_attention_copied);
		S_obj_end(j);
	} else {
		S_null(j, "fp8_attention");
	}
	if (pb->in.cudnn_table > 0) {
		char b[16];
		S_obj(j, "cudnn_attention");
		S_str(j, "release", tb_gpus_cudnn_name(pb->in.cudnn_table, b));
		S_num(j, "forward_scale", pb->in.cudnn_fwd_scale);
		S_num(j, "backward_scale", pb->in.cudnn_bwd_scale);
		S_obj_end(j);
	} else {
		S_null(j, "cudnn_attention");
	}
	if (tb_perf_fp4_format(&pb->in)) {
		S_obj(j, "fp4");
		S_str(j, "format", tb_perf_fp4_format(&pb->in));
		S_num(j, "bytes_per_element", pb->in.matmul_bytes);
		S_num(j, "cast_bytes_per_element", pb->in.fp8_cast_bytes);
		S_num(j, "cast_bandwidth_fraction", tb_perf_cast_bw_fraction(&pb->in, NULL));
		S_num(j, "matmul_fraction", pb->in.hw.matmul_ceiling);
		S_str(j, "matmul_fraction_basis", pb->fp4_basis ? pb->fp4_basis : "");
		S_obj_end(j);
	} else {
		S_null(j, "fp4");
	}
	S_arr(j, "variants");
	for (int i = 0; i < pb->n_variants && i < TB_PERF_VARIANTS; i++) {
		const tb_perf_variant *v = &pb->variants[i];
		S_obj(j, NULL);
		S_str(j, "label", v->label ? v->label : "");
		S_num(j, "gpus", (double)v->gpus);
		S_num(j, "step_s", v->step_s);
		S_num(j, "mfu", v->mfu);
		S_obj_end(j);
	}
	S_arr_end(j);
	S_obj_end(j);
}

static void S_levers(S_json *j, const tb_budget *b)
{
	S_arr(j, "levers");
	for (int i = 0; b->time.known && i < b->n_levers && i < TB_LEVERS_MAX; i++) {
		const tb_lever *l = &b->levers[i];
		S_obj(j, NULL);
		S_str(j, "label", l->label ? l->label : "");
		S_num(j, "seconds", l->seconds);
		S_num(j, "cost", l->cost);
		S_num(j, "delta_seconds_frac", l->delta_seconds_frac);
		S_num(j, "delta_cost_frac", l->delta_cost_frac);
		S_obj_end(j);
	}
	S_arr_end(j);
}

static void S_optimum(S_json *j, const char *key, const tb_optimum *o, bool known)
{
	if (!known) {
		S_null(j, key);
		return;
	}
	S_obj(j, key);
	S_num(j, "compute_flops", o->compute_flops);
	S_obj(j, "twenty_tokens_per_param");
	S_num(j, "params", o->params);
	S_num(j, "tokens", o->tokens);
	S_obj_end(j);
	S_obj(j, "hoffmann");
	S_num(j, "params", o->params_fit);
	S_num(j, "tokens", o->tokens_fit);
	S_obj_end(j);
	S_obj(j, "epoch");
	S_num(j, "params", o->params_epoch);
	S_num(j, "tokens", o->tokens_epoch);
	S_obj_end(j);
	S_obj_end(j);
}

static void S_chinchilla(S_json *j, const tb_budget *b)
{
	const tb_chinchilla *c = &b->chinchilla;
	bool tk = b->time.known;
	S_obj(j, "chinchilla");
	S_num(j, "compute_flops", c->compute_flops);
	S_num(j, "optimal_params", c->optimal_params);
	S_num(j, "optimal_tokens", c->optimal_tokens);
	S_num(j, "tokens_per_param", c->tokens_per_param);
	S_num(j, "scenario_tokens_per_param", c->scenario_tokens_per_param);
	S_numk(j, "loss", c->loss, c->loss_known);
	S_numk(j, "loss_epoch", c->loss_epoch, c->loss_known);
	S_optimum(j, "run", &c->run, c->compute_flops > 0);
	S_optimum(j, "deadline", &c->deadline, c->has_deadline);
	S_optimum(j, "budget", &c->budget, c->has_budget);
	S_arr(j, "plans");
	for (int i = 0; i < c->n_plans && i < TB_PLANS_MAX; i++) {
		const tb_plan_row *r = &c->plans[i];
		char label[64];
		tb_plan_label(r, false, label, sizeof label);
		static const char *const kinds[] = {
			[TB_PLAN_AS_PLANNED] = "as_planned", [TB_PLAN_OPTIMAL_20] = "optimal_20",
			[TB_PLAN_OPTIMAL_FIT] = "optimal_fit", [TB_PLAN_N_FIXED] = "n_fixed",
			[TB_PLAN_C_FIXED] = "c_fixed",
		};
		S_obj(j, NULL);
		S_str(j, "label", label);
		S_str(j, "kind", (unsigned)r->kind < sizeof kinds / sizeof kinds[0] ? kinds[r->kind] : "plan");
		S_num(j, "multiple", r->multiple);
		S_num(j, "params", r->params);
		S_num(j, "tokens", r->tokens);
		S_num(j, "flops", r->flops);
		S_numk(j, "seconds", r->seconds, tk);
		S_numk(j, "cost", r->cost, tk);
		S_numk(j, "loss", r->loss, r->loss > 0);
		S_numk(j, "loss_epoch", r->loss_epoch, r->loss_epoch > 0);
		S_num(j, "lifetime_flops", r->lifetime_flops);
		S_obj_end(j);
	}
	S_arr_end(j);
	S_obj_end(j);
}

static void S_fit(S_json *j, const tb_fit *f)
{
	S_obj(j, NULL);
	S_str(j, "label", f->label);
	S_num(j, "E", f->E);
	S_num(j, "A", f->A);
	S_num(j, "B", f->B);
	S_num(j, "alpha", f->alpha);
	S_num(j, "beta", f->beta);
	S_obj_end(j);
}

static void S_derivs(S_json *j, const tb_budget *b)
{
	S_arr(j, "derivations");
	for (int i = 0; i < b->n_derivs && i < TB_DERIVS_MAX; i++) {
		const tb_deriv *d = &b->derivs[i];
		S_obj(j, NULL);
		S_str(j, "key", d->key);
		S_str(j, "title", d->title);
		S_str(j, "symbol", d->sym);
		S_str(j, "formula", d->formula);
		S_num(j, "result", d->result);
		S_str(j, "unit", d->unit);
		S_str(j, "source", d->source);
		S_arr(j, "vars");
		for (int v = 0; v < d->nvars && v < TB_DERIV_VARS; v++) {
			S_obj(j, NULL);
			S_str(j, "symbol", d->vars[v].sym);
			S_str(j, "meaning", d->vars[v].meaning);
			S_num(j, "value", d->vars[v].value);
			S_str(j, "unit", d->vars[v].unit);
			S_obj_end(j);
		}
		S_arr_end(j);
		S_obj_end(j);
	}
	S_arr_end(j);
}

/* What the numbers rest on: each input file with its own hash, the
 * overrides, and the digest over them that the reports print. */
static void S_signoff(S_json *j, const tb_scenario *sc)
{
	const tb_signoff *so = &sc->signoff;
	S_str(j, "inputs_sha256", so->digest[0] ? so->digest : NULL);
	S_arr(j, "inputs");
	for (size_t i = 0; i < so->nfiles; i++) {
		S_obj(j, NULL);
		S_str(j, "role", tb_signoff_kind_name(so->files[i].kind));
		S_str(j, "path", so->files[i].path);
		S_str(j, "sha256", so->files[i].sha256);
		S_obj_end(j);
	}
	S_arr_end(j);
	S_arr(j, "sets");
	for (size_t i = 0; i < so->nsets; i++)
		S_str(j, NULL, so->sets[i]);
	S_arr_end(j);
	S_arr(j, "sweeps");
	for (size_t i = 0; i < so->nsweeps; i++)
		S_str(j, NULL, so->sweeps[i]);
	S_arr_end(j);
}

void tb_render_json_layout_keys(tb_jw *j, const tb_plan_layout *l)
{
	S_num(j, "tensor", (double)l->tensor);
	S_num(j, "pipeline", (double)l->pipeline);
	S_num(j, "virtual_pipeline", (double)l->virtual_pipeline);
	S_num(j, "context", (double)l->context);
	S_num(j, "expert", (double)l->expert);
	S_num(j, "data", (double)l->data);
	S_num(j, "zero", l->zero);
	S_str(j, "checkpointing", tb_checkpointing_name(l->checkpointing));
	S_bool(j, "sequence_parallel", l->sequence_parallel);
	S_num(j, "micro_batch", (double)l->micro_batch);
}

/* One layout of the search: the keys of plan.layouts[] (docs/json.md),
 * and `runs` when runs is 0 or 1 (plan.scenario). */
static void S_plan_layout_runs(S_json *j, const char *key, const tb_plan_result *p,
                               const tb_plan_layout *l, bool timed, int runs)
{
	S_obj(j, key);
	if (runs >= 0)
		S_bool(j, "runs", runs != 0);
	tb_render_json_layout_keys(j, l);
	S_num(j, "global_batch", (double)l->global_batch);
	S_str(j, "gpu", l->gpu >= 0 && l->gpu < p->n_gpus ? p->gpus[l->gpu].gpu.name
	                : p->scenario_gpu.gpu.name);
	S_num(j, "count", (double)l->count);
	S_numk(j, "step_s", l->step_s, timed);
	S_numk(j, "mfu", l->mfu, timed);
	S_num(j, "memory_per_gpu_bytes", l->memory_per_gpu_bytes);
	S_num(j, "capacity_bytes", l->capacity_bytes);
	S_num(j, "headroom_bytes", l->capacity_bytes - l->memory_per_gpu_bytes);
	S_numk(j, "seconds", l->seconds, timed);
	S_numk(j, "cost", l->cost, timed);
	S_numk(j, "microbatches", (double)l->microbatches, timed);
	S_numk(j, "bubble_fraction", l->bubble_fraction, timed);
	if (timed) {
		S_obj(j, "breakdown_s");
		for (int i = 0; i < TB_PERF_TERMS; i++)
			S_num(j, tb_perf_term_name(i), l->breakdown_s[i]);
		S_obj_end(j);
	} else {
		S_null(j, "breakdown_s");
	}
	S_obj_end(j);
}

static void S_plan_layout(S_json *j, const char *key, const tb_plan_result *p,
                          const tb_plan_layout *l, bool timed)
{
	S_plan_layout_runs(j, key, p, l, timed, -1);
}

/* The layout search: null with a reason when it was not run or could not
 * be (a count-only model). */
static void S_plan(S_json *j, const tb_plan_result *p)
{
	if (!p->known) {
		S_null(j, "plan");
		S_str(j, "plan_why", p->why && *p->why ? p->why : "not searched");
		return;
	}
	S_obj(j, "plan");
	S_str(j, "objective", p->objective == TB_PLAN_BY_COST ? "cost" : "time");
	S_num(j, "searched", (double)p->searched);
	S_num(j, "basis_scale", p->basis_scale > 0 ? p->basis_scale : 1);
	/* null from a search that skipped them (plan.h, best_only) */
	S_numk(j, "feasible", (double)p->feasible, p->counted);
	S_numk(j, "pruned_rules", (double)p->pruned_rules, p->counted);
	S_numk(j, "pruned_batch", (double)p->pruned_batch, p->counted);
	S_numk(j, "pruned_memory", (double)p->pruned_memory, p->counted);
	S_bool(j, "hardware_searched", p->hardware_searched);
	S_arr(j, "gpus");
	for (int i = 0; i < p->n_gpus && i < TB_PLAN_GPUS_MAX; i++) {
		S_obj(j, NULL);
		S_str(j, "name", p->gpus[i].gpu.name);
		S_num(j, "price_per_gpu_hour", p->gpus[i].price_per_gpu_hour);
		S_bool(j, "price_given", p->gpus[i].price_given);
		S_obj_end(j);
	}
	S_arr_end(j);
	S_arr(j, "layouts");
	for (int i = 0; i < p->n_layouts && i < TB_PLAN_TOP_MAX; i++)
		S_plan_layout(j, NULL, p, &p->layouts[i], true);
	S_arr_end(j);
	{
		/* the scenario's layout runs: it fits, is timed, and the batch
		 * splits over it (issue 19: plan ranks it, never refuses it) */
		int64_t unit = p->scenario.data * p->scenario.micro_batch;
		int runs = p->scenario_fits && p->scenario_known && unit > 0 &&
		           p->scenario.global_batch % unit == 0;
		S_plan_layout_runs(j, "scenario", p, &p->scenario, p->scenario_known, runs);
	}
	S_bool(j, "scenario_fits", p->scenario_fits);
	if (p->have_best_here)
		S_plan_layout(j, "best_same_hardware", p, &p->best_here, true);
	else
		S_null(j, "best_same_hardware");
	S_numk(j, "scenario_rank", (double)p->scenario_rank, p->scenario_rank > 0);
	double gain;
	bool better = tb_plan_better(p, &gain);
	S_bool(j, "better_exists", better);
	S_numk(j, "scenario_behind_frac", gain, p->scenario_known && p->scenario_fits &&
	       p->n_layouts > 0);
	S_arr(j, "front");
	for (int i = 0; i < p->n_front && i < TB_PLAN_FRONT_MAX; i++)
		S_plan_layout(j, NULL, p, &p->front[i], true);
	S_arr_end(j);
	char buf[2048];
	S_obj(j, "explanations");
	if (tb_plan_explain_runner_up(p, buf, sizeof buf))
		S_str(j, "runner_up", buf);
	else
		S_null(j, "runner_up");
	if (tb_plan_explain_scenario(p, buf, sizeof buf))
		S_str(j, "scenario", buf);
	else
		S_null(j, "scenario");
	S_obj_end(j);
	S_obj_end(j);
}

/* A layout's keys, as answer.layout and written.layout name them. */
static void S_layout_keys(S_json *j, const char *key, const tb_plan_layout *l)
{
	S_obj(j, key);
	tb_render_json_layout_keys(j, l);
	S_obj_end(j);
}

/* The one answer (answer.h): what is priced, on which basis, and the
 * figures a reviewer signs; means with failures, the percentiles beside
 * them.  Nothing priced when it cannot run. */
void tb_render_json_answer(tb_jw *j, const tb_scenario *sc, const tb_budget *b)
{
	const tb_answer *a = &b->answer;
	const tb_time *tm = &b->time;
	const tb_risk *r = &b->risk;
	const tb_inputs *in = sc ? &sc->inputs : NULL;
	S_obj(j, "answer");
	tb_plan_layout own;
	memset(&own, 0, sizeof own);
	if (!a->decided && in) {
		own.tensor = in->parallelism.tensor;
		own.pipeline = in->parallelism.pipeline;
		own.virtual_pipeline = in->parallelism.virtual_pipeline > 0 ? in->parallelism.virtual_pipeline : 1;
		own.context = in->parallelism.context > 0 ? in->parallelism.context : 1;
		own.expert = in->parallelism.expert;
		own.data = in->parallelism.data;
		own.zero = in->parallelism.zero;
		own.checkpointing = in->training.checkpointing;
		own.sequence_parallel = in->parallelism.sequence_parallel;
		own.micro_batch = in->training.micro_batch;
	}
	const tb_plan_layout *l = a->decided ? &a->layout : &own;
	bool runs = a->decided ? a->runs : (b->memory.fits_known ? b->memory.fits : true);
	S_layout_keys(j, "layout", a->decided && !a->runs ? &a->written : l);
	S_str(j, "layout_source", tb_layout_source_name(a->decided ? a->source : TB_LAYOUT_WRITTEN));
	S_arr_inline(j, "chosen_keys");
	for (unsigned bit = 1; bit & TB_LAYOUT_ALL; bit <<= 1)
		if (a->decided && (a->chosen & bit))
			S_str(j, NULL, tb_layout_key_name(bit));
	S_arr_end(j);
	S_bool(j, "runs", runs);
	char why[600];
	if (a->decided && tb_answer_text(a, why, sizeof why) && !a->runs)
		S_str(j, "why_not", why);
	else
		S_null(j, "why_not");
	S_str(j, "hints", a->decided && a->hints[0] ? a->hints : NULL);
	bool priced = runs && tm->known;
	bool sim = priced && r->known;
	const char *src = tm->mfu_measured ? "measured" : in && !in->hardware.mfu_predicted ? "assumed"
	                  : tb_perf_source(&b->perf);
	S_numk(j, "mfu", tm->mfu[1], priced);
	S_str(j, "mfu_source", src);
	S_numk(j, "step_s", a->step_s, priced && a->step_s > 0);
	/* "expected" as every document says it (tb_budget_expected) */
	tb_expected x = tb_budget_expected(b);
	S_numk(j, "days", x.seconds / 86400, sim && x.known);
	S_numk(j, "gpu_hours", x.gpu_hours, sim && x.known);
	S_numk(j, "cost", x.cost, sim && x.known);
	S_numk(j, "days_p50", r->days_p50, sim);
	S_numk(j, "days_p90", r->days_p90, sim);
	S_numk(j, "cost_p50", r->cost_p50, sim);
	S_numk(j, "cost_p90", r->cost_p90, sim);
	S_numk(j, "p_meets_deadline", r->p_meets_deadline, sim && r->has_deadline);
	S_numk(j, "p_within_budget", r->p_within_budget, sim && r->has_budget);
	S_obj_end(j);
}

/* A run in stages (stages.h): each as it prices alone; [] when the run
 * is one stage. */
static void S_stages(S_json *j, const tb_budget *b)
{
	S_arr(j, "stages");
	for (int i = 0; i < b->n_stages; i++) {
		const tb_stage_row *r = &b->stages[i];
		tb_jw_obj(j, NULL);
		S_str(j, "name", r->name);
		S_num(j, "tokens", r->tokens);
		S_num(j, "seq_len", (double)r->seq_len);
		S_num(j, "global_batch", (double)r->global_batch);
		S_str(j, "method", tb_method_name(r->method));
		S_str(j, "precision", tb_precision_name(r->precision));
		S_layout_keys(j, "layout", &r->layout);
		S_bool(j, "runs", r->runs);
		S_numk(j, "step_s", r->step_s, r->known && r->step_s > 0);
		S_numk(j, "mfu", r->mfu, r->known);
		S_num(j, "memory_per_gpu_bytes", r->memory_per_gpu_bytes);
		if (r->fits_known)
			S_bool(j, "fits", r->fits);
		else
			S_null(j, "fits");
		S_obj(j, "answer");
		S_numk(j, "days", r->days, r->known);
		S_numk(j, "gpu_hours", r->gpu_hours, r->known);
		S_numk(j, "cost", r->cost, r->known);
		S_numk(j, "energy_kwh", r->energy_kwh, r->known);
		S_obj_end(j);
		S_obj_end(j);
	}
	S_arr_end(j);
	if (b->n_stages > 0)
		S_str(j, "stage_memory_max", b->stages[b->stage_memory_max].name);
	else
		S_null(j, "stage_memory_max");
}

/* The expected run's bill, part by part (bill.h): its total is the
 * answer's cost.  Without a bill rule the compute is the whole. */
static void S_cost(S_json *j, const tb_budget *b)
{
	tb_expected x = tb_budget_expected(b);
	bool k = x.known;
	tb_bill bl = tb_budget_bill(b);
	bool booked = b->bill_in.reservation_s > 0;
	S_obj(j, "cost");
	S_numk(j, "compute", bl.compute - bl.ablations, k);
	S_numk(j, "ablations", bl.ablations, k);
	S_numk(j, "reservation", bl.reservation, k && booked);
	S_numk(j, "idle", bl.idle, k && booked);
	S_numk(j, "booked_days", bl.booked_s / 86400, k && booked);
	S_numk(j, "storage", bl.storage, k);
	S_numk(j, "total", x.cost, k);
	S_obj_end(j);
	S_stages(j, b);
	S_obj(j, "total");
	S_numk(j, "days", x.seconds / 86400, k);
	S_numk(j, "gpu_hours", x.gpu_hours, k);
	S_numk(j, "cost", x.cost, k);
	S_numk(j, "energy_kwh", x.energy_kwh, k && b->time.energy_known);
	S_obj_end(j);
}

static void S_answer(S_json *j, const tb_scenario *sc, const tb_budget *b)
{
	const tb_answer *a = &b->answer;
	tb_render_json_answer(j, sc, b);
	if (a->decided && (a->source == TB_LAYOUT_REPLACED || !a->runs ||
	                   !tb_plan_same_layout(&a->layout, &a->written))) {
		S_obj(j, "written");
		S_layout_keys(j, "layout", &a->written);
		S_num(j, "memory_per_gpu_bytes", a->written.memory_per_gpu_bytes);
		S_bool(j, "runs", a->written_runs);
		if (a->written_runs)
			S_null(j, "why_not");
		else
			S_str(j, "why_not", a->written_why_not);
		S_obj_end(j);
	} else {
		S_null(j, "written");
	}
}

void tb_render_json_members(tb_jw *j, const tb_scenario *sc, const tb_budget *b)
{
	S_str(j, "version", TB_VERSION);
	S_obj(j, "scenario");
	S_str(j, "title", sc ? sc->title : NULL);
	S_str(j, "sha256", sc ? sc->sha256 : NULL);
	S_str(j, "name", sc ? sc->name : NULL);
	S_str(j, "author", sc ? sc->author : NULL);
	S_str(j, "date", sc ? sc->date : NULL);
	S_str(j, "lang", sc && sc->lang[0] ? sc->lang : "en");
	if (sc)
		S_signoff(j, sc);
	S_obj_end(j);
	S_answer(j, sc, b);
	if (sc)
		tb_render_json_inputs(j, sc);
	S_parameters(j, &b->params);
	S_flops(j, &b->flops);
	S_memory(j, &b->memory);
	S_perf(j, &b->perf);
	tb_render_json_calibration(j, sc ? &sc->inputs : NULL, b);
	S_plan(j, &b->plan);
	S_time(j, &b->time);
	S_goodput(j, b);
	S_risk(j, b);
	S_cost(j, b);
	S_levers(j, b);
	S_chinchilla(j, b);
	S_arr(j, "fits");
	S_fit(j, &tb_fit_hoffmann);
	S_fit(j, &tb_fit_epoch);
	S_arr_end(j);
	S_derivs(j, b);
	S_arr(j, "warnings");
	for (int i = 0; i < b->n_warnings && i < TB_WARNINGS_MAX; i++)
		S_str(j, NULL, b->warnings[i]);
	S_arr_end(j);
}

char *tb_render_json(const tb_scenario *sc, const tb_budget *b)
{
	tb_buf out;
	tb_buf_init(&out);
	S_json j;
	memset(&j, 0, sizeof j);
	j.out = &out;
	S_obj(&j, NULL);
	tb_render_json_members(&j, sc, b);
	S_obj_end(&j);
	tb_buf_putc(&out, '\n');
	return tb_buf_detach(&out, NULL);
}
