/* perf.h: the step-time model.  From the model's shape, the batch, the
 * parallel layout and the hardware it predicts the time of one optimizer
 * step, the MFU and HFU that follow, and where the time goes.
 *
 * Pure: no I/O, no allocation, no global state; a prediction costs about a
 * microsecond, because a layout search makes millions of them.  Its input
 * is its own plain struct (tb_perf_input), so a search can vary one field
 * and predict again without a scenario; tb_perf_input_from() fills one from
 * a checked scenario.  Every term and constant is in docs/formulas.md with
 * its source; the fitted constants and the measured error band come from
 * `make validate` (docs/validation.md).
 *
 * Units in names: _s seconds, _bytes, _flops (FLOP/s for rates, FLOP for
 * counts: the name says which), _per_s rates. */
#ifndef TB_PERF_H
#define TB_PERF_H

#include <stdbool.h>
#include <stdint.h>
#include "trainbudget/gpus.h"
#include "trainbudget/inputs.h"

/* The step-time breakdown, in the order reports list it.  The names are
 * the JSON keys of perf.breakdown_s. */
typedef enum {
	TB_PERF_COMPUTE,    /* forward + backward work of the busiest stage */
	TB_PERF_RECOMPUTE,  /* forward work redone under checkpointing */
	TB_PERF_TP_COMM,    /* exposed tensor-parallel collectives */
	TB_PERF_CP_COMM,    /* exposed context-parallel key/value exchange */
	TB_PERF_EP_COMM,    /* expert all-to-all */
	TB_PERF_PP_COMM,    /* pipeline point-to-point sends */
	TB_PERF_BUBBLE,     /* pipeline fill and drain */
	TB_PERF_DP_COMM,    /* exposed data-parallel / ZeRO collectives */
	TB_PERF_OPTIMIZER,  /* the optimizer step */
	TB_PERF_OTHER,      /* fixed per-layer overheads (kernel launches) */
	TB_PERF_TERMS
} tb_perf_term;

/* "compute", "recompute", "tp_comm", ...; "?" out of range. */
const char *tb_perf_term_name(int term);
/* The same in words for a text table: "compute", "tensor-parallel comm",
 * ...; "?" out of range. */
const char *tb_perf_term_label(int term);

/* The collectives a layout issues. */
typedef enum {
	TB_COLL_ALL_REDUCE,
	TB_COLL_REDUCE_SCATTER,
	TB_COLL_ALL_GATHER,
	TB_COLL_ALL_TO_ALL,
	TB_COLL_P2P          /* one send between two GPUs */
} tb_coll;

/* What the model needs to know about a card and its node.  Rates are per
 * GPU; link rates are one direction. */
typedef struct tb_perf_hw {
	double peak_flops;            /* dense, in the matmuls' dtype */
	double attention_peak_flops;  /* dense bf16/fp16: attention is priced on it under fp8
	                               * too, its fp8 kernel as a ratio to it (below) */
	double matmul_ceiling;        /* best achievable fraction of peak_flops */
	/* the 16-bit matmuls' best fraction of attention_peak_flops: the
	 * vocabulary head, which fp8 training leaves in 16 bits */
	double head_matmul_ceiling;
	double attention_fraction;    /* flash attention, of its peak: the forward's, or
	                               * forward and backward together where the next is 0 */
	double attention_backward_ratio;  /* the backward's rate over the forward's; 0: as it */
	/* under training.fp8_attention, the fp8 kernel's rate over the 16-bit
	 * one's, forward and backward (tb_gpus_fp8_attention); 0: 16 bits */
	double attention_fp8_fwd_ratio, attention_fp8_bwd_ratio;
	tb_attn_kernel attention_kernel;  /* the kernel it is the fraction of: FLASH2 or CUDNN;
	                                   * AUTO without flash attention */
	double hbm_bytes_per_s;
	double mem_fraction;          /* of it, measured on the card; 0: the fitted one */
	int64_t gpus_per_node;
	double nvlink_bytes_per_s;    /* inside a node (PCIe where no NVLink) */
	double network_bytes_per_s;   /* between nodes */
	double nvlink_fraction;       /* achieved bus bandwidth / link, large messages */
	double network_fraction;
	double a2a_fraction;          /* an all-to-all's inside a node; 0: nvlink_fraction */
	bool mesh;                    /* the node's links a full mesh (gpus.h) */
	/* the board's power limit over its TDP (hardware.power_limit); 1 or
	 * 0: not limited */
	double power_fraction;
	/* a linear layer's backward GEMMs (data and weight gradient) over the
	 * forward GEMM of the same FLOPs, in time (gpus.h
	 * tb_gpus_backward_gemm); 0 or 1: as the forward */
	double backward_gemm_ratio;
	/* how much longer the recipe's GEMMs take than the per-tensor ones
	 * the ceiling was measured with (tb_gpus_recipe_gemm; the ceiling
	 * above already divided by it) */
	double recipe_gemm_ratio;
} tb_perf_hw;

/* The constants fitted on the published runs (docs/validation.md says on
 * which, and with what held-out error).  Passed in, so the fit can vary
 * them; tb_perf_fitted holds the values in use. */
