/* memory.c: bytes per GPU, line by line.
 *
 * Model states follow Rajbhandari et al. 2020 (ZeRO): weights, gradients,
 * fp32 master weights and optimizer moments, each sharded over the
 * data-parallel group from its own ZeRO stage on (memory_states.c, with
 * what frameworks hold whole).  Tensor, pipeline and expert parallelism
 * divide the model before that; the busiest pipeline stage is reported,
 * since the first stage to run out of memory stops the run.
 *
 * Activations are an inventory of the tensors one layer keeps for
 * backward (Korthikanti et al. 2022, Sec. 4.1; memory_act.c), summed here
 * over the layers and micro-batches in flight on each stage.  Every item
 * is linear in the micro-batch b, which makes the largest micro-batch
 * that fits a cheap search. */
#include "calc.h"
#include "trainbudget/gpus.h"

#include <string.h>

static const char S_src_zero[] =
	"Rajbhandari et al. 2020 (ZeRO), arXiv:1910.02054, Sec. 3.1 and 5.1, Fig. 1";
static const char S_src_bpp[] =
	"Rajbhandari et al. 2020 (ZeRO) Sec. 3.1 (2 + 2 + 12 B with 16-bit gradients); "
	"Megatron-LM distributed optimizer docs (bf16 weights, fp32 gradients: 18 B)";
static const char S_src_frozen[] =
	"frozen weights hold no gradient or optimizer state; adapters fp32 (PEFT "
	"autocast_adapter_dtype); 4-bit blocks as QLoRA (Dettmers et al. 2023, arXiv:2305.14314, Sec. 3); "
	"fp8 as Transformer Engine's fp8_model_init (1 B a weight)";
static const char S_src_w8[] =
	"Transformer Engine module/linear.py (_fp8_workspaces: with is_first_microbatch, which "
	"Megatron-LM passes, the quantized weight is kept between micro-batches) and "
	"csrc/quantizer.cpp (a transpose only where nvte_is_non_tn_fp8_gemm_supported is false); "
	"Megatron-LM --fp8-param-gather (te.fp8_model_init: the weights stored quantized)";
static const char S_src_act[] =
	"Korthikanti et al. 2022, arXiv:2205.05198, Sec. 4.1 and Table 2 (inventory generalised)";

static const char S_src_ce_fused[] =
	"fp32 logits kept for the cross-entropy backward, the gradient written over them "
	"(Megatron-LM's vocab-parallel cross-entropy; Korthikanti et al. 2022 Sec. 4.1)";
static const char S_src_ce_eager[] =
	"PyTorch's F.cross_entropy over logits.float(): at the start of the backward the "
	"saved log-softmax, its output's gradient and its input's gradient, three fp32 "
	"buffers (torch.nn.functional, LogSoftmaxBackward; torchtitan's loss_fn)";

static double S_ce_bytes(const tb_inputs *in)
{
	return tb_cross_entropy_bytes_per_logit(tb_cross_entropy_eager(in));
}

static double S_max(double a, double b) { return a > b ? a : b; }

static double S_div(double a, double b) { return b > 0 ? a / b : 0; }

static int64_t S_pos(int64_t v) { return v > 0 ? v : 1; }

static void S_total(tb_mem_items *it)
{
	it->total = it->weights + it->gradients + it->master_weights
	            + it->optimizer + it->activations + it->other - it->paged;
}

/* In-flight work on pipeline rank r under 1F1B (Narayanan et al. 2021
 * Sec. 2.2): *chunks passes of its L_r/v layers each and, on rank 0, *emb
 * micro-batches of embedding output.  Plain 1F1B (v = 1) holds
 * min(p - r, M) micro-batches.  The interleaved schedule's warm-up runs
 * 2(p-r-1) + (v-1)p chunks before rank r's first backward (Megatron-LM's
 * schedules.py), so it holds (v+1)p - 2r - 1 chunk passes, rank 0 L_s (1 +
 * (p-1)/(pv)) layers' worth once M is large (Korthikanti et al. 2022 Sec.
 * 4.2.3), and chunk 0 (the embedding's) holds p of them plus p - 1 of the
 * next group. */
/* The micro-batches of a step, M, at least 1. */
static int64_t S_microbatches(int64_t gb, int64_t mb, int64_t d)
{
	int64_t per = mb * d;
	int64_t nmb = per > 0 ? gb / per : 1;
	return nmb < 1 ? 1 : nmb;
}

/* S_inflight given M (nmb): a search asks it for three ranks at once. */
static void S_inflight_m(int64_t p, int64_t v, int64_t nmb, int64_t r, int64_t *chunks,
                         int64_t *emb)
{
	if (p <= 1) {
		*chunks = *emb = 1;
		return;
	}
	if (v <= 1) {
		*chunks = nmb < p - r ? nmb : p - r;
		*emb = nmb < p ? nmb : p;
		return;
	}
	int64_t held = (v + 1) * p - 2 * r - 1;
	*chunks = nmb * v < held ? nmb * v : held;
	*emb = nmb < 2 * p - 1 ? nmb : 2 * p - 1;
}

static void S_inflight(int64_t p, int64_t v, int64_t gb, int64_t mb, int64_t d, int64_t r,
                       int64_t *chunks, int64_t *emb)
{
	S_inflight_m(p, v, p <= 1 ? 1 : S_microbatches(gb, mb, d), r, chunks, emb);
}

