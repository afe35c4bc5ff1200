/* test_perf_kernels.c: what a layer moves and casts beside its GEMMs
 * (perf_layer.c, the half of its tests about the memory-bound kernels):
 * fp8's casts by recipe and framework, the unfused gradient accumulation,
 * LoRA's dropout, rotary positions, PyTorch eager's kernels (with LoRA's,
 * and against torchtitan's published gap), fp8's FSDP gather, the head in
 * 16 bits, fp4, and Blackwell's backward GEMMs.  The shapes, the parallel
 * groups and the collectives are test_perf_layer.c's. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "trainbudget/budget.h"
#include "trainbudget/gpus.h"
#include "trainbudget/perf.h"
#include "trainbudget/presets.h"
#include "calc.h"
#include "perf_fixtures.h"

/* Llama 3 8B in one stage with rank-16 LoRA adapters on q_proj and o_proj
 * (a column- and a row-parallel module), on `tensor` ranks. */
static void S_lora_q_o(tb_inputs *x, int64_t tensor)
{
	S_moe(x, "llama-3-8b");
	x->parallelism.pipeline = 1;
	x->parallelism.tensor = tensor;
	x->training.method = TB_METHOD_LORA;
	x->training.lora.rank = 16;
	x->training.lora.targets = TB_LORA_Q | TB_LORA_O;
}

/* fp8's casts by recipe and framework, against the bytes each kernel of
 * torchao's roofline moves (torchao/testing/training/roofline_utils.py,
 * its fusion modelling: the first read of an activation fused into the op
 * before) and Transformer Engine's one cast_transpose pass.  Llama 3 8B at
 * 8,192 tokens, one layer worked by hand: its linear layers read
 * 8192 x (4096 + 4096 + 4096 + 14336) input elements forward (QKV, output,
 * gate and up, down), 8192 x (6144 + 4096 + 28672 + 4096) output-gradient
 * elements backward, and hold 4096 x (6144 + 4096 + 28672) + 14336 x 4096 =
 * 218,103,808 weights.  Each recipe's forward and backward memory-bound
 * time less delayed scaling's (2 + 1 + 1 B an element, weights cached) is
 * its bytes over the bandwidth its casts reach less delayed scaling's over
 * Transformer Engine's (TB_PERF_CAST_BW_FRACTION).  The GEMMs keep their
 * time but under Transformer Engine's block scaling on this Hopper card:
 * Transformer Engine's GEMM profiling guide times its 5B layer on an H200
 * NVL at 20.285 ms with current scaling and 22.882 with block scaling in
 * autocast, 16.785 for current scaling's GEMMs alone; taking out each
 * recipe's quantization (current's 3.500 ms, block's at 4.0625 of its 6 B
 * an element) leaves the block GEMMs (22.882 - 3.500 x 4.0625 / 6) /
 * 16.785 times as long.  DeepSeek's own kernels and torchao's keep theirs. */
