/* report.c: the report model.
 *
 * Expands a template (template.c) against a name table over the scenario
 * and its budget.  Everything here selects and formats; nothing computes a
 * figure the budget does not hold.  Tables, charts and derivations become
 * custom blocks whose user_data is a tb_block owned by the report. */
#include "trainbudget/report.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "template.h"
#include "templates.h"
#include "trainbudget/buf.h"
#include "trainbudget/fmt.h"
#include "trainbudget/version.h"
#include "trainbudget/xalloc.h"

#define S_KEY_MAX 10

struct tb_report {
	const tb_scenario *sc;
	const tb_budget *b;
	cmark_node *root;
	tb_block **blocks;
	size_t nblocks, cap;
	tb_report_meta meta;
	tb_verdict_line verdict[3];
	char *key_labels[S_KEY_MAX];
	char *key_values[S_KEY_MAX];
	char *date, *command;
	char short_hash[13];
};

/* ---- formatting ------------------------------------------------------ */

typedef enum {
	S_F_SCI, S_F_BYTES, S_F_GIB, S_F_COUNT, S_F_GROUPED, S_F_DAYS,
	S_F_MONEY, S_F_PCT, S_F_PLAIN, S_F_NFILTERS
} S_filter;

static const char *const S_filter_names[S_F_NFILTERS] = {
	"sci", "bytes", "gib", "count", "grouped", "days", "money", "pct", "plain"
};

static void S_fmt(tb_buf *o, S_filter f, double v, const char *currency)
{
	if (!isfinite(v)) {
		tb_buf_puts(o, "n/a");
		return;
	}
	switch (f) {
	case S_F_SCI: tb_fmt_sci(o, v, 3, false); break;
	case S_F_BYTES: tb_fmt_bytes(o, v < 0 ? 0 : v); break;
	case S_F_GIB: tb_fmt_gib(o, v < 0 ? 0 : v); break;
	case S_F_COUNT: tb_fmt_count(o, v); break;
	case S_F_GROUPED: tb_fmt_grouped(o, v); break;
	case S_F_DAYS: tb_fmt_days(o, v); break;
	case S_F_MONEY: tb_fmt_money(o, v, currency && *currency ? currency : "USD"); break;
	case S_F_PCT: tb_fmt_pct(o, v); break;
	case S_F_PLAIN:
	case S_F_NFILTERS:
		if (fabs(v) >= 1e6 || (v != 0 && fabs(v) < 1e-3))
			tb_fmt_sci(o, v, 3, false);
		else if (v == floor(v))
			tb_buf_printf(o, "%.0f", v);
		else
			tb_fmt_sig(o, v, 3);
		break;
	}
}

static char *S_fmts(S_filter f, double v, const char *currency)
{
	tb_buf o;
	tb_buf_init(&o);
	S_fmt(&o, f, v, currency);
	return tb_buf_detach(&o, NULL);
}

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static char *S_strf(const char *fmt, ...)
{
	tb_buf o;
	tb_buf_init(&o);
	va_list ap;
	va_start(ap, fmt);
	tb_buf_vprintf(&o, fmt, ap);
	va_end(ap);
	return tb_buf_detach(&o, NULL);
}

/* Copies into a fixed array without cutting a UTF-8 sequence in half. */
static void S_copy(char *dst, size_t cap, const char *src)
{
	size_t n = src ? strlen(src) : 0;
	if (n >= cap) {
		n = cap - 1;
		while (n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80)
			n--;
	}
	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
}

static const char *S_currency(const tb_report *r)
{
	if (r->b->time.currency[0])
		return r->b->time.currency;
	return r->sc->inputs.hardware.currency;
}

/* ---- values ---------------------------------------------------------- */

typedef enum { S_T_D, S_T_I64, S_T_INT, S_T_BOOL } S_vtype;
typedef enum { S_SRC_BUDGET, S_SRC_INPUTS } S_src;

typedef struct S_value_def {
	const char *name;
	S_src src;
	size_t off;
	S_vtype type;
	S_filter filter;        /* default */
} S_value_def;

#define BD(n, field, f) { n, S_SRC_BUDGET, offsetof(tb_budget, field), S_T_D, f }
#define BI(n, field, f) { n, S_SRC_BUDGET, offsetof(tb_budget, field), S_T_I64, f }
#define BB(n, field) { n, S_SRC_BUDGET, offsetof(tb_budget, field), S_T_BOOL, S_F_PLAIN }
#define ID(n, field, f) { n, S_SRC_INPUTS, offsetof(tb_inputs, field), S_T_D, f }
#define II(n, field, f) { n, S_SRC_INPUTS, offsetof(tb_inputs, field), S_T_I64, f }
#define IN(n, field, f) { n, S_SRC_INPUTS, offsetof(tb_inputs, field), S_T_INT, f }
#define IB(n, field) { n, S_SRC_INPUTS, offsetof(tb_inputs, field), S_T_BOOL, S_F_PLAIN }

static const S_value_def S_values[] = {
	/* model */
	II("model.layers", model.layers, S_F_GROUPED),
	II("model.hidden", model.hidden, S_F_GROUPED),
	II("model.heads", model.heads, S_F_GROUPED),
	II("model.kv_heads", model.kv_heads, S_F_GROUPED),
	II("model.head_dim", model.head_dim, S_F_GROUPED),
	II("model.ffn_hidden", model.ffn_hidden, S_F_GROUPED),
	II("model.vocab", model.vocab, S_F_GROUPED),
	II("model.experts", model.experts, S_F_GROUPED),
	II("model.experts_per_token", model.experts_per_token, S_F_GROUPED),
	IB("model.tied_embeddings", model.tied_embeddings),
	/* training */
	ID("training.tokens", training.tokens, S_F_COUNT),
	II("training.seq_len", training.seq_len, S_F_GROUPED),
	II("training.global_batch", training.global_batch, S_F_GROUPED),
	II("training.micro_batch", training.micro_batch, S_F_GROUPED),
	IB("training.flash_attention", training.flash_attention),
	IB("training.dropout", training.dropout),
	/* hardware */
	II("hardware.count", hardware.count, S_F_GROUPED),
	ID("hardware.mfu.low", hardware.mfu[0], S_F_PCT),
	ID("hardware.mfu.expected", hardware.mfu[1], S_F_PCT),
	ID("hardware.mfu.high", hardware.mfu[2], S_F_PCT),
	ID("hardware.price_per_gpu_hour", hardware.price_per_gpu_hour, S_F_MONEY),
	ID("hardware.pue", hardware.pue, S_F_PLAIN),
	ID("hardware.overhead_bytes", hardware.overhead_bytes, S_F_BYTES),
	ID("hardware.memory_bytes", hardware.gpu.memory_bytes, S_F_BYTES),
	ID("hardware.tdp_w", hardware.gpu.tdp_w, S_F_GROUPED),
	/* parallelism */
	II("parallelism.tensor", parallelism.tensor, S_F_GROUPED),
	II("parallelism.pipeline", parallelism.pipeline, S_F_GROUPED),
	II("parallelism.data", parallelism.data, S_F_GROUPED),
	II("parallelism.expert", parallelism.expert, S_F_GROUPED),
	IN("parallelism.zero", parallelism.zero, S_F_PLAIN),
	IB("parallelism.sequence_parallel", parallelism.sequence_parallel),
	/* plan */
	ID("plan.deadline_s", plan.deadline_s, S_F_DAYS),
	ID("plan.budget", plan.budget, S_F_MONEY),
	ID("plan.inference_tokens", plan.inference_tokens, S_F_COUNT),
	/* parameters */
	BD("parameters.total", params.total, S_F_COUNT),
	BD("parameters.active", params.active, S_F_COUNT),
	BD("parameters.embedding", params.embedding, S_F_COUNT),
	BD("parameters.attention", params.attention, S_F_COUNT),
	BD("parameters.mlp", params.mlp, S_F_COUNT),
	BD("parameters.router", params.router, S_F_COUNT),
	BD("parameters.norm", params.norm, S_F_COUNT),
	BD("parameters.output", params.output, S_F_COUNT),
	BD("parameters.position", params.position, S_F_COUNT),
	BD("parameters.per_layer", params.per_layer, S_F_COUNT),
	/* flops */
	BD("flops.per_token_6n", flops.per_token_6n, S_F_SCI),
	BD("flops.per_token_model", flops.per_token_model, S_F_SCI),
	BD("flops.per_token_hardware", flops.per_token_hardware, S_F_SCI),
	BD("flops.total_6nd", flops.total_6nd, S_F_SCI),
	BD("flops.total_model", flops.total_model, S_F_SCI),
	BD("flops.total_hardware", flops.total_hardware, S_F_SCI),
	BD("flops.fwd_matmul_per_token", flops.fwd_matmul_per_token, S_F_SCI),
	BD("flops.fwd_attention_per_token", flops.fwd_attention_per_token, S_F_SCI),
	BD("flops.fwd_logits_per_token", flops.fwd_logits_per_token, S_F_SCI),
	BD("flops.recompute_per_token", flops.recompute_per_token, S_F_SCI),
	BD("flops.model_over_6n", flops.model_over_6n, S_F_PLAIN),
	/* memory */
	BD("memory.bytes_per_param.weights", memory.bytes_per_param.weights, S_F_PLAIN),
	BD("memory.bytes_per_param.gradients", memory.bytes_per_param.gradients, S_F_PLAIN),
	BD("memory.bytes_per_param.master_weights", memory.bytes_per_param.master_weights, S_F_PLAIN),
	BD("memory.bytes_per_param.optimizer", memory.bytes_per_param.optimizer, S_F_PLAIN),
	BD("memory.bytes_per_param.total", memory.bytes_per_param.total, S_F_PLAIN),
	BD("memory.model_states_bytes", memory.model_states_bytes, S_F_BYTES),
	BD("memory.activations_per_layer_bytes", memory.activations_per_layer_bytes, S_F_BYTES),
	BD("memory.activations_bytes", memory.activations_bytes, S_F_BYTES),
	BD("memory.logits_bytes", memory.logits_bytes, S_F_BYTES),
	BD("memory.embedding_output_bytes", memory.embedding_output_bytes, S_F_BYTES),
	BI("memory.inflight_microbatches", memory.inflight_microbatches, S_F_GROUPED),
	BI("memory.layers_on_busiest_stage", memory.layers_on_busiest_stage, S_F_GROUPED),
	BD("memory.per_gpu.weights", memory.per_gpu.weights, S_F_BYTES),
	BD("memory.per_gpu.gradients", memory.per_gpu.gradients, S_F_BYTES),
	BD("memory.per_gpu.master_weights", memory.per_gpu.master_weights, S_F_BYTES),
	BD("memory.per_gpu.optimizer", memory.per_gpu.optimizer, S_F_BYTES),
	BD("memory.per_gpu.activations", memory.per_gpu.activations, S_F_BYTES),
	BD("memory.per_gpu.other", memory.per_gpu.other, S_F_BYTES),
	BD("memory.per_gpu.total", memory.per_gpu.total, S_F_BYTES),
	BD("memory.per_gpu.capacity", memory.capacity_bytes, S_F_BYTES),
	BI("memory.max_micro_batch", memory.max_micro_batch, S_F_GROUPED),
	BD("memory.kv_cache_bytes_per_token", memory.kv_cache_bytes_per_token, S_F_BYTES),
	BD("memory.kv_cache_bytes_per_sequence", memory.kv_cache_bytes_per_sequence, S_F_BYTES),
	BD("memory.max_params_unsharded", memory.max_params_unsharded, S_F_COUNT),
	BD("memory.max_params_at_zero", memory.max_params_at_zero, S_F_COUNT),
	/* time, cost, energy: .low/.expected/.high are the MFU's index */
	BD("time.peak_flops_per_gpu", time.peak_flops_per_gpu, S_F_SCI),
	BD("time.mfu.low", time.mfu[0], S_F_PCT),
	BD("time.mfu.expected", time.mfu[1], S_F_PCT),
	BD("time.mfu.high", time.mfu[2], S_F_PCT),
	BD("time.seconds.low", time.seconds[0], S_F_DAYS),
	BD("time.seconds.expected", time.seconds[1], S_F_DAYS),
	BD("time.seconds.high", time.seconds[2], S_F_DAYS),
	BD("time.gpu_hours.low", time.gpu_hours[0], S_F_GROUPED),
	BD("time.gpu_hours.expected", time.gpu_hours[1], S_F_GROUPED),
	BD("time.gpu_hours.high", time.gpu_hours[2], S_F_GROUPED),
	BD("time.cost.low", time.cost[0], S_F_MONEY),
	BD("time.cost.expected", time.cost[1], S_F_MONEY),
	BD("time.cost.high", time.cost[2], S_F_MONEY),
	BD("time.energy_kwh.low", time.energy_kwh[0], S_F_GROUPED),
	BD("time.energy_kwh.expected", time.energy_kwh[1], S_F_GROUPED),
	BD("time.energy_kwh.high", time.energy_kwh[2], S_F_GROUPED),
	BD("time.deadline_s", time.deadline_s, S_F_DAYS),
	BB("time.meets_deadline", time.meets_deadline),
	BD("time.gpus_for_deadline", time.gpus_for_deadline, S_F_GROUPED),
	BD("time.tokens_in_deadline", time.tokens_in_deadline, S_F_COUNT),
	BD("time.budget", time.budget, S_F_MONEY),
	BB("time.within_budget", time.within_budget),
	BD("time.tokens_in_budget", time.tokens_in_budget, S_F_COUNT),
	BD("time.achieved_mfu", time.achieved_mfu, S_F_PCT),
	BD("time.achieved_hfu", time.achieved_hfu, S_F_PCT),
	BD("time.measured_seconds", time.measured_seconds, S_F_DAYS),
	BD("time.measured_peak_bytes", time.measured_peak_bytes, S_F_BYTES),
	BD("time.memory_estimate_error", time.memory_estimate_error, S_F_PCT),
	/* scaling laws */
	BD("chinchilla.compute_flops", chinchilla.compute_flops, S_F_SCI),
	BD("chinchilla.optimal_params", chinchilla.optimal_params, S_F_COUNT),
	BD("chinchilla.optimal_tokens", chinchilla.optimal_tokens, S_F_COUNT),
	BD("chinchilla.tokens_per_param", chinchilla.tokens_per_param, S_F_PLAIN),
	BD("chinchilla.scenario_tokens_per_param", chinchilla.scenario_tokens_per_param, S_F_PLAIN),
	BD("chinchilla.params_fit", chinchilla.run.params_fit, S_F_COUNT),
	BD("chinchilla.tokens_fit", chinchilla.run.tokens_fit, S_F_COUNT),
	BD("chinchilla.params_epoch", chinchilla.run.params_epoch, S_F_COUNT),
	BD("chinchilla.tokens_epoch", chinchilla.run.tokens_epoch, S_F_COUNT),
	BD("chinchilla.loss", chinchilla.loss, S_F_PLAIN),
	BD("chinchilla.loss_epoch", chinchilla.loss_epoch, S_F_PLAIN),
	BD("chinchilla.deadline.compute_flops", chinchilla.deadline.compute_flops, S_F_SCI),
	BD("chinchilla.deadline.params", chinchilla.deadline.params, S_F_COUNT),
	BD("chinchilla.deadline.tokens", chinchilla.deadline.tokens, S_F_COUNT),
	BD("chinchilla.budget.compute_flops", chinchilla.budget.compute_flops, S_F_SCI),
	BD("chinchilla.budget.params", chinchilla.budget.params, S_F_COUNT),
	BD("chinchilla.budget.tokens", chinchilla.budget.tokens, S_F_COUNT),
};