/* The rank of stage i (0 first, 1 middle, 2 last). */
static int64_t S_rank(int64_t p, int i)
{
	return i == 0 || p <= 1 ? 0 : i == 1 ? 1 : p - 1;
}

/* Activations of the first, middle and last stage for micro-batch mb.  A
 * search asks it for every micro-batch and virtual split of every layout
 * that may fit: the products of b are taken once, each in the order the
 * sums below read it. */
static void S_stage_act(const tb_mem_fit *c, int64_t mb, double act[3])
{
	double b = (double)mb;
	double ws_b = c->ws_b1 * b, emb_b = c->emb_b1 * b, logits_b1 = c->logits_b1 * b;
	int64_t p = c->p, v = c->v, nmb = p <= 1 ? 1 : S_microbatches(c->gb, mb, c->d);
	for (int i = 0; i < 3; i++) {
		/* the MTP modules' layers and logits, with the head or where a
		 * layout puts them */
		double mtp = c->mtp[i];
		double layers_b = (c->layers[i] + mtp) * c->act_layer_b1 * b;
		if (c->recompute_layers > 0) {
			int64_t n = (int64_t)c->layers[i];
			int64_t r = tb_perf_stage_recomputed(n, p > 1 ? v : 1, c->recompute_layers);
			/* the MTP modules' layers are recomputed with a stage's every one */
			if (r < n)
				layers_b = ((double)r * c->act_layer_b1 +
				            ((double)(n - r) + mtp) * c->act_keep_b1) * b;
		}
		if (p <= 1) {
			act[i] = layers_b + emb_b + logits_b1 * (1 + mtp) + ws_b;
			continue;
		}
		if (c->layers[i] <= 0) {        /* p = 2: no middle stage */
			act[i] = 0;
			continue;
		}
		int64_t chunks, emb;
		S_inflight_m(p, v, nmb, S_rank(p, i), &chunks, &emb);
		double passes = v > 1 ? (double)chunks / (double)v : (double)chunks;
		act[i] = layers_b * passes + ws_b;
		if (i == 0)
			act[i] += emb_b * (double)emb;
		if (i == 2)
			act[i] += logits_b1 * (1 + mtp);
		else if (mtp > 0)       /* a layout's module off the last rank */
			act[i] += logits_b1 * mtp * passes;
	}
}

/* The busiest of the three stages given their activations. */
static int S_busy(const tb_mem_fit *c, const double act[3])
{
	int busy = 0;
	for (int i = 1; i < 3; i++)
		if (c->states[i] + act[i] > c->states[busy] + act[busy])
			busy = i;
	return busy;
}

void tb_memory_fit_head(tb_mem_fit *c, const tb_inputs *in, int64_t t, double cp, bool sp)
{
	double s = (double)in->training.seq_len, h = (double)in->model.hidden;
	double V = (double)in->model.vocab, tt = (double)S_pos(t), cc = cp > 1 ? cp : 1;
	/* The embedding's output is the first layer's input, which the layer
	 * inventory already holds (its norm input); what the embedding adds
	 * is its dropout mask, 1 byte per element, split over t under
	 * sequence parallelism: sbhp/t for the p in-flight micro-batches
	 * (Korthikanti et al. 2022, Sec. 4.3).  Without dropout nothing. */
	c->emb_b1 = in->training.dropout ? s * h / (sp ? tt : 1) / cc : 0;
	/* the loss's fp32 buffers at its peak, vocabulary-parallel over t */
	c->logits_b1 = S_ce_bytes(in) * s * V / tt / cc;
}

void tb_memory_fit_recompute(tb_mem_fit *c, const tb_inputs *in, const double b1[3],
                             tb_checkpointing mode)
{
	c->recompute_layers = 0;
	c->act_keep_b1 = 0;
	if (mode == TB_CKPT_FULL && in->training.recompute_layers > 0 &&
	    in->training.method != TB_METHOD_FROZEN) {
		c->recompute_layers = in->training.recompute_layers;
		c->act_keep_b1 = b1[TB_CKPT_NONE];
	}
}

void tb_memory_stage_act(const tb_mem_fit *c, int64_t mb, double act[3])
{
	S_stage_act(c, mb, act);
}

double tb_memory_fit_sum(const tb_mem_fit *c, const double act[3], int *busy)
{
	int k = S_busy(c, act);
	if (busy)
		*busy = k;
	return c->states[k] + act[k] + c->other;
}

double tb_memory_fit_total(const tb_mem_fit *c, int64_t mb, int *busy)
{
	double act[3];
	S_stage_act(c, mb, act);
	return tb_memory_fit_sum(c, act, busy);
}

void tb_memory_layer_terms(const tb_inputs *in, const double b1[3], tb_checkpointing mode,
                           double *act, double *ws)
{
	if (in->training.method == TB_METHOD_FROZEN) {
		*act = 0;
		*ws = b1[TB_CKPT_NONE];
		return;
	}
	*act = b1[mode];
	*ws = mode == TB_CKPT_FULL ? b1[TB_CKPT_NONE] : 0;
}


/* The fewest layers a chunk full recomputation can redo with the stage
 * still within cap, below `now` (the layers it redoes): memory never grows
 * with them, so bisect; 0 when none fewer fits. */
