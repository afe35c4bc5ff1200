/* inputs.h: a checked scenario, as the calculators see it.
 *
 * The scenario loader (scenario.h) fills this struct and guarantees every
 * invariant written here; the calculators (budget.h) trust it and never
 * validate again.  Plain data, no pointers to free: copy it freely.
 *
 * Units live in names: _bytes, _s, _flops (FLOP/s for peaks), _w (watts).
 * Counts (tokens, parameters) are doubles: exact up to 2^53.
 */
#ifndef TB_INPUTS_H
#define TB_INPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trainbudget/pipelayout.h"
#include "trainbudget/calibrate.h"
#include "trainbudget/pilot.h"
#include "trainbudget/tuning.h"

typedef enum { TB_MLP_GATED, TB_MLP_PLAIN } tb_mlp;
typedef enum { TB_NORM_RMSNORM, TB_NORM_LAYERNORM } tb_norm;
typedef enum { TB_POS_ROPE, TB_POS_LEARNED, TB_POS_ALIBI, TB_POS_NONE } tb_positions;
/* Normalisation of queries and keys before the scores: none, one vector of
 * head_dim shared by every head (Qwen 3, Gemma 3), or one vector over all
 * heads (OLMo 2: H*d for q, K*d for k).  Llama 4's qk norm has no weight
 * and counts as none. */
typedef enum { TB_QKNORM_NONE, TB_QKNORM_HEAD, TB_QKNORM_FULL } tb_qk_norm;
/* How the local layers bound their keys: a sliding window of the last
 * `window` tokens (Mistral, Gemma 2/3, Phi-3), or fixed chunks of `window`
 * tokens attended within (Llama 4). */
typedef enum { TB_LOCAL_SLIDING, TB_LOCAL_CHUNKED } tb_local_attn;

/* The numeric formats a GPU table lists peaks for. */
typedef enum {
	TB_DTYPE_FP32, TB_DTYPE_TF32, TB_DTYPE_BF16, TB_DTYPE_FP16, TB_DTYPE_FP8,
	TB_DTYPE_FP4,       /* NVFP4 on Blackwell, MXFP4 on CDNA 4 */
	TB_DTYPE_COUNT
} tb_dtype;

typedef enum {
	TB_PREC_FP32,       /* fp32 weights, grads, states; tf32 matmuls */
	TB_PREC_BF16_MIXED, /* bf16 compute, fp32 master weights */
	TB_PREC_FP16_MIXED, /* fp16 compute, fp32 master weights, loss scaling */
	TB_PREC_BF16,       /* pure bf16: weights, grads and states in bf16 */
	TB_PREC_FP8_MIXED,  /* fp8 matmuls, bf16 weights+grads, fp32 master */
	TB_PREC_FP4_MIXED   /* fp4 linear layers (NVFP4 or MXFP4), else as fp8-mixed */
} tb_precision;

/* The dtype gradients are accumulated and reduced in.  DEFAULT (0): the
 * precision's usual one, tb_grad_dtype_of() below: fp32 under bf16-mixed
 * and fp8-mixed (Megatron-LM, DeepSpeed, FSDP's fp32 reduce), fp16 under
 * fp16-mixed (the ZeRO paper's 16 B/param), bf16 under pure bf16, fp32
 * under fp32. */
typedef enum {
	TB_GRAD_DEFAULT, TB_GRAD_BF16, TB_GRAD_FP16, TB_GRAD_FP32
} tb_grad_dtype;

typedef enum {
	TB_OPT_ADAMW, TB_OPT_ADAMW_8BIT, TB_OPT_ADAFACTOR,
	TB_OPT_SGD, TB_OPT_SGD_MOMENTUM, TB_OPT_LION
} tb_optimizer;

typedef enum { TB_CKPT_NONE, TB_CKPT_SELECTIVE, TB_CKPT_FULL } tb_checkpointing;
/* What selective checkpointing recomputes.  ATTENTION: the attention core
 * (Korthikanti et al. 2022, Megatron-LM), which flash attention never
 * stores, so it is none again.  OP: PyTorch's per-op policy as torchtitan
 * writes it (selective_ac_option = 'op'): every matmul's output and the
 * attention's are kept except every second matmul of a layer, and every
 * other op is recomputed.  DEEPSEEK: DeepSeek-V3's recipe (arXiv:2412.19437
 * Sec. 3.2.3 and 3.3.2): every RMSNorm and MLA's up-projections
 * recomputed, the MoE SwiGLU's output recomputed from its inputs, which
 * are cached in FP8 with the experts' inputs under fp8-mixed. */
/* MOE: Megatron-LM's --recompute-modules layernorm moe, the norms and a
 * mixture's whole expert layer (router, dispatch, experts, combine) */