typedef struct tb_perf_consts {
	/* A GEMM of M x N x K runs at ceiling / (1 + D0/M + D0/N + D0/K):
	 * each dimension near D0 (tile and wave quantization) costs speed. */
	double matmul_dim_half;
	/* A collective's achieved fraction is x / (x + x0) of its large-
	 * message figure, x being the bytes each rank contributes. */
	double coll_chunk_half_bytes;
	double mem_fraction;          /* of HBM bandwidth, memory-bound kernels */
	double layer_overhead_s;      /* per layer, per micro-batch, forward+backward */
	/* ZeRO-3's gathers and reduce-scatters hidden behind compute by the
	 * overlap rule still cost this fraction of their time: the
	 * collectives' kernels share the SMs and the HBM bandwidth of the
	 * compute they overlap. */
	double zero3_overlap_cost;
	/* The same fraction where the framework gathers on streams of its
	 * own, prefetching the next layer while this one computes: PyTorch
	 * FSDP and Megatron-FSDP (parallelism.framework fsdp or megatron at
	 * ZeRO-3).  zero3_overlap_cost is DeepSpeed's, the only ZeRO-3 in
	 * the older runs, and a framework not named is priced as DeepSpeed. */
	double fsdp_overlap_cost;
	/* A card held to a fraction p of its TDP runs its matmuls and
	 * attention at p^power_exponent of their speed: the clocks fall until
	 * the draw fits (HBM and links keep theirs). */
	double power_exponent;
	/* Dropless routing's busiest expert-parallel rank carries this many
	 * times the mean routed tokens (training.moe_routing dropless, no
	 * measured factor). */
	double moe_dropless_load;
	double nvlink_latency_s;      /* per collective inside a node */
	double network_latency_s;     /* per doubling of the nodes a collective spans */
} tb_perf_consts;

extern const tb_perf_consts tb_perf_fitted;

/* The causal attention kernel's rate as a fraction of the same kernel's
 * without the mask, at sequence length seq (FlashAttention-3 Fig. 5 on
 * H100: perf_layer.c). */
double tb_perf_causal_rate(tb_attn_kernel kernel, double seq);

/* The speed of a card's compute under its power limit, as a fraction of
 * its speed at its TDP: power_fraction^power_exponent, 1 unlimited. */
double tb_perf_clock_fraction(const tb_perf_hw *hw, const tb_perf_consts *c);

/* The fraction of the HBM bandwidth a memory-bound kernel reaches: the
 * card's measured one (gpus.h mem_fraction), else the fitted constant. */
double tb_perf_mem_fraction(const tb_perf_hw *hw, const tb_perf_consts *c);
/* Whether that fraction is the card's measured one (the derivation's
 * label reads the same test the price does). */
bool tb_perf_mem_measured(const tb_perf_hw *hw);

/* The measured error of the prediction on the runs it was not fitted on,
 * the older set's and the modern one's, each group weighing alike
 * (docs/validation.md): relative
 * step-time error (predicted - published) / published, low and high ends.
 * A predicted MFU u stands for u x (1 + low) to u x (1 + high): the MFU
 * scales as 1 / step time. */
#define TB_PERF_ERR_LOW  (-0.25)
#define TB_PERF_ERR_HIGH (0.09)

/* The same band for a prediction calibrated on a pilot (calibrate.h):
 * the held-out error after calibrating each group of published runs on
 * its smallest run (docs/validation.md, "Calibrated on a pilot"). */
#define TB_PERF_CAL_ERR_LOW  (-0.16)
#define TB_PERF_CAL_ERR_HIGH (0.08)

/* The share of a card's SMs the overlapped expert all-to-all keeps for
 * itself: DeepSeek-V3 gives it 20 of an H800's 132 (arXiv:2412.19437
 * Sec. 3.2.2).  Not fitted. */
#define TB_PERF_EP_OVERLAP_SM_SHARE (20.0 / 132.0)

/* The fraction of its HBM bandwidth a card's Transformer Engine
 * quantization kernels reach at the bytes perf_input.c prices for them:
 * its GEMM profiling guide times a 5B layer's 12 GEMMs with and without
 * quantization (gpus.c, tb_gpus_recipe_gemm), and the difference, per
 * recipe and card, moves those bytes at 0.346 (MXFP8, B300) to 0.627
 * (delayed, B300) of the bandwidth: the median of the five, current
 * scaling's on an H200 NVL.  Not fitted on any run. */
#define TB_PERF_CAST_BW_FRACTION 0.4434

