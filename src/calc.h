/* calc.h: the calculator steps, internal to the library.
 *
 * budget.c calls them in this order; each reads the inputs and what the
 * earlier steps left in the budget, and writes its own part:
 *   params -> flops -> memory -> perf (step time) -> timecost (time, cost,
 *   plan, levers, measured)
 *   -> goodput (failures, checkpoints, the figures with losses, the verdicts)
 *   -> scaling (Chinchilla, plans).
 * Pure: no I/O, no allocation.  The steps record their derivations and
 * warnings through deriv.h, included here. */
#ifndef TB_CALC_H
#define TB_CALC_H

#include <math.h>
#include <stdbool.h>

#include "deriv.h"
#include "trainbudget/budget.h"

/* A shaped model reduced to what the calculators count (params.c).
 * Layers come in kinds that differ only in a few terms (dense or MoE MLP,
 * global or local attention); each term is given per layer of its kind,
 * with the number of layers of that kind.  `_w` counts matrix weights
 * (2 FLOP per token each, forward), `_v` vectors (biases and norm scales:
 * no matmul), `_rc` the sum of rows + columns over the matrices (the
 * state Adafactor keeps).  For a plain decoder every count equals the
 * formula params.c used before the kinds existed. */
typedef struct tb_arch {
	double L, L_moe, L_dense, L_local;
	double E, k;            /* routed experts per MoE layer, per token; 1, 1 dense */
	double h, V;
	double attn_w, attn_v, attn_rc;
	double dense_w, dense_v, dense_rc;      /* a dense MLP of ffn_hidden */
	double expert_w, expert_v, expert_rc;   /* one routed expert */
	double shared_w, shared_v, shared_rc;   /* shared expert(s) and their gate */
	double router_w, router_v, router_rc;
	double norm_v;          /* the norms of one layer */
	double final_norm;
	double H;               /* query heads */
	double d_qk, d_v;       /* per-head width of the scores and of the values */
	double f_dense, f_expert, f_shared;     /* MLP widths */
	double mlp_mats;        /* matrices per MLP: 3 gated, 2 plain */
	double kv_elems;        /* cached elements per token per layer (K and V, or MLA's latent) */
	double window;          /* local span in tokens; 0 = none */
	bool mla, chunked;
} tb_arch;

void tb_calc_arch(const tb_model *m, tb_arch *a);             /* params.c */

/* Keys per query a layer's scores span over a sequence of T tokens: the
 * whole square (c = 1) or its causal half (c = 1/2) for a global layer;
 * for a local one of `window` keys (in chunks of it when chunked), the
 * band it can see (docs/formulas.md, Compute). */
double tb_calc_keys_global(double T, bool causal);           /* flops.c */
double tb_calc_keys_local(double window, bool chunked, double T, bool causal);

/* Readies a budget for the calculators below, as tb_budget_compute
 * begins: params, flops and memory cleared, no derivations or warnings
 * (the rest is each step's own to clear; budget.c). */
void tb_budget_clear(tb_budget *b);                          /* budget.c */
void tb_params_compute(const tb_inputs *in, tb_budget *b);   /* params.c */
/* The counts of tb_params_compute alone, without its derivations and
 * warnings, into *out (for the search's scratch work). */
void tb_params_values(const tb_inputs *in, tb_params *out);
void tb_flops_compute(const tb_inputs *in, tb_budget *b);    /* flops.c */
/* The counts of tb_flops_compute alone, from the parameter counts p,
 * without its derivations and warnings, into *out. */
void tb_flops_values(const tb_inputs *in, const tb_params *p, tb_flops *out);
void tb_memory_compute(const tb_inputs *in, tb_budget *b);   /* memory.c */
void tb_perf_budget_compute(const tb_inputs *in, tb_budget *b); /* perf_budget.c */
/* The per-GPU memory of a layout, factored so that a layout search
 * (plan.c) computes exactly what tb_memory_compute does (memory.c) at a
 * fraction of the cost: the model and precision once (tb_mem_model), the
 * stage's parameter shares per (t, p, e), the model states per ZeRO stage,
 * one layer's activations per (t, sequence parallelism, checkpointing),
 * then tb_memory_fit_total per micro-batch. */
/* Parameters per layer (a mean over the layers), dense and routed
 * experts', of one kind: trained, frozen in 16 bits, frozen quantized. */