typedef enum {
	TB_SELECTIVE_ATTENTION, TB_SELECTIVE_OP, TB_SELECTIVE_DEEPSEEK, TB_SELECTIVE_MOE
} tb_selective;
/* Which fused attention kernel runs (training.attention_kernel): AUTO is
 * cuDNN's under Megatron-LM on a card that has its figure (Transformer
 * Engine's choice, perf_input.c), FlashAttention-2 elsewhere. */
typedef enum { TB_ATTN_KERNEL_AUTO, TB_ATTN_KERNEL_FLASH2, TB_ATTN_KERNEL_CUDNN } tb_attn_kernel;

/* How fp8-mixed scales its operands (training.fp8_recipe), which sets
 * the casts' memory traffic and, under FSDP, the weights' gather width
 * (perf_input.c): DELAYED, Transformer Engine's default (the scale from
 * the amax history); TENSORWISE, one scale a tensor from its own amax
 * (torchao's default, its weights gathered in fp8 under FSDP; Transformer
 * Engine's current scaling); ROWWISE, torchao's per-row scales;
 * BLOCKWISE, DeepSeek-V3's 1x128 and 128x128 tiles through Transformer
 * Engine's block scaling (cuBLAS's GEMMs, slower than per tensor on
 * Hopper: gpus.c); MXFP8, 1x32 blocks with power-of-two scales
 * (Blackwell); DEEPSEEK, the same tiles on DeepSeek's own GEMM kernels
 * (DeepGEMM), priced at the per-tensor ceiling.  AUTO: TENSORWISE under
 * FSDP, DELAYED elsewhere. */
typedef enum {
	TB_FP8_AUTO, TB_FP8_DELAYED, TB_FP8_TENSORWISE, TB_FP8_ROWWISE, TB_FP8_BLOCKWISE,
	TB_FP8_MXFP8, TB_FP8_DEEPSEEK
} tb_fp8_recipe;

/* training.fp8_attention: the attention core in fp8 through Transformer
 * Engine's cuDNN kernel (Megatron-LM's --fp8-dot-product-attention, NeMo's
 * fp8_dot_product_attention).  ON takes the linear layers' recipe (MXFP8
 * under MXFP8, delayed under delayed, current scaling otherwise, as
 * Transformer Engine's DotProductAttention does); DELAYED, CURRENT and
 * MXFP8 name it (its NVTE_DPA_FP8_RECIPE). */
typedef enum {
	TB_FP8_ATTN_OFF, TB_FP8_ATTN_ON, TB_FP8_ATTN_DELAYED, TB_FP8_ATTN_CURRENT, TB_FP8_ATTN_MXFP8
} tb_fp8_attn;

/* PaLM counts the whole score matrix (eager attention), as Megatron-LM did up
 * to core_v0.11.0; FlashAttention and Megatron-LM since core_v0.12.0 (commit
 * 8873b55, 2025) count the causal half. */
typedef enum { TB_ATTN_FLOPS_FULL, TB_ATTN_FLOPS_CAUSAL } tb_attention_flops;

typedef struct tb_gpu {
	char name[32];          /* "h100-sxm" */
	char label[64];         /* "NVIDIA H100 SXM5 80GB" */
	double peak_flops[TB_DTYPE_COUNT]; /* dense FLOP/s; 0 = unsupported */
	/* What the card exposes, not its nominal label: an "80GB" H100
	 * reports 81,559 MiB (gpus.c has the source per card). */
	double memory_bytes;
	double bandwidth_bytes_per_s;
	double tdp_w;
	char source[160];
	char memory_source[96];  /* where memory_bytes comes from: "nvidia-smi: 81,559 MiB" */
	/* streaming multiprocessors, an inline card's hardware.gpu.sms; 0:
	 * the table's if it has one (tb_gpu_sms) */
	int64_t sms;
} tb_gpu;

