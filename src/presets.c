/* presets.c: model shapes from published configs and papers (kilo's HLDB).
 *
 * official_params is the count the publisher states (Hugging Face's
 * safetensors total for released checkpoints, the paper's figure for the
 * others); tests pin params.c against it.  Dense models have experts = 0
 * and experts_per_token = 1. */
#include "trainbudget/presets.h"

#include <string.h>

#define S_DENSE .experts = 0, .experts_per_token = 1
#define S_LLAMA(L, H, NH, KV, FFN, V) \
	{ .has_shape = true, .layers = (L), .hidden = (H), .heads = (NH), \
	  .kv_heads = (KV), .head_dim = (H) / (NH), .ffn_hidden = (FFN), \
	  .vocab = (V), .mlp = TB_MLP_GATED, .norm = TB_NORM_RMSNORM, \
	  .positions = TB_POS_ROPE, .tied_embeddings = false, S_DENSE }
#define S_GPT(L, H, NH, FFN, V, POS) \
	{ .has_shape = true, .layers = (L), .hidden = (H), .heads = (NH), \
	  .kv_heads = (NH), .head_dim = (H) / (NH), .ffn_hidden = (FFN), \
	  .vocab = (V), .max_positions = (POS), .mlp = TB_MLP_PLAIN, \
	  .norm = TB_NORM_LAYERNORM, .positions = TB_POS_LEARNED, \
	  .tied_embeddings = true, .bias = true, S_DENSE }

static const tb_preset S_presets[] = {
	{ "llama-2-7b", "Llama 2 7B",
	  "meta-llama/Llama-2-7b-hf config.json; Touvron et al. 2023, Table 1",
	  6738415616.0, S_LLAMA(32, 4096, 32, 32, 11008, 32000) },
	{ "llama-2-13b", "Llama 2 13B",
	  "meta-llama/Llama-2-13b-hf config.json; Touvron et al. 2023, Table 1",
	  13015864320.0, S_LLAMA(40, 5120, 40, 40, 13824, 32000) },
	{ "llama-2-70b", "Llama 2 70B",
	  "meta-llama/Llama-2-70b-hf config.json (GQA, 8 KV heads)",
	  68976648192.0, S_LLAMA(80, 8192, 64, 8, 28672, 32000) },
	{ "llama-3-8b", "Llama 3 8B",
	  "meta-llama/Meta-Llama-3-8B config.json",
	  8030261248.0, S_LLAMA(32, 4096, 32, 8, 14336, 128256) },
	{ "llama-3-70b", "Llama 3 70B",
	  "meta-llama/Meta-Llama-3-70B config.json",
	  70553706496.0, S_LLAMA(80, 8192, 64, 8, 28672, 128256) },
	{ "llama-3.1-8b", "Llama 3.1 8B",
	  "meta-llama/Llama-3.1-8B config.json",
	  8030261248.0, S_LLAMA(32, 4096, 32, 8, 14336, 128256) },
	{ "llama-3.1-70b", "Llama 3.1 70B",
	  "meta-llama/Llama-3.1-70B config.json",
	  70553706496.0, S_LLAMA(80, 8192, 64, 8, 28672, 128256) },
	{ "llama-3.1-405b", "Llama 3.1 405B",
	  "meta-llama/Llama-3.1-405B config.json; Llama 3 Herd paper, Table 3",
	  405853388800.0, S_LLAMA(126, 16384, 128, 8, 53248, 128256) },
	{ "mistral-7b", "Mistral 7B",
	  "mistralai/Mistral-7B-v0.1 config.json; Jiang et al. 2023, Table 1",
	  7241732096.0, S_LLAMA(32, 4096, 32, 8, 14336, 32000) },
	{ "mixtral-8x7b", "Mixtral 8x7B",
	  "mistralai/Mixtral-8x7B-v0.1 config.json; Jiang et al. 2024, Table 1",
	  46702792704.0,
	  { .has_shape = true, .layers = 32, .hidden = 4096, .heads = 32,
	    .kv_heads = 8, .head_dim = 128, .ffn_hidden = 14336, .vocab = 32000,
	    .mlp = TB_MLP_GATED, .norm = TB_NORM_RMSNORM, .positions = TB_POS_ROPE,
	    .experts = 8, .experts_per_token = 2 } },
	{ "gpt2", "GPT-2 small (124M)",
	  "openai-community/gpt2 config.json (n_ctx 1024, tied output)",
	  124439808.0, S_GPT(12, 768, 12, 3072, 50257, 1024) },
	{ "gpt2-medium", "GPT-2 medium (355M)",
	  "openai-community/gpt2-medium config.json",
	  354823168.0, S_GPT(24, 1024, 16, 4096, 50257, 1024) },
	{ "gpt2-large", "GPT-2 large (774M)",
	  "openai-community/gpt2-large config.json",
	  774030080.0, S_GPT(36, 1280, 20, 5120, 50257, 1024) },
	{ "gpt2-xl", "GPT-2 XL (1.5B)",
	  "openai-community/gpt2-xl config.json",
	  1557611200.0, S_GPT(48, 1600, 25, 6400, 50257, 1024) },
	{ "gpt3-175b", "GPT-3 175B",
	  "Brown et al. 2020, Table 2.1 (n_ctx 2048, d_ff = 4 d_model, GPT-2 vocabulary)",
	  175e9, S_GPT(96, 12288, 96, 49152, 50257, 2048) },
	/* Table 4 gives layers, heads, key size and d_model; the feed-forward
	 * width is Gopher's 4 x d_model, which counts 64.7B against the
	 * paper's nominal 70B.  Relative positions add no parameters. */
	{ "chinchilla-70b", "Chinchilla 70B",
	  "Hoffmann et al. 2022, Table 4; Rae et al. 2021 (Gopher) for ffn = 4 d_model, RMSNorm, 32k vocabulary",
	  70e9,
	  { .has_shape = true, .layers = 80, .hidden = 8192, .heads = 64,
	    .kv_heads = 64, .head_dim = 128, .ffn_hidden = 32768, .vocab = 32000,
	    .mlp = TB_MLP_PLAIN, .norm = TB_NORM_RMSNORM, .positions = TB_POS_NONE,
	    .tied_embeddings = false, S_DENSE } },
};

size_t tb_presets_count(void)
{
	return sizeof S_presets / sizeof *S_presets;
}

const tb_preset *tb_presets_at(size_t i)
{
	return i < tb_presets_count() ? &S_presets[i] : NULL;
}

const tb_preset *tb_presets_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < tb_presets_count(); i++)
		if (strcmp(S_presets[i].name, name) == 0)
			return &S_presets[i];
	return NULL;
}