typedef struct tb_mem_pair {
	double dense, expert;
} tb_mem_pair;
typedef struct tb_mem_model {
	tb_bytes_per_param bp;  /* of a trained parameter (an adapter's under LoRA) */
	double frozen_bytes;    /* a frozen parameter in 16 bits (4 under fp32) */
	double quant_bytes;     /* a frozen linear weight, quantized (tuning.h) */
	bool by_stage;          /* shape and parameter breakdown known */
	bool paged;             /* the optimizer state pages to host memory */
	int64_t layers;
	double total;           /* the model's parameters */
	double trained_total, frozen_total; /* without a breakdown: spread evenly */
	tb_mem_pair train, frozen, quant;
	/* Transformer Engine's fp8 (fp4) copies of the trained linear layers'
	 * weights under Megatron-LM, w8_bytes an element over the w8 elements
	 * of a layer, kept between micro-batches and steps; w8_replaces: they
	 * are the weights (training.fp8_param_gather), no 16-bit copy beside */
	tb_mem_pair w8;
	double w8_bytes;
	bool w8_replaces;
	/* the head's weights among them under training.fp8_head (a Transformer
	 * Engine linear too), on the stage that holds the head */
	double w8_head;
	/* the embedding, the head and the final norm: trained with the model
	 * (full, dpo) and/or frozen (lora, qlora, frozen; dpo's reference) */
	bool extras_trained, extras_frozen;
	double embedding, head_tied, output, final_norm;
	bool tied;
	/* multi-token prediction modules: each one more layer on the last
	 * stage, with the head (the step-time model's placing, perf.c) */
	double mtp;
	tb_framework framework; /* whose ZeRO-3 working set (tb_memory_gathered_bytes) */
	/* a gradient's bytes as reduced and, where kept whole, accumulated
	 * (training.grad_dtype); bp.gradients is as the shards hold them */
	double reduce_bytes;
	/* a layer's trained linear weights FSDP gathers in fp8, 1 byte apiece
	 * (tb_fsdp_fp8_gather; not the head, not grouped experts) */
	double lin8;
	bool one_copy;          /* tb_fsdp_one_copy */
} tb_mem_model;
void tb_memory_model(const tb_inputs *in, const tb_params *pp, tb_mem_model *mm);
/* One GPU's parameters of one stage, before ZeRO: dense ones (ZeRO shards
 * over data x context) and routed experts' (split over the expert and the
 * expert tensor ranks, sharded over tensor x data x context / (et x
 * expert)), trained, frozen in 16 bits and frozen quantized. */
typedef struct tb_mem_unit {
	tb_mem_pair train, frozen, quant;
	double lin8;            /* of train.dense: linear weights FSDP gathers in fp8 */
} tb_mem_unit;
typedef struct tb_mem_share {
	tb_mem_pair train, frozen, quant, w8;
	/* the units ZeRO-3 gathers whole on this stage, on one GPU: a layer,
	 * and on the stage holding it the head with the final norm (zero
	 * elsewhere); tb_memory_gathered_bytes takes the larger */
	tb_mem_unit layer, head;
	double lin8;            /* the stage's linear weights FSDP gathers in fp8 */
} tb_mem_share;
/* The first, a middle (the second) and the last stage's shares; their
 * layers in layers[i] (tb_perf_stage_split, or the layout's where `pl`
 * is for p ranks; all 0 when the model has only a count, whose parameters
 * are then spread evenly) and their MTP modules in mtp[i].  Under a
 * layout the middle stage is a bound on every middle rank: the most
 * layers any holds, with the MTP modules if one holds them. */
void tb_memory_shares(const tb_mem_model *mm, const tb_pipe_layout *pl, int64_t t, int64_t et,
                      int64_t p, int64_t e, tb_mem_share share[3], int64_t layers[3],
                      double mtp[3]);
/* FSDP's ZeRO-3 working set on one GPU of a stage whose `share` is given:
 * the unit it gathers and runs, the next one prefetched, and the unit's
 * gradients before their reduce-scatter; dense parameters only where
 * their data-parallel group d_dense shards them, routed experts where
 * d_expert does; DPO's reference, a model of its own, apart from the
 * policy (the larger of the two).  Its gathered weights in *weights, its
 * gradients in *grads (each 0 under another framework, below ZeRO-3 or
 * where the weights are held whole).  docs/formulas.md, "ZeRO-3's
 * working set". */
void tb_memory_gathered_bytes(const tb_mem_model *mm, const tb_mem_share *share, int zero,
                              unsigned whole, double d_dense, double d_expert, double *weights,
                              double *grads);
/* What a GPU holds whole of what its ZeRO stage would shard: the
 * gradients under FSDP's no_sync, the gradients and the weights under
 * FSDP in a pipeline (tb_fsdp_holds_stage). */