Test(perf, fp8_casts_by_recipe)
{
	const double block = (22.882 - (20.285 - 16.785) * (2 + 2 * (1 + 4.0 / 128)) / (2 + (2 + 2))) / 16.785;
	static const struct {
		tb_framework fw;
		tb_fp8_recipe recipe, priced;
		double cast, wf, wb;    /* B an element; B a weight, forward and backward */
		bool gather, te_blocks; /* Transformer Engine's block-scaled GEMMs */
	} cases[] = {
		{ TB_FW_MEGATRON, TB_FP8_AUTO, TB_FP8_DELAYED, 4, 0, 0, false, false },
		{ TB_FW_MEGATRON, TB_FP8_TENSORWISE, TB_FP8_TENSORWISE, 2 + 4, 0, 0, false, false },
		{ TB_FW_MEGATRON, TB_FP8_MXFP8, TB_FP8_MXFP8, 2 + 2 * (1 + 1.0 / 32), 0, 0, false, false },
		{ TB_FW_DEEPSPEED, TB_FP8_BLOCKWISE, TB_FP8_BLOCKWISE, 2 + 2 * (1 + 4.0 / 128), 0, 0, false, true },
		{ TB_FW_ANY, TB_FP8_DEEPSEEK, TB_FP8_DEEPSEEK, 2 + 2 * (1 + 4.0 / 128), 0, 0, false, false },
		{ TB_FW_FSDP, TB_FP8_DEEPSEEK, TB_FP8_DEEPSEEK, 2 + 2 * (1 + 4.0 / 128), 0, 0, false, false },
		{ TB_FW_ANY, TB_FP8_AUTO, TB_FP8_DELAYED, 4, 0, 0, false, false },
		{ TB_FW_FSDP, TB_FP8_AUTO, TB_FP8_TENSORWISE, 0 + 2 + 1 + 1, 0, 0, true, false },
		{ TB_FW_FSDP, TB_FP8_DELAYED, TB_FP8_DELAYED, 4, 0, 0, false, false },
		{ TB_FW_FSDP, TB_FP8_ROWWISE, TB_FP8_ROWWISE, (0 + 1 + 2) + (2 + 1), 2 + 1, 2 * 2 + (2 + 1), false, false },
		{ TB_FW_ANY, TB_FP8_ROWWISE, TB_FP8_ROWWISE, (0 + 1 + 2) + (2 + 1), 2 + 1, 2 * 2 + (2 + 1), false, false },
		{ TB_FW_FSDP, TB_FP8_MXFP8, TB_FP8_MXFP8, (0 + 1 + 1.0 / 32) + (2 + 1 + 1.0 / 32),
		  2 + 1 + 1.0 / 32, 2 + 1 + 1.0 / 32, false, false },
		{ TB_FW_FSDP, TB_FP8_BLOCKWISE, TB_FP8_BLOCKWISE, (0 + 1 + 4.0 / 128) + (2 + 1 + 4.0 / 128),
		  2 + 1 + 4.0 / 128, 2 + 1 + 4.0 / 128, false, false },
	};
	const double in_elems = 8192.0 * (4096 + 4096 + 4096 + 14336);
	const double out_elems = 8192.0 * (6144 + 4096 + 28672 + 4096);
	const double weights = 218103808;
	cr_expect_eq(4096.0 * (6144 + 4096 + 28672) + 14336.0 * 4096, weights);
	tb_perf_layer base[4];
	bool have[4] = { false, false, false, false };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		tb_inputs x;
		S_moe(&x, "llama-3-8b");
		x.training.seq_len = 8192;
		x.training.precision = TB_PREC_FP8_MIXED;
		x.parallelism.pipeline = 1;
		x.parallelism.framework = cases[i].fw;
		x.training.fp8_recipe = TB_FP8_DELAYED;
		tb_perf_input in;
		tb_perf_input_from(&x, &in);
		if (!have[cases[i].fw]) {
			cr_assert(tb_perf_layer_time(&in, NULL, &base[cases[i].fw], NULL));
			have[cases[i].fw] = true;
		}
		x.training.fp8_recipe = cases[i].recipe;
		tb_perf_input_from(&x, &in);
		cr_expect_eq(in.fp8_recipe, cases[i].priced, "case %zu", i);
		cr_expect_eq(in.fp8_gather, cases[i].gather, "case %zu", i);
		tb_perf_layer L;
		cr_assert(tb_perf_layer_time(&in, NULL, &L, NULL), "case %zu", i);
		const tb_perf_layer *B = &base[cases[i].fw];
		/* Transformer Engine's casts (the base's delayed scaling among them)
		 * move their bytes at its quantization's measured bandwidth,
		 * torchao's (a gather in fp8, or weights cast every micro-batch) at
		 * the memory-bound kernels' */
		bool te = cases[i].wf == 0 && !cases[i].gather;
		cr_expect_eq(in.te_casts, te, "case %zu", i);
		double bw_te = in.hw.hbm_bytes_per_s * TB_PERF_CAST_BW_FRACTION;
		double bw = te ? bw_te : in.hw.hbm_bytes_per_s * tb_perf_mem_fraction(&in.hw, NULL);
		double want_f = (in_elems * cases[i].cast + weights * cases[i].wf) / bw - in_elems * 4 / bw_te;
		double want_b = (out_elems * cases[i].cast + weights * cases[i].wb) / bw - out_elems * 4 / bw_te;
		cr_expect(fabs(L.mem_f - B->mem_f - want_f) <= 1e-12 * B->mem_f, "case %zu: forward %g s more, by hand %g",
		          i, L.mem_f - B->mem_f, want_f);
		cr_expect(fabs(L.mem_b - B->mem_b - want_b) <= 1e-12 * B->mem_b, "case %zu: backward %g s more, by hand %g",
		          i, L.mem_b - B->mem_b, want_b);
		if (cases[i].te_blocks)
			cr_expect(fabs(L.mm_f / B->mm_f - block) < 1e-9 * block, "case %zu: block GEMMs %g times, by hand %g",
			          i, L.mm_f / B->mm_f, block);
		else
			cr_expect_eq(L.mm_f, B->mm_f, "case %zu: the GEMMs are the recipe's to leave alone", i);
	}
	/* outside fp8-mixed no recipe casts anything */
	tb_inputs x;
	S_moe(&x, "llama-3-8b");
	x.training.fp8_recipe = TB_FP8_ROWWISE;
	tb_perf_input in;
	tb_perf_input_from(&x, &in);
	cr_expect_eq(in.fp8_cast_bytes, 0);
	cr_expect_eq(in.fp8_weight_cast_f_bytes + in.fp8_weight_cast_b_bytes, 0);
	cr_expect(!in.fp8_gather);
}

/* Megatron-LM without --gradient-accumulation-fusion: its DDP hook runs
 * param.main_grad.add_(param.grad) after every micro-batch's backward
 * (megatron/model/distributed.py), reading the bf16 gradient (2 B) and
 * reading and writing the fp32 main gradient (4 + 4 B): 10 B a weight.
 * Llama 3 8B under bf16-mixed: a layer's 218,103,808 linear weights in
 * its backward, and the embedding's and the head's 128,256 x 4,096 each on
 * their stages; nothing where the weights are frozen (LoRA). */
Test(perf, grad_accumulation_unfused_adds_the_main_gradient)
{
	tb_perf_layer L[2], lora[2];
	tb_perf_input in;
	for (int i = 0; i < 2; i++) {
		tb_inputs x;
		S_moe(&x, "llama-3-8b");
		x.parallelism.pipeline = 1;
		x.parallelism.framework = TB_FW_MEGATRON;
		x.training.no_grad_accum_fusion = i == 1;
		tb_perf_input_from(&x, &in);
		cr_assert(tb_perf_layer_time(&in, NULL, &L[i], NULL));
		x.training.method = TB_METHOD_LORA;
		x.training.lora.rank = 16;
		tb_perf_input li;
		tb_perf_input_from(&x, &li);
		cr_assert(tb_perf_layer_time(&li, NULL, &lora[i], NULL));
	}
	double bw = in.hw.hbm_bytes_per_s * tb_perf_mem_fraction(&in.hw, NULL);
	double layer = 218103808.0 * (2 + 4 + 4) / bw, table = 128256.0 * 4096 * (2 + 4 + 4) / bw;
	cr_expect(fabs(L[1].mem_b - L[0].mem_b - layer) <= 1e-12 * L[0].mem_b, "%g s more, by hand %g",
	          L[1].mem_b - L[0].mem_b, layer);
	cr_expect_eq(L[1].mem_f, L[0].mem_f);
	cr_expect(fabs(L[1].embed_s - L[0].embed_s - table) <= 1e-12 * table);
	cr_expect(fabs(L[1].logits_s - L[0].logits_s - table) <= 1e-12 * table);
	cr_expect_eq(lora[1].mem_b, lora[0].mem_b);
	cr_expect_eq(lora[1].logits_s, lora[0].logits_s);
}

