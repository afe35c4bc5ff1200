/* memory_states.c: the model states one GPU holds.
 *
 * Bytes a parameter by precision and optimizer (Rajbhandari et al. 2020,
 * ZeRO), the model's parameters split by stage and by tensor and expert
 * ranks, each state sharded over the data-parallel group from its own
 * ZeRO stage on, what a framework holds whole of what its stage would
 * shard (FSDP's no_sync; FSDP under a pipeline) and FSDP's ZeRO-3 working
 * set.  memory.c sums them with the activations; the layout search
 * (plan.c) calls the same functions, so the two never disagree. */
#include "calc.h"
#include "trainbudget/gpus.h"

#include <string.h>

static double S_max(double a, double b) { return a > b ? a : b; }

static double S_div(double a, double b) { return b > 0 ? a / b : 0; }

/* Bytes an element of Transformer Engine's quantized copy of a trained
 * linear layer's weight, kept between micro-batches and steps where the
 * caller passes is_first_microbatch (Megatron-LM does), as the step-time
 * model's once-a-step weight cast assumes wherever it prices Transformer
 * Engine's casts (every framework but fsdp, perf_input.c); 0 where there
 * is none (16-bit runs, torchao's casts, adapters over a frozen base).
 * Per tensor: the data, and a transpose where the card's fp8 GEMMs take
 * only the TN layout, but for fp8 parameters; block and MX scales: both
 * orientations with their scales (1x32 blocks: a byte a block; 2-D
 * 128x128 blocks: 4 B a block); fp4: both, half a byte and a byte of
 * scale per 16 (NVFP4) or 32 (MXFP4) elements. */
double tb_memory_te_weight_bytes(const tb_inputs *in)
{
	const tb_training *tr = &in->training;
	if (in->parallelism.framework == TB_FW_FSDP || !tb_method_trains_base(tr->method))
		return 0;
	const char *gpu = in->hardware.gpu.name;
	if (tr->precision == TB_PREC_FP4_MIXED)
		return 2 * (0.5 + (tb_gpus_nvfp4(gpu) ? 1.0 / 16 : 1.0 / 32));
	if (tr->precision != TB_PREC_FP8_MIXED)
		return 0;
	tb_fp8_recipe r = tr->fp8_recipe == TB_FP8_AUTO ? TB_FP8_DELAYED : tr->fp8_recipe;
	switch (tb_gpus_fp8_recipe(gpu, r)) {
	case TB_FP8_MXFP8:
		return 2 * (1 + 1.0 / 32);
	case TB_FP8_BLOCKWISE:
	case TB_FP8_DEEPSEEK:
		return 2 * (1 + 4.0 / (128 * 128));
	default:
		/* fp8 parameters (fp8_model_init's Float8Tensor) make their
		 * transpose for the backward and do not keep it: the frozen fp8
		 * bases of MLPerf's H100 and H200 LoRA runs, the same tensors,
		 * fit their cards only without one (docs/validation.md) */
		return tb_gpus_fp8_any_layout(gpu) || tb_fp8_params(in) ? 1 : 2;
	}
}

