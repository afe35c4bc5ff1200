/* test_flops.c: training FLOPs against published formulas and figures:
 * Kaplan's 6ND, PaLM App. B (6N + 12LHQT, 46.2% MFU for 540B), Narayanan
 * Eq. (3) / Korthikanti Eq. (7) for a GPT-3 shape, Chinchilla App. F, and
 * PyTorch's own operator count (tests/torch_flops.py, fixture). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "calc.h"
#include "trainbudget/presets.h"
#include "trainbudget/tuning.h"

static double rel(double got, double want)
{
	return fabs(got - want) / fabs(want);
}

static void base(tb_inputs *in)
{
	memset(in, 0, sizeof *in);
	in->model.has_shape = true;
	in->model.mlp = TB_MLP_PLAIN;
	in->model.norm = TB_NORM_LAYERNORM;
	in->model.positions = TB_POS_NONE;
	in->training.micro_batch = 1;
	in->training.global_batch = 1;
	in->training.precision = TB_PREC_BF16_MIXED;
	in->parallelism.tensor = in->parallelism.pipeline = 1;
	in->parallelism.expert = in->parallelism.data = 1;
	in->hardware.count = 1;
}

static void shape(tb_inputs *in, int64_t L, int64_t h, int64_t H, int64_t K,
                  int64_t dh, int64_t f, int64_t V, int64_t T)
{
	in->model.layers = L; in->model.hidden = h; in->model.heads = H;
	in->model.kv_heads = K; in->model.head_dim = dh; in->model.ffn_hidden = f;
	in->model.vocab = V; in->training.seq_len = T;
}

static void run(const tb_inputs *in, tb_budget *b)
{
	memset(b, 0, sizeof *b);
	tb_params_compute(in, b);
	tb_flops_compute(in, b);
}

static tb_budget B;

Test(flops, seven_b_on_100b_tokens_6nd)
{
	tb_inputs in;
	base(&in);
	in.model.has_shape = false;
	in.model.params_count = 7e9;
	in.training.tokens = 100e9;
	run(&in, &B);
	cr_expect(B.flops.total_6nd == 4.2e21, "%g", B.flops.total_6nd);
	cr_expect(B.flops.total_model == 4.2e21);
	const tb_deriv *d = NULL;
	for (int i = 0; i < B.n_derivs; i++)
		if (strcmp(B.derivs[i].key, "flops.total_6nd") == 0)
			d = &B.derivs[i];
	cr_assert(d);
	cr_expect(strcmp(d->formula, "6 * N * D") == 0);
	cr_expect(d->nvars == 2 && d->vars[0].value == 7e9 && d->vars[1].value == 100e9);
}

/* PaLM 540B (Table 1; App. B): L=118, H=48, Q=256, T=2048, multi-query,
 * SwiGLU with f = 4 d_model, 256k vocabulary, shared embedding.  Sec. 4.1 /
 * Table 3: 238.3K tokens/s on 6144 TPU v4 chips (275 TFLOP/s) is 46.2%
 * MFU, and 45.7% without the attention term. */
Test(flops, palm_540b_mfu)
{
	tb_inputs in;
	base(&in);
	shape(&in, 118, 18432, 48, 1, 256, 73728, 256000, 2048);
	in.model.mlp = TB_MLP_GATED;
	in.model.norm = TB_NORM_RMSNORM;
	in.model.tied_embeddings = true;
	in.training.tokens = 1;
	run(&in, &B);
	/* 6N + 12LHQT, N = 540.35e9 (including the shared embedding) */
	double palm = 6 * 540.35e9 + 12.0 * 118 * 48 * 256 * 2048;
	cr_expect(rel(B.flops.per_token_model, palm) < 2e-5, "%g vs %g",
	          B.flops.per_token_model, palm);
	double mfu = 238.3e3 * B.flops.per_token_model / (6144 * 275e12);
	cr_expect(fabs(mfu - 0.462) < 0.0005, "MFU %.4f", mfu);
	double mfu6n = 238.3e3 * (B.flops.per_token_model - 3 * B.flops.fwd_attention_per_token)
	               / (6144 * 275e12);
	cr_expect(fabs(mfu6n - 0.457) < 0.0005, "6N-only MFU %.4f", mfu6n);
}

