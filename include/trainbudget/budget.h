/* budget.h: everything trainbudget computes about one scenario.
 *
 * tb_budget_compute() is a pure function: no I/O, no allocation, no
 * printing.  The result is plain data (fixed arrays, borrowed static
 * strings), so a budget is cheap to make by the million and free to copy.
 * Every headline figure has a derivation (tb_deriv): formula, the values
 * substituted into it, the result with its unit, and its source.  Numbers
 * are formatted by the report layer, never here.
 *
 * A figure that cannot be computed (activations of a count-only model) has
 * its `known` flag false and a warning saying why; it is never NaN or inf.
 */
#ifndef TB_BUDGET_H
#define TB_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include "trainbudget/answer.h"
#include "trainbudget/bill.h"
#include "trainbudget/goodput.h"
#include "trainbudget/inputs.h"
#include "trainbudget/perf.h"
#include "trainbudget/plan.h"
#include "trainbudget/record.h"
#include "trainbudget/risk.h"

/* ---- derivations ------------------------------------------------------ */

#define TB_DERIV_VARS 10

typedef struct tb_deriv_var {
	const char *sym;        /* as it appears in the formula: "N", "D" */
	const char *meaning;    /* "parameters", "training tokens" */
	double value;
	const char *unit;       /* "", "tokens", "B", "FLOP/s", ... */
} tb_deriv_var;

typedef struct tb_deriv {
	const char *key;        /* "flops.total_6nd": the template's name */
	const char *title;      /* "Training compute, 6ND rule" */
	const char *sym;        /* result symbol: "C" */
	/* Right-hand side.  Identifiers equal to a var's sym are replaced by
	 * its value to give the substituted form: "6 * N * D". */
	const char *formula;
	const char *source;     /* "Kaplan et al. 2020, Sec. 2.1" */
	int nvars;
	tb_deriv_var vars[TB_DERIV_VARS];
	double result;
	const char *unit;
} tb_deriv;

#define TB_DERIVS_MAX 64

/* ---- parameters ------------------------------------------------------- */

typedef struct tb_params {
	bool known_breakdown;   /* false for a count-only model */
	double total, active;   /* active = per token (MoE routes a subset) */
	double embedding;       /* input token embedding (+ learned positions) */
	double attention;       /* q, k, v, o (+ biases, q/k norms, MLA latent norms), all layers */
	double mlp;             /* dense MLPs, all experts, shared experts, routers */
	double router;          /* router matrices and biases, part of mlp */
	double experts;         /* routed experts alone, part of mlp (expert parallelism splits them) */
	double norm;            /* the layers' norms and the final one */
	double output;          /* 0 when tied */
	double position;        /* learned position table, part of embedding */
	double per_layer;       /* the layers' parameters / layers (a mean when layers differ) */
	/* Multi-token-prediction modules (DeepSeek-V3), which share the
	 * embedding and the head: not in total, active, FLOPs or memory, as the
	 * official counts leave them out and Hugging Face's model ignores them. */
	double mtp;
	/* What the run trains (tuning.h): every parameter under full and dpo,
	 * the adapters under lora and qlora, none under frozen. */
	double trainable;
	/* LoRA's adapters beside the model (not in total, as PEFT's "all
	 * params" adds them): all of them, those a token runs through, and
	 * those on routed experts (split by expert parallelism) */
	double adapters, adapters_active, adapters_expert;
	/* The layers' linear weights, the part quantization stores in 4 or 8
	 * bits (norms, biases, the embedding and the head stay in 16), and of
	 * them the routed experts' */
	double matrices, matrices_expert;
} tb_params;

/* ---- compute ---------------------------------------------------------- */

