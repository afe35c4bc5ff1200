/* perf_fixtures.h: the scenarios the step-time model's tests share (test_perf*.c):
 * GPT-style shapes, GPT-3 175B inside a budget, DeepSeek-V3 and Llama 3.1 8B
 * as their papers and benchmarks ran them. */
#ifndef TB_TESTS_PERF_FIXTURES_H
#define TB_TESTS_PERF_FIXTURES_H

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "trainbudget/budget.h"
#include "trainbudget/gpus.h"
#include "trainbudget/perf.h"
#include "trainbudget/presets.h"

/* test_perf.c: the step-time model (perf.c).
 *
 * The monotonic facts; the selective policies; and published runs held
 * out of the fit (docs/validation.md), each with its tolerance.  The
 * building blocks (collectives, bubble, clocks) are test_perf_blocks.c's. */
static inline double rel(double got, double want)
{
	return fabs(got - want) / fabs(want);
}

static inline void S_gpt(tb_perf_input *in, const char *gpu, int64_t h, int64_t L, int64_t heads,
                  int64_t seq, int64_t gbs, int64_t mbs, int64_t t, int64_t p, int64_t v,
                  int64_t d, tb_checkpointing ck, bool sp)
{
	tb_inputs x;
	memset(&x, 0, sizeof x);
	x.model.has_shape = true;
	x.model.layers = L;
	x.model.hidden = h;
	x.model.heads = heads;
	x.model.kv_heads = heads;
	x.model.head_dim = h / heads;
	x.model.ffn_hidden = 4 * h;
	x.model.vocab = 51200;
	x.model.mlp = TB_MLP_PLAIN;
	x.training.seq_len = seq;
	x.training.global_batch = gbs;
	x.training.micro_batch = mbs;
	x.training.precision = TB_PREC_FP16_MIXED;
	x.training.optimizer = TB_OPT_ADAMW;
	x.training.checkpointing = ck;
	x.training.dropout = true;
	x.parallelism.tensor = t;
	x.parallelism.pipeline = p;
	x.parallelism.virtual_pipeline = v;
	x.parallelism.data = d;
	x.parallelism.sequence_parallel = sp;
	x.hardware.gpu = *tb_gpus_find(gpu);
	x.hardware.count = t * p * d;
	tb_perf_input_from(&x, in);
	in->overlap_dp = false;   /* Megatron-LM 2021/2022 */
}

static inline void S_budget_inputs(tb_inputs *x)
{
	memset(x, 0, sizeof *x);
	x->model.has_shape = true;
	x->model.layers = 96;
	x->model.hidden = 12288;
	x->model.heads = 96;
	x->model.kv_heads = 96;
	x->model.head_dim = 128;
	x->model.ffn_hidden = 4 * 12288;
	x->model.vocab = 51200;
	x->model.mlp = TB_MLP_PLAIN;
	x->training.tokens = 300e9;
	x->training.seq_len = 2048;
	x->training.global_batch = 1536;
	x->training.micro_batch = 1;
	x->training.precision = TB_PREC_BF16_MIXED;
	x->training.optimizer = TB_OPT_ADAMW;
	x->training.checkpointing = TB_CKPT_SELECTIVE;
	x->parallelism.tensor = 8;
	x->parallelism.pipeline = 8;
	x->parallelism.expert = 1;
	x->parallelism.data = 16;
	x->parallelism.sequence_parallel = true;
	x->hardware.gpu = *tb_gpus_find("h100-sxm");
	x->hardware.count = 1024;
	x->hardware.mfu[0] = 0.25;
	x->hardware.mfu[1] = 0.35;
	x->hardware.mfu[2] = 0.45;
	x->hardware.mfu_predicted = true;
	x->hardware.price_per_gpu_hour = 2;
	x->hardware.pue = 1;
	strcpy(x->hardware.currency, "USD");
}

/* A mixture of the presets on 8-GPU H100 nodes, 4K sequences, the layout
 * and training varied by the caller. */
