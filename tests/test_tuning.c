/* test_tuning.c: the fine-tuning methods (tuning.h) against published
 * figures: PEFT's printed trainable-parameter counts for public configs
 * (each source below), QLoRA's bytes per 4-bit weight and its headline
 * (a 65B model fine-tuned on one 48 GB GPU), and the rules that follow
 * from the method for FLOPs and memory. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calc.h"
#include "trainbudget/scenario.h"
#include "trainbudget/tuning.h"

static tb_model llama(int64_t L, int64_t h, int64_t H, int64_t K, int64_t d, int64_t f, int64_t V)
{
	tb_model m;
	memset(&m, 0, sizeof m);
	m.has_shape = true;
	m.layers = L; m.hidden = h; m.heads = H; m.kv_heads = K;
	m.head_dim = d; m.ffn_hidden = f; m.vocab = V;
	m.mlp = TB_MLP_GATED; m.norm = TB_NORM_RMSNORM; m.positions = TB_POS_ROPE;
	return m;
}

static double S_adapters(const tb_model *m, int64_t r, unsigned targets, bool all)
{
	tb_lora l = { .rank = r, .alpha = 16, .targets = targets, .all_linear = all };
	tb_lora_count c;
	const char *why = NULL;
	cr_assert(tb_lora_count_compute(m, &l, &c, &why), "%s", why ? why : "");
	return c.total;
}

/* The base model and PEFT's "all params" (base + adapters) as printed. */
static double S_base(const tb_model *m)
{
	static tb_inputs in;
	static tb_budget b;
	memset(&in, 0, sizeof in);
	memset(&b, 0, sizeof b);
	in.model = *m;
	tb_params_compute(&in, &b);
	return b.params.total;
}

/* "trainable params: 4,194,304 || all params: 6,742,609,920 ||
 * trainable%: 0.0622": PEFT's LoRA example, r=8 on q_proj and v_proj of
 * Llama 2 7B (meta-llama/Llama-2-7b-hf config) */
Test(tuning, peft_llama_2_7b_r8_q_v)
{
	tb_model m = llama(32, 4096, 32, 32, 128, 11008, 32000);
	double a = S_adapters(&m, 8, TB_LORA_Q | TB_LORA_V, false);
	cr_expect(a == 4194304.0, "%.0f", a);
	cr_expect(S_base(&m) + a == 6742609920.0, "%.0f", S_base(&m) + a);
}

/* "trainable params: 41,943,040 || all params: 8,072,204,288": Llama 3 8B,
 * r=16 on all seven projections (target_modules all-linear) */
Test(tuning, peft_llama_3_8b_r16_all_linear)
{
	tb_model m = llama(32, 4096, 32, 8, 128, 14336, 128256);
	double a = S_adapters(&m, 16, 0, true);
	cr_expect(a == 41943040.0, "%.0f", a);
	cr_expect(S_base(&m) + a == 8072204288.0, "%.0f", S_base(&m) + a);
	unsigned seven = TB_LORA_Q | TB_LORA_K | TB_LORA_V | TB_LORA_O |
	                 TB_LORA_GATE | TB_LORA_UP | TB_LORA_DOWN;
	cr_expect(S_adapters(&m, 16, seven, false) == a);
}

/* PEFT's MetaMathQA benchmark, lora--llama-3.2-3B-rank32.json:
 * num_trainable 9,175,040, num_total 3,221,924,864 (tied embeddings) */
Test(tuning, peft_llama_3_2_3b_r32_q_v)
{
	tb_model m = llama(28, 3072, 24, 8, 128, 8192, 128256);
	m.tied_embeddings = true;
	double a = S_adapters(&m, 32, TB_LORA_Q | TB_LORA_V, false);
	cr_expect(a == 9175040.0, "%.0f", a);
	cr_expect(S_base(&m) + a == 3221924864.0, "%.0f", S_base(&m) + a);
	cr_expect(S_adapters(&m, 64, TB_LORA_Q | TB_LORA_V, false) == 18350080.0);
}