typedef struct tb_model {
	/* false: only a parameter count is known (`model.params` alone); the
	 * shape fields below are then zero and activations cannot be estimated. */
	bool has_shape;
	double params_count;    /* set when !has_shape */
	char preset[32];        /* "" when none */

	int64_t layers, hidden, heads, kv_heads, head_dim, ffn_hidden, vocab;
	int64_t max_positions;  /* learned table size; 0 unless positions=learned */
	int64_t experts;        /* routed experts per layer; 0 or 1 = dense */
	int64_t experts_per_token;
	tb_mlp mlp;
	tb_norm norm;
	tb_positions positions;
	bool tied_embeddings;
	bool bias;              /* biases on every linear layer */
	bool qkv_bias;          /* biases on q, k, v only */
	bool attn_bias;         /* biases on q, k, v and o (Llama-style attention_bias) */
	bool mlp_bias;          /* biases on the MLP's matrices only (Llama-style mlp_bias) */

	/* Architecture details, all zero for the plain decoder above (every
	 * preset before them): the calculators then reduce to the formulas
	 * they had before.  docs/formulas.md has each one's counts. */
	tb_qk_norm qk_norm;
	int64_t norms_per_layer;   /* norm vectors per layer; 0 means 2 (Gemma 2/3: 4, pre and post) */
	int64_t window;            /* local attention span in tokens; 0 = every layer global */
	int64_t window_layers;     /* layers that use it (the rest attend globally) */
	tb_local_attn local_attn;
	/* Multi-head latent attention (DeepSeek-V2/V3), on when kv_lora_rank > 0:
	 * q through a q_lora_rank latent (0: one h x H*(dn+dr) matrix), k and v
	 * through a kv_lora_rank latent plus one shared rope key of dr. */
	int64_t q_lora_rank, kv_lora_rank;
	int64_t qk_nope_dim, qk_rope_dim, v_head_dim;
	/* Mixture-of-experts structure beyond Mixtral's (experts > 1 only). */
	int64_t expert_ffn_hidden; /* a routed expert's width; 0 = ffn_hidden */
	int64_t dense_layers;      /* layers with a dense MLP of ffn_hidden instead of experts */
	int64_t shared_ffn_hidden; /* always-on shared expert(s), their total width; 0 = none */
	bool shared_expert_gate;   /* Qwen2-MoE: a sigmoid gate (h x 1) on the shared expert */
	bool router_bias;          /* one bias per expert on the router (DeepSeek-V3) */
	bool attn_sinks;           /* a learned sink logit per query head (gpt-oss) */
	/* Group-limited routing (DeepSeek-V2/V3 config.json n_group, topk_group):
	 * the experts form route_groups groups and a token's experts come from
	 * at most route_groups_per_token of them (V3: 4 of 8, one group a node
	 * under EP 64, so at most 4 nodes a token); 0 = unlimited. */
	int64_t route_groups, route_groups_per_token;
	int64_t mtp_modules;       /* multi-token-prediction modules: counted apart, never in N */
	bool vision_not_counted;   /* a multimodal config: only its language model is counted */
} tb_model;

/* How the router's choices land on the experts (training.moe_routing):
 * dropless, each token where its router sends it, so the busiest
 * expert-parallel rank carries more than the mean and the others wait for
 * it (Megatron-LM's default, DeepSeek's, Mixtral's); balanced, every
 * expert the same count (Megatron-LM's --moe-router-force-load-balancing,
 * a benchmark's setting, or a capacity that drops the excess). */
typedef enum { TB_MOE_DROPLESS, TB_MOE_BALANCED } tb_moe_routing;

/* How the loss holds the logits (training.cross_entropy): fused, one
 * fp32 buffer reused in place for the gradient (Megatron-LM's
 * vocab-parallel cross-entropy, a compiled or chunked loss); eager,
 * PyTorch's F.cross_entropy over an fp32 copy, whose log-softmax, its
 * output's gradient and its input's gradient are each a buffer of their
 * own; AUTO, not written (tb_cross_entropy_eager). */
typedef enum { TB_CE_AUTO, TB_CE_FUSED, TB_CE_EAGER } tb_cross_entropy;