/* Korthikanti et al. 2022 Eq. (7) (model FLOPs, no recompute) and
 * Narayanan et al. 2021 Eq. (3) (full recompute), per iteration of B
 * sequences, for GPT-3 175B as in Korthikanti Table 3: l=96, h=12288,
 * a=96, s=2048, V=51200.  Their count keeps only matmuls (no biases,
 * norms, softmax, position embeddings) over the full score square with a
 * plain 4h MLP: the operator count must equal it exactly. */
Test(flops, megatron_equations)
{
	tb_inputs in;
	base(&in);
	double l = 96, h = 12288, s = 2048, V = 51200, Bsz = 64;
	shape(&in, 96, 12288, 96, 96, 128, 4 * 12288, 51200, 2048);
	in.training.tokens = Bsz * s;
	run(&in, &B);
	double eq7 = 72 * Bsz * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
	cr_expect(rel(B.flops.total_model, eq7) < 1e-9, "%.6g vs %.6g", B.flops.total_model, eq7);

	in.training.checkpointing = TB_CKPT_FULL;
	run(&in, &B);
	double eq3 = 96 * Bsz * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
	cr_expect(rel(B.flops.total_hardware, eq3) < 1e-9, "%.6g vs %.6g", B.flops.total_hardware, eq3);
	cr_expect(B.flops.total_model == eq7 || rel(B.flops.total_model, eq7) < 1e-9);
}

Test(flops, causal_halves_attention)
{
	tb_inputs in;
	base(&in);
	shape(&in, 4, 256, 8, 8, 32, 1024, 1000, 512);
	in.training.tokens = 1e9;
	run(&in, &B);
	double full = B.flops.fwd_attention_per_token;
	double model_full = B.flops.per_token_model;
	/* 4 L H Q T forward */
	cr_expect(full == 4.0 * 4 * 8 * 32 * 512);
	in.training.attention_flops = TB_ATTN_FLOPS_CAUSAL;
	run(&in, &B);
	cr_expect(B.flops.fwd_attention_per_token == full / 2);
	cr_expect(model_full - B.flops.per_token_model == 3 * full / 2);
}

/* Chinchilla 70B on 1.4T tokens: App. F's detailed count is 6.3e23 against
 * 6ND = 5.88e23.  The shape (Table 4: 80 layers, d 8192, 64 heads of 128,
 * ffn 4d, 32k vocabulary, seq 2048) misses what App. F counts that a preset
 * cannot express: the relative-position projection (an h x h matmul per
 * layer) and the one-hot embedding matmul; added here as 6 L h^2 + 6 V h. */
Test(flops, chinchilla_appendix_f)
{
	tb_inputs in;
	base(&in);
	shape(&in, 80, 8192, 64, 64, 128, 32768, 32000, 2048);
	in.model.norm = TB_NORM_RMSNORM;
	in.training.tokens = 1.4e12;
	run(&in, &B);
	double extra = (6.0 * 80 * 8192 * 8192 + 6.0 * 32000 * 8192) * 1.4e12;
	double ours = B.flops.total_model + extra;
	cr_expect(rel(ours, 6.3e23) < 0.05, "%.4g vs 6.3e23", ours);
	cr_expect(ours > 5.88e23, "the detailed count exceeds 6ND: %.4g", ours);
}