#define S_NVALUES (sizeof S_values / sizeof S_values[0])

/* Text values; each returns NULL when absent (printed as "n/a"). */
static const char *const S_text_names[] = {
	"scenario.title", "scenario.author", "scenario.date", "scenario.sha256",
	"scenario.sha256_short", "scenario.name", "scenario.path", "scenario.notes",
	"scenario.text", "report.date", "report.version", "report.command",
	"model.preset", "training.precision", "training.optimizer",
	"training.checkpointing", "training.attention_flops", "hardware.gpu",
	"hardware.gpu_label", "hardware.gpu_source", "hardware.currency",
	"time.dtype", "memory.fits", "memory.headroom", "memory.shortfall",
	"flops.recompute_fraction", "memory.per_gpu.known",
};

#define S_NTEXT (sizeof S_text_names / sizeof S_text_names[0])

static const char *S_yesno(bool v) { return v ? "yes" : "no"; }

/* Does it fit?  The budget says whether its answer is one (fits_known):
 * without activations only a NO is, when states and overhead alone
 * exceed the card. */
typedef enum { S_FIT_YES, S_FIT_NO, S_FIT_UNKNOWN } S_fit;

static S_fit S_fit_of(bool fits, bool fits_known)
{
	return !fits_known ? S_FIT_UNKNOWN : fits ? S_FIT_YES : S_FIT_NO;
}

static const char *S_fits_word(bool fits, bool fits_known)
{
	static const char *const words[] = { "yes", "no", "unknown" };
	return words[S_fit_of(fits, fits_known)];
}

/* Figures that include activations, or follow from a total that does:
 * "n/a" for a count-only model rather than a total missing a term. */
static const char *const S_act_names[] = {
	"memory.activations_per_layer_bytes", "memory.activations_bytes",
	"memory.logits_bytes", "memory.embedding_output_bytes",
	"memory.per_gpu.activations", "memory.per_gpu.total", "memory.headroom",
	"memory.shortfall", "memory.max_micro_batch",
};

static bool S_needs_activations(const char *name)
{
	for (size_t k = 0; k < sizeof S_act_names / sizeof S_act_names[0]; k++)
		if (strcmp(S_act_names[k], name) == 0)
			return true;
	return false;
}

/* Fills *num and returns true for numbers; sets *txt for text. */
static bool S_lookup(const tb_report *r, const char *name, double *num,
                     S_filter *deflt, const char **txt, bool *found)
{
	const tb_scenario *sc = r->sc;
	const tb_inputs *in = &sc->inputs;
	const tb_budget *b = r->b;
	*found = true;
	*txt = NULL;
	for (size_t k = 0; k < S_NVALUES; k++) {
		const S_value_def *v = &S_values[k];
		if (strcmp(v->name, name) != 0)
			continue;
		const char *base = v->src == S_SRC_BUDGET ? (const char *)b : (const char *)in;
		*deflt = v->filter;
		switch (v->type) {
		case S_T_D: { double x; memcpy(&x, base + v->off, sizeof x); *num = x; return true; }
		case S_T_I64: { int64_t x; memcpy(&x, base + v->off, sizeof x); *num = (double)x; return true; }
		case S_T_INT: { int x; memcpy(&x, base + v->off, sizeof x); *num = x; return true; }
		case S_T_BOOL: { bool x; memcpy(&x, base + v->off, sizeof x); *txt = S_yesno(x); return false; }
		}
	}
	size_t k = 0;
	for (; k < S_NTEXT; k++)
		if (strcmp(S_text_names[k], name) == 0)
			break;
	if (k == S_NTEXT) {
		*found = false;
		return false;
	}
	*deflt = S_F_PLAIN;
	switch (k) {
	case 0: *txt = sc->title; break;
	case 1: *txt = sc->author; break;
	case 2: *txt = sc->date; break;
	case 3: *txt = sc->sha256; break;
	case 4: *txt = r->short_hash; break;
	case 5: *txt = sc->name; break;
	case 6: *txt = sc->path; break;
	case 7: *txt = sc->notes; break;
	case 8: *txt = sc->text; break;
	case 9: *txt = r->date; break;
	case 10: *txt = TB_VERSION; break;
	case 11: *txt = r->command; break;
	case 12: *txt = in->model.preset[0] ? in->model.preset : NULL; break;
	case 13: *txt = tb_precision_name(in->training.precision); break;
	case 14: *txt = tb_optimizer_name(in->training.optimizer); break;
	case 15: *txt = tb_checkpointing_name(in->training.checkpointing); break;
	case 16: *txt = in->training.attention_flops == TB_ATTN_FLOPS_CAUSAL
		         ? "causal (FlashAttention: the lower triangle, half the score matrix)"
		         : "full (PaLM: the whole score matrix)"; break;
	case 17: *txt = in->hardware.gpu.name; break;
	case 18: *txt = in->hardware.gpu.label; break;
	case 19: *txt = in->hardware.gpu.source; break;
	case 20: *txt = S_currency(r); break;
	case 21: *txt = tb_dtype_name(b->time.dtype); break;
	case 22: *txt = S_fits_word(b->memory.fits, b->memory.fits_known); break;
	/* never a negative memory figure: the two sides are separate names */
	case 23: *num = b->memory.headroom_bytes > 0 ? b->memory.headroom_bytes : 0;
		*deflt = S_F_BYTES; return true;
	case 24: *num = b->memory.headroom_bytes < 0 ? -b->memory.headroom_bytes : 0;
		*deflt = S_F_BYTES; return true;
	case 25: {
		int m = (int)in->training.checkpointing;
		*num = m >= 0 && m < 3 ? b->memory.checkpointing[m].extra_flops_fraction : 0;
		*deflt = S_F_PCT;
		return true;
	}
	case 26: *num = b->memory.per_gpu.total - b->memory.per_gpu.activations; *deflt = S_F_BYTES; return true;
	default: break;
	}
	return false;
}

static bool S_filter_find(const char *name, S_filter *f)
{
	for (int k = 0; k < S_F_NFILTERS; k++)
		if (strcmp(S_filter_names[k], name) == 0) {
			*f = (S_filter)k;
			return true;
		}
	return false;
}

static tb_tpl_status S_env_value(void *ctx, const char *name, const char *filter,
                                 tb_buf *out)
{
	const tb_report *r = ctx;
	double num = 0;
	S_filter deflt = S_F_PLAIN, f = S_F_PLAIN;
	const char *txt = NULL;
	bool found;
	bool is_num = S_lookup(r, name, &num, &deflt, &txt, &found);
	if (!found)
		return TB_TPL_UNKNOWN_NAME;
	if (filter && !S_filter_find(filter, &f))
		return TB_TPL_UNKNOWN_FILTER;
	if (!r->b->memory.activations_known && S_needs_activations(name)) {
		/* a shortfall the states alone make is still a shortfall */
		if (strcmp(name, "memory.shortfall") == 0 && num > 0)
			S_fmt(out, filter ? f : deflt, num, S_currency(r));
		else
			tb_buf_puts(out, "n/a");
		return TB_TPL_OK;
	}
	if (!is_num) {
		if (filter && strcmp(filter, "plain") != 0)
			return TB_TPL_BAD_FILTER;
		tb_buf_puts(out, txt && *txt ? txt : "n/a");
		return TB_TPL_OK;
	}
	S_fmt(out, filter ? f : deflt, num, S_currency(r));
	return TB_TPL_OK;
}