typedef struct tb_perf_input {
	/* model: a dense or mixture-of-experts decoder */
	int64_t layers, hidden, heads, kv_heads, head_dim, ffn_hidden, vocab;
	int64_t experts;              /* routed experts per layer; 0 or 1 = dense */
	int64_t experts_per_token;
	/* a mixture's structure beyond Mixtral's: a routed expert's width (0:
	 * ffn_hidden), the always-on shared experts' total width (0: none) and
	 * the leading layers with a dense MLP of ffn_hidden (DeepSeek-V3: 2048,
	 * 2048 and 3 of 61) */
	int64_t expert_ffn_hidden, shared_ffn_hidden, dense_layers;
	/* group-limited routing (tb_model's route_groups fields; 0 = none) */
	int64_t route_groups, route_groups_per_token;
	/* multi-token prediction modules (DeepSeek-V3: 1): each one more layer
	 * of the model's kind, its projection and the shared head's logits
	 * again, on the last pipeline stage */
	int64_t mtp_modules;
	/* local attention (tb_model's window, window_layers, local_attn):
	 * window_layers of the layers see `window` keys back (or their chunk
	 * of it when window_chunked) instead of every earlier one; 0 = every
	 * layer global */
	int64_t window, window_layers;
	bool window_chunked;
	/* multi-head latent attention when kv_lora_rank > 0 (tb_model's fields) */
	int64_t q_lora_rank, kv_lora_rank, qk_nope_dim, qk_rope_dim, v_head_dim;
	bool gated_mlp;               /* three MLP matrices (SwiGLU) instead of two */
	bool dropout;                 /* attention and residual dropout */
	/* MFU convention: attention FLOPs over the causal half (FlashAttention,
	 * Megatron-LM since core_v0.12.0) or the full square (PaLM, Narayanan
	 * et al. Eq. 3, Megatron-LM up to core_v0.11.0) */
	bool causal_attention_flops;
	/* The budget's model FLOPs per token (flops.c), when the caller has
	 * them: MFU and HFU are then taken on that count, so that a time made
	 * from the MFU is the steps times the step (issue 19: for DeepSeek-V3
	 * the shape-only count here was 5.3 times flops.c's, and 94 s steps
	 * gave 48 days for 235k steps).  0: the count from the shape below,
	 * as the validation against published runs uses it. */
	double model_flops_per_token;

	/* batch, in sequences */
	int64_t seq_len, global_batch, micro_batch;

	/* layout: GPUs = tensor x context x data x pipeline; experts are
	 * spread over `expert` of the context x data ranks */
	int64_t tensor, pipeline, virtual_pipeline, context, expert, data;
	/* the expert layers' own tensor-parallel size (Megatron-LM's
	 * --expert-tensor-parallel-size), a divisor of tensor; 0 = tensor.
	 * Below tensor, the expert-parallel group folds over the tensor
	 * ranks: each sends its 1/tensor of the sequence-parallel tokens, and
	 * expert x expert_tensor divides tensor x context x data (MoE
	 * Parallel Folding, Liu et al. 2025, arXiv:2504.14960) */
	int64_t expert_tensor;
	/* The layers of each rank (borrowed; tb_parallelism.layout), read
	 * where pipeline is its own (a floor asks at other virtual sizes);
	 * NULL, or another pipeline: the even split (tb_perf_stage_split). */
	const tb_pipe_layout *layout;
	int zero;                     /* 0..3 */
	/* ZeRO's dense shards span groups of this many of the context x
	 * data ranks, replicated across groups whose gradients are then
	 * all-reduced (HSDP); 0 = the whole group */
	int64_t shard_group;
	int64_t bucket_size;          /* tb_parallelism.bucket_size; 0: the default */
	bool no_sync;                 /* tb_parallelism.no_sync */
	tb_framework framework;       /* FSDP's ZeRO-2 gathers every micro-batch */
	bool sequence_parallel;
	tb_checkpointing checkpointing;
	tb_selective selective_policy;  /* what selective recomputes */
	int64_t recompute_layers;     /* tb_training.recompute_layers */
	bool flash_attention;
	/* The overlap rule (docs/formulas.md): with overlap_dp the gradient
	 * reduction hides behind the last micro-batch's backward and ZeRO-3's
	 * gathers behind each forward and backward; with overlap_tp each
	 * tensor-parallel collective hides behind the GEMM next to it.
	 * Whatever does not fit behind them is exposed; what ZeRO-3 hides
	 * still costs tb_perf_consts.zero3_overlap_cost of its time. */
	bool overlap_dp, overlap_tp;
	/* Megatron-LM's --overlap-grad-reduce asked for (its buckets) where
	 * overlap_dp is false all the same (tb_perf_dp_hidden: the step
	 * captured whole in a CUDA graph) */
	bool dp_buckets_unhidden;
	/* tb_parallelism.no_overlap_tp_qkv and no_overlap_tp_dgrad */
	bool no_overlap_tp_qkv, no_overlap_tp_dgrad;
	/* Under overlap_tp, what each of Transformer Engine's overlapped
	 * GEMMs (tb_ub_gemm) takes over again for the SMs its collective
	 * holds: n / (SMs - n), n = tb_overlap_tp_sms as under sequence
	 * parallelism, SMs the card's (tb_gpu_sms); 0 where either is
	 * unknown or 0; the layer holds them only with overlap_tp and
	 * sequence_parallel, which a layout search sets on this input */
	double ub_extra[TB_UB_COUNT];
	/* a margin of the card's SMs or more: no GEMM can run (the step
	 * refuses; a card without a known count prices none) */
	bool ub_no_sms;
	/* The expert all-to-all of one micro-batch hides behind another's
	 * compute (tb_parallelism.overlap_ep), which the communication's SMs
	 * slow by TB_PERF_EP_OVERLAP_SM_SHARE. */
	bool overlap_ep;
	tb_dispatcher dispatcher;     /* tb_parallelism.dispatcher */
	/* The busiest expert-parallel rank's routed tokens over the mean
	 * (tb_perf_expert_load): its experts' GEMMs, activations and
	 * all-to-all share grow by it and the other ranks wait.  0: the
	 * fitted moe_dropless_load; 1: balanced routing. */
	double expert_load;
	tb_cp_comm cp_comm;           /* tb_parallelism.cp_comm */

	/* What the step trains (tuning.h); FULL reads none of the fields
	 * after it.  Under lora and qlora the frozen matrices' backward
	 * computes the input gradient only, the adapters add skinny GEMMs of
	 * rank lora_rank, and the data-parallel reduction and the optimizer
	 * cover the adapters alone; quant_bytes > 0 (qlora) dequantizes each
	 * frozen weight to 16 bits before each use.  FROZEN runs forward
	 * only.  DPO runs the reference model forward beside the policy. */
	tb_method method;
	int64_t lora_rank;
	/* The adapted modules' in and out features summed, per layer:
	 * [0] a dense layer's, [1] an expert layer's attention and shared
	 * expert, [2] one routed expert's; each as column-parallel in, out,
	 * then row-parallel in, out (tensor parallelism splits the out of
	 * the first and the in of the second) */
	double lora_io[3][4];
	/* lora.dropout > 0: each adapter drops its own copy of its input */
	bool lora_dropout;
	/* adapter parameters per layer, whole model: dense (every rank of a
	 * tensor group holds 1/t) and on routed experts */
	double adapters_dense_per_layer, adapters_expert_per_layer;
	double quant_bytes;

	/* precision, as bytes */
	double matmul_bytes;          /* one matmul operand element: 1 fp8, 2 bf16, 4 fp32 */
	double act_bytes;             /* activations and their collectives */
	double param_bytes;           /* weights as ZeRO-3 gathers them */
	double trained_bytes;         /* the trained weights as ZeRO-1 and 2 gather them
	                               * after the step: an adapter is not stored as the
	                               * quantized base it rides on */
	double grad_bytes;            /* gradients as the data-parallel reduction sends them */
	double optimizer_bytes_per_param; /* HBM traffic of one parameter's update */
	/* fp8 scaling (matmul_bytes 1; perf_input.c): the recipe priced, never
	 * AUTO; the HBM bytes of casting one element of a linear layer's
	 * input (forward) or output gradient (backward); and of one of its
	 * weights each micro-batch, forward and backward (0: cached across
	 * micro-batches, or cast on the shard); fp8_gather: the weights are cast
	 * on the shard and gathered in fp8 (torchao's float8 all-gather under
	 * FSDP), so a gather moves 1 B a weight */
	tb_fp8_recipe fp8_recipe;
	double fp8_cast_bytes;
	double fp8_weight_cast_f_bytes, fp8_weight_cast_b_bytes;
	bool fp8_gather;
	/* weight gradients added into the main gradient each micro-batch by a
	 * kernel of their own (training.grad_accumulation_fusion false) */
	bool grad_accum_unfused;
	/* rotary positions (tb_model.positions): each layer rotates its
	 * queries and keys, a memory-bound pass forward and one backward */
	bool rope;
	/* PyTorch eager's memory-bound kernels (training.kernels: eager), and
	 * whether its norms are RMSNorm (written in seven eager ops; a
	 * LayerNorm is one ATen kernel either way) */
	bool eager_kernels, rmsnorm;
	/* LoRA's adapters unfused (inputs.h tb_lora_eager): the scaling's
	 * product and the sums as kernels of their own */
	bool lora_eager;
	/* the fp8 or fp4 casts are Transformer Engine's (or fp4's), which move
	 * their bytes at TB_PERF_CAST_BW_FRACTION of the bandwidth; torchao's
	 * compiled casts at the memory-bound kernels' */
	bool te_casts;
	/* training.fp8_attention as priced: the recipe its casts follow
	 * (DELAYED, TENSORWISE for current scaling, MXFP8), AUTO where the
	 * attention is priced in 16 bits (not asked, or no figure for the
	 * card: hw.attention_fp8_fwd_ratio 0); whether the card's figure is
	 * another card's */
	tb_fp8_recipe fp8_attention_recipe;
	bool fp8_attention_copied;
	/* training.fp8_head under fp8 matmuls: the head's GEMMs at their rate
	 * with the recipe's casts, where it is 16-bit by default */
	bool fp8_head;
	int fp8_attention_table;      /* the cuDNN release of its ratios (gpus.h) */
	/* hardware.cudnn as priced: the release whose timings scale cuDNN's
	 * attention (gpus.h tb_gpus_cudnn_attention; 0 where none does: not
	 * cuDNN's kernel, or a card with no series), and the forward's and
	 * backward's factors over the measured rate, folded into hw */
	int cudnn_table;
	double cudnn_fwd_scale, cudnn_bwd_scale;

	tb_perf_hw hw;
} tb_perf_input;