enum { TB_MEM_WHOLE_GRADS = 1u, TB_MEM_WHOLE_WEIGHTS = 2u };
unsigned tb_memory_whole(const tb_parallelism *par, int zero, int64_t pipeline);
/* Weights (frozen ones included) + gradients + master weights + optimizer
 * state of one GPU; `whole` (tb_memory_whole) keeps what it names
 * unsharded. */
double tb_memory_states_bytes(const tb_mem_model *mm, const tb_mem_share *share,
                              int zero, unsigned whole, double d_dense, double d_expert);
/* The same, item by item (weights, gradients, master weights, optimizer
 * state and their parts) into *out, the other items untouched. */
void tb_memory_states(const tb_mem_model *mm, const tb_mem_share *share, int zero, unsigned whole,
                      double d_dense, double d_expert, tb_mem_items *out);
/* Bytes an element of Transformer Engine's kept quantized copy of a
 * trained linear weight (0: none), and whether ZeRO stage `zero` keeps
 * them (memory_states.c). */
double tb_memory_te_weight_bytes(const tb_inputs *in);
bool tb_memory_w8_kept(const tb_mem_model *mm, int zero);
/* The stored activations of one layer at micro-batch 1 and the working
 * set a layer rebuilds in the backward (full recompute), from the three
 * modes' b1 figures: forward-only runs (method frozen) store nothing and
 * hold one layer's working set. */
void tb_memory_layer_terms(const tb_inputs *in, const double b1[3], tb_checkpointing mode,
                           double *act, double *ws);
/* One layer's activations at micro-batch 1 under `mode`, with the inputs'
 * tensor size and sequence parallelism, before the context split
 * (memory_act.c); the inventory in items[*n] when items is not NULL. */
double tb_memory_act_layer(const tb_inputs *in, const tb_arch *ar, tb_checkpointing mode,
                           tb_act_item *items, int *n);
double tb_memory_act_layer_b1(const tb_inputs *in, const tb_arch *ar,
                              tb_checkpointing mode);
typedef struct tb_mem_fit {
	/* model states and layers of the first, a middle (the second: the
	 * most in flight of the middle ones) and the last stage */
	double states[3];
	double layers[3];
	double act_layer_b1;    /* per layer, micro-batch 1, per context rank */
	double ws_b1;           /* full recompute: one layer rebuilt in backward */
	double emb_b1, logits_b1;
	/* full checkpointing of part of the layers: a chunk's first
	 * recompute_layers hold act_layer_b1, the others act_keep_b1 (no
	 * recomputation's); recompute_layers 0: every layer act_layer_b1 */
	int64_t recompute_layers;
	double act_keep_b1;
	double mtp[3];          /* MTP modules on each stage (tb_memory_shares) */
	int64_t p, v, d, gb;
	double other;           /* hardware.overhead_bytes */
} tb_mem_fit;
/* Memory per GPU of the busiest stage at micro-batch mb: non-decreasing in
 * mb; *busy (when not NULL) is that stage, 0 first, 1 middle, 2 last. */
double tb_memory_fit_total(const tb_mem_fit *c, int64_t mb, int *busy);
/* tb_memory_fit_total in its two halves, for a search that varies the
 * ZeRO stage (the states) inside the micro-batch and virtual stages (the
 * activations): the three stages' activations, then the total given them;
 * the same sum, to the last bit. */
void tb_memory_stage_act(const tb_mem_fit *c, int64_t mb, double act[3]);
double tb_memory_fit_sum(const tb_mem_fit *c, const double act[3], int *busy);
/* Sets c's emb_b1 and logits_b1, what the first and last stages hold
 * beside their layers at micro-batch 1 (the embedding's dropout mask, the
 * loss's buffers: tb_cross_entropy_eager), under tensor size t, context
 * size cp and sequence parallelism sp: the one rule for the memory model
 * and the layout search. */
void tb_memory_fit_head(tb_mem_fit *c, const tb_inputs *in, int64_t t, double cp, bool sp);
/* Sets c's recompute_layers and act_keep_b1 for checkpointing `mode`
 * from the layer at micro-batch 1 under each mode (b1, per context rank). */
void tb_memory_fit_recompute(tb_mem_fit *c, const tb_inputs *in, const double b1[3],
                             tb_checkpointing mode);

void tb_timecost_compute(const tb_inputs *in, tb_budget *b); /* timecost.c */
/* The dense peak per GPU time is priced at: the precision's, else its
 * fallback's (fp8 on a card without it runs in bf16), whose type goes to
 * *used (unless NULL; the precision's when none); 0 when the card lists
 * none (timecost.c). */