static void S_bytes_per_param(const tb_inputs *in, tb_bytes_per_param *bp,
                              double adafactor_per_param)
{
	double moment = 4;      /* fp32 moments unless the run is pure bf16 */
	switch (in->training.precision) {
	case TB_PREC_FP32:
		bp->weights = 4; bp->gradients = 4; bp->master_weights = 0;
		break;
	case TB_PREC_BF16:
		bp->weights = 2; bp->gradients = 2; bp->master_weights = 0;
		moment = 2;
		break;
	case TB_PREC_BF16_MIXED:
	case TB_PREC_FP16_MIXED:
	case TB_PREC_FP8_MIXED: /* fp8 casts happen per matmul; storage as bf16-mixed */
	case TB_PREC_FP4_MIXED: /* and fp4's */
	default:
		bp->weights = 2; bp->gradients = 2; bp->master_weights = 4;
		break;
	}
	switch (in->training.optimizer) {
	case TB_OPT_ADAMW:        bp->optimizer = 2 * moment; break;
	case TB_OPT_ADAMW_8BIT:   bp->optimizer = 2; break;
	case TB_OPT_ADAFACTOR:    bp->optimizer = adafactor_per_param * moment; break;
	case TB_OPT_SGD:          bp->optimizer = 0; break;
	case TB_OPT_SGD_MOMENTUM: bp->optimizer = moment; break;
	case TB_OPT_LION:         bp->optimizer = moment; break;
	default:                  bp->optimizer = 2 * moment; break;
	}
	/* Gradients in the dtype they are accumulated and reduced in: fp32
	 * under bf16-mixed unless the scenario says bf16 (Megatron-LM's
	 * distributed-optimizer table: 18 B/param, 6 + 12/d sharded) */
	bp->gradients = tb_grad_bytes(&in->training);
	/* FSDP holds its sharded gradients in the sharded parameters' dtype
	 * (fp32 under mixed precision, 16 bits under pure bf16): its
	 * reduce_dtype sets the reduce-scatter and what accumulates whole,
	 * and the output is cast back (FSDP2's foreach_reduce) */
	if (in->parallelism.framework == TB_FW_FSDP)
		bp->gradients = bp->master_weights > 0 ? bp->master_weights : bp->weights;
	/* LoRA's adapters are kept in fp32 beside 16-bit frozen weights
	 * (PEFT's autocast_adapter_dtype, on by default since 0.12): fp32
	 * weights and gradients, fp32 moments, no separate master copy */
	if (tb_method_adapters(in->training.method)) {
		/* pure bf16 keeps them in bf16 (QLoRA's runs, --bf16); the
		 * moments stay fp32 (bitsandbytes' 32-bit paged AdamW) */
		double aw = in->training.precision == TB_PREC_BF16 ? 2 : 4;
		bp->weights = aw;
		bp->gradients = aw;
		bp->master_weights = 0;
		if (moment < 4 && bp->optimizer > 0)
			bp->optimizer *= 4 / moment;
	}
	bp->total = bp->weights + bp->gradients + bp->master_weights + bp->optimizer;
}

/* Adafactor keeps one row and one column vector per matrix (its second
 * moment, factored) and a full second moment for vectors; no first moment
 * (beta1 = 0, Shazeer & Stern 2018, Sec. 3-4).  Returns state elements per
 * parameter, or 0 when the shape is unknown. */
static double S_adafactor_elems_per_param(const tb_model *m, const tb_arch *a, double total)
{
	if (!m->has_shape || total <= 0)
		return 0;
	double h = a->h, V = a->V;
	double s = V + h;                                   /* embedding */
	if (m->positions == TB_POS_LEARNED)
		s += (double)m->max_positions + h;
	if (!m->tied_embeddings)
		s += V + h;
	s += a->L * (a->attn_rc + a->attn_v + a->norm_v);
	s += a->L_dense * (a->dense_rc + a->dense_v);
	s += a->L_moe * (a->E * (a->expert_rc + a->expert_v) + a->shared_rc + a->shared_v +
	                 a->router_rc + a->router_v);
	s += a->final_norm;
	return s / total;
}

/* A pair over its data-parallel groups where `on`.  ZeRO: stage >= 1
 * shards master weights and moments, >= 2 gradients, >= 3 weights, frozen
 * ones too (FSDP and DeepSpeed shard every parameter they wrap), but what
 * the framework holds whole (tb_memory_whole). */
static double S_sharded(tb_mem_pair p, bool on, double d_dense, double d_expert)
{
	return p.dense / (on ? d_dense : 1) + p.expert / (on ? d_expert : 1);
}