/* The attention cores' key pairs over those of every layer's being
 * global, at T tokens (causal: the executed half, or the MFU's
 * convention): a local layer's query sees flops.c's tb_calc_keys_local
 * keys, so the step and the FLOP count agree; 1 without local attention
 * (perf_blocks.c) */
double tb_perf_key_share(const tb_perf_input *in, double T, bool causal);

typedef struct tb_perf_result {
	bool ok;                      /* false: why says why; every figure is 0 */
	const char *why;              /* static; "" when ok */

	double step_s;
	double tokens_per_s_per_gpu;
	double mfu, hfu;              /* model / hardware FLOPs over step x GPUs x peak */
	double tflops_per_gpu;        /* hardware FLOP/s per GPU, in TFLOP/s (HFU x peak) */
	double breakdown_s[TB_PERF_TERMS]; /* sums to step_s */

	/* what the derivations show */
	int64_t gpus, microbatches;
	int64_t stage_layers[3];      /* first, busiest middle, last stage */
	double stage_s[3];            /* one micro-batch through each of them */
	int busiest_stage;            /* 0 first, 1 middle, 2 last */
	double expert_load;           /* the busiest expert rank's share priced (tb_perf_expert_load) */
	double bubble_fraction;       /* (p-1)/(v m) */
	double model_flops_per_step, hardware_flops_per_step;
	double layer_fwd_flops;       /* one layer, one micro-batch, one GPU, executed */
	double matmul_fraction;       /* achieved, the layer's matmuls, of peak */
	double layer_fwd_s, layer_bwd_s, layer_recompute_s; /* compute of one layer */
	double recomputed_share;      /* of the busiest stage's layers (training.recompute_layers) */
	double layer_mem_s;           /* of which memory-bound, forward + backward */
	double tp_bytes, tp_s;        /* one collective; per layer and micro-batch */
	double tp_gather_bytes;       /* a linear's all-gather: tp_bytes, or less
	                               * where fp8 linears gather in fp8 */
	double cp_bytes;              /* a ring hop, a pass's all-to-alls, or the gathered K and V (cp_comm) */
	double ep_bytes;
	double pp_bytes, pp_s;        /* one send */
	double dp_bytes, dp_s;        /* one step's reduction (ZeRO-3: one micro-batch's, but
	                               * under FSDP in a pipeline, tb_fsdp_holds_stage) */
	double dp_total_s;            /* every data-parallel collective of the step, before overlap */
	double stage_extra_s;         /* embedding and/or logits on the busiest stage, one micro-batch */
	double stage_extra_tp_s;      /* their tensor-parallel collectives */
	double stage_microbatch_s;    /* one micro-batch through the busiest stage */
	double optimizer_params;      /* parameters each GPU updates */
	/* the busiest stage's linear weights cast to fp8 or fp4 once a step,
	 * in the optimizer term (tb_perf_weight_cast_s); 0 where none are */
	double weight_cast_s;
} tb_perf_result;