double tb_time_peak_flops(const tb_inputs *in, tb_dtype *used);
void tb_goodput_step(const tb_inputs *in, tb_budget *b);     /* goodput.c */

/* GPUs come in whole model replicas of tensor x pipeline x context cards;
 * a global batch holds global_batch / micro_batch micro-batches; a count
 * the scenario could run on is whole replicas whose data-parallel size
 * divides those micro-batches (timecost.c). */
int64_t tb_calc_replica_gpus(const tb_inputs *in);
int64_t tb_calc_microbatches(const tb_inputs *in);
bool tb_calc_count_ok(const tb_inputs *in, int64_t gpus);

/* The step-time model at another GPU count (perf_budget.c): its prediction
 * where the scenario's layout runs on `gpus` (tb_calc_count_ok); false
 * when it does not or b has none. */
bool tb_perf_budget_at(const tb_inputs *in, const tb_budget *b, int64_t gpus,
                       tb_perf_result *out);
void tb_scaling_compute(const tb_inputs *in, tb_budget *b);  /* scaling.c */

/* Scaling-law pieces (scaling.c), exposed for tests and sweeps.
 * Approach-3 closed form, Hoffmann et al. 2022 Eq. (4): for compute C = 6ND,
 * N_opt = G (C/6)^a, D_opt = G^-1 (C/6)^b with G = (alpha A/(beta B))^(1/(alpha+beta)),
 * a = beta/(alpha+beta), b = alpha/(alpha+beta).  Non-positive C gives 0s. */
void tb_scaling_exponents(const tb_fit *f, double *a, double *b);
void tb_scaling_optimum(const tb_fit *f, double compute_flops,
                        double *params, double *tokens);
/* L(N, D) = E + A/N^alpha + B/D^beta; 0 when N or D is not positive. */
double tb_scaling_loss(const tb_fit *f, double params, double tokens);

/* A positive, finite number: the test every input and quotient passes
 * before it is used. */
static inline bool tb_calc_pos(double v)
{
	return v > 0 && isfinite(v);
}

/* a / b, or 0 when the quotient would not be a finite number: a budget
 * never holds NaN or inf, whatever the inputs. */
static inline double tb_calc_div(double a, double b)
{
	if (b == 0 || !isfinite(a) || !isfinite(b))
		return 0;
	double q = a / b;
	return isfinite(q) ? q : 0;
}

/* Extra forward FLOPs per token that checkpointing `mode` recomputes:
 * selective redoes the attention core (scores, softmax, context;
 * Korthikanti et al. 2022 Sec. 5), or under the op policy every second
 * matmul of a layer (k, o and the MLP's second), under DeepSeek-V3's recipe
 * MLA's up-projections, full one more forward of the layers but
 * not of the logits (Narayanan et al. 2021 Eq. (3)).  A count-only model
 * has no attention or logits term, so full recomputes its 2N; full of
 * part of the layers (training.recompute_layers) their share.  LoRA's
 * adapters are recomputed with their layer; a forward-only run (method
 * frozen) keeps nothing for a backward, so recomputes nothing. */
static inline double tb_calc_recompute_per_token(const tb_flops *fl, const tb_inputs *in,
                                                 tb_checkpointing mode)
{
	if (fl->forward_only)
		return 0;
	switch (mode) {
	case TB_CKPT_SELECTIVE:
		return in->training.selective_policy == TB_SELECTIVE_OP ? fl->fwd_op_recompute_per_token
		       : in->training.selective_policy == TB_SELECTIVE_DEEPSEEK
		       ? fl->fwd_deepseek_recompute_per_token
		       : fl->fwd_attention_per_token;
	case TB_CKPT_FULL: {
		double f = fl->fwd_matmul_per_token - fl->fwd_logits_per_token +
		           fl->fwd_attention_per_token + fl->fwd_adapter_per_token;
		/* part of the layers (training.recompute_layers): theirs alone */
		int64_t L = in->model.has_shape ? in->model.layers : 0;
		if (in->training.recompute_layers > 0 && L > 0) {
			int64_t p = in->parallelism.pipeline > 1 ? in->parallelism.pipeline : 1;
			int64_t v = p > 1 && in->parallelism.virtual_pipeline > 1
			            ? in->parallelism.virtual_pipeline : 1;
			int64_t r = tb_perf_recomputed_layers(L, p, v, in->training.recompute_layers);
			if (r < L)
				f *= (double)r / (double)L;
		}
		return f;
	}
	case TB_CKPT_NONE:
	default:
		return 0;
	}
}

#endif
