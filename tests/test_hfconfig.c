/* Hugging Face config.json: field values copied from the published
 * configs on the Hub (gpt2, google/gemma-7b, Qwen/Qwen2-0.5B,
 * mistralai/Mixtral-8x7B-v0.1). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calc.h"
#include "trainbudget/fileio.h"
#include "trainbudget/hfconfig.h"
#include "trainbudget/presets.h"

static int S_parse(const char *json, tb_model *m, tb_diags *d)
{
	tb_diags_init(d);
	memset(m, 0, sizeof *m);
	return tb_hfconfig_parse("cfg.json", json, strlen(json), m, d);
}

Test(hfconfig, gpt2)
{
	const char *j = "{\"activation_function\": \"gelu_new\", \"model_type\": \"gpt2\",\n"
	                " \"n_ctx\": 1024, \"n_embd\": 768, \"n_head\": 12, \"n_inner\": null,\n"
	                " \"n_layer\": 12, \"n_positions\": 1024, \"vocab_size\": 50257,\n"
	                " \"task_specific_params\": {\"text-generation\": {\"do_sample\": true}}}";
	tb_model m;
	tb_diags d;
	cr_assert_eq(S_parse(j, &m, &d), 0);
	cr_assert(m.has_shape);
	cr_assert_eq(m.hidden, 768);
	cr_assert_eq(m.layers, 12);
	cr_assert_eq(m.heads, 12);
	cr_assert_eq(m.kv_heads, 12);
	cr_assert_eq(m.head_dim, 64);
	cr_assert_eq(m.ffn_hidden, 3072);       /* n_inner null -> 4 * n_embd */
	cr_assert_eq(m.vocab, 50257);
	cr_assert_eq(m.max_positions, 1024);
	cr_assert_eq(m.positions, TB_POS_LEARNED);
	cr_assert_eq(m.mlp, TB_MLP_PLAIN);
	cr_assert_eq(m.norm, TB_NORM_LAYERNORM);
	cr_assert(m.bias);
	cr_assert(m.tied_embeddings);           /* PretrainedConfig default */
	tb_diags_release(&d);
}

Test(hfconfig, gemma_head_dim_apart)
{
	const char *j = "{\"model_type\": \"gemma\", \"hidden_size\": 3072, \"head_dim\": 256,\n"
	                " \"intermediate_size\": 24576, \"num_attention_heads\": 16,\n"
	                " \"num_hidden_layers\": 28, \"num_key_value_heads\": 16,\n"
	                " \"vocab_size\": 256000, \"hidden_act\": \"gelu\"}";
	tb_model m;
	tb_diags d;
	cr_assert_eq(S_parse(j, &m, &d), 0);
	cr_assert_eq(m.head_dim, 256);          /* not 3072 / 16 = 192 */
	cr_assert_eq(m.mlp, TB_MLP_GATED);      /* GeGLU */
	cr_assert(m.tied_embeddings);
	cr_assert_eq(m.vocab, 256000);
	tb_diags_release(&d);
}

Test(hfconfig, qwen2_bias_and_tied)
{
	const char *j = "{\"model_type\": \"qwen2\", \"hidden_size\": 896, \"intermediate_size\": 4864,\n"
	                " \"num_attention_heads\": 14, \"num_hidden_layers\": 24,\n"
	                " \"num_key_value_heads\": 2, \"tie_word_embeddings\": true,\n"
	                " \"vocab_size\": 151936}";
	tb_model m;
	tb_diags d;
	cr_assert_eq(S_parse(j, &m, &d), 0);
	cr_assert(m.qkv_bias);
	cr_assert(!m.bias);
	cr_assert(m.tied_embeddings);
	cr_assert_eq(m.kv_heads, 2);
	cr_assert_eq(m.head_dim, 64);
	tb_diags_release(&d);
}

Test(hfconfig, mixtral_experts_and_defaults)
{
	const char *j = "{\"model_type\": \"mixtral\", \"hidden_size\": 4096, \"intermediate_size\": 14336,\n"
	                " \"num_attention_heads\": 32, \"num_hidden_layers\": 32,\n"
	                " \"num_key_value_heads\": 8, \"num_local_experts\": 8,\n"
	                " \"num_experts_per_tok\": 2, \"vocab_size\": 32000}";
	tb_model m;
	tb_diags d;
	cr_assert_eq(S_parse(j, &m, &d), 0);
	cr_assert_eq(m.experts, 8);
	cr_assert_eq(m.experts_per_token, 2);
	cr_assert(!m.tied_embeddings);          /* MixtralConfig default */
	tb_diags_release(&d);
}