/* Predicts one step.  k = NULL uses tb_perf_fitted.  Never NaN or inf:
 * an input it cannot time gives ok = false and a reason. */
void tb_perf_predict(const tb_perf_input *in, const tb_perf_consts *k,
                     tb_perf_result *out);

/* One micro-batch through one layer (and through the embedding and the
 * logits), on one GPU: the part of a prediction that depends only on the
 * model, the card, the precision, the micro-batch, the tensor, context and
 * expert sizes, sequence parallelism, checkpointing, flash attention and
 * the tensor-parallel overlap; not on the pipeline, the virtual stages,
 * the data-parallel size, ZeRO or the global batch.  A layout search
 * (plan.h) times it once per distinct shape and assembles each step from
 * it: tb_perf_layer_time + tb_perf_assemble on the same input is
 * tb_perf_predict, to the last bit. */
typedef struct tb_perf_layer {
	double mm_f;                  /* matmuls, forward */
	double attn_f, attn_b;        /* attention core */
	double mem_f, mem_b;          /* memory-bound kernels */
	double fwd, bwd, recompute;
	double tp, cp, ep;            /* exposed communication */
	double tp_one;                /* one tensor-parallel collective (a pair under
	                               * sequence parallelism), in 16 bits */
	double tp_rs_one;             /* the reduce-scatter of that pair; 0 without
	                               * sequence parallelism */
	/* one pass's tensor-parallel collectives through the layer (its
	 * attention's and its MLP's), and through a mixture's dense layer:
	 * under fp8 matmuls and sequence parallelism the all-gathers of the
	 * fp8 linears move fp8 */
	double tp_layer, dense_tp_layer;
	double flops_f;               /* executed forward FLOPs */
	double mm_flops_f;
	double embed_s, embed_tp;     /* the embedding on the first stage */
	double logits_s, logits_tp;   /* the logits on the last stage */
	double mtp_proj_s;            /* one MTP module's projection, forward and back */
	/* a mixture's leading dense layers (tb_perf_input.dense_layers), the
	 * fields above being its expert layers': compute, recomputation and
	 * exposed tensor and context communication; zero for other models */
	double dense_fwd, dense_bwd, dense_recompute, dense_tp, dense_cp;
	/* under full checkpointing of part of the layers (recompute_layers),
	 * the exposed communication of a layer that is not recomputed (its
	 * forward's collectives once); the fields above are a recomputed
	 * layer's.  Zero otherwise. */
	double tp_keep, cp_keep, ep_keep, dense_tp_keep, dense_cp_keep;
	/* what a change of checkpointing reads (tb_perf_layer_mode): the
	 * forward selective recomputation redoes, the context-parallel ring's
	 * forward and backward passes, one dispatch and combine, and the
	 * dense layers' matmuls and selective recomputation */
	double rc_selective, cp_f, cp_b, ep_one, dense_mm_f, dense_rc_selective;
	/* the weight elements of the layer's linear layers on this GPU (a
	 * mixture's local experts included), and of a mixture's dense layer:
	 * what an fp8 or fp4 run casts once a step (tb_perf_weight_cast_s) */
	double cast_w, dense_cast_w;
	/* an expert layer's tensor-parallel pair around its expert block,
	 * which the moe policy's recomputation repeats (0 elsewhere) */
	double moe_tp;
	/* under the tensor-parallel overlap, what one forward and one
	 * backward pass still wait for of tp_layer (each collective behind
	 * the GEMMs next to it only), for the layer, its expert block's pair
	 * and a mixture's dense layer */
	double tp_ovl_f, tp_ovl_b, moe_tp_ovl, dense_tp_ovl_f, dense_tp_ovl_b;
	/* an expert layer's one dispatch and one combine (ep_one their sum),
	 * and the computation before its dispatch (attention, norms,
	 * router) forward and backward: what Megatron-LM's 1F1B all-to-all
	 * overlap pairs each all-to-all with */
	double ep_send, ep_back, ep_pre_f, ep_pre_b;
	/* under Megatron-LM's 1F1B all-to-all overlap, what a forward and a
	 * backward that run alone (the schedule's warm-up and cool-down) wait
	 * for beyond the pair they would otherwise be: 2 ep_one less the
	 * pair's exposed share (tb_perf_ep_unpaired_passes says how many);
	 * zero without the overlap */
	double ep_unpaired;
} tb_perf_layer;

/* Fills *out for `in`; false (and *why, static, when why != NULL) when the
 * input cannot be timed, as tb_perf_predict would refuse it. */
bool tb_perf_layer_time(const tb_perf_input *in, const tb_perf_consts *k,
                        tb_perf_layer *out, const char **why);
/* The same, with a mixture's dense layers (the dense_* fields) taken from
 * `dense` (NULL: computed), a layer this made from an input that differs
 * at most in the expert-parallel size, which a dense layer does not read:
 * a search that varies it innermost times the dense layers once (to the
 * last bit the same; tests/test_perf_layer.c). */