Test(flops, moe_counts_active)
{
	tb_inputs in;
	base(&in);
	shape(&in, 32, 4096, 32, 8, 128, 14336, 32000, 4096);
	in.model.mlp = TB_MLP_GATED;
	in.model.norm = TB_NORM_RMSNORM;
	in.model.experts = 8;
	in.model.experts_per_token = 2;
	in.training.tokens = 1;
	run(&in, &B);
	cr_expect(B.flops.per_token_6n == 6 * 12879925248.0);
	/* matmul weights per token = active minus the input embedding and norms */
	double norms = 32 * 2 * 4096.0 + 4096;
	double mm = 12879925248.0 - 32000.0 * 4096 - norms;
	cr_expect(rel(B.flops.fwd_matmul_per_token, 2 * mm) < 1e-12);
}

Test(flops, recomputation)
{
	tb_inputs in;
	base(&in);
	shape(&in, 24, 2048, 16, 16, 128, 8192, 50000, 2048);
	in.training.tokens = 1e9;
	in.training.checkpointing = TB_CKPT_SELECTIVE;
	run(&in, &B);
	cr_expect(B.flops.recompute_per_token == B.flops.fwd_attention_per_token);
	in.training.checkpointing = TB_CKPT_FULL;
	run(&in, &B);
	/* one forward of the layers: (F_mm - F_logits + F_attn) */
	double fwd_layers = B.flops.fwd_matmul_per_token - 2.0 * 50000 * 2048
	                    + B.flops.fwd_attention_per_token;
	cr_expect(B.flops.per_token_hardware - B.flops.per_token_model == fwd_layers);
	/* "about +33%" */
	cr_expect(B.flops.total_hardware / B.flops.total_model > 1.28);
	cr_expect(B.flops.total_hardware / B.flops.total_model < 1.334);
}

/* The op policy recomputes every second matmul of a layer in torchtitan's
 * order (q, k, v, o, gate, up, down): k, o and up, for Llama 3.1 8B
 * 2 x 32 x (4096 x 1024 + 4096 x 4096 + 4096 x 14336) = 5,100,273,664 FLOPs
 * a token; a plain MLP's second matmul is its down projection. */
Test(flops, op_policy_recomputes_every_second_matmul)
{
	tb_inputs in;
	base(&in);
	shape(&in, 32, 4096, 32, 8, 128, 14336, 128256, 8192);
	in.model.mlp = TB_MLP_GATED;
	in.training.tokens = 1e9;
	in.training.checkpointing = TB_CKPT_SELECTIVE;
	in.training.selective_policy = TB_SELECTIVE_OP;
	run(&in, &B);
	cr_expect(B.flops.recompute_per_token == 5100273664.0, "%.0f", B.flops.recompute_per_token);
	in.model.mlp = TB_MLP_PLAIN;
	shape(&in, 24, 2048, 16, 16, 128, 8192, 50000, 2048);
	run(&in, &B);
	cr_expect(B.flops.recompute_per_token == 2.0 * 24 * (2048.0 * 2048 + 2048.0 * 2048 + 8192.0 * 2048));
}

/* PyTorch's count for the same models (tests/torch_flops.py wrote the
 * fixture with torch's FLOP counter): forward+backward FLOPs per token. */
Test(flops, torch_fixture)
{
	FILE *fp = fopen("tests/fixtures/torch_flops.txt", "r");
	cr_assert(fp, "tests/fixtures/torch_flops.txt missing");
	char line[512];
	int checked = 0;
	while (fgets(line, sizeof line, fp)) {
		char name[64], mlp[16];
		long long L, h, H, K, dh, f, V, T, tied;
		double torch_flops_per_token;
		if (line[0] == '#')
			continue;
		if (sscanf(line, "%63s %15s %lld %lld %lld %lld %lld %lld %lld %lld %lld %lg",
		           name, mlp, &L, &h, &H, &K, &dh, &f, &V, &T, &tied,
		           &torch_flops_per_token) != 12)
			continue;
		tb_inputs in;
		base(&in);
		shape(&in, L, h, H, K, dh, f, V, T);
		in.model.mlp = strcmp(mlp, "gated") == 0 ? TB_MLP_GATED : TB_MLP_PLAIN;
		in.model.tied_embeddings = tied != 0;
		in.training.tokens = 1;
		run(&in, &B);
		cr_expect(rel(B.flops.per_token_model, torch_flops_per_token) < 1e-9,
		          "%s: ours %.6g, torch %.6g", name, B.flops.per_token_model,
		          torch_flops_per_token);
		checked++;
	}
	fclose(fp);
	cr_expect_geq(checked, 2);
}