/* ---- conditions ------------------------------------------------------ */

static const char *const S_cond_names[] = {
	"moe", "measured", "measured_step", "measured_memory", "deadline",
	"budget", "notes", "author", "date", "fits", "meets_deadline",
	"within_budget", "activations_known", "inference", "breakdown",
	"warnings", "tied_embeddings", "flash_attention", "pipeline", "tensor",
	"zero", "levers", "plans", "gpu_scan", "derivations", "mixed_precision",
	"does_not_fit", "fit_unknown",
};

#define S_NCOND (sizeof S_cond_names / sizeof S_cond_names[0])

static S_fit S_mem_fit(const tb_budget *b)
{
	const tb_memory *m = &b->memory;
	return S_fit_of(m->fits, m->fits_known);
}

static tb_tpl_status S_env_condition(void *ctx, const char *name, int *truth)
{
	const tb_report *r = ctx;
	const tb_inputs *in = &r->sc->inputs;
	const tb_budget *b = r->b;
	size_t k = 0;
	for (; k < S_NCOND; k++)
		if (strcmp(S_cond_names[k], name) == 0)
			break;
	bool t;
	switch (k) {
	case 0: t = in->model.experts > 1; break;
	case 1: t = in->measured.has_step_time || in->measured.has_peak_memory; break;
	case 2: t = in->measured.has_step_time; break;
	case 3: t = in->measured.has_peak_memory; break;
	case 4: t = in->plan.has_deadline; break;
	case 5: t = in->plan.has_budget; break;
	case 6: t = r->sc->notes && *r->sc->notes; break;
	case 7: t = r->sc->author && *r->sc->author; break;
	case 8: t = r->date && strcmp(r->date, "undated") != 0; break;
	/* fits: a definite yes; does_not_fit: a definite no; else fit_unknown */
	case 9: t = S_mem_fit(b) == S_FIT_YES; break;
	case 10: t = b->time.meets_deadline; break;
	case 11: t = b->time.within_budget; break;
	case 12: t = b->memory.activations_known; break;
	case 13: t = in->plan.has_inference; break;
	case 14: t = b->params.known_breakdown; break;
	case 15: t = b->n_warnings > 0; break;
	case 16: t = in->model.tied_embeddings; break;
	case 17: t = in->training.flash_attention; break;
	case 18: t = in->parallelism.pipeline > 1; break;
	case 19: t = in->parallelism.tensor > 1; break;
	case 20: t = in->parallelism.zero > 0; break;
	case 21: t = b->n_levers > 0; break;
	case 22: t = b->chinchilla.n_plans > 0; break;
	case 23: t = b->time.n_gpu_scan > 0; break;
	case 24: t = b->n_derivs > 0; break;
	case 25: t = in->training.precision != TB_PREC_FP32 && in->training.precision != TB_PREC_BF16; break;
	case 26: t = S_mem_fit(b) == S_FIT_NO; break;
	case 27: t = S_mem_fit(b) == S_FIT_UNKNOWN; break;
	default: return TB_TPL_UNKNOWN_NAME;
	}
	*truth = t;
	return TB_TPL_OK;
}

/* ---- blocks ---------------------------------------------------------- */

static tb_block *S_block_new(tb_report *r, tb_block_kind kind, cmark_node *into)
{
	tb_block *blk = tb_xcalloc(1, sizeof *blk);
	blk->kind = kind;
	if (r->nblocks == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 16;
		r->blocks = tb_xrealloc(r->blocks, r->cap * sizeof *r->blocks);
	}
	r->blocks[r->nblocks++] = blk;
	cmark_node *n = cmark_node_new(CMARK_NODE_CUSTOM_BLOCK);
	cmark_node_set_on_enter(n, "");
	cmark_node_set_on_exit(n, "");
	cmark_node_set_user_data(n, blk);
	cmark_node_append_child(into, n);
	return blk;
}

static void S_block_free(tb_block *blk)
{
	if (!blk)
		return;
	tb_table *t = &blk->table;
	for (size_t i = 0; i < t->ncols * t->nrows; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->numeric);
	free(t->caption);
	tb_chart_release(&blk->chart);
	tb_derivation *dv = &blk->deriv;
	free(dv->title);
	free(dv->formula);
	free(dv->substituted);
	free(dv->result);
	free(dv->source);
	for (size_t i = 0; i < dv->nwhere; i++)
		free(dv->where[i]);
	free(dv->where);
	free(blk);
}

/* A paragraph of plain text, for "not computed for this scenario". */
static void S_note_para(cmark_node *into, const char *text)
{
	cmark_node *p = cmark_node_new(CMARK_NODE_PARAGRAPH);
	cmark_node *e = cmark_node_new(CMARK_NODE_EMPH);
	cmark_node *t = cmark_node_new(CMARK_NODE_TEXT);
	cmark_node_set_literal(t, text);
	cmark_node_append_child(e, t);
	cmark_node_append_child(p, e);
	cmark_node_append_child(into, p);
}

/* ---- tables ---------------------------------------------------------- */

typedef struct S_tab {
	tb_table *t;
	size_t cap, col;
} S_tab;

static void S_tab_init(S_tab *tb, tb_table *t, const char *caption,
                       const char *const *head, const char *numeric)
{
	memset(tb, 0, sizeof *tb);
	tb->t = t;
	size_t n = 0;
	while (head[n])
		n++;
	t->ncols = n;
	t->nrows = 0;
	t->numeric = tb_xcalloc(n, sizeof *t->numeric);
	for (size_t i = 0; i < n && numeric[i]; i++)
		t->numeric[i] = numeric[i] == 'r';
	t->caption = caption ? tb_xstrdup(caption) : NULL;
	for (size_t i = 0; i < n; i++) {
		if (tb->col == 0) {
			if ((t->nrows + 1) * t->ncols > tb->cap) {
				tb->cap = (t->nrows + 1) * t->ncols * 2;
				t->cells = tb_xrealloc(t->cells, tb->cap * sizeof *t->cells);
			}
			t->nrows++;
		}
		t->cells[(t->nrows - 1) * t->ncols + tb->col] = tb_xstrdup(head[i]);
		tb->col = (tb->col + 1) % t->ncols;
	}
}

/* Takes ownership of s. */
static void S_tab_own(S_tab *tb, char *s)
{
	tb_table *t = tb->t;
	if (tb->col == 0) {
		if ((t->nrows + 1) * t->ncols > tb->cap) {
			tb->cap = (t->nrows + 1) * t->ncols * 2;
			t->cells = tb_xrealloc(t->cells, tb->cap * sizeof *t->cells);
		}
		t->nrows++;
	}
	tb_buf clean;
	tb_buf_init(&clean);
	tb_template_put_utf8(&clean, s ? s : "", s ? strlen(s) : 0);
	free(s);
	t->cells[(t->nrows - 1) * t->ncols + tb->col] = tb_buf_detach(&clean, NULL);
	tb->col = (tb->col + 1) % t->ncols;
}