typedef struct tb_training {
	double tokens;
	int64_t seq_len, global_batch, micro_batch;
	/* training.global_batch_tokens when given (0: not): global_batch is
	 * then this over seq_len, checked whole */
	double global_batch_tokens;
	tb_precision precision;
	tb_grad_dtype grad_dtype;   /* DEFAULT when the scenario does not say */
	tb_optimizer optimizer;
	tb_checkpointing checkpointing;
	tb_selective selective_policy;
	/* Full checkpointing of part of the layers (Megatron-LM's
	 * --recompute-method block --recompute-num-layers N): the first N
	 * layers of each pipeline chunk recomputed in full, the others
	 * keeping every activation; 0: every layer (tb_perf_stage_recomputed) */
	int64_t recompute_layers;
	tb_attention_flops attention_flops;
	bool flash_attention;
	tb_attn_kernel attention_kernel;
	tb_fp8_recipe fp8_recipe;
	/* training.grad_accumulation_fusion false: each micro-batch's weight
	 * gradients are written by their GEMM and added into the main
	 * gradient by a kernel of their own (Megatron-LM's
	 * --no-gradient-accumulation-fusion: param.main_grad.add_) */
	bool no_grad_accum_fusion;
	/* training.activation_func_fp8_input_store: the fused SwiGLU keeps
	 * its input for the backward as float8_e4m3fn, 1 B an element
	 * (Megatron-Core's --activation-func-fp8-input-store) */
	bool act_fp8_store;
	/* training.fp8_param_gather: the trained linear layers' weights kept
	 * in fp8 and gathered so (Megatron-LM's --fp8-param-gather, NeMo's
	 * fp8_param_gather: te.fp8_model_init), no 16-bit copy beside them */
	bool fp8_param_gather;
	tb_fp8_attn fp8_attention;      /* training.fp8_attention */
	/* training.fp8_head: the vocabulary head's three GEMMs in the fp8
	 * recipe too (Megatron-LM's --fp8-output-proj, MXFP8 only: Transformer
	 * Engine's column-parallel linear in place of its 16-bit one) */
	bool fp8_head;
	/* training.kernels: eager: the memory-bound steps of a layer run as
	 * PyTorch eager writes them (torchtitan's Llama without compile: an
	 * RMSNorm of seven kernels in fp32, complex RoPE, repeat_kv's copy,
	 * SiLU then the gate's product), not one fused kernel each */
	bool eager_kernels;
	/* training.cross_entropy: how the loss holds the logits
	 * (tb_cross_entropy_eager decides AUTO) */
	tb_cross_entropy cross_entropy;
	bool dropout;
	/* Compute between two saves of the model states to storage (not
	 * activation checkpointing); 0: Young's optimum (goodput.h). */
	double checkpoint_interval_s;
	/* What is trained (tuning.h): FULL unless the scenario says.  The
	 * adapters' keys are read for lora and qlora only; quantization is
	 * the frozen linear layers' storage (nf4 under qlora, none else). */
	tb_method method;
	tb_lora lora;
	tb_quant quantization;
	bool double_quant;          /* QLoRA's, on by default */
	/* bitsandbytes' paged optimizer: its state pages to host memory
	 * under pressure, so it is shown but not counted against the card */
	bool paged_optimizer;
	/* Examples of avg_seq_len tokens on average (0: not said) packed into
	 * sequences of seq_len, or each padded to seq_len (packing false):
	 * then tokens counts the padded sequences' tokens, data_tokens the
	 * examples' own, padding_fraction what the padding takes */
	bool packing;
	double avg_seq_len;
	double data_tokens;
	double padding_fraction;
	/* Mixtures of experts: the routing, and the busiest expert-parallel
	 * rank's routed tokens over the mean where the scenario measured it
	 * (training.moe_load_factor, 0: the routing's figure, perf.h) */
	tb_moe_routing moe_routing;
	double moe_load_factor;
} tb_training;

/* A node of the cluster, for the step-time model: what the cards share.
 * 0 in a field = the GPU table's node figure for the card (gpus.h). */
typedef struct tb_node {
	int64_t gpus;               /* GPUs per node */
	double nvlink_bytes_per_s;  /* per GPU, one direction, inside the node */
	double network_bytes_per_s; /* per GPU, one direction, between nodes */
} tb_node;

/* The smallest MFU a scenario may give: 0.01% of the peak, far below any
 * run (published ones reach 20-60%); below it a figure is a typo, and the
 * time it gives is no longer a time anyone could plan with. */
#define TB_MFU_FLOOR 1e-4

typedef struct tb_hardware {
	tb_gpu gpu;
	int64_t count;
	double mfu[3];          /* low <= expected <= high, each in [TB_MFU_FLOOR, 1] */
	/* hardware.mfu absent or `predicted`: the time uses the step-time
	 * model's MFU and band (perf.h); mfu[] is the default range, kept for
	 * a run the model cannot predict. */
	bool mfu_predicted;
	double price_per_gpu_hour;
	char currency[8];
	double pue;             /* >= 1; 1 when not given */
	/* CUDA context, allocator fragmentation, NCCL buffers: a stated term. */
	double overhead_bytes;
	tb_node node;
	/* Failures and checkpoints (goodput.h; the defaults and their sources
	 * are there): failures per node per day (>= 0), checkpoint write
	 * bandwidth per node (> 0), time to restart after a failure (>= 0). */
	double failures_per_node_day;
	double checkpoint_bytes_per_s;
	double restart_s;
	/* What is billed (bill.h): the GPUs booked in blocks of this long (0:
	 * paid as used), and a node's whole draw at the wall for the energy
	 * (0: the GPUs' TDP alone) */
	double reservation_s;
	double node_power_w;
	/* the GPUs' power limit (nvidia-smi -pl), a quarter of the TDP to the
	 * TDP; 0: the TDP.  It slows the compute (perf.h power_exponent) and
	 * bounds the energy */
	double power_limit_w;
	/* hardware.cudnn: the cuDNN release the run's attention calls, as
	 * cudnnGetVersion encodes it (92100 for 9.21); 0: the newest release
	 * timed (gpus.h tb_gpus_cudnn_attention) */
	int cudnn_version;
} tb_hardware;