/* Whether ZeRO stage `zero` keeps the fp8 weights: fp8 parameters always
 * (sharded with the 16-bit ones they replace), copies beside 16-bit
 * weights but under ZeRO-3 (Megatron-FSDP, which keeps no transposes: not
 * modelled, counted none) */
bool tb_memory_w8_kept(const tb_mem_model *mm, int zero)
{
	return mm->w8_bytes > 0 && (mm->w8_replaces || zero < 3);
}

unsigned tb_memory_whole(const tb_parallelism *par, int zero, int64_t pipeline)
{
	if (tb_fsdp_holds_stage(par->framework, zero, pipeline))
		return TB_MEM_WHOLE_GRADS | TB_MEM_WHOLE_WEIGHTS;
	return par->no_sync ? TB_MEM_WHOLE_GRADS : 0;
}

void tb_memory_states(const tb_mem_model *mm, const tb_mem_share *p, int zero, unsigned whole,
                     double d_dense, double d_expert, tb_mem_items *out)
{
	const tb_bytes_per_param *bp = &mm->bp;
	int gz = whole & TB_MEM_WHOLE_GRADS ? 0 : zero;
	int wz = whole & TB_MEM_WHOLE_WEIGHTS ? 0 : zero;
	double w = S_sharded(p->train, wz >= 3, d_dense, d_expert);
	double g = S_sharded(p->train, gz >= 2, d_dense, d_expert);
	double o = S_sharded(p->train, zero >= 1, d_dense, d_expert);
	out->frozen_weights = mm->frozen_bytes * S_sharded(p->frozen, wz >= 3, d_dense, d_expert) +
	                      mm->quant_bytes * S_sharded(p->quant, wz >= 3, d_dense, d_expert);
	out->adapters = mm->extras_trained ? 0 : bp->weights * w;
	double w8 = tb_memory_w8_kept(mm, zero) ? S_sharded(p->w8, wz >= 3, d_dense, d_expert) : 0;
	out->fp8_weights = mm->w8_bytes * w8;
	/* FSDP shards one copy of a trained weight, under mixed precision
	 * the fp32 one (the master weights): its 16-bit weights exist only
	 * as gathered, the working set below (FSDP2 casts each shard to the
	 * param dtype for the all-gather, MixedPrecisionPolicy) */
	double wk = w;
	if (mm->one_copy && wz >= 3)
		wk -= (d_dense > 1 ? p->train.dense / d_dense : 0) +
		      (d_expert > 1 ? p->train.expert / d_expert : 0);
	/* held whole (ZeRO-2, or ZeRO-3 under a pipeline), the linear
	 * weights FSDP gathered in fp8 stay fp8 */
	double h8 = zero >= 2 && wz < 3 ? p->lin8 : 0;
	out->weights = bp->weights * (wk - h8 - (mm->w8_replaces ? w8 : 0)) + h8 + out->fp8_weights +
	               out->frozen_weights;
	/* gradients kept whole accumulate in the dtype they are reduced in */
	bool acc = (whole & TB_MEM_WHOLE_GRADS) && zero >= 2;
	out->gradients = (acc ? mm->reduce_bytes : bp->gradients) * g;
	out->master_weights = bp->master_weights * o;
	out->optimizer = bp->optimizer * o;
	out->paged = mm->paged ? out->optimizer : 0;
	tb_memory_gathered_bytes(mm, p, zero, whole, d_dense, d_expert, &out->gathered_weights,
	                         &out->gathered_gradients);
	out->weights += out->gathered_weights;
	out->gradients += out->gathered_gradients;
}