/* NULL is a figure the budget lacks ("n/a"); "" is a cell left blank. */
static void S_tab_str(S_tab *tb, const char *s) { S_tab_own(tb, tb_xstrdup(s ? s : "n/a")); }
static void S_tab_num(S_tab *tb, const tb_report *r, S_filter f, double v)
{
	S_tab_own(tb, S_fmts(f, v, S_currency(r)));
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void S_tab_fmt(S_tab *tb, const char *fmt, ...)
{
	tb_buf o;
	tb_buf_init(&o);
	va_list ap;
	va_start(ap, fmt);
	tb_buf_vprintf(&o, fmt, ap);
	va_end(ap);
	S_tab_own(tb, tb_buf_detach(&o, NULL));
}

static const char *S_outcome_name(tb_outcome o)
{
	switch (o) {
	case TB_OUTCOME_GOOD: return "GOOD";
	case TB_OUTCOME_WARN: return "WARN";
	case TB_OUTCOME_BAD: return "BAD";
	case TB_OUTCOME_NONE: break;
	}
	return "N/A";
}

static void S_table_verdict(tb_report *r, tb_table *t)
{
	S_tab tb;
	static const char *const h[] = { "Outcome", "Finding", NULL };
	S_tab_init(&tb, t, NULL, h, "ll");
	for (size_t i = 0; i < r->meta.nverdict; i++) {
		S_tab_str(&tb, S_outcome_name(r->verdict[i].outcome));
		S_tab_str(&tb, r->verdict[i].text);
	}
}

static void S_table_key(tb_report *r, tb_table *t)
{
	S_tab tb;
	static const char *const h[] = { "Key figure", "Value", NULL };
	S_tab_init(&tb, t, NULL, h, "lr");
	for (size_t i = 0; i < r->meta.nkey; i++) {
		S_tab_str(&tb, r->key_labels[i]);
		S_tab_str(&tb, r->key_values[i]);
	}
}

static void S_table_assumptions(tb_report *r, tb_table *t)
{
	const tb_inputs *in = &r->sc->inputs;
	const tb_budget *b = r->b;
	S_tab tb;
	static const char *const h[] = { "Setting", "Value", NULL };
	S_tab_init(&tb, t, NULL, h, "ll");
	S_tab_str(&tb, "Precision");
	S_tab_fmt(&tb, "%s (matmuls in %s)", tb_precision_name(in->training.precision),
	          tb_dtype_name(b->time.dtype));
	S_tab_str(&tb, "Optimizer");
	S_tab_str(&tb, tb_optimizer_name(in->training.optimizer));
	S_tab_str(&tb, "Parallelism (TP × PP × DP)");
	S_tab_fmt(&tb, "%lld × %lld × %lld%s", (long long)in->parallelism.tensor,
	          (long long)in->parallelism.pipeline, (long long)in->parallelism.data,
	          in->parallelism.sequence_parallel ? ", sequence parallel" : "");
	if (in->model.experts > 1) {
		S_tab_str(&tb, "Expert parallelism");
		S_tab_fmt(&tb, "%lld", (long long)in->parallelism.expert);
	}
	S_tab_str(&tb, "ZeRO stage");
	S_tab_fmt(&tb, "%d", in->parallelism.zero);
	S_tab_str(&tb, "Sequence length");
	S_tab_num(&tb, r, S_F_GROUPED, (double)in->training.seq_len);
	S_tab_str(&tb, "Micro-batch / global batch (sequences)");
	{
		tb_buf o;
		tb_buf_init(&o);
		S_fmt(&o, S_F_GROUPED, (double)in->training.micro_batch, NULL);
		tb_buf_puts(&o, " / ");
		S_fmt(&o, S_F_GROUPED, (double)in->training.global_batch, NULL);
		S_tab_own(&tb, tb_buf_detach(&o, NULL));
	}
	S_tab_str(&tb, "Training tokens");
	S_tab_num(&tb, r, S_F_COUNT, in->training.tokens);
	S_tab_str(&tb, "Activation checkpointing");
	S_tab_str(&tb, tb_checkpointing_name(in->training.checkpointing));
	S_tab_str(&tb, "Flash attention");
	S_tab_str(&tb, S_yesno(in->training.flash_attention));
	S_tab_str(&tb, "Attention FLOPs convention");
	S_tab_str(&tb, in->training.attention_flops == TB_ATTN_FLOPS_CAUSAL
	               ? "causal (FlashAttention: the lower triangle, half the score matrix)"
	               : "full (PaLM: the whole score matrix)");
	S_tab_str(&tb, "MFU range (low / expected / high)");
	{
		tb_buf o;
		tb_buf_init(&o);
		for (int i = 0; i < 3; i++) {
			if (i)
				tb_buf_puts(&o, " / ");
			S_fmt(&o, S_F_PCT, in->hardware.mfu[i], NULL);
		}
		if (r->sc->mfu_assumed)
			tb_buf_puts(&o, " (default range, not in the scenario)");
		S_tab_own(&tb, tb_buf_detach(&o, NULL));
	}
	S_tab_str(&tb, "GPU");
	{
		tb_buf o;
		tb_buf_init(&o);
		S_fmt(&o, S_F_GROUPED, (double)in->hardware.count, NULL);
		tb_buf_printf(&o, " × %s", in->hardware.gpu.label[0] ? in->hardware.gpu.label
		                                                    : in->hardware.gpu.name);
		if (r->sc->gpu_assumed)
			tb_buf_puts(&o, " (assumed: not in the scenario)");
		S_tab_own(&tb, tb_buf_detach(&o, NULL));
	}
	S_tab_str(&tb, "Dense peak per GPU");
	{
		tb_buf o;
		tb_buf_init(&o);
		S_fmt(&o, S_F_SCI, b->time.peak_flops_per_gpu, NULL);
		tb_buf_printf(&o, " FLOP/s (%s)", tb_dtype_name(b->time.dtype));
		S_tab_own(&tb, tb_buf_detach(&o, NULL));
	}
	S_tab_str(&tb, "GPU memory");
	S_tab_num(&tb, r, S_F_BYTES, in->hardware.gpu.memory_bytes);
	S_tab_str(&tb, "Price per GPU-hour");
	{
		tb_buf o;
		tb_buf_init(&o);
		S_fmt(&o, S_F_MONEY, in->hardware.price_per_gpu_hour, S_currency(r));
		tb_buf_puts(&o, " per GPU-hour");
		if (r->sc->price_assumed)
			tb_buf_puts(&o, " (assumed: not in the scenario)");
		S_tab_own(&tb, tb_buf_detach(&o, NULL));
	}
	S_tab_str(&tb, "Runtime overhead per GPU (CUDA context, allocator)");
	S_tab_num(&tb, r, S_F_BYTES, in->hardware.overhead_bytes);
}

static void S_table_parameters(tb_report *r, tb_table *t)
{
	const tb_params *p = &r->b->params;
	S_tab tb;
	static const char *const h[] = { "Component", "Parameters", "Exact", "Share", NULL };
	S_tab_init(&tb, t, NULL, h, "lrrr");
	struct { const char *label; double v; } rows[] = {
		{ "Embedding", p->embedding }, { "Attention (q, k, v, o)", p->attention },
		{ "MLP (all experts, router included)", p->mlp }, { "Router", p->router },
		{ "Norms", p->norm }, { "Output head", p->output },
	};
	if (p->known_breakdown) {
		for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
			if (i == 3 && p->router == 0)
				continue;
			S_tab_str(&tb, rows[i].label);
			S_tab_num(&tb, r, S_F_COUNT, rows[i].v);
			S_tab_num(&tb, r, S_F_GROUPED, rows[i].v);
			if (p->total > 0)
				S_tab_num(&tb, r, S_F_PCT, rows[i].v / p->total);
			else
				S_tab_str(&tb, "n/a");
		}
	}
	S_tab_str(&tb, "Total");
	S_tab_num(&tb, r, S_F_COUNT, p->total);
	S_tab_num(&tb, r, S_F_GROUPED, p->total);
	S_tab_str(&tb, p->total > 0 ? "100%" : "n/a");
	S_tab_str(&tb, "Active per token");
	S_tab_num(&tb, r, S_F_COUNT, p->active);
	S_tab_num(&tb, r, S_F_GROUPED, p->active);
	if (p->total > 0)
		S_tab_num(&tb, r, S_F_PCT, p->active / p->total);
	else
		S_tab_str(&tb, "n/a");
}

static void S_table_flops(tb_report *r, tb_table *t)
{
	const tb_flops *f = &r->b->flops;
	S_tab tb;
	static const char *const h[] = { "Count", "Per token (FLOP)", "Whole run (FLOP)", NULL };
	S_tab_init(&tb, t, NULL, h, "lrr");
	S_tab_str(&tb, "6N rule (6ND)");
	S_tab_num(&tb, r, S_F_SCI, f->per_token_6n);
	S_tab_num(&tb, r, S_F_SCI, f->total_6nd);
	S_tab_str(&tb, "Operator level (model FLOPs)");
	S_tab_num(&tb, r, S_F_SCI, f->per_token_model);
	S_tab_num(&tb, r, S_F_SCI, f->total_model);
	S_tab_str(&tb, "With recomputation (hardware FLOPs)");
	S_tab_num(&tb, r, S_F_SCI, f->per_token_hardware);
	S_tab_num(&tb, r, S_F_SCI, f->total_hardware);
}

static void S_table_line_items(tb_report *r, tb_table *t)
{
	const tb_memory *m = &r->b->memory;
	const tb_params *p = &r->b->params;
	S_tab tb;
	static const char *const h[] = { "Line item", "Bytes per parameter", "Whole model", "Per GPU", NULL };
	S_tab_init(&tb, t, NULL, h, "lrrr");
	struct { const char *label; double bpp, gpu; } rows[] = {
		{ "Weights", m->bytes_per_param.weights, m->per_gpu.weights },
		{ "Gradients", m->bytes_per_param.gradients, m->per_gpu.gradients },
		{ "Master weights (fp32)", m->bytes_per_param.master_weights, m->per_gpu.master_weights },
		{ "Optimizer state", m->bytes_per_param.optimizer, m->per_gpu.optimizer },
		{ "Model states", m->bytes_per_param.total,
		  m->per_gpu.weights + m->per_gpu.gradients + m->per_gpu.master_weights + m->per_gpu.optimizer },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		S_tab_str(&tb, rows[i].label);
		S_tab_num(&tb, r, S_F_PLAIN, rows[i].bpp);
		S_tab_num(&tb, r, S_F_BYTES, i == 4 ? m->model_states_bytes : rows[i].bpp * p->total);
		S_tab_num(&tb, r, S_F_BYTES, rows[i].gpu);
	}
}

static void S_table_activations(tb_report *r, tb_table *t)
{
	const tb_memory *m = &r->b->memory;
	S_tab tb;
	static const char *const h[] = { "Tensor kept for backward", "Shape", "Bytes per layer", NULL };
	S_tab_init(&tb, t, "Per layer, per micro-batch, per GPU", h, "llr");
	if (!m->activations_known) {
		S_tab_str(&tb, "Per GPU (unknown for a model given only by its parameter count)");
		S_tab_str(&tb, "");
		S_tab_str(&tb, "n/a");
		return;
	}
	int n = m->n_act_items < TB_ACT_ITEMS_MAX ? m->n_act_items : TB_ACT_ITEMS_MAX;
	for (int i = 0; i < n; i++) {
		S_tab_str(&tb, m->act_items[i].name);
		S_tab_str(&tb, m->act_items[i].shape);
		S_tab_num(&tb, r, S_F_BYTES, m->act_items[i].bytes);
	}
	S_tab_str(&tb, "One layer");
	S_tab_str(&tb, "");
	S_tab_num(&tb, r, S_F_BYTES, m->activations_per_layer_bytes);
	S_tab_str(&tb, "Embedding output");
	S_tab_str(&tb, "s*b*h");
	S_tab_num(&tb, r, S_F_BYTES, m->embedding_output_bytes);
	S_tab_str(&tb, "Logits / cross-entropy buffer");
	S_tab_str(&tb, "s*b*V");
	S_tab_num(&tb, r, S_F_BYTES, m->logits_bytes);
	S_tab_fmt(&tb, "Per GPU (layers: %lld; micro-batches in flight: %lld)",
	          (long long)m->layers_on_busiest_stage, (long long)m->inflight_microbatches);
	S_tab_str(&tb, "");
	S_tab_num(&tb, r, S_F_BYTES, m->activations_bytes);
}

static void S_table_per_gpu(tb_report *r, tb_table *t)
{
	const tb_memory *m = &r->b->memory;
	S_tab tb;
	static const char *const h[] = { "Per GPU", "Bytes", "Of capacity", NULL };
	S_tab_init(&tb, t, NULL, h, "lrr");
	bool act = m->activations_known;
	struct { const char *label; double v; bool known; } rows[] = {
		{ "Weights", m->per_gpu.weights, true }, { "Gradients", m->per_gpu.gradients, true },
		{ "Master weights", m->per_gpu.master_weights, true },
		{ "Optimizer state", m->per_gpu.optimizer, true },
		{ "Activations", m->per_gpu.activations, act },
		{ "Other (CUDA context, allocator, buffers)", m->per_gpu.other, true },
		/* without activations the sum is a floor, and says so */
		{ act ? "Total" : "Total without activations", m->per_gpu.total, true },
		{ "Capacity", m->capacity_bytes, true },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		S_tab_str(&tb, rows[i].label);
		if (!rows[i].known) {
			S_tab_str(&tb, "n/a");
			S_tab_str(&tb, "n/a");
			continue;
		}
		S_tab_num(&tb, r, S_F_BYTES, rows[i].v);
		if (m->capacity_bytes > 0)
			S_tab_num(&tb, r, S_F_PCT, rows[i].v / m->capacity_bytes);
		else
			S_tab_str(&tb, "n/a");
	}
	switch (S_mem_fit(r->b)) {
	case S_FIT_YES:
		S_tab_str(&tb, "Headroom");
		S_tab_num(&tb, r, S_F_BYTES, m->capacity_bytes - m->per_gpu.total);
		break;
	case S_FIT_NO:
		S_tab_str(&tb, act ? "Shortfall" : "Shortfall before activations");
		S_tab_num(&tb, r, S_F_BYTES, m->per_gpu.total - m->capacity_bytes);
		break;
	case S_FIT_UNKNOWN:
		S_tab_str(&tb, "Headroom");
		S_tab_str(&tb, "n/a");
		break;
	}
	S_tab_str(&tb, "");
}

static void S_table_zero(tb_report *r, tb_table *t)
{
	const tb_memory *m = &r->b->memory;
	S_tab tb;
	bool act = m->activations_known;
	static const char *const h[] = { "ZeRO stage", "Weights", "Gradients", "Optimizer state",
	                                 "Activations", "Other", "Total", "Fits", NULL };
	static const char *const h_noact[] = { "ZeRO stage", "Weights", "Gradients",
	                                       "Optimizer state", "Activations", "Other",
	                                       "Total without activations", "Fits", NULL };
	S_tab_init(&tb, t, "Per GPU", act ? h : h_noact, "lrrrrrrl");
	for (int i = 0; i < 4; i++) {
		const tb_zero_row *z = &m->zero[i];
		S_tab_fmt(&tb, "%d%s", i, i == r->sc->inputs.parallelism.zero ? " (this run)" : "");
		S_tab_num(&tb, r, S_F_BYTES, z->bytes.weights);
		S_tab_num(&tb, r, S_F_BYTES, z->bytes.gradients);
		S_tab_num(&tb, r, S_F_BYTES, z->bytes.master_weights + z->bytes.optimizer);
		if (act)
			S_tab_num(&tb, r, S_F_BYTES, z->bytes.activations);
		else
			S_tab_str(&tb, "n/a");
		S_tab_num(&tb, r, S_F_BYTES, z->bytes.other);
		S_tab_num(&tb, r, S_F_BYTES, z->bytes.total);
		S_tab_str(&tb, S_fits_word(z->fits, z->fits_known));
	}
}