/* What `on` moves beyond `off` through a layer's memory-bound kernels,
 * checked against f and b bytes a token by hand, forward and backward, at
 * 4,096 tokens a micro-batch and the fitted fraction of HBM; the two
 * layers in L[0] and L[1], `on`'s step input in *in for further checks. */
static void S_more_bytes(const tb_inputs *off, const tb_inputs *on, double f, double b, const char *what,
                         tb_perf_layer L[2], tb_perf_input *in)
{
	const tb_inputs *x[2] = { off, on };
	for (int k = 0; k < 2; k++) {
		tb_perf_input_from(x[k], in);
		cr_assert(tb_perf_layer_time(in, NULL, &L[k], NULL), "%s", what);
	}
	double bw = in->hw.hbm_bytes_per_s * tb_perf_mem_fraction(&in->hw, NULL);
	cr_expect(fabs(L[1].mem_f - L[0].mem_f - 4096 * f / bw) <= 1e-12 * L[0].mem_f,
	          "%s: %g B a token more forward, by hand %g", what, (L[1].mem_f - L[0].mem_f) * bw / 4096, f);
	cr_expect(fabs(L[1].mem_b - L[0].mem_b - 4096 * b / bw) <= 1e-12 * L[0].mem_b,
	          "%s: %g B a token more backward, by hand %g", what, (L[1].mem_b - L[0].mem_b) * bw / 4096, b);
}

/* LoRA's dropout drops each adapter's own copy of its module's input,
 * forward reading the input and writing the copy and a one-byte mask, and
 * backward the same over the gradient: 2e + 1 = 5 B an input element each
 * way in bf16.  Llama 3 8B with adapters on q_proj (column-parallel, its
 * whole 4,096-wide input on every tensor rank) and o_proj (row-parallel,
 * 4,096 / t) at 4,096 tokens: 8,192 elements a token on one rank, 6,144 on
 * each of two; nothing without dropout, nothing in the GEMMs. */
Test(perf, lora_dropout_by_hand)
{
	static const struct {
		int64_t tensor;
		double elems;           /* adapter inputs a token, this rank */
	} cases[] = { { 1, 4096 + 4096 }, { 2, 4096 + 2048 } };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		tb_inputs x[2];
		for (int drop = 0; drop < 2; drop++) {
			S_lora_q_o(&x[drop], cases[i].tensor);
			x[drop].training.lora.dropout = drop ? 0.1 : 0;
		}
		tb_perf_layer L[2];
		tb_perf_input in;
		double bytes = cases[i].elems * (2 * 2 + 1);
		S_more_bytes(&x[0], &x[1], bytes, bytes, "lora dropout", L, &in);
		cr_expect(in.lora_dropout, "case %zu", i);
		cr_expect_eq(L[1].mm_f, L[0].mm_f, "case %zu", i);
	}
}

/* Rotary positions rotate each layer's queries and keys, read and written
 * forward (2 + 2 B an element in bf16) and their gradients backward.
 * Llama 3 8B at 4,096 tokens: 32 query heads and 8 key heads of 128,
 * 5,120 elements a token (2,560 on each of two tensor ranks); DeepSeek-V3
 * under MLA only the rope part, 128 query heads x 64 and the one shared rope
 * key of 64, 8,256 a token.  Learned positions rotate nothing. */