Test(flops, no_nan_for_empty_inputs)
{
	tb_inputs in;
	memset(&in, 0, sizeof in);
	run(&in, &B);
	cr_expect(B.flops.model_over_6n == 0);
	cr_expect(isfinite(B.flops.per_token_model));
}

/* ---- local attention and MLA ------------------------------------------ */

/* Gemma-2-9B (config.json: 42 layers, 16 heads of 256, window 4096 on
 * every other layer) at 8,192 tokens.  MaxText's
 * calculate_gemma2_tflops_training_per_device counts, per local/global
 * pair of layers and per sequence, 4*T^2*H*d + 4*T*min(w, T)*H*d before
 * halving for causality: the full-square convention here is that count. */
static void gemma2_9b(tb_inputs *in, int64_t T)
{
	base(in);
	shape(in, 42, 3584, 16, 8, 256, 14336, 256000, T);
	in->model.mlp = TB_MLP_GATED;
	in->model.norm = TB_NORM_RMSNORM;
	in->model.norms_per_layer = 4;
	in->model.tied_embeddings = true;
	in->model.window = 4096;
	in->model.window_layers = 21;
	in->training.tokens = 1e9;
}

Test(flops, local_layers_as_maxtext_counts_them)
{
	tb_inputs in;
	double T = 8192, H = 16, d = 256, w = 4096;
	gemma2_9b(&in, 8192);
	run(&in, &B);
	double maxtext_per_seq = 21 * (4 * T * T * H * d + 4 * T * w * H * d);
	cr_expect(B.flops.fwd_attention_per_token == maxtext_per_seq / T, "%.6g vs %.6g",
	          B.flops.fwd_attention_per_token, maxtext_per_seq / T);

	/* causal: a window sees min(i, w) keys at position i; MaxText halves
	 * the band as well, which counts a band that is already one-sided
	 * twice over.  The exact mean, summed here, against w - w^2/(2T). */
	in.training.attention_flops = TB_ATTN_FLOPS_CAUSAL;
	run(&in, &B);
	double keys = 0;
	for (double i = 1; i <= T; i++)
		keys += i < w ? i : w;
	keys /= T;
	double want = 2 * H * 2 * d * (21 * T / 2 + 21 * keys);
	cr_expect(rel(B.flops.fwd_attention_per_token, want) < 1e-4, "%.6g vs %.6g",
	          B.flops.fwd_attention_per_token, want);

	/* a window as long as the sequence is no window */
	gemma2_9b(&in, 4096);
	run(&in, &B);
	cr_expect(B.flops.fwd_attention_per_token == 4.0 * 42 * 16 * 256 * 4096);
}

Test(flops, chunked_attention_llama4)
{
	/* Llama 4 attends within chunks of 8,192 tokens on its rope layers
	 * (three of every four) and over the whole sequence on the others */
	tb_inputs in;
	base(&in);
	shape(&in, 48, 5120, 40, 8, 128, 16384, 202048, 20000);
	in.model.mlp = TB_MLP_GATED;
	in.model.window = 8192;
	in.model.window_layers = 36;
	in.model.local_attn = TB_LOCAL_CHUNKED;
	in.training.tokens = 1e9;
	in.training.attention_flops = TB_ATTN_FLOPS_CAUSAL;
	run(&in, &B);
	double T = 20000, C = 8192, keys = 0;
	for (double i = 0; i < T; i++)
		keys += fmod(i, C) + 1;
	keys /= T;
	double want = 2 * 40 * 2 * 128 * (12 * T / 2 + 36 * keys);
	cr_expect(rel(B.flops.fwd_attention_per_token, want) < 1e-3, "%.6g vs %.6g",
	          B.flops.fwd_attention_per_token, want);
}