typedef struct tb_flops {
	/* per token, training (forward + backward) */
	double per_token_6n;        /* 6 * N_active */
	double per_token_model;     /* operator-level, no recomputation */
	double per_token_hardware;  /* + recomputation */
	double total_6nd, total_model, total_hardware;
	/* operator-level breakdown, forward, per token */
	double fwd_matmul_per_token;    /* all linear layers, logits included */
	double fwd_attention_per_token; /* score and context products */
	double fwd_logits_per_token;    /* the vocabulary projection alone */
	double recompute_per_token;     /* extra forward work under checkpointing */
	double fwd_adapter_per_token;   /* LoRA's adapters a token runs through: 2 N_a */
	/* the matmuls the op policy recomputes (inputs.h TB_SELECTIVE_OP):
	 * k, o and the MLP's second (up, or down when plain) of each layer */
	double fwd_op_recompute_per_token;
	/* MLA's up-projections, which DeepSeek-V3's recipe recomputes
	 * (TB_SELECTIVE_DEEPSEEK; its norms and SwiGLU have no matmul) */
	double fwd_deepseek_recompute_per_token;
	/* training.method: frozen runs forward only: no backward, nothing
	 * recomputed */
	bool forward_only;
	double model_over_6n;           /* per_token_model / per_token_6n */
} tb_flops;

/* ---- memory ----------------------------------------------------------- */

typedef struct tb_bytes_per_param {
	double weights, gradients, master_weights, optimizer, total;
} tb_bytes_per_param;

/* One GPU's memory, line by line, in bytes.  Without an activation
 * estimate, activations is 0 and total holds the known items only. */
typedef struct tb_mem_items {
	double weights, gradients, master_weights, optimizer;
	double activations, other, total;
	/* parts of weights: those frozen (the base under lora and qlora,
	 * every weight under frozen, dpo's reference copy), and LoRA's
	 * adapters (trained); 0 under full */
	double frozen_weights, adapters;
	/* part of weights: Transformer Engine's fp8 (fp4) copies of the trained
	 * linear layers' weights (Megatron-LM), or those weights themselves
	 * under training.fp8_param_gather; 0 otherwise */
	double fp8_weights;
	/* parts of weights and of gradients: ZeRO-3's working set, the units
	 * gathered whole at once and the running unit's unsharded gradients
	 * (docs/formulas.md); 0 below ZeRO-3 and where weights are held whole */
	double gathered_weights, gathered_gradients;
	/* optimizer state that pages to host memory (training.paged_optimizer):
	 * in optimizer, left out of total */
	double paged;
} tb_mem_items;

/* `fits_known`, here and below: whether `fits` is an answer.  Without an
 * activation estimate (a count-only model) it is one only when the known
 * items alone exceed the card: then the run does not fit. */
typedef struct tb_zero_row {
	int stage;
	tb_mem_items bytes;
	bool fits, fits_known;
} tb_zero_row;

#define TB_ACT_ITEMS_MAX 24

/* One tensor (or group) a layer keeps for backward. */
typedef struct tb_act_item {
	const char *name;       /* "attention: Q, K, V input" */
	const char *shape;      /* "s*b*h", symbolic */
	double bytes;           /* per layer, per micro-batch, per GPU */
} tb_act_item;

typedef struct tb_ckpt_row {
	tb_checkpointing mode;
	double activations_bytes;   /* per GPU, as in tb_memory */
	double extra_flops_fraction;/* hardware / model - 1 */
	double total_bytes;         /* per-GPU total under this mode */
	bool fits, fits_known;
} tb_ckpt_row;