/* The layout's keys, as bits of tb_parallelism.written: the ones a
 * scenario wrote are fixed, the others are the answer's to choose
 * (answer.h).  Micro-batch and checkpointing are training keys that the
 * layout decides too. */
enum {
	TB_LAYOUT_TENSOR = 1u << 0, TB_LAYOUT_PIPELINE = 1u << 1, TB_LAYOUT_VIRTUAL = 1u << 2,
	TB_LAYOUT_CONTEXT = 1u << 3, TB_LAYOUT_EXPERT = 1u << 4, TB_LAYOUT_ZERO = 1u << 5,
	TB_LAYOUT_SEQUENCE_PARALLEL = 1u << 6, TB_LAYOUT_MICRO_BATCH = 1u << 7,
	TB_LAYOUT_CHECKPOINTING = 1u << 8,
	TB_LAYOUT_KEYS = 9,
	TB_LAYOUT_ALL = (1u << 9) - 1
};

/* The training framework, for what its data-parallel reduction does and
 * which ZeRO stages it has (perf.h tb_perf_framework_zero_ok).  ANY (not
 * named) prices each stage as the framework that offers it runs it. */
typedef enum { TB_FW_ANY, TB_FW_MEGATRON, TB_FW_DEEPSPEED, TB_FW_FSDP } tb_framework;

/* The GEMMs Transformer Engine's userbuffers overlap a tensor-parallel
 * collective with, by its ub_cfgs names (proj_wgrad and fc2_wgrad only
 * ever overlap another's). */
typedef enum {
	TB_UB_QKV_FPROP, TB_UB_PROJ_FPROP, TB_UB_FC1_FPROP, TB_UB_FC2_FPROP,
	TB_UB_QKV_DGRAD, TB_UB_PROJ_DGRAD, TB_UB_FC1_DGRAD, TB_UB_FC2_DGRAD,
	TB_UB_QKV_WGRAD, TB_UB_FC1_WGRAD, TB_UB_COUNT
} tb_ub_gemm;

typedef enum { TB_DISPATCH_ALLTOALL, TB_DISPATCH_DEEPEP } tb_dispatcher;

/* What the run captures in CUDA graphs (parallelism.cuda_graph): nothing,
 * each layer (Megatron-LM's --cuda-graph-scope full, Transformer Engine's
 * graphed callables), or the whole forward and backward of a step
 * (--cuda-graph-scope full_iteration, NeMo's FULL_CUDA_GRAPH=1), under
 * which the data-parallel collectives are priced unhidden
 * (tb_perf_dp_hidden). */
typedef enum { TB_CUDA_GRAPH_NONE, TB_CUDA_GRAPH_LAYERS, TB_CUDA_GRAPH_FULL_ITERATION } tb_cuda_graph;

/* How context parallelism exchanges the sequence (Megatron-LM's
 * --cp-comm-type): P2P passes each rank's K and V chunk round a ring
 * behind the attention; A2A (Ulysses) trades sequence for heads with
 * all-to-alls of Q, K, V and the output around it; ALLGATHER (Llama 3's)
 * gathers every rank's K and V before it and reduce-scatters their
 * gradients after. */
typedef enum { TB_CP_P2P, TB_CP_A2A, TB_CP_ALLGATHER } tb_cp_comm;