Test(perf, rope_rotates_queries_and_keys)
{
	static const struct {
		const char *preset;
		int64_t tensor;
		double elems;           /* rotated a token, this rank */
	} cases[] = {
		{ "llama-3-8b", 1, 32 * 128 + 8 * 128 },
		{ "llama-3-8b", 2, (32 * 128 + 8 * 128) / 2.0 },
		{ "deepseek-v3", 1, 128 * 64 + 64 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		tb_inputs x[2];
		for (int rope = 0; rope < 2; rope++) {
			S_moe(&x[rope], cases[i].preset);
			x[rope].parallelism.pipeline = 1;
			x[rope].parallelism.tensor = cases[i].tensor;
			x[rope].model.positions = rope ? TB_POS_ROPE : TB_POS_LEARNED;
		}
		tb_perf_layer L[2];
		tb_perf_input in;
		S_more_bytes(&x[0], &x[1], cases[i].elems * (2 + 2), cases[i].elems * (2 + 2), cases[i].preset,
		             L, &in);
		cr_expect(in.rope, "case %zu", i);
	}
}

/* PyTorch eager (training.kernels: eager) against the fused kernels, by
 * hand for Llama 3 8B at 4,096 tokens on one rank (h 4,096, SwiGLU 14,336,
 * 32 query and 8 key heads of 128; bf16, e = 2 B): a token moves more
 * forward by the two RMSNorms, 2 x 4,096 x (28 + 2e) = 262,144 B; the
 * SiLU's separate product, 14,336 x 2e = 57,344; complex RoPE, 16 B more
 * on each of 5,120 rotated elements, 81,920; repeat_kv's copy, 2e x
 * (1,024 + 4,096) = 20,480: 421,888 B.  Backward twice the norms' and the
 * activation's, once the rotation's and the copy's: 741,376 B.  Under MLA
 * nothing is repeated; a LayerNorm costs the same either way. */
Test(perf, eager_kernels_by_hand)
{
	static const struct {
		bool layernorm;
		double f, b;           /* bytes a token more, forward and backward */
	} cases[] = {
		{ false, 421888, 741376 },
		/* the norms' 262,144 forward and 524,288 backward gone */
		{ true, 421888 - 262144, 741376 - 524288 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		tb_inputs x[2];
		for (int eager = 0; eager < 2; eager++) {
			S_moe(&x[eager], "llama-3-8b");
			x[eager].parallelism.pipeline = 1;
			x[eager].model.norm = cases[i].layernorm ? TB_NORM_LAYERNORM : TB_NORM_RMSNORM;
			x[eager].training.eager_kernels = eager == 1;
		}
		tb_perf_layer L[2];
		tb_perf_input in;
		S_more_bytes(&x[0], &x[1], cases[i].f, cases[i].b, cases[i].layernorm ? "layernorm" : "rmsnorm",
		             L, &in);
	}
}

/* LoRA under eager (PEFT's base(x) + B(A(x)) x scaling) adds, for Llama 3
 * 8B with adapters on q_proj and o_proj at 4,096 tokens on one rank (8,192
 * adapter outputs and 8,192 inputs a token, e = 2 B): forward the
 * scaling's product and the sum into the base output, 8,192 x 5e = 81,920
 * B a token; backward the product again, 8,192 x 2e = 32,768, and the
 * input gradients' sum, 8,192 x 3e = 49,152: 81,920.  On top of the base
 * layer's eager bytes (eager_kernels_by_hand), and nothing fused. */
Test(perf, eager_lora_by_hand)
{
	tb_inputs x[2];
	for (int eager = 0; eager < 2; eager++) {
		S_lora_q_o(&x[eager], 1);
		x[eager].training.eager_kernels = eager == 1;
	}
	tb_perf_layer L[2];
	tb_perf_input in;
	S_more_bytes(&x[0], &x[1], 421888 + 81920, 741376 + 81920, "eager lora", L, &in);
}

/* The adapters alone unfused (training.lora.kernels: eager) under the
 * fused layer, as NeMo's ParallelLinearAdapter runs them beside
 * Transformer Engine's layer: the same 81,920 B a token each way and
 * nothing of the base layer's eager bytes; fused adapters under the eager
 * layer lose just those bytes; unwritten, they follow training.kernels. */
Test(perf, unfused_adapters_alone)
{
	tb_inputs x[2];
	for (int eager = 0; eager < 2; eager++) {
		S_lora_q_o(&x[eager], 1);
		x[eager].training.lora.kernels = eager ? TB_LORA_KERNELS_EAGER : TB_LORA_KERNELS_FUSED;
	}
	tb_perf_layer L[2];
	tb_perf_input in;
	S_more_bytes(&x[0], &x[1], 81920, 81920, "unfused adapters", L, &in);
	cr_expect(in.lora_eager && !in.eager_kernels);
	for (int fused = 0; fused < 2; fused++) {
		S_lora_q_o(&x[fused], 1);
		x[fused].training.eager_kernels = true;
		x[fused].training.lora.kernels = fused ? TB_LORA_KERNELS_FUSED : TB_LORA_KERNELS_AS_LAYER;
	}
	S_more_bytes(&x[1], &x[0], 81920, 81920, "fused adapters in an eager layer", L, &in);
	cr_expect(tb_lora_eager(&x[0].training) && !tb_lora_eager(&x[1].training));
}

/* The published gap: torchtitan's 2024-12 benchmark (Table 1) trains
 * Llama 3.1 8B with FSDP on 8 of Meta's H100s (500 W, HBM2e 2.4 TB/s),
 * local batch 2 of 8,192 tokens, per-op selective checkpointing, at 5,762
 * tokens/s per GPU eager and 6,667 compiled: 2.8435 and 2.4575 s a step,
 * 0.386 s apart.  The eager kernels alone must give that gap within 15%:
 * it is memory traffic, which no fitted constant scales. */
Test(perf, eager_gap_against_torchtitan)
{
	tb_perf_result r[2];
	for (int eager = 0; eager < 2; eager++) {
		tb_inputs x;
		S_torchtitan_8b(&x, TB_SELECTIVE_OP, 500);
		x.training.eager_kernels = eager == 1;
		tb_perf_input in;
		S_predict(&x, &in, &r[eager]);
	}
	double gap = r[1].step_s - r[0].step_s, published = 16384 / 5762.0 - 16384 / 6667.0;
	cr_expect(fabs(gap / published - 1) < 0.15, "eager %g s, fused %g s: gap %g s, published %g s",
	          r[1].step_s, r[0].step_s, gap, published);
}

/* torchao's per-tensor recipe gathers FSDP's linear weights in fp8 (its
 * float8 all-gather), per row in bf16; the embedding and the head are no
 * Float8Linear and go in bf16 either way.  ZeRO-3 moves each weight twice
 * (forward and backward gathers) and 4 B a gradient (fp32 reduce-scatter):
 * per tensor 2 x (1 B a linear weight, 2 B an embedding or head weight) +
 * 4, per row 2 x 2 + 4 = 8 B a parameter.  Llama 3 8B on 8 GPUs, FSDP
 * FULL_SHARD: 8,030,261,248 parameters, 2 x 128,256 x 4,096 of them the
 * embedding and the head, so 3/4 + 1,050,673,152 / (4 x 8,030,261,248). */
Test(perf, fp8_gather_under_fsdp)
{
	tb_perf_result r[2];
	for (int i = 0; i < 2; i++) {
		tb_inputs x;
		S_torchtitan_8b(&x, TB_SELECTIVE_OP, 0);
		x.training.precision = TB_PREC_FP8_MIXED;
		x.training.fp8_recipe = i ? TB_FP8_ROWWISE : TB_FP8_TENSORWISE;
		tb_perf_input in;
		S_predict(&x, &in, &r[i]);
	}
	double ratio = 0.75 + 1050673152.0 / (4 * 8030261248.0);
	cr_expect(fabs(r[0].dp_bytes / r[1].dp_bytes - ratio) < 1e-6, "%g / %g against %g",
	          r[0].dp_bytes, r[1].dp_bytes, ratio);
}

/* torchao converts nn.Linear alone to Float8Linear: a mixture's grouped
 * experts, like the embedding and the head, are gathered in bf16 under its
 * per-tensor recipe too, so per tensor and per row differ by the attention's
 * and the routers' weights alone, once in the forward's gather and once in
 * the backward's: 2 x 1 B each.  Mixtral 8x7B on 64 GPUs, FSDP FULL_SHARD,
 * no pipeline; the step model's gathers leave out the final norm's 4,096
 * weights. */
Test(perf, fp8_gather_leaves_experts_in_16_bits)
{
	tb_perf_result r[2];
	tb_inputs x;
	for (int i = 0; i < 2; i++) {
		S_moe(&x, "mixtral-8x7b");
		x.parallelism.pipeline = 1;
		x.parallelism.framework = TB_FW_FSDP;
		x.parallelism.zero = 3;
		x.hardware.count = 64;
		x.training.global_batch = 64;
		x.training.precision = TB_PREC_FP8_MIXED;
		x.training.fp8_recipe = i ? TB_FP8_ROWWISE : TB_FP8_TENSORWISE;
		tb_perf_input in;
		S_predict(&x, &in, &r[i]);
		cr_assert_eq(in.fp8_gather, i == 0);
	}
	tb_params pp;
	tb_params_values(&x, &pp);
	double fp8 = pp.total - pp.experts - pp.embedding - pp.output - (double)x.model.hidden;
	cr_assert(pp.experts > 0.9 * pp.total, "%g of %g", pp.experts, pp.total);
	cr_expect(rel(r[1].dp_bytes - r[0].dp_bytes, 2 * fp8) < 1e-9, "%.0f against %.0f",
	          r[1].dp_bytes - r[0].dp_bytes, 2 * fp8);
}

/* fp8 training leaves the vocabulary head in 16 bits (Megatron-LM's
 * ColumnParallelLinear, torchtitan's filter of "output", DeepSeek-V3 Sec.
 * 3.3.1): its three GEMMs of 8,192 x 128,256 x 4,096 at the card's 16-bit
 * peak and ceiling, 2-byte operands, by hand; the layers' matmuls in fp8. */
Test(perf, fp8_keeps_the_head_in_16_bits)
{
	tb_inputs x;
	S_moe(&x, "llama-3.1-8b");
	x.parallelism.pipeline = 1;
	x.hardware.count = 8;
	x.training.global_batch = 8;
	x.training.seq_len = 8192;
	x.training.precision = TB_PREC_FP8_MIXED;
	tb_perf_input in;
	tb_perf_input_from(&x, &in);
	tb_perf_layer L8;
	cr_assert(tb_perf_layer_time(&in, NULL, &L8, NULL));
	cr_assert_eq(in.matmul_bytes, 1);
	const tb_gpu_node *node = tb_gpus_node("h100-sxm");
	tb_perf_hw h16 = in.hw;
	h16.peak_flops = 989.4e12;
	h16.matmul_ceiling = node->matmul_ceiling;
	double m = 8192, n = 128256, k = 4096;
	double gemm = tb_perf_matmul_s(m, n, k, 2, &h16, NULL);
	double d0 = tb_perf_fitted.matmul_dim_half;
	double phi = 1 / (1 + d0 / m + d0 / n + d0 / k);
	cr_expect(rel(gemm, 2 * m * n * k / (989.4e12 * 0.803 * phi)) < 2e-3, "%g", gemm);
	double ce = 16 * m * n / (in.hw.hbm_bytes_per_s * tb_perf_mem_fraction(&in.hw, NULL));
	cr_expect(rel(L8.logits_s, 3 * gemm + ce) < 1e-9, "%g vs %g", L8.logits_s, 3 * gemm + ce);
	/* the layer's own matmuls stay at the fp8 rate: half the 16-bit
	 * run's or less */
	x.training.precision = TB_PREC_BF16_MIXED;
	tb_perf_input_from(&x, &in);
	tb_perf_layer L16;
	cr_assert(tb_perf_layer_time(&in, NULL, &L16, NULL));
	cr_expect(L8.mm_f < 0.6 * L16.mm_f, "%g vs %g", L8.mm_f, L16.mm_f);
	cr_expect(rel(L8.logits_s, L16.logits_s) < 1e-12, "the head alike: %g vs %g",
	          L8.logits_s, L16.logits_s);
}

/* training.fp8_head (Megatron-LM's --fp8-output-proj, MXFP8 only): the
 * head's three GEMMs at the fp8 rate the layers' run at, the backward's
 * two at the card's backward ratio, and MXFP8's casts under Transformer
 * Engine (2 B read, 1 B and a scale per 32 written in both orientations:
 * 4.0625 B an element) of its input forward (8,192 x 4,096) and of the
 * logits' gradient backward (8,192 x 128,256), at the casts' share of the
 * bandwidth; the cross-entropy unchanged, by hand on a B200.  Its weight
 * is cast once a step, with the layers', and kept as an fp8 copy. */
Test(perf, fp8_head_runs_the_head_in_the_recipe)
{
	tb_inputs x;
	S_moe(&x, "llama-3.1-8b");
	x.parallelism.pipeline = 1;
	x.parallelism.framework = TB_FW_MEGATRON;
	x.hardware.count = 8;
	x.training.global_batch = 8;
	x.training.seq_len = 8192;
	x.training.precision = TB_PREC_FP8_MIXED;
	x.training.fp8_recipe = TB_FP8_MXFP8;
	const tb_gpu *g = tb_gpus_find("b200");
	cr_assert(g);
	x.hardware.gpu = *g;
	tb_perf_input in;
	tb_perf_layer L[2];
	tb_perf_result r[2];
	for (int i = 0; i < 2; i++) {
		x.training.fp8_head = i;
		tb_perf_input_from(&x, &in);
		cr_assert(tb_perf_layer_time(&in, NULL, &L[i], NULL));
		tb_perf_predict(&in, NULL, &r[i]);
		cr_assert(r[i].ok);
	}
	cr_assert(in.fp8_head);
	cr_assert_eq(in.matmul_bytes, 1);
	double m = 8192, n = 128256, k = 4096;
	double gemm = tb_perf_matmul_s(m, n, k, 1, &in.hw, NULL);
	double gb = in.hw.backward_gemm_ratio;
	cr_assert(gb > 1, "Blackwell's backward GEMMs are slower: %g", gb);
	double bw = in.hw.hbm_bytes_per_s * TB_PERF_CAST_BW_FRACTION;
	double cast = (2 + 2 * (1 + 1.0 / 32)) * (m * k + m * n) / bw;
	double ce = 16 * m * n / (in.hw.hbm_bytes_per_s * tb_perf_mem_fraction(&in.hw, NULL));
	cr_expect(rel(L[1].logits_s, (1 + 2 * gb) * gemm + cast + ce) < 1e-9, "%g vs %g",
	          L[1].logits_s, (1 + 2 * gb) * gemm + cast + ce);
	cr_expect(L[1].logits_s < 0.8 * L[0].logits_s, "%g vs %g", L[1].logits_s, L[0].logits_s);
	/* the weight's cast once a step: 128,256 x 4,096 more elements */
	double w = n * k * (2 + 2 * (1 + 1.0 / 32)) / bw;
	cr_expect(rel(r[1].weight_cast_s - r[0].weight_cast_s, w) < 1e-9, "%g vs %g",
	          r[1].weight_cast_s - r[0].weight_cast_s, w);
	/* and its fp8 copy in the memory model */
	static tb_budget b[2];
	for (int i = 0; i < 2; i++) {
		x.training.fp8_head = i;
		tb_budget_compute(&x, &b[i]);
	}
	double w8 = b[1].memory.fp8_weights_bytes - b[0].memory.fp8_weights_bytes;
	cr_expect(rel(w8, n * k * 2 * (1 + 1.0 / 32)) < 1e-12, "%g B for %g weights", w8, n * k);
}

/* fp4-mixed: the linear layers' GEMMs on the fp4 peak (B200 9 PF dense,
 * gpus.c) at the card's fp8 fraction, operands of half a byte and a
 * block's share of a scale: NVFP4's E4M3 byte per 16 elements on
 * Blackwell, MXFP4's per 32 on MI355X.  Each cast: NVFP4 reads the 16-bit
 * tensor for its amax, then again to write both layouts, 2 x 2 + 2 x
 * (0.5 + 1/16) = 5.125 B an element; MXFP4 one read, 2 + 2 x (0.5 + 1/32)
 * = 3.0625 B.  Against fp8's delayed scaling (2 + 1 + 1 = 4 B, weights
 * cached alike) on Llama 3 8B at 8,192 tokens, the layer's memory-bound
 * time grows by its input (forward) and output-gradient (backward)
 * elements, fp8_casts_by_recipe's, times the difference over the achieved
 * bandwidth; the vocabulary head stays in 16 bits. */
Test(perf, fp4_casts_peak_and_head)
{
	static const struct {
		const char *gpu;
		double elem, cast, peak;
	} cases[] = {
		{ "b200", 0.5 + 1.0 / 16, 2 * 2 + 2 * (0.5 + 1.0 / 16), 9000e12 },
		{ "gb300", 0.5 + 1.0 / 16, 2 * 2 + 2 * (0.5 + 1.0 / 16), 15000e12 },
		{ "mi355x", 0.5 + 1.0 / 32, 2 + 2 * (0.5 + 1.0 / 32), 10066.3e12 },
	};
	const double in_elems = 8192.0 * (4096 + 4096 + 4096 + 14336);
	const double out_elems = 8192.0 * (6144 + 4096 + 28672 + 4096);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		tb_inputs x;
		S_moe(&x, "llama-3-8b");
		x.hardware.gpu = *tb_gpus_find(cases[i].gpu);
		x.training.seq_len = 8192;
		x.parallelism.pipeline = 1;
		x.parallelism.framework = TB_FW_MEGATRON;
		x.training.precision = TB_PREC_FP4_MIXED;
		tb_perf_input in4;
		tb_perf_input_from(&x, &in4);
		cr_expect_eq(in4.matmul_bytes, cases[i].elem, "%s", cases[i].gpu);
		cr_expect_eq(in4.fp8_cast_bytes, cases[i].cast, "%s", cases[i].gpu);
		cr_expect(rel(in4.hw.peak_flops, cases[i].peak) < 1e-9, "%s peak %g", cases[i].gpu,
		          in4.hw.peak_flops);
		/* the fp4 kernel's fraction: B300's measured NVFP4 GEMMs on the
		 * Blackwell parts (test_perf_blocks), MI355X's 16-bit one */
		const tb_gpu_node *node = tb_gpus_node(cases[i].gpu);
		double frac4 = node->matmul_ceiling_fp4 > 0 ? node->matmul_ceiling_fp4
		                                             : node->matmul_ceiling;
		cr_expect_eq(in4.hw.matmul_ceiling, frac4, "%s", cases[i].gpu);
		tb_perf_layer L4, L8, L16;
		cr_assert(tb_perf_layer_time(&in4, NULL, &L4, NULL));
		x.training.precision = TB_PREC_FP8_MIXED;
		x.training.fp8_recipe = TB_FP8_DELAYED;
		tb_perf_input in8;
		tb_perf_input_from(&x, &in8);
		cr_assert(tb_perf_layer_time(&in8, NULL, &L8, NULL));
		/* both casts Transformer Engine's, at its quantization's bandwidth */
		double bw = in4.hw.hbm_bytes_per_s * TB_PERF_CAST_BW_FRACTION;
		double want_f = in_elems * (cases[i].cast - 4) / bw;
		double want_b = out_elems * (cases[i].cast - 4) / bw;
		cr_expect(fabs(L4.mem_f - L8.mem_f - want_f) <= 1e-12 * L8.mem_f, "%s: forward %g s more, by hand %g",
		          cases[i].gpu, L4.mem_f - L8.mem_f, want_f);
		cr_expect(fabs(L4.mem_b - L8.mem_b - want_b) <= 1e-12 * L8.mem_b, "%s: backward %g s more, by hand %g",
		          cases[i].gpu, L4.mem_b - L8.mem_b, want_b);
		/* the GEMMs at the fp4 peak and fraction against fp8's: their
		 * ratio is the rates' (the Llama 3 8B layer's GEMMs are compute
		 * bound in both) */
		double f8 = node->matmul_ceiling_fp8 > 0 ? node->matmul_ceiling_fp8 : node->matmul_ceiling;
		double p8 = tb_gpus_find(cases[i].gpu)->peak_flops[TB_DTYPE_FP8];
		cr_expect(rel(L4.mm_f / L8.mm_f, p8 * f8 / (cases[i].peak * frac4)) < 1e-9, "%s: %g vs %g",
		          cases[i].gpu, L4.mm_f, L8.mm_f);
		x.training.precision = TB_PREC_BF16_MIXED;
		tb_perf_input in16;
		tb_perf_input_from(&x, &in16);
		cr_assert(tb_perf_layer_time(&in16, NULL, &L16, NULL));
		cr_expect(rel(L4.logits_s, L16.logits_s) < 1e-12, "%s: the head in 16 bits: %g vs %g",
		          cases[i].gpu, L4.logits_s, L16.logits_s);
	}
}

/* Blackwell's backward GEMMs take longer than its forward ones of the
 * same FLOPs (Transformer Engine's GEMM profiling guide on a B300:
 * tb_gpus_backward_gemm); the layer's backward carries that ratio on both
 * of its GEMMs (full training) or on the input gradient's alone (LoRA's
 * frozen matrices); Hopper's is its forward's. */
Test(perf, backward_gemms_at_the_cards_ratio)
{
	static const char *const cards[] = { "b300", "h100-sxm" };
	for (size_t i = 0; i < 2; i++) {
		tb_inputs x;
		S_moe(&x, "llama-3-8b");
		x.hardware.gpu = *tb_gpus_find(cards[i]);
		x.training.seq_len = 8192;
		x.parallelism.pipeline = 1;
		x.parallelism.framework = TB_FW_MEGATRON;
		x.training.precision = TB_PREC_FP8_MIXED;
		x.training.fp8_recipe = TB_FP8_TENSORWISE;
		tb_perf_input in;
		tb_perf_input_from(&x, &in);
		double g = tb_gpus_backward_gemm(tb_gpus_node(cards[i]), TB_DTYPE_FP8, TB_FP8_TENSORWISE);
		cr_expect_eq(in.hw.backward_gemm_ratio, g, "%s", cards[i]);
		cr_expect(i == 0 ? g > 1.07 : g == 1, "%s: %g", cards[i], g);
		tb_perf_layer L;
		cr_assert(tb_perf_layer_time(&in, NULL, &L, NULL));
		cr_expect(rel(L.bwd - L.attn_b - L.mem_b, 2 * g * L.mm_f) < 1e-12, "%s", cards[i]);
	}
}

/* fp8 attention (training.fp8_attention): cuDNN's kernel at its fp8 rate
 * over its bf16 one, as cudnn-frontend times both on a GB300 under cuDNN
 * 9.22 (causal, 8,192 tokens, Llama 3.1's grouped heads: 2,897 over 1,856
 * TFLOP/s forward, 1,781 over 1,435 backward), and Transformer Engine's
 * casts around it, by hand.  Llama 3 8B at 8,192 tokens a micro-batch:
 * the query is 4,096 wide, the key and value 1,024 each, the output 4,096.
 * Under delayed scaling a quantize reads 2 B and writes 1, a dequantize
 * reads 1 and writes 2: forward the query, key and value quantized and the
 * output dequantized, 8,192 x (6,144 x 3 + 4,096 x 3) = 251,658,240 B;
 * backward the output's gradient quantized and the three gradients
 * dequantized, as many.  Current scaling reads each quantized tensor once
 * more for its amax: 8,192 x (6,144 x 5 + 4,096 x 3) = 352,321,536 B
 * forward, 8,192 x (4,096 x 5 + 6,144 x 3) = 318,767,104 B backward.  The casts move at Transformer Engine's quantization bandwidth
 * (TB_PERF_CAST_BW_FRACTION of GB300's 8 TB/s); everything else is the
 * 16-bit layer's. */
Test(perf, fp8_attention_kernel_and_casts)
{
	static const struct {
		tb_fp8_attn a;
		double fwd_bytes, bwd_bytes;
	} cases[] = {
		{ TB_FP8_ATTN_ON, 251658240.0, 251658240.0 },       /* delayed, as the linears */
		{ TB_FP8_ATTN_DELAYED, 251658240.0, 251658240.0 },
		{ TB_FP8_ATTN_CURRENT, 352321536.0, 318767104.0 },
	};
	tb_inputs x;
	S_moe(&x, "llama-3-8b");
	x.training.seq_len = 8192;
	x.training.precision = TB_PREC_FP8_MIXED;
	x.parallelism.pipeline = 1;
	x.parallelism.tensor = 1;
	x.parallelism.framework = TB_FW_MEGATRON;
	x.hardware.gpu = *tb_gpus_find("gb300");
	tb_perf_input in;
	tb_perf_layer off;
	tb_perf_input_from(&x, &in);
	cr_assert_eq(in.hw.attention_fp8_fwd_ratio, 0);
	cr_assert(tb_perf_layer_time(&in, NULL, &off, NULL));
	double bw = 8e12 * TB_PERF_CAST_BW_FRACTION;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		x.training.fp8_attention = cases[i].a;
		tb_perf_layer L;
		tb_perf_input_from(&x, &in);
		cr_assert_not(in.fp8_attention_copied);
		cr_assert(tb_perf_layer_time(&in, NULL, &L, NULL));
		cr_expect(rel(off.attn_f / L.attn_f, 2897.0 / 1856) < 1e-12, "case %zu forward %g", i,
		          off.attn_f / L.attn_f);
		cr_expect(rel(off.attn_b / L.attn_b, 1781.0 / 1435) < 1e-12, "case %zu backward %g", i,
		          off.attn_b / L.attn_b);
		cr_expect(rel(L.mem_f - off.mem_f, cases[i].fwd_bytes / bw) < 1e-9, "case %zu casts forward %g s",
		          i, L.mem_f - off.mem_f);
		cr_expect(rel(L.mem_b - off.mem_b, cases[i].bwd_bytes / bw) < 1e-9, "case %zu casts backward %g s",
		          i, L.mem_b - off.mem_b);
		cr_expect_eq(L.mm_f, off.mm_f);
	}
	/* B300 is GB300's die: its figure is copied, and said so */
	x.hardware.gpu = *tb_gpus_find("b300");
	x.training.fp8_attention = TB_FP8_ATTN_ON;
	tb_perf_input_from(&x, &in);
	cr_expect(in.fp8_attention_copied);
	cr_expect(rel(in.hw.attention_fp8_fwd_ratio, 2897.0 / 1856) < 1e-12);
	/* a card with no timing prices the attention in 16 bits */
	x.hardware.gpu = *tb_gpus_find("mi300x");
	tb_perf_input_from(&x, &in);
	cr_expect_eq(in.hw.attention_fp8_fwd_ratio, 0);
	cr_expect_eq(in.fp8_attention_recipe, TB_FP8_AUTO);
}