typedef struct tb_memory {
	tb_bytes_per_param bytes_per_param;
	double model_states_bytes;          /* whole model, unsharded: trained x B_p + frozen */
	double frozen_weights_bytes;        /* whole model's frozen weights as stored; 0 under full */
	/* whole model: the trained linear layers' fp8 (fp4) copies
	 * (tb_mem_items.fp8_weights), and the 16-bit weights they replace
	 * under training.fp8_param_gather (0 otherwise); model_states_bytes
	 * counts the first and not the second */
	double fp8_weights_bytes, fp8_replaced_bytes;
	/* whole model: the trained weights as stored in 16 bits, less those
	 * fp8 parameters replace (the memory table's weights row) */
	double trained_weights_bytes;

	bool activations_known;
	double activations_per_layer_bytes; /* one layer, one micro-batch, per GPU */
	double activations_bytes;           /* per GPU: in-flight micro-batches, embeddings, logits */
	double logits_bytes;                /* the cross-entropy buffer (s*b*V) */
	/* What the embedding keeps beyond the first layer's input (which is
	 * its output): the dropout mask, s*b*h bytes per in-flight micro-batch,
	 * /t under sequence parallelism; 0 without dropout (Korthikanti Sec. 4.3) */
	double embedding_dropout_bytes;
	int64_t inflight_microbatches;      /* 1F1B: min(pipeline, microbatches) on stage 0;
	                                     * interleaved: those whose embedding output is held */
	int64_t inflight_chunks;            /* passes of L_s/v layers held on stage 0 (= the
	                                     * micro-batches in flight when v = 1) */
	int n_act_items;
	tb_act_item act_items[TB_ACT_ITEMS_MAX];

	int64_t layers_on_busiest_stage;
	/* what the ZeRO stage would shard and the GPU holds whole: the
	 * gradients under FSDP's no_sync, both under FSDP in a pipeline
	 * (tb_fsdp_holds_stage) */
	bool gradients_whole, weights_whole;
	tb_mem_items per_gpu;               /* at the scenario's ZeRO stage */
	double capacity_bytes;
	bool fits, fits_known;
	double headroom_bytes;              /* capacity - total; negative when it does not fit */
	int64_t max_micro_batch;            /* largest that fits; 0 if none */
	/* Under full checkpointing, the fewest layers of each pipeline chunk
	 * it could recompute and still fit (training.recompute_layers), when
	 * fewer than it recomputes now; 0 otherwise.  Its total per GPU. */
	int64_t fewest_recompute_layers;
	double fewest_recompute_bytes, fewest_recompute_act_bytes;
	double fewest_recompute_flops_fraction;     /* extra FLOPs, as tb_ckpt_row's */

	tb_zero_row zero[4];
	tb_ckpt_row checkpointing[3];       /* none, selective, full */

	bool kv_cache_known;                /* false for a count-only model */
	double kv_cache_bytes_per_token;
	double kv_cache_bytes_per_sequence; /* at training seq_len */

	/* The planning question: the largest dense model whose training state
	 * (weights, gradients, master weights, optimizer state) fits before
	 * activations, at this precision and optimizer, with each card's
	 * memory less the overhead term: every state sharded over all
	 * hardware.count cards (ZeRO-3), G (C - X) / B_p; with no sharding at
	 * all, one card holding everything (plain data parallelism),
	 * (C - X) / B_p; and at the scenario's layout (tensor x pipeline split,
	 * its ZeRO stage over the data-parallel group). */
	double max_params_fully_sharded;
	double max_params_one_gpu;
	double max_params_this_layout;
} tb_memory;

/* ---- step time (perf.h) ---------------------------------------------- */

#define TB_PERF_VARIANTS 7

/* The step of this layout and of the levers that change it, for the
 * breakdown chart: the model's own view of a lever. */
typedef struct tb_perf_variant {
	const char *label;              /* static: "this layout", "GPUs x2", ... */
	int64_t gpus;
	double step_s, mfu;
	double breakdown_s[TB_PERF_TERMS];
} tb_perf_variant;