/* PEFT's README: Qwen2.5-3B-Instruct, r=16 on its default targets q_proj
 * and v_proj: "trainable params: 3,686,400 || all params: 3,089,625,088" */
Test(tuning, peft_qwen2_5_3b_r16)
{
	tb_model m = llama(36, 2048, 16, 2, 128, 11008, 151936);
	m.tied_embeddings = true;
	m.qkv_bias = true;
	double a = S_adapters(&m, 16, TB_LORA_Q | TB_LORA_V, false);
	cr_expect(a == 3686400.0, "%.0f", a);
	cr_expect(S_base(&m) + a == 3089625088.0, "%.0f", S_base(&m) + a);
}

/* PEFT's docs (peft_model_config.md): facebook/opt-350m, r=16, q_proj and
 * v_proj: 1,572,864 trainable (its layers are 1,024 wide) */
Test(tuning, peft_opt_350m_plain_mlp)
{
	tb_model m = llama(24, 1024, 16, 16, 64, 4096, 50272);
	m.mlp = TB_MLP_PLAIN;
	m.norm = TB_NORM_LAYERNORM;
	m.bias = true;
	cr_expect(S_adapters(&m, 16, TB_LORA_Q | TB_LORA_V, false) == 1572864.0);
	/* fc1 and fc2 are the plain MLP's up and down; it has no gate */
	cr_expect(S_adapters(&m, 8, tb_lora_target_parse("fc1") | tb_lora_target_parse("fc2"), false) ==
	          8.0 * 24 * 2 * (1024 + 4096));
	tb_lora l = { .rank = 8, .targets = TB_LORA_GATE };
	tb_lora_count c;
	const char *why = NULL;
	cr_expect(!tb_lora_count_compute(&m, &l, &c, &why));
	cr_expect(why && strstr(why, "gate_proj"), "%s", why ? why : "");
}

/* bigscience/bloomz-560m under DeepSpeed ZeRO-3, r=8 on the fused
 * query_key_value: "trainable params: 786,432" */
Test(tuning, peft_bloomz_560m_fused_qkv)
{
	tb_model m = llama(24, 1024, 16, 16, 64, 4096, 250880);
	m.mlp = TB_MLP_PLAIN;
	cr_expect(S_adapters(&m, 8, TB_LORA_QKV, false) == 786432.0);
	cr_expect(S_adapters(&m, 8, tb_lora_target_parse("c_attn"), false) == 786432.0);
}

/* MLPerf Training v5.1's Llama 2 70B LoRA (NeMo 2, LoRA(dim=16,
 * target_modules=["linear_proj", "linear_qkv"])): "number of trainable
 * parameters: 44564480 (0.06% of total)" and "69.0 B Non-trainable
 * params" in every NVIDIA-stack result log (Dell's 1xXE9685Lx8B200
 * result_0.txt, also "number of parameters on (tensor, pipeline) model
 * parallel rank (0 ,0): 69021212672"): one adapter on the fused QKV, one
 * on the output projection, in all 80 layers. */
Test(tuning, mlperf_llama_2_70b_lora_fused_qkv_and_o)
{
	tb_model m = llama(80, 8192, 64, 8, 128, 28672, 32000);
	double a = S_adapters(&m, 16, TB_LORA_QKV | TB_LORA_O, false);
	cr_expect(a == 44564480.0, "%.0f", a);
	cr_expect(S_base(&m) + a == 69021212672.0, "%.0f", S_base(&m) + a);
}

/* QLoRA Sec. 3: 4-bit NormalFloat over blocks of 64 with an fp32 absmax is
 * 4 + 32/64 = 4.5 bits; double quantization takes the constants to
 * 8/64 + 32/(64*256) = 0.127 bits, saving 0.373 bits a parameter. */