static void S_table_checkpointing(tb_report *r, tb_table *t)
{
	const tb_memory *m = &r->b->memory;
	S_tab tb;
	static const char *const h[] = { "Checkpointing", "Activations per GPU", "Extra FLOPs",
	                                 "Total per GPU", "Fits", NULL };
	S_tab_init(&tb, t, NULL, h, "lrrrl");
	for (int i = 0; i < 3; i++) {
		const tb_ckpt_row *c = &m->checkpointing[i];
		S_tab_fmt(&tb, "%s%s", tb_checkpointing_name((tb_checkpointing)i),
		          i == (int)r->sc->inputs.training.checkpointing ? " (this run)" : "");
		if (m->activations_known) {
			S_tab_num(&tb, r, S_F_BYTES, c->activations_bytes);
			S_tab_num(&tb, r, S_F_PCT, c->extra_flops_fraction);
			S_tab_num(&tb, r, S_F_BYTES, c->total_bytes);
			S_tab_str(&tb, S_fits_word(c->fits, c->fits_known));
			continue;
		}
		/* checkpointing changes only activations: the states and overhead
		 * are those of the scenario's own ZeRO stage */
		S_tab_str(&tb, "n/a");
		S_tab_num(&tb, r, S_F_PCT, c->extra_flops_fraction);
		S_tab_str(&tb, "n/a");
		S_tab_str(&tb, S_fits_word(c->fits, c->fits_known));
	}
}

static void S_table_mfu(tb_report *r, tb_table *t)
{
	const tb_time *tm = &r->b->time;
	S_tab tb;
	static const char *const h[] = { "MFU", "Wall clock", "GPU-hours", "Cost", "Energy (kWh)", NULL };
	S_tab_init(&tb, t, NULL, h, "rrrrr");
	static const char *const which[] = { " (low)", " (expected)", " (high)" };
	for (int i = 0; i < 3; i++) {
		char *p = S_fmts(S_F_PCT, tm->mfu[i], NULL);
		S_tab_fmt(&tb, "%s%s", p, which[i]);
		free(p);
		S_tab_num(&tb, r, S_F_DAYS, tm->seconds[i]);
		S_tab_num(&tb, r, S_F_GROUPED, tm->gpu_hours[i]);
		S_tab_num(&tb, r, S_F_MONEY, tm->cost[i]);
		S_tab_num(&tb, r, S_F_GROUPED, tm->energy_kwh[i]);
	}
}

static void S_table_gpu_scan(tb_report *r, tb_table *t)
{
	const tb_time *tm = &r->b->time;
	S_tab tb;
	static const char *const h[] = { "GPUs", "Days at low MFU", "Days at expected MFU",
	                                 "Days at high MFU", "Cost (expected)", NULL };
	S_tab_init(&tb, t, NULL, h, "rrrrr");
	int n = tm->n_gpu_scan < TB_GPU_SCAN_MAX ? tm->n_gpu_scan : TB_GPU_SCAN_MAX;
	for (int i = 0; i < n; i++) {
		S_tab_num(&tb, r, S_F_GROUPED, (double)tm->gpu_scan[i].gpus);
		for (int j = 0; j < 3; j++)
			S_tab_num(&tb, r, S_F_DAYS, tm->gpu_scan[i].seconds[j]);
		S_tab_num(&tb, r, S_F_MONEY, tm->gpu_scan[i].cost[1]);
	}
}

static void S_table_optimum(tb_report *r, tb_table *t)
{
	const tb_chinchilla *ch = &r->b->chinchilla;
	S_tab tb;
	static const char *const h[] = { "Compute", "FLOPs", "Method", "Parameters", "Tokens", NULL };
	S_tab_init(&tb, t, NULL, h, "lrlrr");
	const tb_optimum *rows[3] = { &ch->run, ch->has_deadline ? &ch->deadline : NULL,
	                              ch->has_budget ? &ch->budget : NULL };
	static const char *const labels[] = { "This run", "Within the deadline", "Within the budget" };
	for (int i = 0; i < 3; i++) {
		const tb_optimum *o = rows[i];
		if (!o)
			continue;
		static const char *const methods[] = { "D = 20N", "Hoffmann et al. 2022 fit",
		                                       "Epoch AI 2024 fit" };
		double np[3] = { o->params, o->params_fit, o->params_epoch };
		double nt[3] = { o->tokens, o->tokens_fit, o->tokens_epoch };
		for (int k = 0; k < 3; k++) {
			S_tab_str(&tb, k == 0 ? labels[i] : "");
			if (k == 0)
				S_tab_num(&tb, r, S_F_SCI, o->compute_flops);
			else
				S_tab_str(&tb, "");
			S_tab_str(&tb, methods[k]);
			S_tab_num(&tb, r, S_F_COUNT, np[k]);
			S_tab_num(&tb, r, S_F_COUNT, nt[k]);
		}
	}
}

static void S_table_plans(tb_report *r, tb_table *t)
{
	const tb_chinchilla *ch = &r->b->chinchilla;
	bool lifetime = r->sc->inputs.plan.has_inference;
	S_tab tb;
	static const char *const h[] = { "Plan", "Parameters", "Tokens", "FLOPs", "Wall clock",
	                                 "Cost", "Loss (Hoffmann)", "Loss (Epoch AI)", NULL };
	static const char *const hl[] = { "Plan", "Parameters", "Tokens", "FLOPs", "Wall clock",
	                                  "Cost", "Loss (Hoffmann)", "Loss (Epoch AI)",
	                                  "Lifetime FLOPs", NULL };
	S_tab_init(&tb, t, NULL, lifetime ? hl : h, "lrrrrrrrr");
	int n = ch->n_plans < TB_PLANS_MAX ? ch->n_plans : TB_PLANS_MAX;
	for (int i = 0; i < n; i++) {
		const tb_plan_row *p = &ch->plans[i];
		char label[64];
		tb_plan_label(p, false, label, sizeof label);
		S_tab_str(&tb, label);
		S_tab_num(&tb, r, S_F_COUNT, p->params);
		S_tab_num(&tb, r, S_F_COUNT, p->tokens);
		S_tab_num(&tb, r, S_F_SCI, p->flops);
		S_tab_num(&tb, r, S_F_DAYS, p->seconds);
		S_tab_num(&tb, r, S_F_MONEY, p->cost);
		S_tab_num(&tb, r, S_F_PLAIN, p->loss);
		S_tab_num(&tb, r, S_F_PLAIN, p->loss_epoch);
		if (lifetime)
			S_tab_num(&tb, r, S_F_SCI, p->lifetime_flops);
	}
}

static void S_table_levers(tb_report *r, tb_table *t)
{
	const tb_budget *b = r->b;
	S_tab tb;
	static const char *const h[] = { "Lever", "Wall clock", "Change", "Cost", "Change", NULL };
	S_tab_init(&tb, t, "At the expected MFU", h, "lrrrr");
	int n = b->n_levers < TB_LEVERS_MAX ? b->n_levers : TB_LEVERS_MAX;
	for (int i = 0; i < n; i++) {
		const tb_lever *l = &b->levers[i];
		S_tab_str(&tb, l->label ? l->label : "");
		S_tab_num(&tb, r, S_F_DAYS, l->seconds);
		char *p = S_fmts(S_F_PCT, l->delta_seconds_frac, NULL);
		S_tab_fmt(&tb, "%s%s", l->delta_seconds_frac > 0 ? "+" : "", p);
		free(p);
		S_tab_num(&tb, r, S_F_MONEY, l->cost);
		p = S_fmts(S_F_PCT, l->delta_cost_frac, NULL);
		S_tab_fmt(&tb, "%s%s", l->delta_cost_frac > 0 ? "+" : "", p);
		free(p);
	}
}

static void S_table_measured(tb_report *r, tb_table *t)
{
	const tb_inputs *in = &r->sc->inputs;
	const tb_budget *b = r->b;
	S_tab tb;
	static const char *const h[] = { "Figure", "Estimate", "Measured", NULL };
	S_tab_init(&tb, t, NULL, h, "lrr");
	if (in->measured.has_step_time) {
		S_tab_str(&tb, "Wall clock for the run");
		S_tab_num(&tb, r, S_F_DAYS, b->time.seconds[1]);
		S_tab_num(&tb, r, S_F_DAYS, b->time.measured_seconds);
		S_tab_str(&tb, "MFU");
		S_tab_num(&tb, r, S_F_PCT, b->time.mfu[1]);
		S_tab_num(&tb, r, S_F_PCT, b->time.achieved_mfu);
		S_tab_str(&tb, "HFU (with recomputation)");
		S_tab_str(&tb, "");
		S_tab_num(&tb, r, S_F_PCT, b->time.achieved_hfu);
	}
	if (in->measured.has_peak_memory) {
		S_tab_str(&tb, "Peak memory per GPU");
		if (b->memory.activations_known)
			S_tab_num(&tb, r, S_F_BYTES, b->memory.per_gpu.total);
		else
			S_tab_str(&tb, "n/a");
		S_tab_num(&tb, r, S_F_BYTES, b->time.measured_peak_bytes);
		S_tab_str(&tb, "Estimate error ((estimate - measured) / measured)");
		if (b->memory.activations_known) {
			char *p = S_fmts(S_F_PCT, b->time.memory_estimate_error, NULL);
			S_tab_fmt(&tb, "%s%s", b->time.memory_estimate_error > 0 ? "+" : "", p);
			free(p);
		} else {
			S_tab_str(&tb, "n/a");
		}
		S_tab_str(&tb, "");
	}
}

static void S_table_warnings(tb_report *r, tb_table *t)
{
	const tb_budget *b = r->b;
	S_tab tb;
	static const char *const h[] = { "Warning", NULL };
	S_tab_init(&tb, t, NULL, h, "l");
	int n = b->n_warnings < TB_WARNINGS_MAX ? b->n_warnings : TB_WARNINGS_MAX;
	for (int i = 0; i < n; i++) {
		char w[sizeof b->warnings[0] + 1];
		S_copy(w, sizeof w, b->warnings[i]);
		S_tab_str(&tb, w);
	}
}

typedef struct S_table_def {
	const char *name;
	void (*build)(tb_report *r, tb_table *t);
} S_table_def;

static const S_table_def S_tables[] = {
	{ "verdict", S_table_verdict },
	{ "key_figures", S_table_key },
	{ "assumptions", S_table_assumptions },
	{ "parameters", S_table_parameters },
	{ "flops", S_table_flops },
	{ "memory.line_items", S_table_line_items },
	{ "memory.activations", S_table_activations },
	{ "memory.per_gpu", S_table_per_gpu },
	{ "memory.zero", S_table_zero },
	{ "memory.checkpointing", S_table_checkpointing },
	{ "time.mfu", S_table_mfu },
	{ "time.gpu_scan", S_table_gpu_scan },
	{ "chinchilla.optimum", S_table_optimum },
	{ "chinchilla.plans", S_table_plans },
	{ "levers", S_table_levers },
	{ "measured", S_table_measured },
	{ "warnings", S_table_warnings },
};