typedef struct tb_perf_budget {
	/* false: no prediction (a count-only model, a layout the model
	 * refuses); `why` says why (static) and JSON `perf` is null */
	bool known;
	const char *why;
	/* true: the time uses the predicted MFU ("predicted"); false: the
	 * scenario's own hardware.mfu ("assumed") */
	bool source_predicted;
	/* the scenario's most likely MFU is above the prediction */
	bool assumption_above;
	tb_perf_input in;               /* what was predicted */
	tb_perf_result r;
	double mfu_band[2];             /* u (1 + TB_PERF_ERR_LOW), u (1 + TB_PERF_ERR_HIGH) */
	/* an MFU here times this is on the published runs' count (causal
	 * attention, the shape's FLOPs), as src/ceiling.c holds them */
	double mfu_causal_scale;
	/* --calibrate (calibrate.h): the prediction above is calibrated on
	 * pilots; what it was before, and the band it had */
	bool calibrated;
	double step_uncalibrated_s, mfu_uncalibrated;
	double mfu_band_uncalibrated[2];
	/* the bands as step times, [shortest, longest] */
	double step_band[2], step_band_uncalibrated[2];
	int n_variants;
	tb_perf_variant variants[TB_PERF_VARIANTS]; /* [0]: this layout */
	/* Where the head makes the last of an even split's stages the
	 * slowest: the layout (Megatron-LM's string, pipelayout.h) that gives
	 * the last rank fewer layers, the fastest that fits the card, and its
	 * prediction (its step, its last rank's layers in stage_layers[2]);
	 * "" when none is faster by over 1% (or the scenario writes a layout,
	 * or interleaves). */
	char balanced_layout[TB_PIPE_TEXT_MAX];
	tb_perf_result balanced;
	/* fp4-mixed on a card with an fp4 peak: how the fraction of it its
	 * fp4 matmuls are priced at (in.hw.matmul_ceiling) is known, as
	 * tb_gpus_fp4_ceiling says; static, NULL otherwise */
	const char *fp4_basis;
	/* the model's held-out record on the card and format (record.h),
	 * NULL where none; record_said where it is beyond the bar and the
	 * run is not calibrated on the card (tb_record_said), as the
	 * warnings say it */
	const tb_record *record;
	bool record_said;
} tb_perf_budget;

/* ---- time, cost, energy ---------------------------------------------- */

#define TB_GPU_SCAN_MAX 12

typedef struct tb_gpu_scan_row {
	int64_t gpus;
	double seconds[3];      /* at mfu low, most likely, high */
	double cost[3];
} tb_gpu_scan_row;

typedef struct tb_time {
	/* false when the GPU lists no usable peak or there is no FLOP count:
	 * seconds, GPU-hours, cost and energy are then unknown (JSON null). */
	bool known;
	bool energy_known;              /* false without a TDP */
	tb_dtype dtype;                 /* the peak used */
	double peak_flops_per_gpu;      /* dense FLOP/s */
	double mfu[3];                  /* low, most likely, high */
	double seconds[3];              /* index-aligned with mfu: low MFU = longest */
	double gpu_hours[3];
	double cost[3];
	double energy_kwh[3];
	char currency[8];

	bool has_deadline;
	double deadline_s;
	/* At the most likely MFU, including what failures and checkpoints lose
	 * (tb_losses below; set by goodput.c): the verdict.  Likewise
	 * within_budget. */
	bool meets_deadline;
	/* GPUs that meet the deadline on compute (no failures or checkpoints):
	 * _compute at the most likely MFU with perfect scaling, in whole model
	 * replicas; gpus_for_deadline the smallest count the scenario can run
	 * with its global batch (a data-parallel size that divides it), its
	 * time through the step-time model where that predicts (the time
	 * scales as the predicted step, as the GPU scan's).  When they differ,
	 * global_batch_for_compute is the global batch (a multiple of the
	 * compute count's replicas x micro-batch, the nearest to the
	 * scenario's) that would run on gpus_for_deadline_compute; else 0. */
	double gpus_for_deadline_compute;
	double gpus_for_deadline;
	double global_batch_for_compute;
	double tokens_in_deadline;      /* tokens the cluster trains before the deadline */

	bool has_budget;
	double budget;
	bool within_budget;             /* at most likely MFU, with losses */
	double tokens_in_budget;

	int n_gpu_scan;
	tb_gpu_scan_row gpu_scan[TB_GPU_SCAN_MAX]; /* days against GPU count */

	/* from `measured` */
	bool mfu_measured;              /* mfu[] is the measured step's (it wins) */
	bool has_measured_step;
	double achieved_mfu, achieved_hfu;
	double measured_seconds;        /* step time x steps */
	bool has_measured_memory;
	double measured_peak_bytes;
	double memory_estimate_error;   /* (estimate - measured) / measured */
} tb_time;

/* ---- scaling laws ----------------------------------------------------- */

typedef struct tb_fit {
	const char *label;              /* "Hoffmann et al. 2022" / "Epoch AI 2024" */
	double E, A, B, alpha, beta;
} tb_fit;

#define TB_PLANS_MAX 20