Test(tuning, qlora_bits_per_parameter)
{
	double dq = tb_quant_bytes_per_param(TB_QUANT_NF4, true, 4096) * 8;
	double sq = tb_quant_bytes_per_param(TB_QUANT_NF4, false, 4096) * 8;
	cr_expect(fabs(dq - 4.127) < 0.0005, "%.5f", dq);
	cr_expect(sq == 4.5, "%.5f", sq);
	cr_expect(fabs((sq - dq) - 0.373) < 0.0005, "%.5f", sq - dq);
	/* "approximately 3 GB for a 65B model" */
	cr_expect(fabs((sq - dq) / 8 * 65e9 / 1e9 - 3) < 0.1);
	cr_expect(tb_quant_bytes_per_param(TB_QUANT_NONE, true, 4096) == 2);
	cr_expect(tb_quant_bytes_per_param(TB_QUANT_INT8, true, 4096) == 1 + 4.0 / 4096);
}

static tb_scenario *S_load(const char *yaml, const char *const *sets, size_t n, tb_diags *d)
{
	tb_diags_init(d);
	return tb_scenario_load("t.yaml", yaml, strlen(yaml), sets, n, d);
}

/* LLaMA 65B (Touvron et al. 2023, Table 2: 80 layers of 8,192, 64 heads)
 * as QLoRA trained it: r=64 on every linear layer, bf16, paged AdamW,
 * sequences of 512, batch 1 with gradient checkpointing, on one 48 GB
 * card: "finetune a 65B parameter model on a single 48GB GPU" (abstract). */
static const char S_65b[] =
	"title: QLoRA 65B\n"
	"model: {layers: 80, hidden: 8192, heads: 64, ffn_hidden: 22016, vocab: 32000}\n"
	"training:\n"
	"  tokens: 10M\n"
	"  seq_len: 512\n"
	"  global_batch: 16\n"
	"  micro_batch: 1\n"
	"  checkpointing: full\n"
	"  precision: bf16\n"
	"  method: qlora\n"
	"  paged_optimizer: true\n"
	"  lora: {rank: 64, alpha: 16, targets: all-linear}\n"
	"hardware:\n"
	"  gpu: {name: a6000, memory: 48GB, bf16: 155T, bandwidth: 768GB/s}\n"
	"  count: 1\n"
	"  overhead: 1GiB\n";

Test(tuning, qlora_65b_fits_one_48gb_card)
{
	tb_diags d;
	tb_scenario *sc = S_load(S_65b, NULL, 0, &d);
	cr_assert(sc, "%s", tb_diags_format(&d));
	static tb_budget b;
	tb_budget_compute(&sc->inputs, &b);
	cr_expect(b.memory.fits, "%.2f GB", b.memory.per_gpu.total / 1e9);
	/* and not in 16 bits, nor with the optimizer on the card in fp32
	 * adapters (the paper needed paged optimizers) */
	const char *lora[] = { "training.method=lora", "training.quantization=none" };
	tb_scenario *s2 = S_load(S_65b, lora, 2, &d);
	cr_assert(s2, "%s", tb_diags_format(&d));
	static tb_budget b2;
	tb_budget_compute(&s2->inputs, &b2);
	cr_expect(!b2.memory.fits);
	/* frozen weights: the linear layers at 4.127 bits, the rest in bf16 */
	double lin = 80.0 * (4 * 8192.0 * 8192 + 3 * 8192.0 * 22016);
	double rest = b.params.total - lin;
	double want = lin * (0.5 + 1.0 / 64 + 4.0 / 16384) + rest * 2;
	cr_expect(fabs(b.memory.per_gpu.frozen_weights - want) < 1, "%.0f %.0f",
	          b.memory.per_gpu.frozen_weights, want);
	tb_scenario_free(s2);
	tb_scenario_free(sc);
	tb_diags_release(&d);
}

/* Frozen matrices compute the input gradient only: 4N per token for the
 * base, 6 N_a for the adapters; forward only, 2N; DPO, 6N + 2N. */