/* DeepSeek-V2 (config.json: 60 layers, h 5120, 128 heads, q latent 1536,
 * kv latent 512, 128 + 64 query/key and 128 value widths, 160 experts of
 * 1536, 6 routed and 2 shared, the first layer dense of 12,288). */
static void deepseek_v2(tb_inputs *in)
{
	base(in);
	shape(in, 60, 5120, 128, 128, 192, 12288, 102400, 4096);
	in->model.mlp = TB_MLP_GATED;
	in->model.norm = TB_NORM_RMSNORM;
	in->model.q_lora_rank = 1536;
	in->model.kv_lora_rank = 512;
	in->model.qk_nope_dim = 128;
	in->model.qk_rope_dim = 64;
	in->model.v_head_dim = 128;
	in->model.experts = 160;
	in->model.experts_per_token = 6;
	in->model.expert_ffn_hidden = 1536;
	in->model.shared_ffn_hidden = 2 * 1536;
	in->model.dense_layers = 1;
	in->training.tokens = 1e9;
}

Test(flops, mla_scores_context_and_two_per_weight)
{
	tb_inputs in;
	deepseek_v2(&in);
	run(&in, &B);
	/* scores over d_n + d_r = 192 per head, context over d_v = 128 */
	cr_expect(B.flops.fwd_attention_per_token == 2.0 * 60 * 128 * (192 + 128) * 4096);
	/* every active matrix weight (the embedding lookup and the vectors
	 * aside) costs 2 FLOP per token forward: Kaplan et al. 2020, Sec. 2.1 */
	double h = 5120, V = 102400;
	double vectors = 60 * (2 * h + 1536 + 512) + h;
	double want = 2 * (B.params.active - V * h - vectors);
	cr_expect(B.flops.fwd_matmul_per_token == want, "%.0f vs %.0f", B.flops.fwd_matmul_per_token, want);
	/* the paper's "21B activated" (input embedding aside) */
	cr_expect(fabs(B.params.active - V * h - 21e9) < 0.5e9, "%.0f", B.params.active - V * h);
}

/* tb_flops_values (the search's card set-up) is tb_flops_compute's count
 * to the bit, without its derivations: every preset under full training,
 * selective and full recomputation, causal FLOPs, LoRA and DPO, and a
 * model given by its count alone. */
Test(flops, the_values_alone_are_the_counts)
{
	static const tb_method methods[] = { TB_METHOD_FULL, TB_METHOD_LORA, TB_METHOD_DPO,
	                                     TB_METHOD_FROZEN };
	int cases = 0;
	for (size_t i = 0; i <= tb_presets_count(); i++)
		for (size_t mi = 0; mi < sizeof methods / sizeof methods[0]; mi++) {
			tb_inputs in;
			base(&in);
			if (i < tb_presets_count()) {
				in.model = tb_presets_at(i)->model;
				in.training.seq_len = 4096;
			} else {
				in.model.has_shape = false;
				in.model.params_count = 7e9;
			}
			in.training.tokens = 1e12;
			in.training.method = methods[mi];
			in.training.lora.rank = 16;
			in.training.lora.targets = TB_LORA_Q | TB_LORA_V;
			in.training.checkpointing = (tb_checkpointing)(i % 3);
			in.training.attention_flops = i % 2 ? TB_ATTN_FLOPS_CAUSAL : in.training.attention_flops;
			run(&in, &B);
			tb_flops v;
			memset(&v, 0xff, sizeof v);
			tb_flops_values(&in, &B.params, &v);
			cr_expect(memcmp(&v, &B.flops, sizeof v) == 0, "case %zu, method %zu", i, mi);
			cases++;
		}
	cr_expect(cases > 8);
}