bool tb_perf_layer_time_reuse(const tb_perf_input *in, const tb_perf_consts *k,
                              const tb_perf_layer *dense, tb_perf_layer *out, const char **why);
/* L, made by tb_perf_layer_time from an input that differs from `in` at
 * most in its checkpointing (mode, selective policy aside, and
 * recompute_layers), set to `in`'s: the recomputation and the exposed
 * collectives, to the last bit what tb_perf_layer_time gives for `in`
 * (tests/test_perf_layer.c).  A search times the rest of a layer once for the
 * three modes. */
void tb_perf_layer_mode(const tb_perf_input *in, tb_perf_layer *L);
/* The step of `in` from its layer time L, which tb_perf_layer_time made
 * from an input equal to `in` in every field it reads.  `in` must pass
 * tb_perf_layer_time's checks. */
void tb_perf_assemble(const tb_perf_input *in, const tb_perf_consts *k,
                      const tb_perf_layer *L, tb_perf_result *out);
/* What every step of `in`'s pipeline, micro-batch and layer shape costs
 * whatever its ZeRO stage and its virtual stages up to
 * in->virtual_pipeline: the busiest stage's micro-batches with their
 * compute, recomputation and exposed tensor, context and expert
 * communication, and the bubble at those virtual stages (it shrinks as
 * they grow).  tb_perf_assemble's step_s is this plus terms that are never
 * negative (the bubble's excess at fewer virtual stages, pipeline sends,
 * data-parallel collectives, optimizer), so a search can drop a candidate
 * whose floor already loses without timing it.  Equal to the sum of those
 * terms at in->virtual_pipeline up to rounding (a few ulps); 0 when `in`
 * cannot be timed. */
double tb_perf_step_floor_s(const tb_perf_input *in, const tb_perf_consts *k,
                            const tb_perf_layer *L);
/* The floor in its two parts, for a search that meets one pipeline and
 * layer shape under many GPU counts: the busiest stage's time for one
 * micro-batch (the pipeline and L alone), then the floor from it (the
 * micro-batches of a step and the bubble).  tb_perf_step_floor_s is the
 * second of the first, to the last bit. */
double tb_perf_stage_s(const tb_perf_input *in, const tb_perf_consts *k, const tb_perf_layer *L);
double tb_perf_step_floor_from_s(const tb_perf_input *in, double stage_s);

/* What a step adds to its floor, at most (a search counts a layout ahead of
 * another without timing it when its ceiling is): the pipeline sends, and
 * the data-parallel collectives and optimizer of the stage whose weights
 * make them longest, every collective exposed (tb_perf_assemble's overlap
 * only hides).  tb_perf_extras_max takes what depends on the layout's
 * sizes and ZeRO stage alone: the reduction's collectives once a step and
 * per micro-batch, and a send across one chunk boundary, affine in the
 * micro-batch's sequences (false where `in` cannot be timed);
 * tb_perf_step_ceiling_from_s adds them to the floor at
 * in->virtual_pipeline from the busiest stage's time, a millionth over for
 * the sums' order.  Not an upper bound where part of the layers is
 * recomputed at more than one virtual stage (the floor's stage is at one,
 * tb_perf_stage_s).  tests/test_perf.c checks it against the step. */
typedef struct tb_perf_extras {
	double once_s;                  /* collectives once a step, and the optimizer */
	double per_microbatch_s;        /* collectives every micro-batch */
	double send_s, send_per_sequence_s;     /* one send: s + b x per sequence */
} tb_perf_extras;
bool tb_perf_extras_max(const tb_perf_input *in, const tb_perf_consts *k, tb_perf_extras *out);
double tb_perf_step_ceiling_from_s(const tb_perf_input *in, double stage_s, const tb_perf_extras *e);

/* ceil(log2(n)), the network hops of a collective over n nodes: for a
 * whole n from 2 to 2^31 the bit length of n - 1 (libm's log2 is exact at
 * powers of two and never rounds a non-power onto a whole number there,
 * so the two agree: tests/test_perf_blocks.c checks every n to 2^20 and
 * the powers and their neighbours to 2^31), else libm's.  A search
 * prices a collective for every candidate it times. */
double tb_perf_ceil_log2(double n);

/* One collective over n GPUs, per_node of them in each node, moving
 * `bytes` (the buffer NCCL is handed; for all-to-all, what each GPU holds
 * for all the others; for p2p, the message).  Latency plus bytes x ring
 * factor over the slowest link: NVLink inside a node; between nodes the
 * per_node members send through their own network ports at once.
 * k = NULL uses tb_perf_fitted, here and below. */
double tb_perf_collective_s(tb_coll kind, double bytes, int64_t n,
                            int64_t per_node, const tb_perf_hw *hw,
                            const tb_perf_consts *k);

/* The factor that takes an MFU of `in` onto the published runs' count
 * (src/ceiling.c): the model's FLOPs from its shape with causal attention,
 * over the count `in` uses (its model_flops_per_token, or its shape with
 * its own attention convention).  1 when `in` cannot be timed. */
double tb_perf_causal_mfu_scale(const tb_perf_input *in);

/* The layers of the first, a middle (the second, the busiest) and the last
 * of p pipeline stages: an even split, the remainder on the middle stages
 * first (they carry neither the embedding nor the logits), then on the
 * first (126 layers on 16: 7, 8 x 14, 7).  p <= 1: every layer, thrice;
 * p = 2: no middle (0).  The memory model and the step share it. */
void tb_perf_stage_split(int64_t layers, int64_t pipeline, int64_t out[3]);