Test(tuning, flops_per_method)
{
	tb_diags d;
	const char *sets[][2] = {
		{ "training.method=full", "training.lora" },
		{ "training.method=lora", NULL },
		{ "training.method=frozen", "training.lora" },
		{ "training.method=dpo", "training.lora" },
	};
	double want_n[] = { 6, 4, 2, 8 };
	for (int i = 0; i < 4; i++) {
		const char *s[3] = { sets[i][0], sets[i][1], "training.paged_optimizer" };
		tb_scenario *sc = S_load(S_65b, s, sets[i][1] ? 3 : 1, &d);
		cr_assert(sc, "%s", tb_diags_format(&d));
		static tb_budget b;
		tb_budget_compute(&sc->inputs, &b);
		double N = b.params.active, Na = b.params.adapters_active;
		double want = want_n[i] * N + (i == 1 ? 6 * Na : 0);
		cr_expect(fabs(b.flops.per_token_6n - want) <= 1e-9 * want, "%d: %g %g", i,
		          b.flops.per_token_6n, want);
		cr_expect(b.params.trainable == (i == 0 || i == 3 ? N : i == 1 ? Na : 0));
		if (i == 2)
			cr_expect(b.memory.per_gpu.gradients == 0 && b.memory.per_gpu.optimizer == 0);
		if (i == 3)   /* the reference copy, frozen */
			cr_expect(b.memory.per_gpu.frozen_weights == 2 * N);
		tb_scenario_free(sc);
	}
	tb_diags_release(&d);
}

/* The step-time model prices LoRA below full training of the same layout
 * (no weight gradients, no full reduction) and above a forward pass. */
Test(tuning, step_time_orders_methods)
{
	tb_diags d;
	static const char y[] =
		"title: t\n"
		"model: {preset: llama-3-8b}\n"
		"training: {tokens: 1B, seq_len: 4096, global_batch: 64, micro_batch: 1, checkpointing: full}\n"
		"hardware: {gpu: h100-sxm, count: 8}\n"
		"parallelism: {tensor: 1, pipeline: 1, zero: 3}\n";
	double step[3];
	const char *m[3] = { "training.method=full", "training.method=lora", "training.method=frozen" };
	for (int i = 0; i < 3; i++) {
		tb_scenario *sc = S_load(y, &m[i], 1, &d);
		cr_assert(sc, "%s", tb_diags_format(&d));
		tb_perf_input pi;
		tb_perf_input_from(&sc->inputs, &pi);
		tb_perf_result r;
		tb_perf_predict(&pi, NULL, &r);
		cr_assert(r.ok, "%s", r.why);
		step[i] = r.step_s;
		tb_scenario_free(sc);
	}
	cr_expect(step[1] < step[0] && step[2] < step[1], "%g %g %g", step[0], step[1], step[2]);
	/* LoRA: forward + input gradients + recompute, about 3/4 of full's 4 */
	cr_expect(step[1] / step[0] > 0.6 && step[1] / step[0] < 0.9, "%g", step[1] / step[0]);
	tb_diags_release(&d);
}

/* Padding: examples of 1,024 tokens padded to sequences of 4,096 make the
 * run process four times their tokens, three quarters of it padding;
 * packed, none. */
Test(tuning, padding_waste_without_packing)
{
	tb_diags d;
	static const char y[] =
		"title: t\nmodel: {preset: llama-3-8b}\n"
		"training: {tokens: 100M, seq_len: 4096, avg_seq_len: 1024, packing: false}\n"
		"hardware: {gpu: h100-sxm, count: 8}\n";
	tb_scenario *sc = S_load(y, NULL, 0, &d);
	cr_assert(sc, "%s", tb_diags_format(&d));
	cr_expect(sc->inputs.training.tokens == 400e6, "%g", sc->inputs.training.tokens);
	cr_expect(sc->inputs.training.data_tokens == 100e6);
	cr_expect(sc->inputs.training.padding_fraction == 0.75);
	tb_scenario_free(sc);
	const char *packed[] = { "training.packing=true" };
	sc = S_load(y, packed, 1, &d);
	cr_assert(sc);
	cr_expect(sc->inputs.training.tokens == 100e6 && sc->inputs.training.padding_fraction == 0);
	tb_scenario_free(sc);
	tb_diags_release(&d);
}