#define S_NTABLES (sizeof S_tables / sizeof S_tables[0])

/* ---- charts ---------------------------------------------------------- */

static const tb_rgb S_palette[] = {
	{ 0x1f, 0x77, 0xb4 }, { 0xff, 0x7f, 0x0e }, { 0x2c, 0xa0, 0x2c },
	{ 0xd6, 0x27, 0x28 }, { 0x94, 0x67, 0xbd }, { 0x8c, 0x56, 0x4b },
};
static const tb_rgb S_ref_color = { 0x33, 0x33, 0x33 };

static void S_series(tb_chart_spec *s, const char *name)
{
	tb_chart_series *se = &s->series[s->nseries];
	S_copy(se->name, sizeof se->name, name);
	se->color = S_palette[s->nseries % 6];
	s->nseries++;
}

static void S_chart_zero(const tb_report *r, tb_chart_spec *s)
{
	const tb_memory *m = &r->b->memory;
	s->kind = TB_CHART_STACKED_BARS;
	S_copy(s->id, sizeof s->id, "zero");
	S_copy(s->title, sizeof s->title, "Memory per GPU by ZeRO stage");
	S_copy(s->x_label, sizeof s->x_label, "ZeRO stage");
	S_copy(s->y_label, sizeof s->y_label, "Memory per GPU");
	S_copy(s->y_unit, sizeof s->y_unit, "GB");
	s->y_scale = 1e9;
	s->ncats = 4;
	for (int i = 0; i < 4; i++)
		snprintf(s->cats[i], sizeof s->cats[i], "ZeRO-%d", i);
	S_series(s, "Weights");
	S_series(s, "Gradients");
	S_series(s, "Optimizer state (master + moments)");
	/* unknown activations draw no bar at all, rather than one of 0 B */
	S_series(s, m->activations_known ? "Activations" : "Activations (unknown)");
	S_series(s, "Other");
	for (int i = 0; i < 4; i++) {
		const tb_mem_items *z = &m->zero[i].bytes;
		s->series[0].values[i] = z->weights;
		s->series[1].values[i] = z->gradients;
		s->series[2].values[i] = z->master_weights + z->optimizer;
		s->series[3].values[i] = m->activations_known ? z->activations : NAN;
		s->series[4].values[i] = z->other;
	}
	if (m->capacity_bytes > 0) {
		tb_chart_ref *ref = &s->refs[s->nrefs++];
		ref->value = m->capacity_bytes;
		tb_buf o;
		tb_buf_init(&o);
		tb_buf_puts(&o, "capacity ");
		S_fmt(&o, S_F_BYTES, m->capacity_bytes, NULL);
		S_copy(ref->label, sizeof ref->label, o.ptr);
		tb_buf_release(&o);
		ref->color = S_ref_color;
	}
}

static void S_chart_gpu_scan(const tb_report *r, tb_chart_spec *s)
{
	const tb_time *tm = &r->b->time;
	s->kind = TB_CHART_LINES;
	S_copy(s->id, sizeof s->id, "gpu-scan");
	S_copy(s->title, sizeof s->title, "Days of training against GPU count");
	S_copy(s->x_label, sizeof s->x_label, "GPUs");
	S_copy(s->y_label, sizeof s->y_label, "Wall clock");
	S_copy(s->y_unit, sizeof s->y_unit, "days");
	s->y_scale = 1;
	s->log_x = true;
	int n = tm->n_gpu_scan < TB_GPU_SCAN_MAX ? tm->n_gpu_scan : TB_GPU_SCAN_MAX;
	if (n > TB_CHART_MAX_CATS)
		n = TB_CHART_MAX_CATS;
	s->ncats = (size_t)n;
	static const char *const names[] = { "low MFU", "expected MFU", "high MFU" };
	for (int j = 0; j < 3; j++) {
		tb_buf o;
		tb_buf_init(&o);
		tb_buf_printf(&o, "%s (", names[j]);
		S_fmt(&o, S_F_PCT, tm->mfu[j], NULL);
		tb_buf_putc(&o, ')');
		S_series(s, o.ptr);
		tb_buf_release(&o);
	}
	for (int i = 0; i < n; i++) {
		snprintf(s->cats[i], sizeof s->cats[i], "%lld", (long long)tm->gpu_scan[i].gpus);
		s->xs[i] = (double)tm->gpu_scan[i].gpus;
		for (int j = 0; j < 3; j++)
			s->series[j].values[i] = tm->gpu_scan[i].seconds[j] / 86400.0;
	}
	if (tm->has_deadline) {
		tb_chart_ref *ref = &s->refs[s->nrefs++];
		ref->value = tm->deadline_s / 86400.0;
		tb_buf o;
		tb_buf_init(&o);
		tb_buf_puts(&o, "deadline ");
		S_fmt(&o, S_F_DAYS, tm->deadline_s, NULL);
		S_copy(ref->label, sizeof ref->label, o.ptr);
		tb_buf_release(&o);
		ref->color = (tb_rgb){ 0xd6, 0x27, 0x28 };
	}
	if (r->sc->inputs.hardware.count > 0 && s->nrefs < TB_CHART_MAX_REFS) {
		tb_chart_ref *ref = &s->refs[s->nrefs++];
		ref->vertical = true;
		ref->value = (double)r->sc->inputs.hardware.count;
		snprintf(ref->label, sizeof ref->label, "this run: %lld GPUs",
		         (long long)r->sc->inputs.hardware.count);
		ref->color = S_ref_color;
	}
}

static void S_chart_plans(const tb_report *r, tb_chart_spec *s)
{
	const tb_chinchilla *ch = &r->b->chinchilla;
	s->kind = TB_CHART_GROUPED_BARS;
	S_copy(s->id, sizeof s->id, "plans");
	S_copy(s->title, sizeof s->title, "Predicted loss: compute-optimal against over-trained plans");
	S_copy(s->x_label, sizeof s->x_label, "Plan (D/N: training tokens per parameter)");
	S_copy(s->y_label, sizeof s->y_label, "Predicted loss (nats/token)");
	s->y_scale = 1;
	/* the plans differ by hundredths of a nat: an axis from 0 hides that */
	s->y_zoom = true;
	int n = ch->n_plans < TB_PLANS_MAX ? ch->n_plans : TB_PLANS_MAX;
	if (n > TB_CHART_MAX_CATS)
		n = TB_CHART_MAX_CATS;
	s->ncats = (size_t)n;
	S_series(s, "Hoffmann et al. 2022 fit");
	S_series(s, "Epoch AI 2024 fit");
	for (int i = 0; i < n; i++) {
		tb_plan_label(&ch->plans[i], true, s->cats[i], sizeof s->cats[i]);
		s->series[0].values[i] = ch->plans[i].loss;
		s->series[1].values[i] = ch->plans[i].loss_epoch;
	}
}

typedef struct S_chart_def {
	const char *name;
	void (*build)(const tb_report *r, tb_chart_spec *s);
} S_chart_def;

static const S_chart_def S_charts[] = {
	{ "zero", S_chart_zero },
	{ "gpu-scan", S_chart_gpu_scan },
	{ "plans", S_chart_plans },
};

#define S_NCHARTS (sizeof S_charts / sizeof S_charts[0])

/* ---- derivations ----------------------------------------------------- */

/* Keys the calculators document in docs/formulas.md; a key listed here but
 * absent from a budget (a count-only model has no activation derivation) is
 * "not computed", not a template error. */
static const char *const S_deriv_keys[] = {
	"chinchilla.compute", "chinchilla.loss", "chinchilla.loss_epoch",
	"chinchilla.optimal_params", "chinchilla.params_fit",
	"flops.fwd_attention_per_token", "flops.per_token_model", "flops.total_6nd",
	"flops.total_hardware", "flops.total_model", "memory.activations",
	"memory.activations_per_layer", "memory.bytes_per_param",
	"memory.kv_cache_per_token", "memory.logits", "memory.max_params_unsharded",
	"memory.model_states", "memory.per_gpu_total", "params.active",
	"params.attention_per_layer", "params.mlp_per_layer", "params.total",
	"time.achieved_hfu", "time.achieved_mfu", "time.cost", "time.energy",
	"time.gpu_hours", "time.gpus_for_deadline", "time.seconds",
	"time.tokens_in_budget", "time.tokens_in_deadline",
};

#define S_NDERIV_KEYS (sizeof S_deriv_keys / sizeof S_deriv_keys[0])

static void S_num(tb_buf *o, double v)
{
	S_fmt(o, S_F_PLAIN, v, NULL);
}

static bool S_id_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static bool S_id_char(char c) { return S_id_start(c) || (c >= '0' && c <= '9'); }

/* The calculators write "currency" for money; the reader sees the code. */
static const char *S_unit(const char *unit, const char *currency)
{
	if (unit && strcmp(unit, "currency") == 0)
		return currency && *currency ? currency : "USD";
	return unit;
}

static void S_derivation(tb_derivation *dv, const tb_deriv *src, const char *currency)
{
	const char *sym = src->sym ? src->sym : "";
	const char *formula = src->formula ? src->formula : "";
	int nv = src->nvars < 0 ? 0 : src->nvars > TB_DERIV_VARS ? TB_DERIV_VARS : src->nvars;
	dv->title = tb_xstrdup(src->title ? src->title : src->key ? src->key : "");
	dv->formula = S_strf("%s = %s", sym, formula);
	tb_buf o;
	tb_buf_init(&o);
	tb_buf_printf(&o, "%s = ", sym);
	for (size_t i = 0; formula[i];) {
		if (!S_id_start(formula[i]) || (i > 0 && S_id_char(formula[i - 1]))) {
			tb_buf_putc(&o, formula[i++]);
			continue;
		}
		size_t j = i;
		while (S_id_char(formula[j]))
			j++;
		int hit = -1;
		for (int k = 0; k < nv; k++) {
			const char *vs = src->vars[k].sym;
			if (vs && strlen(vs) == j - i && memcmp(vs, formula + i, j - i) == 0) {
				hit = k;
				break;
			}
		}
		if (hit >= 0) {
			/* "6.74 × 10⁹" before ^ must be one operand: parenthesise it */
			tb_buf v;
			tb_buf_init(&v);
			S_num(&v, src->vars[hit].value);
			size_t k = j;
			while (formula[k] == ' ')
				k++;
			bool wrap = formula[k] == '^' &&
			            (strchr(v.ptr, ' ') || strstr(v.ptr, "\xC3\x97") || v.ptr[0] == '-');
			if (wrap)
				tb_buf_putc(&o, '(');
			tb_buf_puts(&o, v.ptr);
			if (wrap)
				tb_buf_putc(&o, ')');
			tb_buf_release(&v);
		} else
			tb_buf_put(&o, formula + i, j - i);
		i = j;
	}
	dv->substituted = tb_buf_detach(&o, NULL);
	tb_buf_printf(&o, "%s = ", sym);
	S_num(&o, src->result);
	const char *unit = S_unit(src->unit, currency);
	if (unit && *unit)
		tb_buf_printf(&o, " %s", unit);
	dv->result = tb_buf_detach(&o, NULL);
	dv->source = tb_xstrdup(src->source ? src->source : "");
	dv->nwhere = (size_t)nv;
	dv->where = tb_xcalloc(dv->nwhere ? dv->nwhere : 1, sizeof *dv->where);
	for (int k = 0; k < nv; k++) {
		const tb_deriv_var *v = &src->vars[k];
		tb_buf_printf(&o, "%s: %s = ", v->sym ? v->sym : "?", v->meaning ? v->meaning : "");
		S_num(&o, v->value);
		const char *vu = S_unit(v->unit, currency);
		if (vu && *vu)
			tb_buf_printf(&o, " %s", vu);
		dv->where[k] = tb_buf_detach(&o, NULL);
	}
	tb_buf_release(&o);
}