void tb_memory_model(const tb_inputs *in, const tb_params *pp, tb_mem_model *mm)
{
	const tb_model *m = &in->model;
	memset(mm, 0, sizeof *mm);
	tb_arch ar;
	if (m->has_shape)
		tb_calc_arch(m, &ar);
	else
		memset(&ar, 0, sizeof ar);
	double ada = in->training.optimizer == TB_OPT_ADAFACTOR
	             ? S_adafactor_elems_per_param(m, &ar, pp->total) : 0;
	S_bytes_per_param(in, &mm->bp, ada);
	mm->reduce_bytes = tb_method_adapters(in->training.method) ? mm->bp.gradients
	                   : tb_grad_bytes(&in->training);
	mm->total = pp->total;
	mm->mtp = m->has_shape ? (double)m->mtp_modules : 0;
	tb_method meth = in->training.method;
	tb_quant q = in->training.quantization;
	bool trains_base = tb_method_trains_base(meth);
	bool frozen_base = meth != TB_METHOD_FULL;      /* the base, or dpo's reference */
	mm->frozen_bytes = in->training.precision == TB_PREC_FP32 ? 4 : 2;
	mm->quant_bytes = tb_quant_bytes_per_param(q, in->training.double_quant, (double)m->hidden);
	mm->paged = in->training.paged_optimizer;
	mm->framework = in->parallelism.framework;
	mm->one_copy = tb_fsdp_one_copy(in);
	mm->extras_trained = trains_base;
	mm->extras_frozen = frozen_base;
	mm->trained_total = trains_base ? pp->total : pp->adapters;
	mm->frozen_total = frozen_base ? pp->total : 0;
	mm->by_stage = m->has_shape && pp->known_breakdown;
	if (mm->by_stage) {
		double L = (double)m->layers;
		mm->layers = m->layers;
		mm->final_norm = m->norm == TB_NORM_LAYERNORM ? 2 * (double)m->hidden : (double)m->hidden;
		double layer_norms = S_div(pp->norm - mm->final_norm, L);
		/* routed experts are split by expert parallelism, the rest (dense
		 * MLPs, shared experts, routers) is not; a stage is taken to hold
		 * the model's mix of layer kinds */
		tb_mem_pair base = {
			S_div(pp->attention + (pp->mlp - pp->experts), L) + layer_norms,
			S_div(pp->experts, L),
		};
		tb_mem_pair quant = { 0, 0 };
		if (frozen_base && q != TB_QUANT_NONE) {
			quant.dense = S_div(pp->matrices - pp->matrices_expert, L);
			quant.expert = S_div(pp->matrices_expert, L);
		}
		if (trains_base) {
			mm->train = base;
		} else {
			mm->train.dense = S_div(pp->adapters - pp->adapters_expert, L);
			mm->train.expert = S_div(pp->adapters_expert, L);
		}
		if (frozen_base) {
			mm->quant = quant;
			mm->frozen.dense = base.dense - quant.dense;
			mm->frozen.expert = base.expert - quant.expert;
		}
		/* a layer's dense linear weights: torchao's Float8Linear
		 * converts the blocks' nn.Linear modules, Transformer Engine
		 * runs them; the routers are 16-bit modules of their own, the
		 * grouped experts no nn.Linear for torchao */
		double lin = S_div(S_max(pp->matrices - pp->matrices_expert - pp->router, 0), L);
		if (tb_fsdp_fp8_gather(in))
			mm->lin8 = lin;
		double w8 = trains_base ? tb_memory_te_weight_bytes(in) : 0;
		if (w8 > 0) {
			mm->w8.dense = lin;
			mm->w8.expert = S_div(pp->matrices_expert, L);
			mm->w8_bytes = w8;
			mm->w8_replaces = tb_fp8_params(in);
		}
		mm->embedding = pp->embedding;
		mm->tied = m->tied_embeddings;
		mm->head_tied = (double)m->vocab * (double)m->hidden;
		mm->output = pp->output;
		if (w8 > 0 && in->training.fp8_head)
			mm->w8_head = mm->tied ? mm->head_tied : mm->output;
	}
}

static tb_mem_pair S_layers_pair(tb_mem_pair per_layer, double ls, double t, double ete)
{
	tb_mem_pair r = { ls * per_layer.dense / t, ls * per_layer.expert / ete };
	return r;
}

