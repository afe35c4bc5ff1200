/* Hugging Face config.json: field values copied from the published
 * configs on the Hub (gpt2, google/gemma-7b, Qwen/Qwen2-0.5B,
 * mistralai/Mixtral-8x7B-v0.1). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/hfconfig.h"

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

Test(hfconfig, errors_point_into_the_file)
{
	static const struct { const char *json; const char *want; } cases[] = {
		{ "{\"model_type\": \"llama\",\n \"hidden_size\": 4096\n \"x\": 1}",
		  "cfg.json:3:5: error: invalid JSON: did not find expected ',' or '}'; expected a Hugging Face config.json object" },
		{ "{\"model_type\": \"bert\"}",
		  "cfg.json:1:16: error: unsupported model_type 'bert'; expected one of llama, mistral, mixtral, qwen2, gemma, gpt2" },
		{ "{\"hidden_size\": 4096}",
		  "cfg.json:1:1: error: missing \"model_type\" in config.json; expected one of llama, mistral, mixtral, qwen2, gemma, gpt2" },
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