/* The layers a stage of n layers in v chunks recomputes when full
 * checkpointing redoes the first `per_chunk` of each chunk (Megatron-LM's
 * --recompute-method block, --recompute-num-layers per model chunk):
 * min(per_chunk x v, n), since the chunks split n as evenly as layers
 * allow; n when per_chunk is 0 (every layer). */
int64_t tb_perf_stage_recomputed(int64_t n, int64_t v, int64_t per_chunk);
/* The same over every stage of tb_perf_stage_split's layers on p ranks:
 * the layers one step's forward runs twice. */
int64_t tb_perf_recomputed_layers(int64_t layers, int64_t pipeline, int64_t v, int64_t per_chunk);

/* The expert layers' tensor-parallel size a layout runs: expert_tensor
 * when set, else tensor. */
int64_t tb_perf_expert_tensor(int64_t expert_tensor, int64_t tensor);
/* The busiest expert-parallel rank's routed tokens over the mean, as the
 * step prices it: 1 for a dense model, for one expert rank (its experts
 * share one GPU, whatever their loads) and for balanced routing; the
 * scenario's measured factor; else k's (NULL: the fitted constants)
 * moe_dropless_load.  The other ranks wait for that one at the combine. */
double tb_perf_expert_load(const tb_perf_input *in, const tb_perf_consts *k);

/* Whether v virtual stages split `layers` over p pipeline ranks as
 * Megatron-LM accepts: whole layers per virtual stage, the embedding and
 * the loss each allowed to count as a layer
 * (--account-for-embedding-in-pipeline-split,
 * --account-for-loss-in-pipeline-split), so layers + k divisible by p x v
 * for k = 0, 1 or 2, at least one layer per virtual stage.  Llama 3's 126
 * layers on 16 ranks: 128 = 16 x 8, v = 2, 4 or 8.  Always true for v <= 1
 * or p <= 1. */
bool tb_perf_virtual_ok(int64_t layers, int64_t pipeline, int64_t virtual_pipeline);
/* The same where a layout (pipelayout.h) may say it: on its pipeline, its
 * own virtual size alone. */
bool tb_perf_split_ok(const tb_pipe_layout *pl, int64_t layers, int64_t pipeline,
                      int64_t virtual_pipeline);

/* Whether framework fw runs ZeRO stage `zero` on `pipeline` stages; false
 * with *why (static) saying what it has instead.  Megatron-LM's
 * distributed optimizer is ZeRO-1 (its gradient buffer stays whole: no
 * ZeRO-2); FSDP has NO_SHARD, SHARD_GRAD_OP and FULL_SHARD (0, 2, 3: no
 * ZeRO-1); DeepSpeed's pipeline engine takes ZeRO 0 or 1 only.  ANY runs
 * every stage. */
bool tb_perf_framework_zero_ok(tb_framework fw, int zero, int64_t pipeline, const char **why);

/* What ZeRO-3's collectives hidden behind compute still cost, as a
 * fraction of their time, under framework fw: fsdp_overlap_cost for FSDP
 * and Megatron-FSDP, zero3_overlap_cost for DeepSpeed and a framework not
 * named (k NULL: the fitted constants). */
double tb_perf_zero3_overlap_cost(tb_framework fw, const tb_perf_consts *k);

/* Whether the data-parallel reduction and gather hide behind compute
 * under the overlap rule: asked for (parallelism.overlap_dp) and not
 * inside a full-iteration CUDA graph.  Megatron-LM dispatches the
 * bucketed collectives there as in eager mode, but every MLPerf v5.1 row
 * that captured its step so (fp8 Llama 3.1 8B and 405B, one hardware
 * queue: CUDA_DEVICE_MAX_CONNECTIONS=1) is timed as if they waited: the
 * step grows with the network they cross (docs/validation.md). */
bool tb_perf_dp_hidden(const tb_parallelism *pa);
/* Whether capture g can be priced for a run under framework fw at ZeRO
 * stage zero: a whole-step graph is Megatron-LM's (or a framework not
 * named), measured over its bucketed reduction, ZeRO 0-2; why says what
 * is expected instead ("" where it can). */
bool tb_perf_cuda_graph_ok(tb_cuda_graph g, tb_framework fw, int zero, const char **why);

/* How the step prices the data-parallel reduction of ZeRO stage `zero`
 * under framework fw over `pipeline` stages, in words for the report's
 * assumptions: one sentence, static. */
const char *tb_perf_dp_rule(tb_framework fw, int zero, bool no_sync, int64_t pipeline);
/* The parameters in each bucket a run under framework fw reduces its
 * gradients in under ZeRO 0-2 (and gathers its weights in under 1-2),
 * each bucket one collective at its own message size, under the overlap
 * (without it the reduction runs whole after the backward): `written`
 * (parallelism.bucket_size) where above 0; else Megatron-LM's default,
 * max(40M, 1M x the dp_cp data x context ranks)
 * ("larger DP sizes need larger buckets to ensure collectives do not
 * become latency-bound", distributed_data_parallel_config.py), and PyTorch
 * DDP's 25 MiB of gradients of grad_bytes (bucket_cap_mb) under fsdp's
 * ZeRO 0; 0 (one collective) otherwise: Megatron-LM without the overlap,
 * DeepSpeed's 5e8-element default, ZeRO-3's per-layer units.  *basis,
 * when asked, says which in words (static).  One decision: the step, the
 * report and compare read it. */
double tb_perf_dp_bucket(tb_framework fw, bool overlap, int zero, int64_t dp_cp, int64_t written,
                         double grad_bytes, const char **basis);