/* A layout's layers and MTP modules per stage class; false: none for p. */
static bool S_layout_split(const tb_pipe_layout *pl, int64_t p, int64_t layers[3], double mtp[3])
{
	if (!pl || p <= 1 || pl->pipeline != p)
		return false;
	layers[0] = pl->first.layers, mtp[0] = (double)pl->first.mtp;
	layers[2] = pl->last.layers, mtp[2] = (double)pl->last.mtp;
	layers[1] = 0, mtp[1] = 0;
	for (int i = 0; i < pl->n_middle; i++) {
		if (pl->middle[i].layers > layers[1])
			layers[1] = pl->middle[i].layers;
		if (pl->middle[i].mtp > mtp[1])
			mtp[1] = (double)pl->middle[i].mtp;
	}
	return true;
}

void tb_memory_shares(const tb_mem_model *mm, const tb_pipe_layout *pl, int64_t t, int64_t et,
                      int64_t p, int64_t e, tb_mem_share share[3], int64_t layers[3],
                      double mtp[3])
{
	memset(share, 0, 3 * sizeof *share);
	mtp[0] = mtp[1] = mtp[2] = 0;
	if (!mm->by_stage) {
		for (int i = 0; i < 3; i++) {
			share[i].train.dense = S_div(mm->trained_total, (double)(t * p));
			share[i].frozen.dense = S_div(mm->frozen_total, (double)(t * p));
			layers[i] = 0;
		}
		return;
	}
	/* an MTP module's layer rides with the head, or where a layout puts
	 * it; its projection (2h x h) is left out, under 1% of the layer */
	if (!S_layout_split(pl, p, layers, mtp)) {
		tb_perf_stage_split(mm->layers, p, layers);
		for (int i = 0; i < 3; i++)
			mtp[i] = (p <= 1 ? i == 0 : i == 2) ? mm->mtp : 0;
	}
	double td = (double)t, ete = (double)et * (double)e;
	tb_mem_unit layer = {
		S_layers_pair(mm->train, 1, td, ete), S_layers_pair(mm->frozen, 1, td, ete),
		S_layers_pair(mm->quant, 1, td, ete), mm->lin8 / td,
	};
	for (int i = 0; i < 3; i++) {
		double ls = (double)layers[i] + mtp[i];
		share[i].train = S_layers_pair(mm->train, ls, td, ete);
		share[i].frozen = S_layers_pair(mm->frozen, ls, td, ete);
		share[i].quant = S_layers_pair(mm->quant, ls, td, ete);
		share[i].w8 = S_layers_pair(mm->w8, ls, td, ete);
		share[i].layer = layer;
		share[i].lin8 = ls * mm->lin8 / td;
	}
	/* a tied head is a second copy on the last stage when p > 1 */
	double head = mm->tied ? (p > 1 ? mm->head_tied : 0) : mm->output;
	double first = mm->embedding / td;
	double last = (head + mm->final_norm) / td;
	/* the head with the final norm is a unit of its own (torchtitan wraps
	 * them together), gathered from the forward's end through its
	 * backward (a tied head is the embedding's own parameter, gathered
	 * as it) */
	share[p <= 1 ? 0 : 2].w8.dense += mm->w8_head / td;
	tb_mem_unit *u = &share[p <= 1 ? 0 : 2].head;
	double hw = ((mm->tied ? mm->embedding : head) + mm->final_norm) / td;
	if (mm->extras_trained)
		u->train.dense = hw;
	else if (mm->extras_frozen)
		u->frozen.dense = hw;
	if (p <= 1)
		first += last;
	for (int k = 0; k < 2; k++) {
		bool on = k == 0 ? mm->extras_trained : mm->extras_frozen;
		if (!on)
			continue;
		tb_mem_pair *f = k == 0 ? &share[0].train : &share[0].frozen;
		tb_mem_pair *l = k == 0 ? &share[2].train : &share[2].frozen;
		f->dense += first;
		if (p > 1)
			l->dense += last;
	}
	if (p <= 1) {
		share[1] = share[2] = share[0];
		mtp[1] = mtp[2] = mtp[0];
	}
}