typedef struct tb_parallelism {
	int64_t tensor, pipeline, expert, data; /* data = count/(tensor*pipeline*context) */
	/* Interleaved stages per pipeline rank and context-parallel size;
	 * 0 is taken as 1 (a scenario that does not set them). */
	int64_t virtual_pipeline, context;
	/* The expert layers' tensor-parallel size; 0: tensor (perf.h). */
	int64_t expert_tensor;
	/* parallelism.pipeline_layout: which layers each rank holds
	 * (pipelayout.h); layout.pipeline 0: the even split.  It sets the
	 * pipeline and virtual sizes, which every search then holds. */
	tb_pipe_layout layout;
	/* HSDP (FSDP's HYBRID_SHARD, DeepSpeed's MiCS): ZeRO shards the dense
	 * states over groups of this many data-parallel ranks and replicates
	 * them across the groups; 0: over the whole data x context group. */
	int64_t shard_group;
	/* parallelism.bucket_size: the parameters in each bucket the
	 * data-parallel reduction (and ZeRO 1-2's gather) runs in, Megatron-LM's
	 * --ddp-bucket-size (NeMo's distributed Adam: bucket_cap_mb x 2^20 over
	 * the gradient's bytes); 0: the framework's default (tb_perf_dp_bucket) */
	int64_t bucket_size;
	/* FSDP's no_sync over the micro-batches of a step: the gradients
	 * accumulate unsharded and are reduce-scattered once, after the last
	 * backward (ZeRO 2 and 3 under parallelism.framework: fsdp) */
	bool no_sync;
	/* parallelism.overlap_dp: false: the gradient reduction (and ZeRO's
	 * gathers) wait until the backward ends, as in Megatron-LM before its
	 * --overlap-grad-reduce (August 2023); the default, false here,
	 * overlaps them (docs/formulas.md, the overlap rule) */
	bool no_overlap_dp;
	tb_cuda_graph cuda_graph;
	bool sequence_parallel;
	int zero;               /* 0..3 */
	tb_framework framework;
	/* The expert all-to-all runs beside another micro-batch's compute
	 * (DeepSeek-V3's DualPipe, Megatron-LM's
	 * --overlap-moe-expert-parallel-comm); false: it waits in line. */
	bool overlap_ep;
	/* Tensor-parallel collectives hidden, each behind the GEMM next to it
	 * (Megatron-LM's --tp-comm-overlap, torchtitan's async TP); false:
	 * exposed. */
	bool overlap_tp;
	/* Under overlap_tp, what Megatron-LM's flags take out of it:
	 * --tp-comm-overlap-disable-qkv (parallelism.overlap_tp_qkv: false,
	 * the QKV projection's gather and its input gradient's reduce-scatter
	 * exposed) and tp_comm_overlap_rs_dgrad off (parallelism.
	 * overlap_tp_dgrad: false, the input gradients' reduce-scatters hidden
	 * behind the weight-gradient GEMMs instead: none under frozen base
	 * weights); false here is the default, overlapped */
	bool no_overlap_tp_qkv, no_overlap_tp_dgrad;
	/* Under overlap_tp, the SMs each of Transformer Engine's overlapped
	 * GEMMs gives up to its collective (parallelism.overlap_tp_sms, its
	 * ub_cfgs' num_sm where set_sm_margin is on): those written, bit g of
	 * overlap_tp_sms_set for tb_ub_gemm g; the rest take
	 * tb_overlap_tp_sms's default */
	int16_t overlap_tp_sms[TB_UB_COUNT];
	uint16_t overlap_tp_sms_set;
	/* How tokens reach their experts: Megatron-LM's all-to-all sends every
	 * routed copy; DeepEP sends each token once per destination node and
	 * forwards it over NVLink there, in fp8 under fp8 matmuls
	 * (DeepSeek-V3 Sec. 3.2.2). */
	tb_dispatcher dispatcher;
	tb_cp_comm cp_comm;     /* parallelism.cp_comm_type */
	unsigned written;       /* TB_LAYOUT_* bits the scenario wrote */
} tb_parallelism;

#define TB_OVERTRAIN_MAX 8

/* Stages a run may have (`stages:`, scenario.h and stages.h). */
#define TB_STAGES_MAX 16

typedef struct tb_plan {
	bool has_deadline, has_budget, has_inference;
	double deadline_s;
	double budget;          /* in hardware.currency */
	int n_overtrain;        /* >= 1; default {1, 2, 5} */
	double overtrain[TB_OVERTRAIN_MAX];
	double inference_tokens;
	/* The rest of a request (bill.h): ablations and evaluation as a share
	 * of the run's GPU time, and checkpoint storage: copies kept while the
	 * run lasts, the dataset beside them, how long the last checkpoint is
	 * kept after, the price per TB-month (has_storage: plan.storage given) */
	double ablations;
	bool has_storage;
	double storage_kept;
	double storage_data_bytes;
	double storage_retention_s;
	double storage_price_per_tb_month;
} tb_plan;

typedef struct tb_measured {
	bool has_step_time, has_peak_memory;
	double step_time_s;
	double peak_memory_bytes;
	/* measured.log: the run's training log (pilot.h), which gives the
	 * step and the peak where the keys above are not written */
	bool has_log;
	tb_pilot_log log;
	char log_path[256];         /* as the scenario names it */
	char log_sha256[65];
	/* measured.trace: its PyTorch profiler trace (trace.h), which times
	 * each term for --calibrate */
	bool has_trace;
	tb_trace trace;
	char trace_path[256];
	char trace_sha256[65];
} tb_measured;

typedef struct tb_inputs {
	tb_model model;
	tb_training training;
	tb_hardware hardware;
	tb_parallelism parallelism;
	tb_plan plan;
	tb_measured measured;
	/* --calibrate: what pilot runs taught (calibrate.h); known = false
	 * without one */
	tb_calib calib;
} tb_inputs;

