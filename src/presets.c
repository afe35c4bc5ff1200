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
	/* Shapes from the released config.json files in tests/fixtures/hf
	 * (the tests parse those files too and get the same models). */
	{ "qwen3-8b", "Qwen3 8B",
	  "Qwen/Qwen3-8B config.json (per-head q/k norms, head_dim 128)",
	  8190735360.0,
	  { .has_shape = true, .layers = 36, .hidden = 4096, .heads = 32,
	    .kv_heads = 8, .head_dim = 128, .ffn_hidden = 12288, .vocab = 151936,
	    .mlp = TB_MLP_GATED, .norm = TB_NORM_RMSNORM, .positions = TB_POS_ROPE,
	    .qk_norm = TB_QKNORM_HEAD, S_DENSE } },
	{ "gemma-2-9b", "Gemma 2 9B",
	  "google/gemma-2-9b config.json (sandwich norms, 4096-token window on every other layer)",
	  9241705984.0,
	  { .has_shape = true, .layers = 42, .hidden = 3584, .heads = 16,
	    .kv_heads = 8, .head_dim = 256, .ffn_hidden = 14336, .vocab = 256000,
	    .mlp = TB_MLP_GATED, .norm = TB_NORM_RMSNORM, .positions = TB_POS_ROPE,
	    .tied_embeddings = true, .norms_per_layer = 4, .window = 4096,
	    .window_layers = 21, S_DENSE } },
	{ "phi-3-mini", "Phi-3 mini (4k)",
	  "microsoft/Phi-3-mini-4k-instruct config.json (2047-token window)",
	  3821079552.0,
	  { .has_shape = true, .layers = 32, .hidden = 3072, .heads = 32,
	    .kv_heads = 32, .head_dim = 96, .ffn_hidden = 8192, .vocab = 32064,
	    .mlp = TB_MLP_GATED, .norm = TB_NORM_RMSNORM, .positions = TB_POS_ROPE,
	    .window = 2047, .window_layers = 32, S_DENSE } },
	{ "olmo-2-7b", "OLMo 2 7B",
	  "allenai/OLMo-2-1124-7B config.json (q/k norms over all heads)",
	  7298617344.0,
	  { .has_shape = true, .layers = 32, .hidden = 4096, .heads = 32,
	    .kv_heads = 32, .head_dim = 128, .ffn_hidden = 11008, .vocab = 100352,
	    .mlp = TB_MLP_GATED, .norm = TB_NORM_RMSNORM, .positions = TB_POS_ROPE,
	    .qk_norm = TB_QKNORM_FULL, S_DENSE } },
	{ "qwen1.5-moe-a2.7b", "Qwen1.5-MoE-A2.7B",
	  "Qwen/Qwen1.5-MoE-A2.7B config.json (60 experts of 1408, 4 routed, a gated shared expert)",
	  14315784192.0,
	  { .has_shape = true, .layers = 24, .hidden = 2048, .heads = 16,
	    .kv_heads = 16, .head_dim = 128, .ffn_hidden = 5632, .vocab = 151936,
	    .mlp = TB_MLP_GATED, .norm = TB_NORM_RMSNORM, .positions = TB_POS_ROPE,
	    .qkv_bias = true, .experts = 60, .experts_per_token = 4,
	    .expert_ffn_hidden = 1408, .shared_ffn_hidden = 5632,
	    .shared_expert_gate = true } },
	{ "deepseek-v2-lite", "DeepSeek-V2-Lite",
	  "deepseek-ai/DeepSeek-V2-Lite config.json (MLA, 64 experts, 6 routed, 2 shared)",
	  15706484224.0,
	  { .has_shape = true, .layers = 27, .hidden = 2048, .heads = 16,
	    .kv_heads = 16, .head_dim = 192, .ffn_hidden = 10944, .vocab = 102400,
	    .mlp = TB_MLP_GATED, .norm = TB_NORM_RMSNORM, .positions = TB_POS_ROPE,
	    .kv_lora_rank = 512, .qk_nope_dim = 128, .qk_rope_dim = 64,
	    .v_head_dim = 128, .experts = 64, .experts_per_token = 6,
	    .expert_ffn_hidden = 1408, .shared_ffn_hidden = 2816, .dense_layers = 1 } },
	/* DeepSeek states the main model as "671B" (README_WEIGHTS.md); the
	 * multi-token-prediction module is reported apart, not counted. */
	{ "deepseek-v3", "DeepSeek-V3",
	  "deepseek-ai/DeepSeek-V3 config.json; README_WEIGHTS.md (671B main model, MTP apart)",
	  671e9,
	  { .has_shape = true, .layers = 61, .hidden = 7168, .heads = 128,
	    .kv_heads = 128, .head_dim = 192, .ffn_hidden = 18432, .vocab = 129280,
	    .mlp = TB_MLP_GATED, .norm = TB_NORM_RMSNORM, .positions = TB_POS_ROPE,
	    .q_lora_rank = 1536, .kv_lora_rank = 512, .qk_nope_dim = 128,
	    .qk_rope_dim = 64, .v_head_dim = 128, .experts = 256,
	    .experts_per_token = 8, .expert_ffn_hidden = 2048,
	    .shared_ffn_hidden = 2048, .dense_layers = 3, .router_bias = true,
	    .route_groups = 8, .route_groups_per_token = 4, .mtp_modules = 1 } },
	/* OpenAI's model card: 116.83B and 20.91B parameters, 5.13B and 3.61B
	 * active (the unembedding counted, the embedding not); every linear
	 * layer has a bias, every head a learned sink, even layers a 128-token
	 * window */
	{ "gpt-oss-120b", "gpt-oss-120b",
	  "openai/gpt-oss-120b config.json; OpenAI gpt-oss model card (116.83B, 5.13B active)",
	  116.83e9,
	  { .has_shape = true, .layers = 36, .hidden = 2880, .heads = 64,
	    .kv_heads = 8, .head_dim = 64, .ffn_hidden = 2880, .vocab = 201088,
	    .mlp = TB_MLP_GATED, .norm = TB_NORM_RMSNORM, .positions = TB_POS_ROPE,
	    .attn_bias = true, .mlp_bias = true, .router_bias = true, .attn_sinks = true,
	    .window = 128, .window_layers = 18, .experts = 128, .experts_per_token = 4,
	    .expert_ffn_hidden = 2880 } },
	{ "gpt-oss-20b", "gpt-oss-20b",
	  "openai/gpt-oss-20b config.json; OpenAI gpt-oss model card (20.91B, 3.61B active)",
	  20.91e9,
	  { .has_shape = true, .layers = 24, .hidden = 2880, .heads = 64,
	    .kv_heads = 8, .head_dim = 64, .ffn_hidden = 2880, .vocab = 201088,
	    .mlp = TB_MLP_GATED, .norm = TB_NORM_RMSNORM, .positions = TB_POS_ROPE,
	    .attn_bias = true, .mlp_bias = true, .router_bias = true, .attn_sinks = true,
	    .window = 128, .window_layers = 12, .experts = 32, .experts_per_token = 4,
	    .expert_ffn_hidden = 2880 } },
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