/* A unit's bytes as gathered, of the parts `part` names (1 trained, 2
 * frozen and quantized): trained weights in their 16-bit form, frozen
 * ones as stored; dense ones where the data-parallel group shards them
 * (dn), routed experts where theirs does (ex). */
static double S_unit_bytes(const tb_mem_model *mm, const tb_mem_unit *u, unsigned part, bool dn,
                           bool ex)
{
	double d = dn ? 1 : 0, x = ex ? 1 : 0, t = part & 1 ? 1 : 0, f = part & 2 ? 1 : 0;
	return t * mm->bp.weights * (d * (u->train.dense - u->lin8) + x * u->train.expert) +
	       t * d * u->lin8 +
	       f * mm->frozen_bytes * (d * u->frozen.dense + x * u->frozen.expert) +
	       f * mm->quant_bytes * (d * u->quant.dense + x * u->quant.expert);
}

/* One model's working set (the parts `part` of each unit): the larger
 * unit as gathered with the next layer prefetched, and that unit's
 * trained gradients twice; its weights in *w, gradients in *g. */
static void S_working_set(const tb_mem_model *mm, const tb_mem_share *share, unsigned part,
                          bool dn, bool ex, double *w, double *g)
{
	double lb = S_unit_bytes(mm, &share->layer, part, dn, ex);
	double hb = S_unit_bytes(mm, &share->head, part, dn, ex);
	const tb_mem_unit *u = hb > lb ? &share->head : &share->layer;
	double trained = part & 1 ? (dn ? u->train.dense : 0) + (ex ? u->train.expert : 0) : 0;
	*w = (hb > lb ? hb : lb) + lb;
	*g = trained * (mm->bp.weights + mm->reduce_bytes);
}

void tb_memory_gathered_bytes(const tb_mem_model *mm, const tb_mem_share *share, int zero,
                              unsigned whole, double d_dense, double d_expert, double *weights,
                              double *grads)
{
	*weights = *grads = 0;
	/* FSDP2: the unit running and the next prefetched, and the unit's
	 * gradients twice, as autograd writes them (the parameters' dtype)
	 * and in the reduce-scatter's input buffer (the reduce dtype), both
	 * live until the copy-in ends (_fsdp_collectives.py foreach_reduce).
	 * DeepSpeed gathers a module at a time under a cap of live
	 * parameters, Megatron-FSDP in buckets: not priced */
	if (mm->framework != TB_FW_FSDP || zero < 3 || (whole & TB_MEM_WHOLE_WEIGHTS) || !mm->by_stage)
		return;
	/* what a group of one GPU holds whole is never gathered */
	bool dn = d_dense > 1, ex = d_expert > 1;
	if (mm->extras_trained && mm->extras_frozen) {
		/* DPO: the reference is a model of its own, run forward alone;
		 * its units are never gathered beside the policy's, so the
		 * larger of the two working sets */
		double pw, pg, rw, rg;
		S_working_set(mm, share, 1, dn, ex, &pw, &pg);
		S_working_set(mm, share, 2, dn, ex, &rw, &rg);
		bool ref = rw + rg > pw + pg;
		*weights = ref ? rw : pw;
		*grads = ref ? rg : pg;
		return;
	}
	/* a frozen base and its adapters are one module, gathered together */
	S_working_set(mm, share, 3, dn, ex, weights, grads);
}

double tb_memory_states_bytes(const tb_mem_model *mm, const tb_mem_share *share,
                              int zero, unsigned whole, double d_dense, double d_expert)
{
	tb_mem_items it = {0};
	tb_memory_states(mm, share, zero, whole, d_dense, d_expert, &it);
	return it.weights + it.gradients + it.master_weights + it.optimizer - it.paged;
}