static inline void S_moe(tb_inputs *x, const char *preset)
{
	const tb_preset *pr = tb_presets_find(preset);
	cr_assert_not_null(pr, "%s", preset);
	memset(x, 0, sizeof *x);
	x->model = pr->model;
	x->training.tokens = 1e12;
	x->training.seq_len = 4096;
	x->training.global_batch = 4096;
	x->training.micro_batch = 1;
	x->training.precision = TB_PREC_BF16_MIXED;
	x->training.optimizer = TB_OPT_ADAMW;
	x->training.flash_attention = true;
	x->parallelism.pipeline = 4;
	x->hardware.gpu = *tb_gpus_find("h100-sxm");
	x->hardware.count = 1024;
}

/* The step of scenario x, which must price: its perf input into *in. */
static inline void S_predict(const tb_inputs *x, tb_perf_input *in, tb_perf_result *r)
{
	tb_perf_input_from(x, in);
	tb_perf_predict(in, NULL, r);
	cr_assert(r->ok, "%s", r->why);
}

/* DeepSeek-V3 as DeepSeek trained it (arXiv:2412.19437 Sec. 3.2): the
 * preset's shape, 4K sequences, PP 16, EP 64 over 8 nodes, ZeRO-1, fp8. */
static inline void S_deepseek_v3(tb_inputs *x)
{
	S_moe(x, "deepseek-v3");
	x->training.tokens = 14.8e12;
	x->training.global_batch = 15360;
	x->training.precision = TB_PREC_FP8_MIXED;
	x->training.checkpointing = TB_CKPT_SELECTIVE;
	x->training.attention_flops = TB_ATTN_FLOPS_CAUSAL;
	x->parallelism.tensor = 1;
	x->parallelism.pipeline = 16;
	x->parallelism.expert = 64;
	x->parallelism.data = 128;
	x->parallelism.zero = 1;
	x->hardware.gpu = *tb_gpus_find("h800");
	x->hardware.count = 2048;
}

/* Llama 3.1 8B as torchtitan's 2024-12 benchmark ran it (Table 1: FSDP on 8
 * H100 96GB HBM2e at the default 500 W, 2.4 TB/s, local batch 2 of 8,192,
 * selective per-op checkpointing, bf16).  */
static inline void S_torchtitan_8b(tb_inputs *x, tb_selective policy, double limit_w)
{
	memset(x, 0, sizeof *x);
	x->model.has_shape = true;
	x->model.layers = 32;
	x->model.hidden = 4096;
	x->model.heads = 32;
	x->model.kv_heads = 8;
	x->model.head_dim = 128;
	x->model.ffn_hidden = 14336;
	x->model.vocab = 128256;
	x->model.mlp = TB_MLP_GATED;
	x->training.seq_len = 8192;
	x->training.global_batch = 16;
	x->training.micro_batch = 2;
	x->training.precision = TB_PREC_BF16_MIXED;
	x->training.optimizer = TB_OPT_ADAMW;
	x->training.checkpointing = TB_CKPT_SELECTIVE;
	x->training.selective_policy = policy;
	x->training.flash_attention = true;
	x->training.attention_flops = TB_ATTN_FLOPS_CAUSAL;
	x->parallelism.tensor = x->parallelism.pipeline = x->parallelism.virtual_pipeline = 1;
	x->parallelism.context = x->parallelism.expert = 1;
	x->parallelism.data = 8;
	x->parallelism.zero = 3;
	x->parallelism.framework = TB_FW_FSDP;
	x->hardware.gpu = *tb_gpus_find("h100-sxm");
	x->hardware.gpu.bandwidth_bytes_per_s = 2.4e12;
	x->hardware.power_limit_w = limit_w;
	x->hardware.count = 8;
}

/* A layer as set in *x on `data` tensor groups of 8 GPUs with sequence
 * parallelism and the tensor-parallel overlap, micro-batch `mbs` and
 * global batch `gbs`, timed into *L. */
static inline void S_tp_overlap(tb_inputs *x, int64_t data, int64_t mbs, int64_t gbs,
                                tb_perf_input *in, tb_perf_layer *L)
{
	x->training.global_batch = gbs;
	x->training.micro_batch = mbs;
	x->parallelism.tensor = 8;
	x->parallelism.data = data;
	x->parallelism.sequence_parallel = true;
	x->parallelism.overlap_tp = true;
	x->hardware.count = 8 * data;
	tb_perf_input_from(x, in);
	cr_assert(tb_perf_layer_time(in, NULL, L, NULL));
}

#endif
