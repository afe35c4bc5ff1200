/* test_params.c: parameter counts, exact to the parameter, against the
 * counts the publishers state (Hugging Face safetensors totals), with the
 * shapes built here by hand from the published config.json files. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "calc.h"
#include "trainbudget/presets.h"
#include "trainbudget/tuning.h"

static tb_model llama(int64_t L, int64_t h, int64_t H, int64_t K, int64_t f, int64_t V)
{
	tb_model m;
	memset(&m, 0, sizeof m);
	m.has_shape = true;
	m.layers = L; m.hidden = h; m.heads = H; m.kv_heads = K;
	m.head_dim = h / H; m.ffn_hidden = f; m.vocab = V;
	m.mlp = TB_MLP_GATED; m.norm = TB_NORM_RMSNORM; m.positions = TB_POS_ROPE;
	return m;
}

static tb_params count(const tb_model *m)
{
	static tb_inputs in;
	static tb_budget b;
	memset(&in, 0, sizeof in);
	memset(&b, 0, sizeof b);
	in.model = *m;
	tb_params_compute(&in, &b);
	return b.params;
}

Test(params, llama_2_7b)
{
	tb_model m = llama(32, 4096, 32, 32, 11008, 32000);
	tb_params p = count(&m);
	cr_expect(p.total == 6738415616.0, "%.0f", p.total);
	cr_expect(p.active == p.total);
	cr_expect(p.known_breakdown);
	cr_expect(p.embedding == 32000.0 * 4096 && p.output == 32000.0 * 4096);
}

Test(params, llama_3_8b_gqa)
{
	tb_model m = llama(32, 4096, 32, 8, 14336, 128256);
	tb_params p = count(&m);
	cr_expect(p.total == 8030261248.0, "%.0f", p.total);
}

Test(params, mixtral_8x7b_total_and_active)
{
	tb_model m = llama(32, 4096, 32, 8, 14336, 32000);
	m.experts = 8;
	m.experts_per_token = 2;
	tb_params p = count(&m);
	cr_expect(p.total == 46702792704.0, "%.0f", p.total);
	/* Mistral AI: "12.9B active parameters" */
	cr_expect(p.active == 12879925248.0, "%.0f", p.active);
	cr_expect(p.router == 32.0 * 4096 * 8);
}

Test(params, gpt2_tied_learned_biases_layernorm)
{
	tb_model m;
	memset(&m, 0, sizeof m);
	m.has_shape = true;
	m.layers = 12; m.hidden = 768; m.heads = 12; m.kv_heads = 12; m.head_dim = 64;
	m.ffn_hidden = 3072; m.vocab = 50257; m.max_positions = 1024;
	m.mlp = TB_MLP_PLAIN; m.norm = TB_NORM_LAYERNORM; m.positions = TB_POS_LEARNED;
	m.tied_embeddings = true; m.bias = true;
	tb_params p = count(&m);
	cr_expect(p.total == 124439808.0, "%.0f", p.total);
	cr_expect(p.output == 0);
	cr_expect(p.position == 1024.0 * 768);
}

Test(params, qwen2_0_5b_qkv_bias)
{
	/* Qwen/Qwen2-0.5B config.json: q/k/v biases only, tied, GQA 14/2 */
	tb_model m = llama(24, 896, 14, 2, 4864, 151936);
	m.qkv_bias = true;
	m.tied_embeddings = true;
	tb_params p = count(&m);
	cr_expect(p.total == 494032768.0, "%.0f", p.total);
}

Test(params, count_only)
{
	tb_model m;
	memset(&m, 0, sizeof m);
	m.params_count = 7e9;
	tb_params p = count(&m);
	cr_expect(!p.known_breakdown);
	cr_expect(p.total == 7e9 && p.active == 7e9);
	cr_expect(p.attention == 0 && p.mlp == 0);
}

Test(params, every_preset)
{
	cr_assert_geq(tb_presets_count(), 1, "presets not there yet");
	for (size_t i = 0; i < tb_presets_count(); i++) {
		const tb_preset *pr = tb_presets_at(i);
		tb_params p = count(&pr->model);
		double want = pr->official_params;
		if (strcmp(pr->name, "chinchilla-70b") == 0) {
			/* The Gopher family uses Transformer-XL relative positions,
			 * which add one h x h projection per layer that a preset cannot
			 * express: 13 L h^2 + 2 V h = 70.06e9 against the paper's 70B. */
			double h = (double)pr->model.hidden;
			double with_rel = p.total + (double)pr->model.layers * h * h;
			cr_expect(fabs(with_rel - want) <= 0.005 * want, "%s: %.0f (+rel pos) vs %.0f",
			          pr->name, with_rel, want);
		} else if (fmod(want, 1e9) == 0) {
			/* a paper's rounded figure ("175B") */
			cr_expect(fabs(p.total - want) <= 0.005 * want, "%s: %.0f vs %.0f",
			          pr->name, p.total, want);
		} else if (fmod(want, 1e7) == 0) {
			/* a model card's figure to the hundredth of a billion
			 * ("116.83B") */
			cr_expect(fabs(p.total - want) <= 0.005e9, "%s: %.0f vs %.0f",
			          pr->name, p.total, want);
		} else {
			cr_expect(p.total == want, "%s: %.0f vs official %.0f",
			          pr->name, p.total, want);
		}
		cr_expect(p.active <= p.total && p.active > 0, "%s", pr->name);
	}
}

Test(params, tied_head_saves_v_times_h)
{
	tb_model m = llama(2, 64, 4, 4, 128, 1000);
	tb_params a = count(&m);
	m.tied_embeddings = true;
	tb_params b = count(&m);
	cr_expect(a.total - b.total == 1000.0 * 64);
}

/* tb_params_values (the search's scratch count) is tb_params_compute's
 * count to the bit, without its derivations: every preset, a model given
 * by its count alone, and a mixture with a multi-token-prediction module
 * under LoRA (the fields the two branches set apart). */
Test(params, the_values_alone_are_the_counts)
{
	static tb_inputs in;
	static tb_budget b;
	for (size_t i = 0; i <= tb_presets_count() + 1; i++) {
		memset(&in, 0, sizeof in);
		if (i < tb_presets_count()) {
			in.model = tb_presets_at(i)->model;
		} else if (i == tb_presets_count()) {
			in.model.params_count = 7e9;
		} else {
			in.model = llama(4, 1024, 8, 8, 2816, 32000);
			in.model.experts = 8;
			in.model.experts_per_token = 2;
			in.model.expert_ffn_hidden = 1024;
			in.model.mtp_modules = 1;
			in.training.method = TB_METHOD_LORA;
			in.training.lora.rank = 16;
			in.training.lora.targets = TB_LORA_Q | TB_LORA_V | TB_LORA_UP;
		}
		memset(&b, 0, sizeof b);
		tb_params_compute(&in, &b);
		tb_params v;
		memset(&v, 0xff, sizeof v);
		tb_params_values(&in, &v);
		cr_expect(memcmp(&v, &b.params, sizeof v) == 0, "case %zu", i);
		cr_expect(i != tb_presets_count() + 1 || (v.mtp > 0 && v.adapters > 0), "case %zu", i);
	}
}