typedef enum {
	TB_PLAN_AS_PLANNED,             /* the scenario itself */
	TB_PLAN_OPTIMAL_20,             /* the run's compute at D = 20N */
	TB_PLAN_OPTIMAL_FIT,            /* the run's compute, Hoffmann Approach 3 */
	TB_PLAN_N_FIXED,                /* the scenario's N on multiple x 20N tokens */
	TB_PLAN_C_FIXED                 /* the run's compute at multiple x 20 tokens/param */
} tb_plan_kind;

typedef struct tb_plan_row {
	tb_plan_kind kind;
	double multiple;                /* of the 20-tokens-per-parameter rule */
	double params, tokens, flops;   /* flops = 6ND */
	double seconds, cost;           /* at most likely MFU */
	double loss;                    /* Hoffmann fit */
	double loss_epoch;              /* Epoch AI fit */
	double lifetime_flops;          /* + 2N per inference token, when given */
} tb_plan_row;

typedef struct tb_optimum {
	double compute_flops;
	double params, tokens;          /* D = 20N rule */
	double params_fit, tokens_fit;  /* Hoffmann Approach 3 */
	double params_epoch, tokens_epoch;
} tb_optimum;

typedef struct tb_chinchilla {
	/* for the run's compute C = 6 N D */
	double compute_flops, optimal_params, optimal_tokens, tokens_per_param;
	double scenario_tokens_per_param; /* D / N as planned */
	bool loss_known;                /* N and D both positive */
	tb_optimum run;                 /* the same, with both fits */
	double loss, loss_epoch;        /* predicted for the scenario as given */
	bool has_deadline, has_budget;
	tb_optimum deadline;            /* compute the cluster delivers by the deadline */
	tb_optimum budget;              /* compute the budget buys */
	int n_plans;
	tb_plan_row plans[TB_PLANS_MAX];
} tb_chinchilla;

/* ---- levers ----------------------------------------------------------- */

#define TB_LEVERS_MAX 12
/* The lever and perf variant of full recomputation cut to the fewest
 * layers a chunk that fit (tb_memory.fewest_recompute_layers) */
#define TB_LEVER_FEWEST_RECOMPUTED "recompute the fewest layers that fit"
/* perf.balanced_layout: the pipeline layout that unloads a head-heavy last rank */
#define TB_LEVER_BALANCED_SPLIT "lighter last rank"

typedef struct tb_lever {
	const char *label;              /* static: "tokens -25%", "GPUs x2", "MFU +0.10" */
	double seconds, cost;           /* at most likely MFU */
	double delta_seconds_frac;      /* relative to the scenario */
	double delta_cost_frac;
} tb_lever;

/* ---- failures, checkpoints and confidence ----------------------------- */

/* tb_time's figures again, including the time failures and checkpoints
 * lose: t / f with f the goodput fraction (goodput.h).  The verdicts use
 * these. */
typedef struct tb_losses {
	bool known;                     /* the time is known and the run finishes */
	double seconds[3];              /* index-aligned with time.mfu */
	double gpu_hours[3];
	double cost[3];
	double energy_kwh[3];           /* 0 when the GPU has no TDP */
} tb_losses;

/* "Expected" as every document says it: tb_budget_expected below. */
typedef struct tb_expected {
	bool known;
	/* the simulated runs' mean (over the MFU band); false: the run at
	 * the most likely MFU with its losses */
	bool mean_of_runs;
	double seconds, gpu_hours, cost, energy_kwh;
} tb_expected;

/* ---- stages (stages.h) ------------------------------------------------ */

/* One stage of a staged run, priced as the same scenario alone would be
 * (without the run's bill rules, deadline or budget, which are the
 * whole run's). */
typedef struct tb_stage_row {
	char name[64];
	double tokens;
	int64_t seq_len, global_batch;
	tb_method method;
	tb_precision precision;
	bool runs;                      /* its answer's layout fits and is timed */
	tb_plan_layout layout;          /* the layout its answer prices */
	double step_s, mfu;
	bool known;                     /* its expected figures are known */
	double days, gpu_hours, cost, energy_kwh;   /* expected, failures included */
	double compute_s, compute_cost;             /* at the most likely MFU, compute alone */
	double memory_per_gpu_bytes, capacity_bytes;
	bool fits, fits_known;
} tb_stage_row;