static int64_t S_fewest_recomputed(const tb_mem_fit *c, double act_none_b1, int64_t mb,
                                   double cap, int64_t now)
{
	tb_mem_fit f = *c;
	f.act_keep_b1 = act_none_b1;
	int64_t lo = 0, hi = now;       /* lo: fewer than any that fit; hi fits or is now */
	while (hi - lo > 1) {
		f.recompute_layers = lo + (hi - lo) / 2;
		if (tb_memory_fit_total(&f, mb, NULL) <= cap)
			hi = f.recompute_layers;
		else
			lo = f.recompute_layers;
	}
	return hi < now ? hi : 0;
}

void tb_memory_compute(const tb_inputs *in, tb_budget *b)
{
	const tb_model *m = &in->model;
	const tb_training *tr = &in->training;
	const tb_parallelism *par = &in->parallelism;
	tb_memory *mem = &b->memory;
	const tb_params *pp = &b->params;

	int64_t t = S_pos(par->tensor), p = S_pos(par->pipeline);
	int64_t e = S_pos(par->expert), d = S_pos(par->data);
	int zero = par->zero < 0 ? 0 : par->zero > 3 ? 3 : par->zero;
	/* Context parallelism splits every sequence over cp GPUs: each holds
	 * 1/cp of the activations, and ZeRO shards over data x context (the
	 * ranks that hold the same weights; Megatron-LM's distributed
	 * optimizer does so). */
	double cp = (double)S_pos(par->context);
	double dd = (double)d * cp;
	if (par->shard_group > 0 && (double)par->shard_group < dd)
		dd = (double)par->shard_group;
	int64_t et = tb_perf_expert_tensor(par->expert_tensor, t);
	double de = S_max(1, (double)t * (double)d * cp / ((double)et * (double)e));

	tb_arch ar;
	if (m->has_shape)
		tb_calc_arch(m, &ar);
	else
		memset(&ar, 0, sizeof ar);
	tb_mem_model mm;
	tb_memory_model(in, pp, &mm);
	mem->bytes_per_param = mm.bp;
	const tb_bytes_per_param *bp = &mem->bytes_per_param;
	if (tr->optimizer == TB_OPT_ADAFACTOR && !m->has_shape)
		tb_budget_warn(b, "Adafactor state taken as 0 bytes/parameter: its factored "
		                  "second moment needs the matrix shapes (it is well under 1%% of "
		                  "the parameters for matrices wider than 1000)");
	/* trained parameters with their states, frozen ones as stored */
	double quantized = mm.quant.dense + mm.quant.expert > 0 ? pp->matrices : 0;
	mem->frozen_weights_bytes = mm.frozen_total > 0
		? (mm.frozen_total - quantized) * mm.frozen_bytes + quantized * mm.quant_bytes : 0;
	if (!mm.by_stage && tb_memory_te_weight_bytes(in) > 0)
		tb_budget_warn(b, "Transformer Engine's fp8 copies of the linear layers' weights (or fp8 "
		                  "parameters) not counted: they need the model's matrix shapes");
	/* the trained linear layers' fp8 copies, or fp8 weights in place of
	 * 16-bit ones (tb_memory_states says where each is counted) */
	double lin_all = (mm.w8.dense + mm.w8.expert) * (double)mm.layers + mm.w8_head;
	double lin = tb_memory_w8_kept(&mm, zero) ? lin_all : 0;
	mem->fp8_weights_bytes = lin * mm.w8_bytes;
	mem->fp8_replaced_bytes = mm.w8_replaces ? lin * bp->weights : 0;
	mem->trained_weights_bytes = pp->trainable * bp->weights - mem->fp8_replaced_bytes;
	mem->model_states_bytes = pp->trainable * bp->total + mem->frozen_weights_bytes +
	                          mem->fp8_weights_bytes - mem->fp8_replaced_bytes;

	tb_deriv *dv = tb_budget_add_deriv(b, "memory.bytes_per_param",
		"Model-state bytes per parameter", "B_p", "w + g + m + o", S_src_bpp,
		bp->total, "B");
	tb_deriv_add_var(dv, "w", "weights", bp->weights, "B");
	tb_deriv_add_var(dv, "g", bp->gradients >= 4 ? "gradients as held (fp32)"
	                 : "gradients as held (16-bit)", bp->gradients, "B");
	tb_deriv_add_var(dv, "m", "fp32 master weights", bp->master_weights, "B");
	tb_deriv_add_var(dv, "o", "optimizer state", bp->optimizer, "B");

	if (lin > 0) {
		dv = tb_budget_add_deriv(b, "memory.fp8_weights", mm.w8_replaces
			? "fp8 weights of the trained linear layers, whole model (training.fp8_param_gather)"
			: in->training.precision == TB_PREC_FP4_MIXED
			? "Transformer Engine's fp4 copies of the trained linear layers' weights, whole model"
			: "Transformer Engine's fp8 copies of the trained linear layers' weights, whole model",
			"W_8", "N_l * w_8", S_src_w8, mem->fp8_weights_bytes, "B");
		tb_deriv_add_var(dv, "N_l", "weights of the linear layers", lin, "");
		tb_deriv_add_var(dv, "w_8", "bytes an element: the data, and a transposed copy or both "
		                 "orientations with their scales where the card or recipe needs them",
		                 mm.w8_bytes, "B");
	}
	/* with the copies, and less the 16-bit weights fp8 parameters stand
	 * in for (a derivation keeps its formula's pointer: static strings) */
	static const char *const full_f[] = { "N * B_p", "N * B_p + W_8", "N * B_p + W_8 - W_16" };
	static const char *const part_f[] = { "N_t * B_p + W_f", "N_t * B_p + W_f + W_8",
	                                      "N_t * B_p + W_f + W_8 - W_16" };
	int w8_form = lin <= 0 ? 0 : mm.w8_replaces ? 2 : 1;
	if (in->training.method == TB_METHOD_FULL) {
		const char *formula = full_f[w8_form];
		dv = tb_budget_add_deriv(b, "memory.model_states",
			"Model states, whole model, unsharded", "M_states", formula, S_src_zero,
			mem->model_states_bytes, "B");
		tb_deriv_add_var(dv, "N", "parameters", pp->total, "");
		tb_deriv_add_var(dv, "B_p", "bytes per parameter", bp->total, "B");
	} else {
		const char *formula = part_f[w8_form];
		dv = tb_budget_add_deriv(b, "memory.model_states",
			"Model states, whole model, unsharded (trained and frozen)", "M_states",
			formula, S_src_frozen, mem->model_states_bytes, "B");
		tb_deriv_add_var(dv, "N_t", tb_method_adapters(in->training.method)
		                 ? "trained parameters (the adapters)" : "trained parameters", pp->trainable, "");
		tb_deriv_add_var(dv, "B_p", "bytes per trained parameter", bp->total, "B");
		tb_deriv_add_var(dv, "W_f", in->training.quantization != TB_QUANT_NONE
		                 ? "frozen weights as stored (linear layers quantized)"
		                 : "frozen weights, 16-bit", mem->frozen_weights_bytes, "B");
	}
	if (lin > 0) {
		tb_deriv_add_var(dv, "W_8", "fp8 copies or weights of the linear layers (memory.fp8_weights)",
		                 mem->fp8_weights_bytes, "B");
		if (mm.w8_replaces)
			tb_deriv_add_var(dv, "W_16", "the 16-bit weights they replace", mem->fp8_replaced_bytes, "B");
	}

	unsigned whole = tb_memory_whole(par, zero, p);
	mem->gradients_whole = zero >= 2 && (whole & TB_MEM_WHOLE_GRADS);
	mem->weights_whole = zero >= 3 && (whole & TB_MEM_WHOLE_WEIGHTS);

	/* ---- partition: the first, a middle and the last stage ---------- */
	tb_mem_share share[3];
	int64_t split[3];
	double c_mtp[3];
	tb_memory_shares(&mm, &par->layout, t, et, p, e, share, split, c_mtp);

	/* ---- activations ------------------------------------------------ */
	tb_mem_fit c = {0};
	c.p = p;
	c.v = p > 1 ? S_pos(par->virtual_pipeline) : 1;
	c.d = d;
	c.gb = tr->global_batch;
	c.other = in->hardware.overhead_bytes;
	memcpy(c.mtp, c_mtp, sizeof c.mtp);
	tb_mem_items items[3];
	for (int i = 0; i < 3; i++) {
		c.layers[i] = (double)split[i];
		memset(&items[i], 0, sizeof items[i]);
		tb_memory_states(&mm, &share[i], zero, whole, dd, de, &items[i]);
		/* p = 2 has no middle stage */
		c.states[i] = p == 2 && i == 1 ? 0
		              : tb_memory_states_bytes(&mm, &share[i], zero, whole, dd, de);
	}

	int64_t mb = S_pos(tr->micro_batch);
	double s = (double)tr->seq_len, h = (double)m->hidden, V = (double)m->vocab;
	mem->activations_known = m->has_shape;
	double act[3] = { 0, 0, 0 };
	/* One layer at micro-batch 1 under each mode, worked out once: the
	 * scenario's mode fills the inventory, the others feed the
	 * checkpointing rows, and "none" is also full recompute's working set. */
	double act_mode_b1[3] = { 0, 0, 0 };
	int ck = (unsigned)tr->checkpointing <= TB_CKPT_FULL ? (int)tr->checkpointing : TB_CKPT_NONE;
	if (m->has_shape) {
		for (int i = 0; i < 3; i++) {
			bool mine = i == ck;
			act_mode_b1[i] = tb_memory_act_layer(in, &ar, (tb_checkpointing)i,
			                             mine ? mem->act_items : NULL,
			                             mine ? &mem->n_act_items : NULL);
		}
		for (int i = 0; i < 3; i++)
			act_mode_b1[i] /= cp;
		tb_memory_layer_terms(in, act_mode_b1, (tb_checkpointing)ck, &c.act_layer_b1, &c.ws_b1);
		tb_memory_fit_recompute(&c, in, act_mode_b1, (tb_checkpointing)ck);
		tb_memory_fit_head(&c, in, t, cp, par->sequence_parallel);
		for (int i = 0; i < mem->n_act_items; i++)
			mem->act_items[i].bytes *= (double)mb / cp;
		mem->activations_per_layer_bytes = c.act_layer_b1 * (double)mb;
		S_stage_act(&c, mb, act);
	} else {
		tb_budget_warn(b, "Activations and KV cache unknown: the model has only a "
		                  "parameter count; give its shape (layers, hidden, heads, ...) "
		                  "to estimate them");
	}

	/* the busiest stage decides */
	int busy = S_busy(&c, act);
	mem->per_gpu = items[busy];
	mem->per_gpu.activations = act[busy];
	mem->per_gpu.other = c.other;
	S_total(&mem->per_gpu);
	mem->activations_bytes = mem->per_gpu.activations;
	mem->layers_on_busiest_stage = split[busy];
	int64_t emb_mb;
	S_inflight(c.p, c.v, c.gb, mb, c.d, S_rank(p, busy), &mem->inflight_chunks, &emb_mb);
	/* micro-batches with work on the stage: all of the first's embedding
	 * group; elsewhere its chunk passes over v */
	mem->inflight_microbatches = c.v <= 1 ? mem->inflight_chunks
	                             : busy == 0 ? emb_mb : (mem->inflight_chunks + c.v - 1) / c.v;
	if (m->has_shape) {
		double bb = (double)mb;
		mem->logits_bytes = (p <= 1 || busy == 2) ? c.logits_b1 * bb : 0;
		mem->embedding_dropout_bytes = (p <= 1 || busy == 0) ? c.emb_b1 * bb * (double)emb_mb : 0;
	}

	mem->capacity_bytes = in->hardware.gpu.memory_bytes;
	mem->fits = mem->per_gpu.total <= mem->capacity_bytes;
	mem->fits_known = mem->activations_known || !mem->fits;
	mem->headroom_bytes = mem->capacity_bytes - mem->per_gpu.total;

	/* largest micro-batch: total is non-decreasing in b (b x in-flight
	 * count never falls), so bisect */
	mem->max_micro_batch = 0;
	if (m->has_shape) {
		int64_t hi = S_pos(tr->global_batch / d);
		if (tb_memory_fit_total(&c, 1, NULL) <= mem->capacity_bytes) {
			int64_t lo = 1;
			if (tb_memory_fit_total(&c, hi, NULL) <= mem->capacity_bytes) {
				lo = hi;
			} else {
				while (hi - lo > 1) {
					int64_t mid = lo + (hi - lo) / 2;
					if (tb_memory_fit_total(&c, mid, NULL) <= mem->capacity_bytes)
						lo = mid;
					else
						hi = mid;
				}
			}
			mem->max_micro_batch = lo;
		}
	}

	/* ---- ZeRO rows ------------------------------------------------------ */
	for (int z = 0; z < 4; z++) {
		tb_zero_row *r = &mem->zero[z];
		r->stage = z;
		memset(&r->bytes, 0, sizeof r->bytes);
		for (int i = 0; i < 3; i++) {
			if (p == 2 && i == 1)
				continue;
			tb_mem_items a = {0};
			tb_memory_states(&mm, &share[i], z, tb_memory_whole(par, z, p), dd, de, &a);
			a.activations = act[i];
			a.other = c.other;
			S_total(&a);
			if (a.total > r->bytes.total)
				r->bytes = a;
		}
		r->fits = r->bytes.total <= mem->capacity_bytes;
		r->fits_known = mem->activations_known || !r->fits;
	}

	/* ---- checkpointing rows -------------------------------------------- */
	const tb_flops *fl = &b->flops;
	for (int i = 0; i < 3; i++) {
		tb_checkpointing mode = (tb_checkpointing)i;
		tb_ckpt_row *r = &mem->checkpointing[i];
		r->mode = mode;
		r->extra_flops_fraction = S_div(tb_calc_recompute_per_token(fl, in, mode),
		                                fl->per_token_model);
		if (m->has_shape) {
			tb_mem_fit cc = c;
			tb_memory_layer_terms(in, act_mode_b1, (tb_checkpointing)mode,
			                      &cc.act_layer_b1, &cc.ws_b1);
			tb_memory_fit_recompute(&cc, in, act_mode_b1, (tb_checkpointing)mode);
			double ca[3];
			S_stage_act(&cc, mb, ca);
			int k = S_busy(&cc, ca);
			r->activations_bytes = ca[k];
			r->total_bytes = cc.states[k] + ca[k] + c.other;
		} else {
			r->activations_bytes = 0;
			r->total_bytes = S_max(S_max(c.states[0], c.states[1]), c.states[2]) + c.other;
		}
		r->fits = r->total_bytes <= mem->capacity_bytes;
		r->fits_known = mem->activations_known || !r->fits;
	}

	/* under full recomputation where no recomputation does not fit, the
	 * fewest layers a chunk it could redo (the lever; timecost.c) */
	mem->fewest_recompute_layers = 0;
	mem->fewest_recompute_bytes = mem->fewest_recompute_act_bytes = 0;
	mem->fewest_recompute_flops_fraction = 0;
	if (m->has_shape && tr->checkpointing == TB_CKPT_FULL && tr->method != TB_METHOD_FROZEN &&
	    !mem->checkpointing[TB_CKPT_NONE].fits) {
		int64_t chunk = 0;
		for (int i = 0; i < 3; i++)
			if (split[i] > 0 && (split[i] + c.v - 1) / c.v > chunk)
				chunk = (split[i] + c.v - 1) / c.v;
		int64_t now = tr->recompute_layers > 0 && tr->recompute_layers < chunk ? tr->recompute_layers : chunk;
		tb_mem_fit f = c;
		f.recompute_layers = S_fewest_recomputed(&c, act_mode_b1[TB_CKPT_NONE], mb,
		                                         mem->capacity_bytes, now);
		if (f.recompute_layers > 0) {
			f.act_keep_b1 = act_mode_b1[TB_CKPT_NONE];
			double fa[3];
			int k;
			tb_memory_stage_act(&f, mb, fa);
			mem->fewest_recompute_layers = f.recompute_layers;
			mem->fewest_recompute_bytes = tb_memory_fit_sum(&f, fa, &k);
			mem->fewest_recompute_act_bytes = fa[k];
			tb_inputs x = *in;
			x.training.recompute_layers = f.recompute_layers;
			mem->fewest_recompute_flops_fraction =
				S_div(tb_calc_recompute_per_token(&b->flops, &x, TB_CKPT_FULL), b->flops.per_token_model);
		}
	}

	/* ---- KV cache ------------------------------------------------------- */
	mem->kv_cache_known = m->has_shape;
	if (m->has_shape) {
		/* bf16, every layer: K and V, or MLA's latent and rope key; a local
		 * layer keeps at most its span of tokens */
		double span = ar.L_local > 0 && ar.window < s ? ar.window : s;
		mem->kv_cache_bytes_per_token = 2.0 * ar.L * ar.kv_elems;
		mem->kv_cache_bytes_per_sequence = 2.0 * ar.kv_elems *
		                                   ((ar.L - ar.L_local) * s + ar.L_local * span);
	}

	/* ---- the inverse question ----------------------------------------- */
	double usable = in->hardware.gpu.memory_bytes - in->hardware.overhead_bytes;
	if (usable < 0)
		usable = 0;
	double G = (double)(in->hardware.count > 0 ? in->hardware.count : 1);
	/* under another method, a model parameter's mean bytes: its frozen
	 * storage plus its share of the trained states */
	double tf = in->training.method != TB_METHOD_FULL && pp->total > 0
	            ? pp->trainable / pp->total : 1;
	/* the linear layers' fp8 copies, or fp8 weights for 16-bit ones, as a
	 * mean over the parameters; sharded over every card (ZeRO-3) the
	 * copies are not kept, fp8 weights are */
	double w8any = S_div(lin_all * (mm.w8_bytes - (mm.w8_replaces ? bp->weights : 0)), pp->total);
	double w8pp = lin > 0 ? w8any : 0;
	/* a mean model parameter as a share of its own, its states then held
	 * and sharded by tb_memory_states as the GPU's are (no unit gathered:
	 * the working set is a unit's worth whatever the model's size) */
	tb_mem_share one = {0};
	if (pp->total > 0) {
		one.train.dense = tf;
		one.frozen.dense = S_div(mm.frozen_total - quantized, pp->total);
		one.quant.dense = S_div(quantized, pp->total);
		one.w8.dense = S_div(lin_all, pp->total);
		one.lin8 = S_div(mm.lin8 * (double)mm.layers, pp->total);
	}
	double bps = G * tb_memory_states_bytes(&mm, &one, 3, 0, G, G);
	double bp1 = tb_memory_states_bytes(&mm, &one, 0, 0, 1, 1);
	mem->max_params_fully_sharded = S_div(G * usable, bps);
	mem->max_params_one_gpu = S_div(usable, bp1);
	double wd = zero >= 3 && !(whole & TB_MEM_WHOLE_WEIGHTS) ? dd : 1;
	double gd = zero >= 2 && !(whole & TB_MEM_WHOLE_GRADS) ? dd : 1;
	double per_param_gpu = tb_memory_states_bytes(&mm, &one, zero, whole, dd, dd);
	mem->max_params_this_layout = S_div(usable * (double)(t * p), per_param_gpu);

	/* ---- derivations ----------------------------------------------------- */
	if (m->has_shape) {
		double sbh = s * (double)mb * h;
		dv = tb_budget_add_deriv(b, "memory.activations_per_layer",
			"Activations per layer, one micro-batch, per GPU", "A_l",
			"s * b * h * c", S_src_act, mem->activations_per_layer_bytes, "B");
		tb_deriv_add_var(dv, "s", "sequence length", s, "tokens");
		tb_deriv_add_var(dv, "b", "micro-batch", (double)mb, "sequences");
		tb_deriv_add_var(dv, "h", "hidden size", h, "");
		tb_deriv_add_var(dv, "c", "bytes per s*b*h element, summed over the inventory",
		                 S_div(mem->activations_per_layer_bytes, sbh), "B");

		bool ce_eager = tb_cross_entropy_eager(in);
		dv = tb_budget_add_deriv(b, "memory.logits",
			"Logits / cross-entropy buffers (fp32)", "A_logits", "e * s * b * V / (t * c)",
			ce_eager ? S_src_ce_eager : S_src_ce_fused, c.logits_b1 * (double)mb, "B");
		tb_deriv_add_var(dv, "e", ce_eager
		                 ? "bytes a logit at the loss's peak: PyTorch's eager cross-entropy "
		                   "(training.cross_entropy: eager)"
		                 : "bytes a logit at the loss's peak: a fused cross-entropy "
		                   "(training.cross_entropy: fused)", S_ce_bytes(in), "B");
		tb_deriv_add_var(dv, "s", "sequence length", s, "tokens");
		tb_deriv_add_var(dv, "b", "micro-batch", (double)mb, "sequences");
		tb_deriv_add_var(dv, "V", "vocabulary", V, "tokens");
		tb_deriv_add_var(dv, "t", "tensor-parallel size", (double)t, "");
		tb_deriv_add_var(dv, "c", "context-parallel size", cp, "");

		int64_t n_re = c.recompute_layers > 0
		               ? tb_perf_stage_recomputed(split[busy], p > 1 ? c.v : 1, c.recompute_layers)
		               : split[busy];
		bool part = n_re < split[busy];
		dv = tb_budget_add_deriv(b, "memory.activations",
			"Activations per GPU, busiest pipeline stage", "A",
			part ? "(L_r * A_l + (L_s - L_r) * A_k) * n_mb + A_emb + A_logits + A_ws"
			     : "L_s * A_l * n_mb + A_emb + A_logits + A_ws",
			part ? "Korthikanti et al. 2022, Eq. (5) and Sec. 4.3; 1F1B in-flight micro-batches; "
			       "Megatron-LM --recompute-method block: the first N layers of each chunk"
			     : "Korthikanti et al. 2022, Eq. (5) and Sec. 4.3; 1F1B in-flight micro-batches",
			mem->activations_bytes, "B");
		tb_deriv_add_var(dv, "L_s", "layers on the stage", (double)split[busy], "");
		if (part) {
			tb_deriv_add_var(dv, "L_r", "of them recomputed in full (training.recompute_layers per chunk)",
			                 (double)n_re, "");
			tb_deriv_add_var(dv, "A_l", "activations per recomputed layer",
			                 mem->activations_per_layer_bytes, "B");
			tb_deriv_add_var(dv, "A_k", "activations per layer not recomputed",
			                 c.act_keep_b1 * (double)mb, "B");
		} else {
			tb_deriv_add_var(dv, "A_l", "activations per layer", mem->activations_per_layer_bytes, "B");
		}
		tb_deriv_add_var(dv, "n_mb", c.v > 1
		                 ? "micro-batches in flight on this stage (interleaved: chunk passes / v)"
		                 : "micro-batches in flight on this stage",
		                 p > 1 ? (c.v > 1 ? (double)mem->inflight_chunks / (double)c.v
		                                  : (double)mem->inflight_chunks) : 1, "");
		tb_deriv_add_var(dv, "A_emb", "embedding dropout mask (its output is layer 1's input)",
		                 mem->embedding_dropout_bytes, "B");
		tb_deriv_add_var(dv, "A_logits", "logits buffer", mem->logits_bytes, "B");
		tb_deriv_add_var(dv, "A_ws", "full recompute: one layer rebuilt", c.ws_b1 * (double)mb, "B");

		if (ar.mla) {
			dv = tb_budget_add_deriv(b, "memory.kv_cache_per_token",
				"KV cache per token (bf16, multi-head latent attention)", "KV",
				"L * (r_kv + d_r) * 2",
				"DeepSeek-V2, arXiv:2405.04434, Sec. 2.1.2 and Table 1: the latent and the shared rope key",
				mem->kv_cache_bytes_per_token, "B");
			tb_deriv_add_var(dv, "L", "layers", ar.L, "");
			tb_deriv_add_var(dv, "r_kv", "key/value latent rank", (double)m->kv_lora_rank, "");
			tb_deriv_add_var(dv, "d_r", "rope key width", (double)m->qk_rope_dim, "");
		} else {
			dv = tb_budget_add_deriv(b, "memory.kv_cache_per_token",
				"KV cache per token (bf16)", "KV", "2 * L * K * d * 2",
				"K and V per layer, 2 bytes each (serving the trained model)",
				mem->kv_cache_bytes_per_token, "B");
			tb_deriv_add_var(dv, "L", "layers", (double)m->layers, "");
			tb_deriv_add_var(dv, "K", "key/value heads", (double)m->kv_heads, "");
			tb_deriv_add_var(dv, "d", "head dimension", (double)m->head_dim, "");
		}
		if (ar.L_local > 0) {
			dv = tb_budget_add_deriv(b, "memory.kv_cache_per_sequence",
				"KV cache per sequence (bf16; local layers keep their span)", "KV_seq",
				"KV / L * ((L - L_w) * T + L_w * min(T, w))",
				"a local layer attends to at most w tokens, so it caches at most w",
				mem->kv_cache_bytes_per_sequence, "B");
			tb_deriv_add_var(dv, "KV", "KV cache per token, every layer", mem->kv_cache_bytes_per_token, "B");
			tb_deriv_add_var(dv, "L", "layers", ar.L, "");
			tb_deriv_add_var(dv, "L_w", "local layers", ar.L_local, "");
			tb_deriv_add_var(dv, "T", "sequence length", s, "tokens");
			tb_deriv_add_var(dv, "w", ar.chunked ? "chunk" : "window", ar.window, "tokens");
		}
	}

	dv = tb_budget_add_deriv(b, "memory.per_gpu_total",
		"Memory per GPU, busiest stage", "M_gpu", "W + G + M + O + A + X",
		S_src_zero, mem->per_gpu.total, "B");
	tb_deriv_add_var(dv, "W", "weights", mem->per_gpu.weights, "B");
	tb_deriv_add_var(dv, "G", "gradients", mem->per_gpu.gradients, "B");
	tb_deriv_add_var(dv, "M", "master weights", mem->per_gpu.master_weights, "B");
	tb_deriv_add_var(dv, "O", "optimizer state", mem->per_gpu.optimizer, "B");
	tb_deriv_add_var(dv, "A", "activations", mem->per_gpu.activations, "B");
	tb_deriv_add_var(dv, "X", "overhead (CUDA context, allocator, NCCL)", mem->per_gpu.other, "B");

	/* Transformer Engine's fp8 weights, a model parameter's mean: kept
	 * as the weights under ZeRO-3 only where they replace them */
	static const char *const w8_meaning =
		"fp8 copies or weights of the linear layers, less the 16-bit weights they replace, "
		"a model parameter's mean (memory.fp8_weights)";
	double w8fs = mm.w8_replaces ? w8any : 0;
	dv = tb_budget_add_deriv(b, "memory.max_params_fully_sharded",
		"Largest dense model whose training state fits, every state sharded over all G cards (ZeRO-3)",
		"N_max", w8fs != 0 ? "G * (C - X) / (B_p + w_8)" : "G * (C - X) / B_p",
		"ZeRO-3 (Rajbhandari et al. 2020, Sec. 5.1): each card holds 1/G of every state; before activations",
		mem->max_params_fully_sharded, "");
	tb_deriv_add_var(dv, "G", "GPUs", G, "");
	tb_deriv_add_var(dv, "C", "memory per GPU", in->hardware.gpu.memory_bytes, "B");
	tb_deriv_add_var(dv, "X", "overhead per GPU", in->hardware.overhead_bytes, "B");
	tb_deriv_add_var(dv, "B_p", mm.one_copy && G > 1
	                 ? "bytes per parameter sharded (FSDP keeps only the fp32 copy of a weight)"
	                 : in->training.method == TB_METHOD_FULL ? "bytes per parameter"
	                 : "bytes per model parameter (frozen + its share of the trained states)", bps - w8fs, "B");
	if (w8fs != 0)
		tb_deriv_add_var(dv, "w_8", w8_meaning, w8fs, "B");

	dv = tb_budget_add_deriv(b, "memory.max_params_one_gpu",
		"Largest dense model whose training state fits without sharding (one card holds it all)",
		"N_1", w8any != 0 ? "(C - X) / (B_p + w_8)" : "(C - X) / B_p",
		"plain data parallelism: every card a whole replica of every state; before activations",
		mem->max_params_one_gpu, "");
	tb_deriv_add_var(dv, "C", "memory per GPU", in->hardware.gpu.memory_bytes, "B");
	tb_deriv_add_var(dv, "X", "overhead per GPU", in->hardware.overhead_bytes, "B");
	tb_deriv_add_var(dv, "B_p", in->training.method == TB_METHOD_FULL ? "bytes per parameter" : "bytes per model parameter (frozen + its share of the trained states)", bp1 - w8any, "B");
	if (w8any != 0)
		tb_deriv_add_var(dv, "w_8", w8_meaning, w8any, "B");

	dv = tb_budget_add_deriv(b, "memory.max_params_this_layout",
		"Largest dense model whose training state fits at this run's layout", "N_l",
		"(C - X) * t * p / B_z",
		w8pp != 0
		? "tensor x pipeline split, then ZeRO over the data-parallel group: B_z = (w + w_8)/N_w + "
		  "g/N_g + (m + o)/[z>=1 ? N_d : 1], N_w and N_g N_d from ZeRO-3 and ZeRO-2 on but where "
		  "the framework holds them whole (FSDP's no_sync, FSDP under a pipeline), w_8 Transformer "
		  "Engine's fp8 weights, a parameter's mean (memory.fp8_weights); before activations and "
		  "FSDP's working set"
		: "tensor x pipeline split, then ZeRO over the data-parallel group: B_z = w/N_w + g/N_g + "
		  "(m + o)/[z>=1 ? N_d : 1], N_w and N_g N_d from ZeRO-3 and ZeRO-2 on but where the "
		  "framework holds them whole (FSDP's no_sync, FSDP under a pipeline: g then in the dtype "
		  "it is reduced in); w 0 where FSDP shards only the fp32 copy; before activations "
		  "and FSDP's working set",
		mem->max_params_this_layout, "");
	tb_deriv_add_var(dv, "C", "memory per GPU", in->hardware.gpu.memory_bytes, "B");
	tb_deriv_add_var(dv, "X", "overhead per GPU", in->hardware.overhead_bytes, "B");
	tb_deriv_add_var(dv, "t", "tensor-parallel size", (double)t, "");
	tb_deriv_add_var(dv, "p", "pipeline stages", (double)p, "");
	tb_deriv_add_var(dv, "B_z", "bytes per parameter on one card of a replica, at ZeRO stage z",
	                 per_param_gpu, "B");
	tb_deriv_add_var(dv, "z", "ZeRO stage", (double)zero, "");
	tb_deriv_add_var(dv, "N_d", "data-parallel ranks sharing the states (x context)", dd, "");
	tb_deriv_add_var(dv, "N_w", "ranks sharing the weights", wd, "");
	tb_deriv_add_var(dv, "N_g", "ranks sharing the gradients", gd, "");

	if (m->has_shape && !mem->fits && mem->max_micro_batch == 0)
		tb_budget_warn(b, "Does not fit even at micro-batch 1: shard further (ZeRO, "
		                  "tensor or pipeline parallelism) or recompute activations");
	/* what selective recomputation recomputes, flash attention never
	 * stores: the two are the same run (Korthikanti et al. 2022, Sec. 5) */
	if (m->has_shape && in->training.checkpointing == TB_CKPT_SELECTIVE &&
	    tb_selective_is_none(&in->training))
		tb_budget_warn(b, "%s", tb_selective_none_warning(in));
}