/* The inputs of frozen linear layers are not kept for a backward (a frozen
 * weight takes no gradient; the input's gradient needs only the weight):
 * under LoRA on q and v without dropout, a Llama 3 8B layer at 2,048
 * tokens keeps the QKV input (the adapters read it) but neither MLP
 * input: 2sh + 2sf = 75,497,472 B fewer than full training, plus the
 * adapters' A outputs, 2s(16 + 16) = 131,072 B, by hand.  With dropout
 * the adapters read their own copies and the QKV input goes too. */
Test(tuning, frozen_linear_inputs_not_kept)
{
	tb_model m = llama(32, 4096, 32, 8, 128, 14336, 128256);
	tb_arch ar;
	tb_calc_arch(&m, &ar);
	tb_inputs in;
	memset(&in, 0, sizeof in);
	in.model = m;
	in.training.seq_len = 2048;
	in.training.precision = TB_PREC_BF16_MIXED;
	in.training.flash_attention = true;
	in.parallelism.tensor = 1;
	double full = tb_memory_act_layer(&in, &ar, TB_CKPT_NONE, NULL, NULL);
	in.training.method = TB_METHOD_LORA;
	in.training.lora = (tb_lora){ .rank = 16, .alpha = 32, .targets = TB_LORA_Q | TB_LORA_V };
	double lora = tb_memory_act_layer(&in, &ar, TB_CKPT_NONE, NULL, NULL);
	double s = 2048, h = 4096, f = 14336;
	cr_expect(full - lora == 2 * s * h + 2 * s * f - 2 * s * 32, "%.0f", full - lora);
	in.training.lora.dropout = 0.05;
	double dropped = tb_memory_act_layer(&in, &ar, TB_CKPT_NONE, NULL, NULL);
	/* the QKV input gone; each adapter's dropped copy (2 B) and mask (1 B) */
	cr_expect(dropped - lora == -2 * s * h + 3 * s * (h + h), "%.0f", dropped - lora);
}

/* Transformer Engine's fp8 weights (NeMo's fp8_params, te.fp8_model_init),
 * as every MLPerf Training Llama 2 70B LoRA submission stores its frozen
 * base: each linear layer's weight in E4M3, 1 B, the embedding, the head
 * and the norms in bf16.  Llama 2 70B: 68,976,648,192 weights, of which
 * 2 x 32,000 x 8,192 = 524,288,000 in the embedding and the head and
 * 161 x 8,192 = 1,318,912 in the norms; the 68,451,041,280 in linear
 * layers at 1 B.  On 8 GPUs without tensor parallelism each holds them
 * all: 69,502,255,104 B where bf16 takes 137,953,296,384.  The fp8 GEMMs
 * read them as stored, so no pass dequantizes them (int8's does). */
static const char S_70b_lora[] =
	"title: Llama 2 70B LoRA as MLPerf runs it\n"
	"model: {layers: 80, hidden: 8192, heads: 64, kv_heads: 8, ffn_hidden: 28672, vocab: 32000}\n"
	"training:\n"
	"  tokens: 1B\n"
	"  seq_len: 8192\n"
	"  global_batch: 8\n"
	"  micro_batch: 1\n"
	"  precision: fp8-mixed\n"
	"  method: lora\n"
	"  quantization: fp8\n"
	"  lora: {rank: 16, alpha: 32, targets: [query_key_value, o_proj], dropout: 0.1}\n"
	"hardware: {gpu: b200, count: 8}\n"
	"parallelism: {tensor: 1, pipeline: 1, context: 1, zero: 1, framework: megatron}\n";