/* Transformer Engine casts each trained linear weight once a step, on the
 * first micro-batch (module/linear.py: update_workspace when
 * is_first_microbatch), by hand: Llama 3 8B's 32 layers of 218,103,808
 * linear weights (above), all on each of 8 GB300s, in NVFP4 at 2 x 2 +
 * 2 x (0.5 + 1/16) = 5.125 B an element, at Transformer Engine's cast
 * bandwidth (TB_PERF_CAST_BW_FRACTION of 8 TB/s): 10.1 ms, in the optimizer
 * term.  Under delayed fp8, 2 + 2 B.  Weights kept in fp8 are not cast but
 * under MXFP8 (Megatron-LM gathers those in 16 bits and casts after); a
 * frozen base and ZeRO-3 are not priced. */
Test(perf, weight_cast_once_a_step)
{
	tb_inputs x;
	S_moe(&x, "llama-3-8b");
	x.training.seq_len = 8192;
	x.training.global_batch = 16;
	x.training.micro_batch = 2;
	x.training.precision = TB_PREC_FP4_MIXED;
	x.parallelism.pipeline = 1;
	x.parallelism.tensor = 1;
	x.parallelism.data = 8;
	x.parallelism.zero = 1;
	x.parallelism.framework = TB_FW_MEGATRON;
	x.hardware.gpu = *tb_gpus_find("gb300");
	x.hardware.count = 8;
	const double w = 32 * 218103808.0, bw = 8e12 * TB_PERF_CAST_BW_FRACTION;
	tb_perf_input in;
	tb_perf_result r;
	S_predict(&x, &in, &r);
	cr_expect(rel(r.weight_cast_s, w * 5.125 / bw) < 1e-9, "nvfp4 %g s", r.weight_cast_s);
	cr_expect(r.breakdown_s[TB_PERF_OPTIMIZER] > r.weight_cast_s);
	x.training.precision = TB_PREC_FP8_MIXED;
	S_predict(&x, &in, &r);
	cr_expect(rel(r.weight_cast_s, w * 4 / bw) < 1e-9, "delayed %g s", r.weight_cast_s);
	x.training.fp8_param_gather = true;
	S_predict(&x, &in, &r);
	cr_expect_eq(r.weight_cast_s, 0);
	x.training.fp8_recipe = TB_FP8_MXFP8;
	S_predict(&x, &in, &r);
	cr_expect(rel(r.weight_cast_s, w * (2 + 2 * (1 + 1.0 / 32)) / bw) < 1e-9, "mxfp8 %g s",
	          r.weight_cast_s);
	x.training.fp8_param_gather = false;
	x.training.fp8_recipe = TB_FP8_AUTO;
	x.parallelism.zero = 3;
	S_predict(&x, &in, &r);
	cr_expect_eq(r.weight_cast_s, 0);
	x.parallelism.zero = 1;
	x.training.method = TB_METHOD_LORA;
	x.training.lora.rank = 16;
	x.training.lora.targets = TB_LORA_Q | TB_LORA_O;
	S_predict(&x, &in, &r);
	cr_expect_eq(r.weight_cast_s, 0);
}