/* ---- title and verdict blocks ------------------------------------------ */

/* Inline content built as nodes, never parsed: a title holding Markdown
 * comes out literally.  One line: newlines become spaces. */
static void S_add_text(cmark_node *parent, cmark_node_type wrap, const char *s)
{
	tb_buf t;
	tb_buf_init(&t);
	tb_template_put_utf8(&t, s ? s : "", s ? strlen(s) : 0);
	for (size_t i = 0; i < t.len; i++)
		if (t.ptr[i] == '\n' || t.ptr[i] == '\r')
			t.ptr[i] = ' ';
	cmark_node *n = cmark_node_new(wrap == CMARK_NODE_CODE ? CMARK_NODE_CODE : CMARK_NODE_TEXT);
	cmark_node_set_literal(n, t.ptr);
	tb_buf_release(&t);
	if (wrap == CMARK_NODE_STRONG) {
		cmark_node *w = cmark_node_new(CMARK_NODE_STRONG);
		cmark_node_append_child(w, n);
		n = w;
	}
	cmark_node_append_child(parent, n);
}

/* The title heading and its byline, as the default template wrote them
 * before {{title_block}} existed: Markdown and HTML are unchanged. */
static void S_block_title(tb_report *r, cmark_node *into)
{
	const tb_scenario *sc = r->sc;
	S_block_new(r, TB_BLOCK_TITLE, into);
	cmark_node *node = cmark_node_last_child(into);
	cmark_node *h = cmark_node_new(CMARK_NODE_HEADING);
	cmark_node_set_heading_level(h, 1);
	S_add_text(h, CMARK_NODE_TEXT, r->meta.title && *r->meta.title ? r->meta.title : "n/a");
	cmark_node_append_child(node, h);
	if (sc->author && *sc->author) {
		cmark_node *p = cmark_node_new(CMARK_NODE_PARAGRAPH);
		S_add_text(p, CMARK_NODE_STRONG, "Author:");
		S_add_text(p, CMARK_NODE_TEXT, " ");
		S_add_text(p, CMARK_NODE_TEXT, sc->author);
		cmark_node_append_child(node, p);
	}
	cmark_node *p = cmark_node_new(CMARK_NODE_PARAGRAPH);
	S_add_text(p, CMARK_NODE_STRONG, "Date:");
	S_add_text(p, CMARK_NODE_TEXT, " ");
	S_add_text(p, CMARK_NODE_TEXT, r->date);
	S_add_text(p, CMARK_NODE_TEXT, " \xC2\xB7 ");
	S_add_text(p, CMARK_NODE_STRONG, "Tool:");
	S_add_text(p, CMARK_NODE_TEXT, " trainbudget " TB_VERSION " \xC2\xB7 ");
	S_add_text(p, CMARK_NODE_STRONG, "Scenario:");
	S_add_text(p, CMARK_NODE_TEXT, " ");
	S_add_text(p, CMARK_NODE_CODE, sc->name && *sc->name ? sc->name : "n/a");
	S_add_text(p, CMARK_NODE_TEXT, ", SHA-256 ");
	S_add_text(p, CMARK_NODE_CODE, sc->sha256[0] ? sc->sha256 : "n/a");
	cmark_node_append_child(node, p);
	/* The hash is of the file as written; --set changed what was priced.
	 * Outside the title block, so the PDF (which draws its own title block
	 * from the meta) shows it on the first page too. */
	if (sc->nsets > 0) {
		cmark_node *q = cmark_node_new(CMARK_NODE_PARAGRAPH);
		S_add_text(q, CMARK_NODE_STRONG, "Overrides:");
		for (size_t i = 0; i < sc->nsets; i++) {
			S_add_text(q, CMARK_NODE_TEXT, i ? ", " : " ");
			S_add_text(q, CMARK_NODE_CODE, sc->sets[i] ? sc->sets[i] : "");
		}
		S_add_text(q, CMARK_NODE_TEXT, " (applied with --set after the file was read: "
		           "the SHA-256 is of the file without them)");
		cmark_node_append_child(into, q);
	}
}

/* The verdict and key-figure tables, inside one block the PDF draws as its
 * coloured verdict box. */
static void S_block_verdict(tb_report *r, cmark_node *into)
{
	S_block_new(r, TB_BLOCK_VERDICT, into);
	cmark_node *node = cmark_node_last_child(into);
	tb_block *t1 = S_block_new(r, TB_BLOCK_TABLE, node);
	S_table_verdict(r, &t1->table);
	tb_block *t2 = S_block_new(r, TB_BLOCK_TABLE, node);
	S_table_key(r, &t2->table);
}

/* ---- directives ------------------------------------------------------ */

static tb_tpl_status S_env_directive(void *ctx, const char *kind, const char *arg,
                                     cmark_node *into)
{
	tb_report *r = ctx;
	if (strcmp(kind, "table") == 0) {
		for (size_t k = 0; k < S_NTABLES; k++)
			if (strcmp(S_tables[k].name, arg) == 0) {
				if (into) {
					tb_block *blk = S_block_new(r, TB_BLOCK_TABLE, into);
					S_tables[k].build(r, &blk->table);
				}
				return TB_TPL_OK;
			}
		return TB_TPL_UNKNOWN_NAME;
	}
	if (strcmp(kind, "chart") == 0) {
		for (size_t k = 0; k < S_NCHARTS; k++)
			if (strcmp(S_charts[k].name, arg) == 0) {
				if (into) {
					tb_chart_spec spec;
					memset(&spec, 0, sizeof spec);
					S_charts[k].build(r, &spec);
					tb_block *blk = S_block_new(r, TB_BLOCK_CHART, into);
					tb_chart_layout(&spec, 480, 300, &blk->chart);
					/* the id and title are the report's, whatever the layout did */
					S_copy(blk->chart.id, sizeof blk->chart.id, spec.id);
					S_copy(blk->chart.title, sizeof blk->chart.title, spec.title);
				}
				return TB_TPL_OK;
			}
		return TB_TPL_UNKNOWN_NAME;
	}
	if (strcmp(kind, "block") == 0) {
		bool title = strcmp(arg, "title_block") == 0;
		if (!title && strcmp(arg, "verdict") != 0)
			return TB_TPL_UNKNOWN_NAME;
		if (into && title)
			S_block_title(r, into);
		else if (into)
			S_block_verdict(r, into);
		return TB_TPL_OK;
	}
	if (strcmp(kind, "derivation") == 0) {
		const tb_budget *b = r->b;
		if (strcmp(arg, "all") == 0) {
			if (!into)
				return TB_TPL_OK;
			int n = b->n_derivs < TB_DERIVS_MAX ? b->n_derivs : TB_DERIVS_MAX;
			for (int i = 0; i < n; i++) {
				tb_block *blk = S_block_new(r, TB_BLOCK_DERIVATION, into);
				S_derivation(&blk->deriv, &b->derivs[i], S_currency(r));
			}
			if (n == 0)
				S_note_para(into, "No derivations were recorded for this scenario.");
			return TB_TPL_OK;
		}
		const tb_deriv *dv = tb_budget_deriv(b, arg);
		if (!dv) {
			size_t k = 0;
			while (k < S_NDERIV_KEYS && strcmp(S_deriv_keys[k], arg) != 0)
				k++;
			if (k == S_NDERIV_KEYS)
				return TB_TPL_UNKNOWN_NAME;
			if (into) {
				char *msg = S_strf("%s: not computed for this scenario.", arg);
				S_note_para(into, msg);
				free(msg);
			}
			return TB_TPL_OK;
		}
		if (into) {
			tb_block *blk = S_block_new(r, TB_BLOCK_DERIVATION, into);
			S_derivation(&blk->deriv, dv, S_currency(r));
		}
		return TB_TPL_OK;
	}
	return TB_TPL_UNKNOWN_NAME;
}

/* Suggestions for "did you mean": the closest name of the kind asked. */
static const char *S_env_suggest(void *ctx, const char *what, const char *word)
{
	const tb_report *r = ctx;
	const char *cands[S_NVALUES + S_NTEXT + 2 + TB_DERIVS_MAX + S_NDERIV_KEYS];
	size_t n = 0;
	if (strcmp(what, "placeholder") == 0) {
		for (size_t k = 0; k < S_NVALUES; k++)
			cands[n++] = S_values[k].name;
		for (size_t k = 0; k < S_NTEXT; k++)
			cands[n++] = S_text_names[k];
		cands[n++] = "title_block";
		cands[n++] = "verdict";
	} else if (strcmp(what, "filter") == 0) {
		for (size_t k = 0; k < S_F_NFILTERS; k++)
			cands[n++] = S_filter_names[k];
	} else if (strcmp(what, "condition") == 0) {
		for (size_t k = 0; k < S_NCOND; k++)
			cands[n++] = S_cond_names[k];
	} else if (strcmp(what, "table") == 0) {
		for (size_t k = 0; k < S_NTABLES; k++)
			cands[n++] = S_tables[k].name;
	} else if (strcmp(what, "chart") == 0) {
		for (size_t k = 0; k < S_NCHARTS; k++)
			cands[n++] = S_charts[k].name;
	} else if (strcmp(what, "derivation") == 0) {
		for (size_t k = 0; k < S_NDERIV_KEYS; k++)
			cands[n++] = S_deriv_keys[k];
		int nd = r->b->n_derivs < TB_DERIVS_MAX ? r->b->n_derivs : TB_DERIVS_MAX;
		for (int k = 0; k < nd; k++)
			if (r->b->derivs[k].key)
				cands[n++] = r->b->derivs[k].key;
	}
	return n ? tb_diags_suggest(word, cands, n) : NULL;
}

/* ---- meta: verdict and key figures ------------------------------------ */