/* ---- the budget ------------------------------------------------------- */

#define TB_WARNINGS_MAX 16
#define TB_WARNING_BYTES 320

typedef struct tb_budget {
	tb_params params;
	tb_flops flops;
	tb_memory memory;
	tb_perf_budget perf;
	tb_time time;
	tb_chinchilla chinchilla;
	tb_goodput goodput;             /* at the most likely MFU */
	tb_losses losses;
	/* What the run is billed (bill.h): the rules from the scenario
	 * (goodput.c), by which tb_budget_bill bills the expected run and the
	 * confidence figures each simulated run (risk.c) */
	tb_bill_in bill_in;
	/* A staged run (stages.h, tb_budget_compute_stages): its stages, the
	 * one needing the most memory per GPU, and the whole run's expected
	 * figures, which tb_budget_expected then returns; the risk above is
	 * the whole run's too.  n_stages 0: not staged. */
	int n_stages;
	tb_stage_row stages[TB_STAGES_MAX];
	int stage_memory_max;
	bool stages_all_run;
	tb_expected staged_total;
	/* The MFU band the confidence figures draw from, and the figures;
	 * filled by tb_budget_compute_risk, not tb_budget_compute
	 * (risk.known is false until then). */
	tb_dist risk_mfu;
	tb_risk risk;
	/* The layout search (plan.h): filled by tb_budget_compute_plan, not
	 * tb_budget_compute (plan.known is false until then). */
	tb_plan_result plan;
	/* plan holds the answer's search of the scenario with every key free
	 * (nothing written), the one tb_budget_compute_plan makes by default:
	 * it reuses it, with the scenario's row for the layout priced. */
	bool plan_from_answer;
	/* The layout this budget prices and why (answer.h): set by
	 * tb_budget_compute_answer, not tb_budget_compute (decided is false
	 * until then, and the inputs are priced as given). */
	tb_answer answer;
	int n_levers;
	tb_lever levers[TB_LEVERS_MAX];
	int n_derivs;
	tb_deriv derivs[TB_DERIVS_MAX];
	int n_warnings;
	/* each a sentence; one that would not fit ends in "..." at a whole
	 * character (tb_budget_warn) */
	char warnings[TB_WARNINGS_MAX][TB_WARNING_BYTES];
} tb_budget;

/* Computes the whole budget for checked inputs, except the confidence
 * figures.  Writes only *out. */
void tb_budget_compute(const tb_inputs *in, tb_budget *out);

/* Where the step-time prediction's MFU stands: "calibrated" on pilots,
 * "predicted" by the model, or "assumed" (hardware.mfu given, or no
 * prediction).  The one place every document takes it from. */
const char *tb_perf_source(const tb_perf_budget *pb);
/* The share of the step perf.balanced_layout saves (0 without one): what
 * the warning and estimate's `split` line say. */
double tb_perf_balanced_saving(const tb_perf_budget *pb);

/* Adds the confidence figures (b->risk_mfu, b->risk: percentiles of days
 * and cost, the chance of meeting the deadline and the budget) to a budget
 * tb_budget_compute made from the same inputs.  Apart because it draws
 * TB_RISK_SAMPLES runs: about 0.3 ms, against a microsecond for the rest,
 * so a sweep over millions of scenarios can leave it out (risk.c). */
void tb_budget_compute_risk(const tb_inputs *in, tb_budget *b);
/* The risk model's inputs for a budget of `in` (its MFU band, failures,
 * deadline, budget and bill rules), as tb_budget_compute_risk draws them;
 * for a run in stages, one part each (risk.c). */
void tb_budget_risk_in(const tb_inputs *in, const tb_budget *b, tb_risk_in *out);

/* What every document calls "expected": the mean of the simulated runs,
 * failures and checkpoints included, where they were drawn; otherwise the
 * run at the most likely MFU with failures and checkpoints; billed (bill.h)
 * where the scenario books or stores; for a run in stages, the whole
 * run's (staged_total).  known false where the time is not priced
 * (risk.c). */