/* The same for a scenario's own layout (the report's and compare's). */
double tb_perf_dp_bucket_of(const tb_inputs *in, const char **basis);
/* Whether an overlapped expert all-to-all runs in Megatron-LM's three 1F1B
 * phases (framework megatron, a forward paired with a backward) rather
 * than behind another micro-batch's whole layer (DualPipe); and the rule
 * in words, for the report.  NULL without the overlap. */
bool tb_perf_ep_phased(tb_framework fw, tb_method method, bool overlap_ep);
const char *tb_perf_ep_rule(tb_framework fw, tb_method method, bool overlap_ep);
/* The chunk forwards Megatron-LM's 1F1B all-to-all overlap runs alone on
 * the first pipeline rank, as many backwards again at the step's end:
 * the interleaved schedule's warm-up, 2(p - 1) + (v - 1)p, plus the one
 * more forward the overlap schedules before its first pair; one without a
 * pipeline (schedules.py get_pp_rank_microbatches; combined_1f1b.py); at
 * most the m v chunk passes of the step. */
int64_t tb_perf_ep_unpaired_passes(int64_t pipeline, int64_t virtual_pipeline,
                                   int64_t microbatches);
/* Whether context parallelism of size c exchanges the sequence as `comm`
 * says on a tensor group of t: the all-to-all (A2A) hands each rank
 * heads/(t c) query heads and kv_heads/(t c) key-value groups
 * (Transformer Engine asserts both whole; kv_heads 0: heads); the ring
 * always can.  The scenario's check and the search's rule both read it. */
bool tb_perf_cp_ok(tb_cp_comm comm, int64_t heads, int64_t kv_heads, int64_t t, int64_t c);
/* How the step prices the exchange, in words for the report. */
const char *tb_perf_cp_rule(tb_cp_comm comm);

/* 1F1B fill and drain over the ideal time: (p-1)/(v m). */
double tb_perf_bubble_fraction(int64_t pipeline, int64_t virtual_pipeline,
                               int64_t microbatches);

/* One GEMM (M x K by K x N) at its shape's achieved fraction, or at the
 * memory bound when its operands take longer to move. */
double tb_perf_matmul_s(double m, double n, double k, double elem_bytes,
                        const tb_perf_hw *hw, const tb_perf_consts *c);

/* Fills a perf input from a checked scenario: the model's shape, the
 * batch, the layout, the precision's byte sizes and the card's figures
 * (the scenario's hardware.node fields where set, else the GPU table's
 * node figures, else generic ones).  A count-only model leaves layers 0,
 * which tb_perf_predict refuses with a reason. */
void tb_perf_input_from(const tb_inputs *in, tb_perf_input *out);
/* A node row's links into hw: GPUs a node, link speeds, their achieved
 * fractions (the rings', the all-to-all's) and the mesh; tb_perf_input_from
 * then puts the scenario's hardware.node speeds over them. */
void tb_perf_hw_links(const tb_gpu_node *n, tb_perf_hw *hw);
/* The kernel run `in` prices its flash attention as on card `card` (a
 * table name: the scenario's, or another that plan ranks): the one
 * training.attention_kernel names, else cuDNN's fused attention under
 * Megatron-LM (Transformer Engine's choice) and fsdp (PyTorch's SDPA from
 * 2.9, torchtitan's), FlashAttention-2 under DeepSpeed or none named;
 * FlashAttention-2 on a card with no cuDNN figure; TB_ATTN_KERNEL_AUTO
 * without flash attention (the scores' matmuls priced as matmuls). */
tb_attn_kernel tb_perf_attention_kernel(const tb_inputs *in, const char *card);
/* The kernel `priced` (tb_perf_attention_kernel's answer) in words, with
 * whose choice it is under framework fw, `written` the kernel the scenario
 * names: one phrase, static; with `fraction`, as the step derivation
 * names the fraction of it. */
const char *tb_perf_attention_kernel_text(tb_framework fw, tb_attn_kernel written,
                                          tb_attn_kernel priced, bool fraction);
/* "nvfp4" or "mxfp4", the fp4 format in->matmul_bytes prices, NULL
 * outside fp4. */
const char *tb_perf_fp4_format(const tb_perf_input *in);
/* The fp8 recipe in->fp8_recipe names and what its casts do, in words
 * (static). */
const char *tb_perf_fp8_text(const tb_perf_input *in);

/* The fraction of the HBM bandwidth in's fp8 or fp4 casts reach:
 * TB_PERF_CAST_BW_FRACTION for Transformer Engine's and fp4's, the
 * memory-bound kernels' fitted one (k, NULL for tb_perf_fitted) for
 * torchao's compiled casts.  The step, its derivation and the JSON read
 * this one answer. */
double tb_perf_cast_bw_fraction(const tb_perf_input *in, const tb_perf_consts *k);

/* The time to cast `elems` linear weights to fp8 or fp4 once a step, as
 * Transformer Engine does on a step's first micro-batch and keeps for the
 * others (linear.py: the weight workspace, updated when
 * is_first_microbatch): each weight read in 16 bits and written at the
 * recipe's bytes an element (in->fp8_cast_bytes) at the casts' bandwidth.
 * 0 where no such cast runs or none is priced: weights kept in fp8
 * (training.fp8_param_gather but under MXFP8, whose weights Megatron-LM
 * gathers in 16 bits and casts after; the distributed optimizer's cast of
 * its own shard is left out), torchao (its weight casts, every
 * micro-batch, are the layer's), 16-bit matmuls, a frozen base (whether a
 * weight that did not change is cast again is not read) and ZeRO-3. */
double tb_perf_weight_cast_s(const tb_perf_input *in, const tb_perf_consts *k, double elems);

#endif