/* Names as the scenario file spells them ("bf16-mixed", "adamw", ...). */
const char *tb_precision_name(tb_precision p);
const char *tb_optimizer_name(tb_optimizer o);
const char *tb_checkpointing_name(tb_checkpointing c);
const char *tb_selective_name(tb_selective s);
const char *tb_attn_kernel_name(tb_attn_kernel k);
/* "auto", "delayed", "tensorwise", "rowwise", "blockwise", "mxfp8", "deepseek". */
const char *tb_fp8_recipe_name(tb_fp8_recipe r);
/* "false", "true", "delayed", "current", "mxfp8". */
const char *tb_fp8_attn_name(tb_fp8_attn a);
/* training.cross_entropy as the scenario writes it: "fused" or "eager". */
const char *tb_cross_entropy_name(bool eager);
/* The loss's bytes a logit at its peak: a fused cross-entropy keeps one
 * fp32 buffer and writes the gradient over it (4); PyTorch's eager one
 * holds the saved log-softmax, the gradient NLL's backward writes and the
 * one LogSoftmax's backward writes from them at once (12).  The memory
 * prices it and the report says it. */
double tb_cross_entropy_bytes_per_logit(bool eager);
/* Whether the loss is PyTorch's eager cross-entropy over fp32 logits
 * (training.cross_entropy: eager), which holds 12 bytes a logit at its
 * peak where a fused one holds 4 (docs/formulas.md, "logits"); not
 * written: eager under parallelism.framework fsdp with training.kernels
 * eager, fused otherwise.  The memory, the JSON and compare read it. */
bool tb_cross_entropy_eager(const tb_inputs *in);
/* Whether FSDP runs under a pipeline schedule, which holds each stage's
 * weights gathered and its gradients unsharded from the first micro-batch
 * to the step's end and reduce-scatters them once, after the stage's last
 * backward: torch.distributed.pipelining turns FSDP's gradient sync and
 * reshard-after-backward off for every micro-batch and runs the reduction
 * as its own action after them (stage.py, perform_reduce_grad), and
 * torchtitan's default turns reshard-after-forward off under a pipeline
 * ("to avoid per-microbatch all-gathers").  True for framework fsdp with
 * ZeRO 2 or 3 and more than one pipeline stage; the memory, the step and
 * the layout search read it. */
bool tb_fsdp_holds_stage(tb_framework fw, int zero, int64_t pipeline);
/* training.kernels as the scenario writes it: "eager" or "fused". */
const char *tb_kernels_name(bool eager);
/* Whether the tensor-parallel overlap covers the QKV projection's pair
 * and the input gradients' reduce-scatters behind the data-gradient GEMMs
 * (parallelism.overlap_tp_qkv, overlap_tp_dgrad): false without
 * overlap_tp.  The step, the JSON and compare read these. */
bool tb_overlap_tp_qkv(const tb_parallelism *p);
bool tb_overlap_tp_dgrad(const tb_parallelism *p);
/* "qkv_fprop" ... "fc1_wgrad", Transformer Engine's names, by tb_ub_gemm. */
extern const char *const tb_ub_gemm_names[TB_UB_COUNT];
const char *tb_ub_gemm_name(tb_ub_gemm g);
/* The SMs GEMM g runs without while its collective is overlapped: 0
 * without overlap_tp (or under overlap_tp_qkv false for the QKV GEMMs);
 * parallelism.overlap_tp_sms where written; else Transformer Engine's
 * default under framework megatron (16 for its pipelined forward
 * reduce-scatters and its bulk backward overlaps, none for its ring
 * exchanges) and none under any other (PyTorch's async TP copies on the
 * copy engines).  The step, the JSON and compare read this one answer. */
int64_t tb_overlap_tp_sms(const tb_parallelism *p, tb_ub_gemm g);
/* Whether any overlapped GEMM gives SMs up under p (tb_overlap_tp_sms). */
bool tb_overlap_tp_holds_sms(const tb_parallelism *p);
/* Those SMs as words, GEMMs giving up none left out: "proj_fprop 32,
 * fc2_fprop 16", or "none"; the report and compare say this one text. */
void tb_overlap_tp_sms_text(const tb_parallelism *p, char *dst, size_t cap);
/* Whether LoRA's adapters run unfused (training.lora.kernels, else
 * training.kernels): the one answer the step, the JSON and compare read. */
bool tb_lora_eager(const tb_training *t);
/* Whether selective checkpointing under t's policy and attention keeps
 * what no checkpointing keeps: the attention policy under flash attention
 * (the one rule for memory, the step, the search and the warning). */
bool tb_selective_is_none(const tb_training *t);
/* The warning for selective checkpointing that is none again, the same
 * wherever it is said; under FSDP it names the op policy, which is what
 * PyTorch's selective checkpointing (torchtitan's) is. */
const char *tb_selective_none_warning(const tb_inputs *in);
/* The watts a GPU may draw: hardware.power_limit where it is below the
 * card's TDP (a search may price the scenario's limit on another card,
 * whose TDP is lower), else the TDP; 0 when neither is known. */