tb_expected tb_budget_expected(const tb_budget *b);
/* What those expected figures are taken over, as words after them, into
 * dst (at most cap bytes, always terminated): "over MFU 18%-30%" where
 * they are the simulated runs' mean over a band (whose mean MFU is not
 * its middle when the band is lopsided), "at 22% MFU" where the MFU is
 * one value, "over 3 stages" for a run in stages.  Every document's
 * "expected" reads this (risk.c). */
size_t tb_budget_expected_basis(const tb_budget *b, char *dst, size_t cap);
/* The expected run's bill, part by part (bill.h): its total is
 * tb_budget_expected's cost.  All zero when the time is unknown (risk.c). */
tb_bill tb_budget_bill(const tb_budget *b);
/* The run's wall clock and cost on compute alone at the most likely MFU (no
 * failures, checkpoints or bill); a staged run's, its stages summed.
 * False when the time is not priced (stages.c). */
bool tb_budget_compute_alone(const tb_budget *b, double *seconds, double *cost);
/* Memory per GPU as the run needs it: the scenario's layout, or the most
 * any stage needs (stages.c). */
double tb_budget_memory_per_gpu(const tb_budget *b);

/* The verdict every document gives on the deadline (deadline true) or the
 * budget: met at the most likely MFU with failures and checkpoints, but with
 * less than TB_VERDICT_CONFIDENCE chance (without the Monte Carlo: missed
 * at the low MFU), is at risk.  NO when missed or unknown (risk.c). */
#define TB_VERDICT_CONFIDENCE 0.9
typedef enum { TB_VERDICT_NO, TB_VERDICT_AT_RISK, TB_VERDICT_YES } tb_verdict;
tb_verdict tb_budget_verdict(const tb_budget *b, bool deadline);

/* The largest of the headline money figures (cost and cost with losses at
 * each MFU, the cost percentiles and mean, the budget and the budget that
 * holds with 90% probability; those known), for tb_fmt_money_ref: the
 * verdicts, key figures and summary lines that quote several of them show
 * them in one style.  0 when none is known (timecost.c). */
double tb_budget_money_ref(const tb_budget *b);
/* The one answer: decides the layout of a scenario's inputs (answer.h),
 * writes the inputs it prices into *priced, and computes the budget and
 * its confidence figures on them, with the answer kept in b->answer.
 * `in` and `priced` may be the same.  The search of plan.h is the
 * caller's to add (tb_budget_compute_plan), on whichever inputs it
 * explains. */
void tb_budget_compute_answer(const tb_inputs *in, tb_inputs *priced, tb_budget *b);
/* The same without the confidence figures, for a sweep's points (each
 * would cost 4,096 draws for figures a sweep does not show). */
void tb_budget_price_answer(const tb_inputs *in, tb_inputs *priced, tb_budget *b);

/* Adds the layout search (b->plan) to a budget tb_budget_compute made
 * from the same inputs.  sp = NULL searches the scenario's own card,
 * count and global batch by time and keeps the top 10: what the report's
 * "Better layouts" section and estimate's line use (a few to a few tens of
 * milliseconds, docs/performance.md).  Apart, like the risk, so that
 * sweeps over millions of budgets leave it out (plan.c). */
void tb_budget_compute_plan(const tb_inputs *in, tb_budget *b, const tb_plan_space *sp);

/* The derivation named `key`, or NULL.  Borrowed from b (deriv.c). */
const tb_deriv *tb_budget_deriv(const tb_budget *b, const char *key);

/* A plan's name for people, written into dst (at most cap bytes, always
 * terminated): "N fixed, 40 tokens/param (2x Chinchilla)"; with `brief`,
 * a chart label such as "N fixed D/N=40". */
void tb_plan_label(const tb_plan_row *r, bool brief, char *dst, size_t cap);

/* The Hoffmann et al. and Epoch AI Approach-3 constants (scaling.c). */
extern const tb_fit tb_fit_hoffmann;
extern const tb_fit tb_fit_epoch;

#endif