Test(tuning, fp8_frozen_weights_as_stored)
{
	tb_diags d;
	tb_scenario *sc = S_load(S_70b_lora, NULL, 0, &d);
	cr_assert(sc, "%s", tb_diags_format(&d));
	static tb_budget b, b16, b8;
	tb_budget_compute(&sc->inputs, &b);
	cr_expect(b.params.total == 68976648192.0, "%.0f", b.params.total);
	cr_expect(b.memory.per_gpu.frozen_weights == 69502255104.0, "%.0f",
	          b.memory.per_gpu.frozen_weights);
	const char *none[] = { "training.quantization=none" };
	tb_scenario *s16 = S_load(S_70b_lora, none, 1, &d);
	cr_assert(s16, "%s", tb_diags_format(&d));
	tb_budget_compute(&s16->inputs, &b16);
	cr_expect(b16.memory.per_gpu.frozen_weights == 137953296384.0, "%.0f",
	          b16.memory.per_gpu.frozen_weights);
	/* the step: fp8 weights cost nothing to read as they are; int8's are
	 * dequantized before every GEMM */
	const char *i8[] = { "training.quantization=int8" };
	tb_scenario *s8 = S_load(S_70b_lora, i8, 1, &d);
	cr_assert(s8, "%s", tb_diags_format(&d));
	tb_budget_compute(&s8->inputs, &b8);
	cr_assert(b.perf.known && b16.perf.known && b8.perf.known);
	cr_expect(b.perf.r.step_s == b16.perf.r.step_s, "%g vs %g", b.perf.r.step_s, b16.perf.r.step_s);
	cr_expect(b8.perf.r.step_s > b.perf.r.step_s, "%g vs %g", b8.perf.r.step_s, b.perf.r.step_s);
	/* outside fp8-mixed there are no fp8 GEMMs to read them: a located error */
	const char *bf[] = { "training.precision=bf16-mixed" };
	cr_expect_null(S_load(S_70b_lora, bf, 1, &d));
	char *msg = tb_diags_format(&d);
	cr_expect(strstr(msg, "t.yaml:10:17: error: training.quantization fp8 under training.precision "
	                      "bf16-mixed") != NULL, "%s", msg);
	free(msg);
	tb_scenario_free(s8);
	tb_scenario_free(s16);
	tb_scenario_free(sc);
	tb_diags_release(&d);
}

/* Megatron-Core's activation_func_fp8_input_store (fused_bias_swiglu.py:
 * the SwiGLU's input saved as float8_e4m3fn): the gate and up outputs a
 * layer keeps, 2 x s x b x f elements, at 1 B instead of 2.  Llama 2 70B,
 * 8,192 tokens, TP 1: 2 x 8,192 x 28,672 = 469,762,048 B less a layer.
 * With it and the fp8 base the 8-GPU B200 layout of MLPerf's LoRA
 * submissions fits the card's 183,359 MiB, without it it does not. */
Test(tuning, swiglu_input_kept_in_fp8)
{
	tb_diags d;
	const char *on[] = { "training.activation_func_fp8_input_store=true" };
	tb_scenario *s0 = S_load(S_70b_lora, NULL, 0, &d);
	cr_assert(s0, "%s", tb_diags_format(&d));
	tb_scenario *s1 = S_load(S_70b_lora, on, 1, &d);
	cr_assert(s1, "%s", tb_diags_format(&d));
	static tb_budget b0, b1;
	tb_budget_compute(&s0->inputs, &b0);
	tb_budget_compute(&s1->inputs, &b1);
	double saved = b0.memory.activations_per_layer_bytes - b1.memory.activations_per_layer_bytes;
	cr_expect(saved == 469762048.0, "%.0f", saved);
	cr_expect(b1.memory.fits && !b0.memory.fits, "%.1f and %.1f GB of %.1f",
	          b1.memory.per_gpu.total / 1e9, b0.memory.per_gpu.total / 1e9,
	          b1.memory.capacity_bytes / 1e9);
	/* a plain MLP has no SwiGLU to cast */
	const char *plain[] = { "training.activation_func_fp8_input_store=true", "model.mlp=plain" };
	cr_expect_null(S_load(S_70b_lora, plain, 2, &d));
	char *msg = tb_diags_format(&d);
	cr_expect(strstr(msg, "training.activation_func_fp8_input_store casts the input of a gated "
	                      "MLP's SwiGLU") != NULL, "%s", msg);
	free(msg);
	tb_scenario_free(s1);
	tb_scenario_free(s0);
	tb_diags_release(&d);
}