Test(hfconfig, kv_heads_default_to_heads)
{
	const char *j = "{\"model_type\": \"llama\", \"hidden_size\": 4096, \"intermediate_size\": 11008,\n"
	                " \"num_attention_heads\": 32, \"num_hidden_layers\": 32, \"vocab_size\": 32000}";
	tb_model m;
	tb_diags d;
	cr_assert_eq(S_parse(j, &m, &d), 0);
	cr_assert_eq(m.kv_heads, 32);
	tb_diags_release(&d);
}

static char *S_first(const tb_diags *d)
{
	char *s = tb_diags_format(d);
	char *nl = strchr(s, '\n');
	if (nl)
		*nl = '\0';
	return s;
}

#define S_TYPES "deepseek_v2, deepseek_v3, gemma, gemma2, gemma3, gemma3_text, gpt2, gpt_oss, llama, " \
                "llama4, llama4_text, mistral, mixtral, olmo2, phi3, qwen2, qwen2_moe, qwen3 or qwen3_moe"

Test(hfconfig, errors_point_into_the_file)
{
	static const struct { const char *json; const char *want; } cases[] = {
		{ "{\"model_type\": \"llama\",\n \"hidden_size\": 4096\n \"x\": 1}",
		  "cfg.json:3:5: error: invalid JSON: did not find expected ',' or '}'; expected a Hugging Face config.json object" },
		{ "{\"model_type\": \"bert\"}",
		  "cfg.json:1:16: error: unsupported model_type 'bert'; expected one of " S_TYPES },
		{ "{\"hidden_size\": 4096}",
		  "cfg.json:1:1: error: missing \"model_type\" in config.json; expected one of " S_TYPES },
		{ "{\"model_type\": \"llama\", \"hidden_size\": \"big\"}",
		  "cfg.json:1:40: error: \"hidden_size\" is not a whole number from 1 to 1000000; expected an integer" },
		{ "[1, 2]",
		  "cfg.json:1:1: error: config.json is not a JSON object; expected { \"model_type\": ..., ... }" },
		{ "{\"model_type\": \"llama\", \"hidden_size\": 1e30}",
		  "cfg.json:1:40: error: \"hidden_size\" is not a whole number from 1 to 1000000; expected an integer" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		tb_model m;
		tb_diags d;
		cr_assert_eq(S_parse(cases[i].json, &m, &d), -1, "case %zu accepted", i);
		char *got = S_first(&d);
		cr_assert_str_eq(got, cases[i].want, "case %zu", i);
		free(got);
		tb_diags_release(&d);
	}
}

/* ---- the released configs (tests/fixtures/hf, sources in SOURCES.md) ----
 * Each is parsed as shipped and counted by params.c; the totals are the
 * publishers' (Hugging Face's safetensors metadata, "safetensors.total",
 * exact to the parameter) unless a test says otherwise. */

static tb_model S_fixture(const char *name)
{
	char path[256];
	snprintf(path, sizeof path, "tests/fixtures/hf/%s", name);
	size_t len = 0;
	char *text = tb_fileio_slurp(path, 1 << 20, &len);
	cr_assert(text, "%s missing", path);
	tb_model m;
	tb_diags d;
	tb_diags_init(&d);
	memset(&m, 0, sizeof m);
	int rc = tb_hfconfig_parse(path, text, len, &m, &d);
	char *msg = tb_diags_format(&d);
	cr_assert_eq(rc, 0, "%s: %s", path, msg);
	free(msg);
	free(text);
	tb_diags_release(&d);
	return m;
}

static tb_budget *S_count(const tb_model *m)
{
	static tb_inputs in;
	static tb_budget b;
	memset(&in, 0, sizeof in);
	memset(&b, 0, sizeof b);
	in.model = *m;
	tb_params_compute(&in, &b);
	return &b;
}

Test(hfconfig, qwen3_8b_exact)
{
	tb_model m = S_fixture("qwen3-8b.json");
	cr_expect_eq(m.qk_norm, TB_QKNORM_HEAD);
	cr_expect_eq(m.head_dim, 128);
	cr_expect(!m.tied_embeddings);
	cr_expect_eq(m.window, 0);              /* use_sliding_window false */
	tb_params p = S_count(&m)->params;
	/* Qwen/Qwen3-8B: 8,190,735,360 (index total_size 16,381,470,720 B of bf16) */
	cr_expect(p.total == 8190735360.0, "%.0f", p.total);
	/* the card: "Number of Parameters (Non-Embedding): 6.95B" */
	double non_emb = p.total - p.embedding - p.output;
	cr_expect(fabs(non_emb - 6.95e9) <= 0.005e9, "%.0f", non_emb);
}

Test(hfconfig, qwen3_30b_a3b_exact)
{
	tb_model m = S_fixture("qwen3-30b-a3b.json");
	cr_expect_eq(m.experts, 128);
	cr_expect_eq(m.experts_per_token, 8);
	cr_expect_eq(m.expert_ffn_hidden, 768);
	cr_expect_eq(m.shared_ffn_hidden, 0);
	cr_expect_eq(m.dense_layers, 0);
	cr_expect_eq(m.qk_norm, TB_QKNORM_HEAD);
	tb_params p = S_count(&m)->params;
	/* Qwen/Qwen3-30B-A3B: 30,532,122,624; card: "3.3B activated", its
	 * last digit cut (3.35B here) */
	cr_expect(p.total == 30532122624.0, "%.0f", p.total);
	cr_expect(p.active >= 3.3e9 && p.active < 3.4e9, "%.0f", p.active);
}

Test(hfconfig, gemma_2_9b_exact)
{
	tb_model m = S_fixture("gemma-2-9b.json");
	cr_expect_eq(m.norms_per_layer, 4);
	cr_expect(m.tied_embeddings);           /* Gemma2Config default */
	cr_expect_eq(m.window, 4096);
	cr_expect_eq(m.window_layers, 21);      /* even layers of 42 slide */
	cr_expect_eq(m.local_attn, TB_LOCAL_SLIDING);
	tb_params p = S_count(&m)->params;
	/* google/gemma-2-9b: 9,241,705,984 */
	cr_expect(p.total == 9241705984.0, "%.0f", p.total);
}

Test(hfconfig, gemma_3_1b_exact)
{
	tb_model m = S_fixture("gemma-3-1b.json");
	cr_expect_eq(m.qk_norm, TB_QKNORM_HEAD);
	cr_expect_eq(m.window, 512);
	cr_expect_eq(m.window_layers, 22);      /* 26 layers, every 6th global: 4 global */
	tb_params p = S_count(&m)->params;
	/* google/gemma-3-1b-it: 999,885,952 */
	cr_expect(p.total == 999885952.0, "%.0f", p.total);
}

Test(hfconfig, gemma_3_4b_text_model_exact)
{
	/* The multimodal config keeps the language model in text_config and
	 * leaves heads, KV heads, head_dim and vocabulary to Gemma3TextConfig's
	 * defaults (8, 4, 256, 262,208). */
	tb_model m = S_fixture("gemma-3-4b.json");
	cr_expect_eq(m.heads, 8);
	cr_expect_eq(m.kv_heads, 4);
	cr_expect_eq(m.head_dim, 256);
	cr_expect_eq(m.vocab, 262208);
	cr_expect_eq(m.window, 1024);
	cr_expect_eq(m.window_layers, 29);      /* 34 layers, 5 global */
	cr_expect(m.vision_not_counted);
	tb_params p = S_count(&m)->params;
	/* google/gemma-3-4b-it: 4,300,079,472 with the vision tower, whose
	 * SigLIP encoder (from vision_config: patch embedding 678,528, position
	 * table 4,718,592, 27 layers of 15,239,504, final norm 2,304) and
	 * projector (2,949,120 + a norm of 1,152) trainbudget does not count. */
	double vision = 678528.0 + 4718592.0 + 27 * 15239504.0 + 2304.0 + 2949120.0 + 1152.0;
	cr_expect(p.total + vision == 4300079472.0, "%.0f", p.total);
}

Test(hfconfig, phi_3_mini_exact)
{
	tb_model m = S_fixture("phi-3-mini-4k.json");
	cr_expect_eq(m.window, 2047);           /* Phi3's sliding_window, every layer */
	cr_expect_eq(m.window_layers, 32);
	tb_params p = S_count(&m)->params;
	/* microsoft/Phi-3-mini-4k-instruct: 3,821,079,552; fused qkv_proj and
	 * gate_up_proj hold the same weights as separate matrices */
	cr_expect(p.total == 3821079552.0, "%.0f", p.total);
}

Test(hfconfig, qwen1_5_moe_exact)
{
	tb_model m = S_fixture("qwen1.5-moe-a2.7b.json");
	cr_expect_eq(m.experts, 60);
	cr_expect_eq(m.experts_per_token, 4);
	cr_expect_eq(m.expert_ffn_hidden, 1408);
	cr_expect_eq(m.shared_ffn_hidden, 5632);
	cr_expect(m.shared_expert_gate);
	cr_expect(m.qkv_bias);
	cr_expect_eq(m.dense_layers, 0);
	tb_params p = S_count(&m)->params;
	/* Qwen/Qwen1.5-MoE-A2.7B: 14,315,784,192 */
	cr_expect(p.total == 14315784192.0, "%.0f", p.total);
	/* the card: "2.7B activated", a rounded figure */
	cr_expect(fabs(p.active - 2.7e9) <= 0.05e9, "%.0f", p.active);
}

Test(hfconfig, olmo_2_7b_exact)
{
	tb_model m = S_fixture("olmo-2-1124-7b.json");
	cr_expect_eq(m.qk_norm, TB_QKNORM_FULL);
	tb_params p = S_count(&m)->params;
	/* allenai/OLMo-2-1124-7B(-Instruct): 7,298,617,344 */
	cr_expect(p.total == 7298617344.0, "%.0f", p.total);
}

Test(hfconfig, deepseek_v2_lite_exact)
{
	tb_model m = S_fixture("deepseek-v2-lite.json");
	cr_expect_eq(m.q_lora_rank, 0);         /* null: no query latent */
	cr_expect_eq(m.kv_lora_rank, 512);
	cr_expect_eq(m.dense_layers, 1);
	cr_expect_eq(m.shared_ffn_hidden, 2 * 1408);
	cr_expect(!m.router_bias);
	/* greedy routing over n_group 1: no group limit */
	cr_expect_eq(m.route_groups, 0);
	cr_expect_eq(m.route_groups_per_token, 0);
	tb_params p = S_count(&m)->params;
	/* deepseek-ai/DeepSeek-V2-Lite: 15,706,484,224 ("15.7B") */
	cr_expect(p.total == 15706484224.0, "%.0f", p.total);
	/* "2.4B activated", the input embedding (a lookup) left out: 2.45B
	 * here, within the card's last digit */
	double act = p.active - p.embedding;
	cr_expect(act >= 2.4e9 && act < 2.5e9, "%.0f", act);
}

Test(hfconfig, deepseek_v2_5_rounded)
{
	tb_model m = S_fixture("deepseek-v2.5.json");
	/* group_limited_greedy: 3 of 8 groups (its config.json) */
	cr_expect_eq(m.route_groups, 8);
	cr_expect_eq(m.route_groups_per_token, 3);
	tb_params p = S_count(&m)->params;
	/* DeepSeek-V2 / V2.5 (same shape), the paper's "236B total, 21B
	 * activated" (arXiv:2405.04434, abstract): rounded figures */
	cr_expect(fabs(p.total - 236e9) <= 0.5e9, "%.0f", p.total);
	cr_expect(fabs(p.active - p.embedding - 21e9) <= 0.5e9, "%.0f", p.active - p.embedding);
}

Test(hfconfig, deepseek_v3_main_model_and_mtp)
{
	tb_model m = S_fixture("deepseek-v3.json");
	cr_expect_eq(m.q_lora_rank, 1536);
	cr_expect_eq(m.dense_layers, 3);
	cr_expect_eq(m.experts, 256);
	cr_expect_eq(m.experts_per_token, 8);
	cr_expect(m.router_bias);
	cr_expect_eq(m.mtp_modules, 1);
	/* node-limited routing: 4 of 8 groups (Sec. 2.1.2, at most 4 nodes) */
	cr_expect_eq(m.route_groups, 8);
	cr_expect_eq(m.route_groups_per_token, 4);
	const tb_preset *pr = tb_presets_find("deepseek-v3");
	cr_assert_not_null(pr);
	cr_expect_eq(pr->model.route_groups, 8);
	cr_expect_eq(pr->model.route_groups_per_token, 4);
	tb_budget *b = S_count(&m);
	tb_params p = b->params;
	/* README_WEIGHTS.md: main model "671B", activated "36.6B (including
	 * 0.9B for the output Head)" (the input embedding not counted) */
	cr_expect(fabs(p.total - 671e9) <= 0.5e9, "%.0f", p.total);
	cr_expect(fabs(p.active - p.embedding - 36.6e9) <= 0.05e9, "%.0f", p.active - p.embedding);
	/* Hugging Face's 684,531,386,000 ("685B") is the checkpoint: the main
	 * model, the MTP module with its own copies of the embedding and head,
	 * and the FP8 weights' fp32 block scales: one per 128 x 128 block of
	 * every linear layer in the 62 layers (eh_proj, the embedding, the
	 * heads and the routers are not FP8). */
	double h = 7168;
	double attn = 12 * 56 + 192 * 12 + 5 * 56 + 256 * 4 + 56 * 128;   /* q_a, q_b, kv_a, kv_b, o */
	double dense = 3 * 144 * 56.0, expert = 3 * 16 * 56.0;
	double scales = 3 * (attn + dense) + (58 + 1) * (attn + 257 * expert);
	double stored = p.total + p.mtp + 2 * 129280 * h;
	cr_expect(stored + scales == 684531386000.0, "%.0f", stored + scales);
	/* the MTP module alone: "11.5B unique parameters" (rounded down) */
	cr_expect(p.mtp > 11.5e9 && p.mtp < 11.7e9, "%.0f", p.mtp);
	bool warned = false;
	for (int i = 0; i < b->n_warnings; i++)
		warned |= strstr(b->warnings[i], "multi-token-prediction") != NULL;
	cr_expect(warned, "the MTP module is not mentioned");
}

Test(hfconfig, llama_4_scout_text_model_exact)
{
	tb_model m = S_fixture("llama-4-scout.json");
	cr_expect_eq(m.experts, 16);
	cr_expect_eq(m.experts_per_token, 1);
	cr_expect_eq(m.expert_ffn_hidden, 8192);
	cr_expect_eq(m.shared_ffn_hidden, 8192);
	cr_expect_eq(m.ffn_hidden, 16384);      /* intermediate_size_mlp, unused: no dense layer */
	cr_expect_eq(m.dense_layers, 0);
	cr_expect_eq(m.local_attn, TB_LOCAL_CHUNKED);
	cr_expect_eq(m.window, 8192);
	cr_expect_eq(m.window_layers, 36);      /* rope layers; every 4th is NoPE and global */
	cr_expect(m.vision_not_counted);
	tb_params p = S_count(&m)->params;
	/* meta-llama/Llama-4-Scout-17B-16E(-Instruct): 108,641,793,536 ("109B"),
	 * with the vision encoder (34 layers of 23,807,872, embeddings and
	 * norms 1,647,168, adapter 39,845,888) and projector (20,971,520) from
	 * vision_config, which trainbudget does not count */
	double vision = 34 * 23807872.0 + 1408 + 812416 + 827904 + 4 * 1408 + 39845888 + 20971520;
	cr_expect(p.total + vision == 108641793536.0, "%.0f", p.total);
	/* "17B active" */
	cr_expect(fabs(p.active - 17e9) <= 0.5e9, "%.0f", p.active);
}

Test(hfconfig, llama4_moe_interleave_and_dense_width)
{
	/* Maverick's pattern: every other layer MoE, the rest dense MLPs of
	 * intermediate_size_mlp */
	const char *j = "{\"model_type\": \"llama4_text\", \"hidden_size\": 64, \"num_hidden_layers\": 8,\n"
	                " \"num_attention_heads\": 4, \"num_key_value_heads\": 2, \"head_dim\": 16,\n"
	                " \"intermediate_size\": 32, \"intermediate_size_mlp\": 128, \"vocab_size\": 100,\n"
	                " \"num_local_experts\": 4, \"interleave_moe_layer_step\": 2,\n"
	                " \"no_rope_layers\": [1, 1, 1, 0, 1, 1, 1, 0]}";
	tb_model m;
	tb_diags d;
	cr_assert_eq(S_parse(j, &m, &d), 0);
	cr_expect_eq(m.dense_layers, 4);
	cr_expect_eq(m.ffn_hidden, 128);
	cr_expect_eq(m.window_layers, 6);
	tb_params p = S_count(&m)->params;
	double attn = 64.0 * (4 + 4) * 16 + 4 * 16 * 64;
	double moe = 4 * 3 * 64.0 * 32 + 3 * 64.0 * 32 + 64 * 4;
	double dense = 3 * 64.0 * 128;
	double want = 100 * 64.0 * 2 + 8 * (attn + 2 * 64) + 4 * moe + 4 * dense + 64;
	cr_expect(p.total == want, "%.0f vs %.0f", p.total, want);
	tb_diags_release(&d);
}

Test(hfconfig, layer_types_and_lists_are_read)
{
	const char *j = "{\"model_type\": \"qwen2_moe\", \"hidden_size\": 64, \"num_hidden_layers\": 4,\n"
	                " \"num_attention_heads\": 4, \"intermediate_size\": 96, \"vocab_size\": 100,\n"
	                " \"num_experts\": 8, \"num_experts_per_tok\": 2, \"moe_intermediate_size\": 16,\n"
	                " \"shared_expert_intermediate_size\": 0, \"mlp_only_layers\": [0, 3],\n"
	                " \"use_sliding_window\": true, \"sliding_window\": 32,\n"
	                " \"layer_types\": [\"sliding_attention\", \"full_attention\", \"sliding_attention\", \"full_attention\"]}";
	tb_model m;
	tb_diags d;
	cr_assert_eq(S_parse(j, &m, &d), 0);
	cr_expect_eq(m.dense_layers, 2);
	cr_expect_eq(m.shared_ffn_hidden, 0);
	cr_expect(!m.shared_expert_gate);
	cr_expect_eq(m.window, 32);
	cr_expect_eq(m.window_layers, 2);
	tb_diags_release(&d);
}

Test(hfconfig, unknown_types_never_suggest_a_neighbour)
{
	static const struct { const char *json; const char *want; } cases[] = {
		/* qwen3_next, deepseek_v4, gemma4: close names, other formulas */
		{ "{\"model_type\": \"qwen3_next\"}",
		  "cfg.json:1:16: error: unsupported model_type 'qwen3_next'; expected one of " S_TYPES },
		{ "{\"model_type\": \"deepseek_v4\"}",
		  "cfg.json:1:16: error: unsupported model_type 'deepseek_v4'; expected one of " S_TYPES },
		{ "{\"model_type\": \"gemma4\"}",
		  "cfg.json:1:16: error: unsupported model_type 'gemma4'; expected one of " S_TYPES },
		/* the same type in another case has the same formulas */
		{ "{\"model_type\": \"Qwen3\"}",
		  "cfg.json:1:16: error: unsupported model_type 'Qwen3'; did you mean 'qwen3'? (model types are lower case)" },
		{ "{\"model_type\": \"llama4\", \"hidden_size\": 8}",
		  "cfg.json:1:1: error: model_type llama4 keeps its language model in \"text_config\"; expected a text_config object" },
		{ "{\"model_type\": \"gemma3\", \"text_config\": {\"hidden_size\": 8}}",
		  "cfg.json:1:1: error: missing \"text_config.num_hidden_layers\" in config.json; expected it for model_type gemma3" },
		{ "{\"model_type\": \"gemma2\", \"hidden_size\": 64, \"num_hidden_layers\": 2, \"num_attention_heads\": 4,\n"
		  " \"intermediate_size\": 8, \"vocab_size\": 10, \"layer_types\": [\"full_attention\", \"local\"]}",
		  "cfg.json:2:59: error: \"layer_types\" has 'local'; expected full_attention, sliding_attention or chunked_attention" },
		{ "{\"model_type\": \"qwen2_moe\", \"hidden_size\": 64, \"num_hidden_layers\": 2, \"num_attention_heads\": 4,\n"
		  " \"intermediate_size\": 8, \"vocab_size\": 10, \"mlp_only_layers\": 3}",
		  "cfg.json:2:63: error: \"mlp_only_layers\" is not a list of plain values; expected [ ... ]" },
		{ "{\"model_type\": \"qwen2_moe\", \"hidden_size\": 64, \"num_hidden_layers\": 2, \"num_attention_heads\": 4,\n"
		  " \"intermediate_size\": 8, \"vocab_size\": 10, \"num_experts\": 4, \"num_experts_per_tok\": 6}",
		  "cfg.json:2:85: error: num_experts_per_tok 6 is above num_experts 4; expected at most the number of experts" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		tb_model m;
		tb_diags d;
		cr_assert_eq(S_parse(cases[i].json, &m, &d), -1, "case %zu accepted", i);
		char *got = S_first(&d);
		cr_expect_str_eq(got, cases[i].want, "case %zu", i);
		free(got);
		tb_diags_release(&d);
	}
}

/* The presets built from these configs are the configs' models. */
Test(hfconfig, presets_match_their_configs)
{
	static const struct { char preset[32], file[40]; } pairs[] = {
		{ "qwen3-8b", "qwen3-8b.json" }, { "gemma-2-9b", "gemma-2-9b.json" },
		{ "phi-3-mini", "phi-3-mini-4k.json" }, { "olmo-2-7b", "olmo-2-1124-7b.json" },
		{ "qwen1.5-moe-a2.7b", "qwen1.5-moe-a2.7b.json" },
		{ "deepseek-v2-lite", "deepseek-v2-lite.json" }, { "deepseek-v3", "deepseek-v3.json" },
	};
	for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
		const tb_preset *p = tb_presets_find(pairs[i].preset);
		cr_assert(p, "%s", pairs[i].preset);
		tb_model m = S_fixture(pairs[i].file);
		tb_model pm = p->model;
		snprintf(pm.preset, sizeof pm.preset, "%s", "");
		cr_expect(memcmp(&m, &pm, sizeof m) == 0, "%s differs from %s", pairs[i].preset, pairs[i].file);
	}
}

/* gpt-oss (OpenAI's model card: 116.83B and 20.91B total, 5.13B and 3.61B
 * active, the unembedding counted and the embedding not).  By hand from
 * config.json, per layer: q, k, v and o with their biases (2,880 x 4,096 +
 * 4,096, twice 2,880 x 512 + 512, 4,096 x 2,880 + 2,880), a sink per head
 * (64), the router with its bias (2,880 x E + E), E experts of gate_up
 * (2,880 x 5,760 + 5,760) and down (2,880 x 2,880 + 2,880), two RMSNorms;
 * then the embedding, the unembedding and the final norm. */
Test(hfconfig, gpt_oss_exact)
{
	static const struct { const char *file, *preset; int64_t L, E; double total, active; } cases[] = {
		{ "gpt-oss-120b.json", "gpt-oss-120b", 36, 128, 116.83e9, 5.13e9 },
		{ "gpt-oss-20b.json", "gpt-oss-20b", 24, 32, 20.91e9, 3.61e9 },
	};
	for (size_t i = 0; i < 2; i++) {
		tb_model m = S_fixture(cases[i].file);
		cr_expect_eq(m.layers, cases[i].L);
		cr_expect_eq(m.experts, cases[i].E);
		cr_expect_eq(m.experts_per_token, 4);
		cr_expect(m.attn_bias && m.mlp_bias && m.router_bias && m.attn_sinks);
		cr_expect_eq(m.window, 128);
		cr_expect_eq(m.window_layers, cases[i].L / 2);
		cr_expect(!m.tied_embeddings);
		double E = (double)cases[i].E;
		double attn = 2880.0 * 4096 + 4096 + 2 * (2880.0 * 512 + 512) + 4096.0 * 2880 + 2880 + 64;
		double expert = 2880.0 * 5760 + 5760 + 2880.0 * 2880 + 2880;
		double layer = attn + 2880 * E + E + E * expert + 2 * 2880;
		double emb = 201088.0 * 2880;
		double want = (double)cases[i].L * layer + 2 * emb + 2880;
		tb_params p = S_count(&m)->params;
		cr_expect(p.total == want, "%s: %.0f vs %.0f", cases[i].file, p.total, want);
		cr_expect(fabs(p.total - cases[i].total) <= 0.005e9, "%.0f", p.total);
		double active = (double)cases[i].L * (attn + 2880 * E + E + 4 * expert + 2 * 2880) + emb + 2880;
		cr_expect(p.active - p.embedding == active, "%.0f vs %.0f", p.active - p.embedding, active);
		cr_expect(fabs(p.active - p.embedding - cases[i].active) <= 0.005e9, "%.0f", p.active - p.embedding);
		tb_model pm = tb_presets_find(cases[i].preset)->model;
		snprintf(pm.preset, sizeof pm.preset, "%s", "");
		cr_expect(memcmp(&m, &pm, sizeof m) == 0, "%s differs from %s", cases[i].preset, cases[i].file);
	}
}