double tb_hardware_gpu_watts(const tb_hardware *hw);
/* "megatron", "deepspeed", "fsdp"; "any" for TB_FW_ANY. */
const char *tb_framework_name(tb_framework f);
/* parallelism.dispatcher and training.attention_flops as scenarios write them */
const char *tb_dispatcher_name(tb_dispatcher d);
const char *tb_cuda_graph_name(tb_cuda_graph g);
const char *tb_moe_routing_name(tb_moe_routing r);
const char *tb_cp_comm_name(tb_cp_comm c);
const char *tb_attention_flops_name(tb_attention_flops a);
const char *tb_mlp_name(tb_mlp m);
const char *tb_norm_name(tb_norm n);
const char *tb_positions_name(tb_positions p);
const char *tb_dtype_name(tb_dtype d);

/* "bf16", "fp16", "fp32"; "default" for TB_GRAD_DEFAULT. */
const char *tb_grad_dtype_name(tb_grad_dtype g);

/* The gradient dtype a run uses: t->grad_dtype, or the precision's
 * default when that is TB_GRAD_DEFAULT; never DEFAULT.  Bytes: 2 or 4. */
tb_grad_dtype tb_grad_dtype_of(const tb_training *t);
double tb_grad_bytes(const tb_training *t);
/* The data x context ranks of a layout, each at least 1: the group the
 * data-parallel reduction spans. */
int64_t tb_parallelism_dp_cp(const tb_parallelism *p);
/* Whether run `in` keeps its trained linear layers' weights in fp8
 * (training.fp8_param_gather, read under fp8-mixed, under Megatron-LM and
 * a method that trains the base, as the loader holds it): memory, the
 * step and the layout search read this one answer. */
bool tb_fp8_params(const tb_inputs *in);

/* The scaling recipe of the attention core under training.fp8_attention
 * (Transformer Engine's DotProductAttention): TB_FP8_DELAYED,
 * TB_FP8_TENSORWISE (current scaling) or TB_FP8_MXFP8; TB_FP8_AUTO where
 * the attention runs in 16 bits (not asked, no fused attention, or
 * matmuls that do not run in fp8 or fp4: a 16-bit precision, or a card
 * without fp8, whose peak falls back to 16 bits).  `true` takes the linear layers' recipe: MXFP8
 * under MXFP8, delayed under delayed (and Megatron-LM's default), current
 * scaling under the others and fp4-mixed.  Whether the card has a timing
 * of the kernel is the step-time model's (perf_input.c); what the layer
 * keeps is this recipe's whatever the card (memory_act.c). */
tb_fp8_recipe tb_fp8_attention_recipe(const tb_inputs *in);
/* Whether FSDP gathers the trained linear layers' weights in fp8:
 * torchao's per-tensor float8 with its float8 all-gather (torchtitan's
 * enable_fsdp_float8_all_gather), the per-tensor recipe being FSDP's
 * default under fp8 matmuls.  The gathered weights are then 1 byte
 * apiece on the wire and, held or in the working set, in memory: the
 * step and the memory read this one answer. */
bool tb_fsdp_fp8_gather(const tb_inputs *in);
/* Whether FSDP keeps one copy of each trained weight, the fp32 one that
 * is the master copy (mixed precision: its MixedPrecisionPolicy casts a
 * shard to 16 bits only to gather it), so no 16-bit weight is sharded
 * beside it or saved in a checkpoint: the memory, the largest-model
 * figures and the checkpoint's size read this one answer. */
bool tb_fsdp_one_copy(const tb_inputs *in);

/* The dtype whose peak bounds the matmuls at precision p. */
tb_dtype tb_precision_compute_dtype(tb_precision p);
/* The dtype the linear layers multiply in at precision p on card g: p's
 * own, but fp4-mixed on a card without fp4 runs as fp8-mixed does, and in
 * 16 bits without fp8 either (a plan's other cards).  The step, FSDP's
 * fp8 gathers and the plan's notes read this one rule. */
tb_dtype tb_matmul_dtype(tb_precision p, const tb_gpu *g);

/* The dense peak card g multiplies `want` at, or the next format its
 * units run it in when it lists none (V100 runs bf16's matmuls in fp16,
 * an fp8 recipe on an A100 in bf16, fp4 on an H100 in fp8); *used (may be
 * NULL) the format whose peak it is, `want` when none; 0 when none. */
double tb_gpu_peak_flops(const tb_gpu *g, tb_dtype want, tb_dtype *used);

/* Whether p casts the linear layers' operands to a scaled format below
 * 16 bits (fp8-mixed, fp4-mixed), the weights and the rest kept wider. */
bool tb_precision_scaled(tb_precision p);

#endif