static void S_verdict(tb_report *r)
{
	const tb_budget *b = r->b;
	const tb_inputs *in = &r->sc->inputs;
	const char *cur = S_currency(r);
	size_t n = 0;
	tb_buf o;
	tb_buf_init(&o);

	/* memory */
	const tb_memory *m = &b->memory;
	tb_outcome oc;
	if (!m->activations_known && S_mem_fit(b) == S_FIT_NO) {
		/* the states alone overflow the card: no activations make it fit */
		oc = TB_OUTCOME_BAD;
		tb_buf_puts(&o, "Does not fit in memory: model states and overhead alone need ");
		S_fmt(&o, S_F_BYTES, m->per_gpu.total, NULL);
		tb_buf_puts(&o, " per GPU, but the card holds ");
		S_fmt(&o, S_F_BYTES, m->capacity_bytes, NULL);
		tb_buf_puts(&o, "; activations (unknown for a model given only by its parameter count) come on top.");
	} else if (!m->activations_known) {
		oc = TB_OUTCOME_WARN;
		tb_buf_puts(&o, "Memory: model states and overhead need ");
		S_fmt(&o, S_F_BYTES, m->per_gpu.total, NULL);
		tb_buf_puts(&o, " per GPU of ");
		S_fmt(&o, S_F_BYTES, m->capacity_bytes, NULL);
		tb_buf_puts(&o, "; activations are unknown for a model given only by its parameter count.");
	} else if (m->fits) {
		oc = TB_OUTCOME_GOOD;
		tb_buf_puts(&o, "Fits in memory: ");
		S_fmt(&o, S_F_BYTES, m->per_gpu.total, NULL);
		tb_buf_puts(&o, " per GPU of ");
		S_fmt(&o, S_F_BYTES, m->capacity_bytes, NULL);
		tb_buf_puts(&o, ", leaving ");
		S_fmt(&o, S_F_BYTES, m->headroom_bytes > 0 ? m->headroom_bytes : 0, NULL);
		tb_buf_puts(&o, " headroom.");
	} else {
		oc = TB_OUTCOME_BAD;
		tb_buf_puts(&o, "Does not fit in memory: needs ");
		S_fmt(&o, S_F_BYTES, m->per_gpu.total, NULL);
		tb_buf_puts(&o, " per GPU, but the card holds ");
		S_fmt(&o, S_F_BYTES, m->capacity_bytes, NULL);
		tb_buf_puts(&o, ".");
	}
	r->verdict[n].outcome = oc;
	r->verdict[n++].text = tb_buf_detach(&o, NULL);

	/* time */
	const tb_time *tm = &b->time;
	if (tm->has_deadline) {
		/* seconds[0] is the low MFU: the longest the run may take */
		bool risk = tm->meets_deadline && tm->seconds[0] > tm->deadline_s;
		oc = !tm->meets_deadline ? TB_OUTCOME_BAD : risk ? TB_OUTCOME_WARN : TB_OUTCOME_GOOD;
		tb_buf_puts(&o, tm->meets_deadline ? "Meets the deadline of " : "Misses the deadline of ");
		S_fmt(&o, S_F_DAYS, tm->deadline_s, NULL);
		tb_buf_puts(&o, ": training takes ");
		S_fmt(&o, S_F_DAYS, tm->seconds[1], NULL);
		tb_buf_puts(&o, " at ");
		S_fmt(&o, S_F_PCT, tm->mfu[1], NULL);
		tb_buf_puts(&o, " MFU");
		if (risk) {
			tb_buf_puts(&o, ", but ");
			S_fmt(&o, S_F_DAYS, tm->seconds[0], NULL);
			tb_buf_puts(&o, " at the low end of the range (");
			S_fmt(&o, S_F_PCT, tm->mfu[0], NULL);
			tb_buf_puts(&o, " MFU), which misses it");
		}
		if (!tm->meets_deadline && tm->gpus_for_deadline > 0) {
			tb_buf_puts(&o, "; meeting it takes ");
			S_fmt(&o, S_F_GROUPED, tm->gpus_for_deadline, NULL);
			tb_buf_puts(&o, " GPUs");
		}
		tb_buf_puts(&o, ".");
	} else {
		oc = TB_OUTCOME_NONE;
		tb_buf_puts(&o, "No deadline set: training takes ");
		S_fmt(&o, S_F_DAYS, tm->seconds[1], NULL);
		tb_buf_puts(&o, " at ");
		S_fmt(&o, S_F_PCT, tm->mfu[1], NULL);
		tb_buf_puts(&o, " MFU on ");
		S_fmt(&o, S_F_GROUPED, (double)in->hardware.count, NULL);
		tb_buf_puts(&o, " GPUs.");
	}
	r->verdict[n].outcome = oc;
	r->verdict[n++].text = tb_buf_detach(&o, NULL);

	/* cost: seconds[0] is the low MFU, so cost[2] is the cheapest */
	char *lo = S_fmts(S_F_MONEY, tm->cost[2], cur);
	char *hi = S_fmts(S_F_MONEY, tm->cost[0], cur);
	char *ex = S_fmts(S_F_MONEY, tm->cost[1], cur);
	if (strcmp(lo, hi) == 0)
		tb_buf_printf(&o, "Costs %s", ex);  /* a single MFU: no range */
	else
		tb_buf_printf(&o, "Costs %s to %s (%s expected)", lo, hi, ex);
	free(lo);
	free(hi);
	free(ex);
	if (tm->has_budget) {
		/* cost[0] is the low MFU: the most the run may cost */
		bool risk = tm->within_budget && tm->cost[0] > tm->budget;
		oc = !tm->within_budget ? TB_OUTCOME_BAD : risk ? TB_OUTCOME_WARN : TB_OUTCOME_GOOD;
		tb_buf_puts(&o, tm->within_budget ? ", within the budget of " : ", over the budget of ");
		S_fmt(&o, S_F_MONEY, tm->budget, cur);
		if (risk) {
			tb_buf_puts(&o, " at the expected MFU but over it at the low end (");
			S_fmt(&o, S_F_PCT, tm->mfu[0], NULL);
			tb_buf_puts(&o, " MFU)");
		}
	} else {
		oc = TB_OUTCOME_NONE;   /* nothing to judge the cost against */
		tb_buf_puts(&o, "; no budget set");
	}
	tb_buf_puts(&o, ".");
	r->verdict[n].outcome = oc;
	r->verdict[n++].text = tb_buf_detach(&o, NULL);
	r->meta.nverdict = n;
	r->meta.verdict = r->verdict;
}

static void S_key(tb_report *r, const char *label, char *value)
{
	size_t n = r->meta.nkey;
	if (n >= S_KEY_MAX) {
		free(value);
		return;
	}
	r->key_labels[n] = tb_xstrdup(label);
	r->key_values[n] = value;
	r->meta.nkey = n + 1;
}

static void S_key_figures(tb_report *r)
{
	const tb_budget *b = r->b;
	const char *cur = S_currency(r);
	S_key(r, "Parameters", S_fmts(S_F_COUNT, b->params.total, NULL));
	S_key(r, "Training tokens", S_fmts(S_F_COUNT, r->sc->inputs.training.tokens, NULL));
	tb_buf o;
	tb_buf_init(&o);
	S_fmt(&o, S_F_SCI, b->flops.total_model, NULL);
	tb_buf_puts(&o, " FLOP");
	S_key(r, "Training compute (model FLOPs)", tb_buf_detach(&o, NULL));
	if (b->memory.activations_known)
		S_key(r, "Memory per GPU", S_fmts(S_F_BYTES, b->memory.per_gpu.total, NULL));
	else
		S_key(r, "Memory per GPU without activations",
		      S_fmts(S_F_BYTES, b->memory.per_gpu.total, NULL));
	S_key(r, "Wall clock (expected MFU)", S_fmts(S_F_DAYS, b->time.seconds[1], NULL));
	S_key(r, "GPU-hours (expected MFU)", S_fmts(S_F_GROUPED, b->time.gpu_hours[1], NULL));
	S_key(r, "Cost (expected MFU)", S_fmts(S_F_MONEY, b->time.cost[1], cur));
	S_fmt(&o, S_F_GROUPED, b->time.energy_kwh[1], NULL);
	tb_buf_puts(&o, " kWh");
	S_key(r, "Energy (expected MFU)", tb_buf_detach(&o, NULL));
	r->meta.key_labels = (const char *const *)r->key_labels;
	r->meta.key_values = (const char *const *)r->key_values;
}

/* ---- the report ------------------------------------------------------ */

static char *S_read_file(const char *path, size_t *len, tb_diags *d)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		tb_diags_add(d, TB_DIAG_ERROR, path, NULL, 0, 0, 0,
		             "cannot read the template: %s; expected a readable CommonMark file",
		             strerror(errno));
		return NULL;
	}
	tb_buf o;
	tb_buf_init(&o);
	char chunk[8192];
	size_t got;
	while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
		tb_buf_put(&o, chunk, got);
	bool bad = ferror(f) != 0;
	fclose(f);
	if (bad) {
		tb_diags_add(d, TB_DIAG_ERROR, path, NULL, 0, 0, 0,
		             "cannot read the template: read error; expected a readable CommonMark file");
		tb_buf_release(&o);
		return NULL;
	}
	return tb_buf_detach(&o, len);
}

tb_report *tb_report_new(const tb_scenario *sc, const tb_budget *b,
                         const tb_report_options *opt, tb_diags *d)
{
	tb_report_options none;
	memset(&none, 0, sizeof none);
	if (!opt)
		opt = &none;
	tb_report *r = tb_xcalloc(1, sizeof *r);
	r->sc = sc;
	r->b = b;
	r->date = tb_xstrdup(opt->date && *opt->date ? opt->date
	                     : sc->date && *sc->date ? sc->date : "undated");
	if (opt->command && *opt->command) {
		r->command = tb_xstrdup(opt->command);
	} else {
		r->command = S_strf("trainbudget report %s", sc->path ? sc->path : "SCENARIO");
	}
	S_copy(r->short_hash, sizeof r->short_hash, sc->sha256);
	r->meta.title = sc->title && *sc->title ? sc->title : sc->name;
	r->meta.author = sc->author;
	r->meta.date = r->date;
	r->meta.version = TB_VERSION;
	r->meta.sha256 = sc->sha256;
	r->meta.name = sc->name;
	r->meta.command = r->command;
	S_verdict(r);
	S_key_figures(r);

	const char *text;
	size_t len;
	const char *file;
	char *owned = NULL;
	if (opt->template_text) {
		text = opt->template_text;
		len = opt->template_len;
		file = opt->template_path ? opt->template_path : "<template>";
	} else if (opt->template_path) {
		owned = S_read_file(opt->template_path, &len, d);
		if (!owned) {
			tb_report_free(r);
			return NULL;
		}
		text = owned;
		file = opt->template_path;
	} else {
		text = tb_template_report_md;
		len = tb_template_report_md_len;
		file = "templates/report.md";
	}
	tb_tpl_env env = { r, S_env_value, S_env_condition, S_env_directive, S_env_suggest };
	r->root = tb_template_expand(text, len, file, &env, d);
	free(owned);
	if (!r->root) {
		tb_report_free(r);
		return NULL;
	}
	return r;
}

void tb_report_free(tb_report *r)
{
	if (!r)
		return;
	if (r->root)
		cmark_node_free(r->root);
	for (size_t i = 0; i < r->nblocks; i++)
		S_block_free(r->blocks[i]);
	free(r->blocks);
	for (size_t i = 0; i < r->meta.nverdict; i++)
		free(r->verdict[i].text);
	for (size_t i = 0; i < r->meta.nkey; i++) {
		free(r->key_labels[i]);
		free(r->key_values[i]);
	}
	free(r->date);
	free(r->command);
	free(r);
}

cmark_node *tb_report_root(const tb_report *r) { return r ? r->root : NULL; }

const tb_block *tb_report_block(cmark_node *node)
{
	if (!node || cmark_node_get_type(node) != CMARK_NODE_CUSTOM_BLOCK)
		return NULL;
	return cmark_node_get_user_data(node);
}

const tb_report_meta *tb_report_get_meta(const tb_report *r) { return r ? &r->meta : NULL; }
size_t tb_report_nblocks(const tb_report *r) { return r ? r->nblocks : 0; }

const tb_block *tb_report_block_at(const tb_report *r, size_t i)
{
	return r && i < r->nblocks ? r->blocks[i] : NULL;
}
