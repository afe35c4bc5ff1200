/* tuning.h: how a run trains the model's weights: all of them (pre-training
 * and full fine-tuning), low-rank adapters beside frozen weights (LoRA,
 * QLoRA over 4-bit weights), none (a frozen model's forward passes:
 * evaluation, scoring), or all of them against a frozen reference copy
 * (DPO).  Pure counting from the model's shape: no I/O.
 *
 * LoRA (Hu et al. 2021, arXiv:2106.09685) adds to a linear layer of
 * in x out a pair A (r x in) and B (out x r), r (in + out) parameters and
 * no bias, on the modules its targets name; the count here is PEFT's
 * (`print_trainable_parameters`) to the parameter.  QLoRA (Dettmers et
 * al. 2023, arXiv:2305.14314) stores the frozen linear layers in 4-bit
 * NormalFloat, blocks of 64 with one absmax each, the absmax itself in
 * 8 bits over blocks of 256 with fp32 constants (double quantization). */
#ifndef TB_TUNING_H
#define TB_TUNING_H

#include <stdbool.h>
#include <stdint.h>

typedef enum {
	TB_METHOD_FULL,     /* every weight trained */
	TB_METHOD_LORA,     /* adapters trained, base weights frozen in 16 bits */
	TB_METHOD_QLORA,    /* adapters trained, base linear layers frozen in 4 bits */
	TB_METHOD_FROZEN,   /* nothing trained: forward passes only */
	TB_METHOD_DPO,      /* every weight trained, a frozen reference copy run forward */
	TB_METHOD_COUNT
} tb_method;

/* How frozen linear layers are stored (bitsandbytes; fp8: Transformer
 * Engine). */
typedef enum {
	TB_QUANT_NONE,      /* in the run's 16-bit dtype */
	TB_QUANT_NF4,       /* 4-bit NormalFloat, QLoRA's */
	TB_QUANT_FP4,       /* 4-bit float, same blocks */
	TB_QUANT_INT8,      /* LLM.int8(): one byte, one fp32 scale per output row */
	TB_QUANT_FP8,       /* te.fp8_model_init: E4M3, one scale a tensor; the fp8
	                     * GEMMs read it as stored (fp8-mixed only) */
	TB_QUANT_COUNT
} tb_quant;

/* The modules LoRA can target, by their names in PEFT's Llama-family
 * models; tb_lora_target_names lists the names and aliases accepted. */
enum {
	TB_LORA_Q = 1u << 0, TB_LORA_K = 1u << 1, TB_LORA_V = 1u << 2, TB_LORA_O = 1u << 3,
	TB_LORA_QKV = 1u << 4,      /* one fused q, k, v matrix (query_key_value, c_attn) */
	TB_LORA_GATE = 1u << 5, TB_LORA_UP = 1u << 6, TB_LORA_DOWN = 1u << 7,
	/* multi-head latent attention (DeepSeek-V2/V3) */
	TB_LORA_Q_A = 1u << 8, TB_LORA_Q_B = 1u << 9, TB_LORA_KV_A = 1u << 10,
	TB_LORA_KV_B = 1u << 11,
	TB_LORA_TARGETS = 12
};

/* training.lora.kernels: not written (as training.kernels), fused
 * (Transformer Engine's op fuser folds the scaling and the sums into the
 * GEMMs), or eager (PEFT's and NeMo's ParallelLinearAdapter: each its own
 * kernel). */
typedef enum { TB_LORA_KERNELS_AS_LAYER, TB_LORA_KERNELS_FUSED, TB_LORA_KERNELS_EAGER } tb_lora_kernels;

typedef struct tb_lora {
	int64_t rank;           /* r, >= 1 */
	double alpha;           /* scaling alpha / r: no effect on cost, reported */
	unsigned targets;       /* TB_LORA_* bits */
	bool all_linear;        /* targets: all-linear (PEFT: every linear layer but the head) */
	double dropout;         /* lora_dropout in [0, 1): a dropped copy of each target's input */
	tb_lora_kernels kernels;  /* training.lora.kernels; inputs.h tb_lora_eager reads it */
} tb_lora;

/* A target's canonical name ("q_proj"); NULL out of range. */
const char *tb_lora_target_name(int bit);
/* The bit for a name or alias ("q_proj", "out_proj", "fc1", "w1", ...);
 * 0 when unknown. */
unsigned tb_lora_target_parse(const char *name);
/* The canonical names and aliases, for an error message. */
extern const char tb_lora_target_names[];

const char *tb_method_name(tb_method m);
const char *tb_quant_name(tb_quant q);

/* Whether the method trains adapters (lora, qlora). */
bool tb_method_adapters(tb_method m);
/* Whether the base weights get gradients (full, dpo). */
bool tb_method_trains_base(tb_method m);

/* Bytes a frozen linear layer's parameter takes when stored as q, blocks
 * and scales included; in_features is the layer's input width (int8
 * keeps one fp32 scale per output row).  2 for TB_QUANT_NONE, 1 for
 * TB_QUANT_FP8 (its one scale a tensor is nothing beside the tensor). */
double tb_quant_bytes_per_param(tb_quant q, bool double_quant, double in_features);

/* One linear module LoRA can wrap. */
typedef struct tb_lora_module {
	unsigned bit;
	double in, out;         /* in_features, out_features */
	bool row_parallel;      /* split by its input under tensor parallelism (o, down) */
	bool expert;            /* one routed expert's (count it E times a MoE layer) */
	bool shared;            /* a MoE layer's shared expert */
} tb_lora_module;

#define TB_LORA_MODULES_MAX 16

/* What the adapters add, counted from the model's shape. */
typedef struct tb_lora_count {
	double total;           /* adapter parameters in the model */
	double active;          /* adapter parameters a token runs through */
	double dense;           /* of total: all but the routed experts' */
	double expert;          /* of total: the routed experts' */
	/* the modules wrapped in a dense-MLP layer and in an expert layer */
	int n_dense, n_moe;
	tb_lora_module dense_mods[TB_LORA_MODULES_MAX];
	tb_lora_module moe_mods[TB_LORA_MODULES_MAX];
	/* sum over wrapped modules of in_features per token (what lora
	 * dropout copies), per layer on average */
	double dropout_elems_per_layer;
	double rank_elems_per_layer;    /* r per wrapped module a token runs through, per layer */
} tb_lora_count;

struct tb_model;

/* Counts the adapters of `lora` on model m.  False when a target names a
 * module the model does not have; *why (static) then says which and what
 * the model has instead. */
bool tb_lora_count_compute(const struct tb_model *m, const tb_lora *lora, tb_lora_count *out,
                           const char **why);

#endif
