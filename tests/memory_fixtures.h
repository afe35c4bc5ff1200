/* memory_fixtures.h: model shapes the memory tests share. */
#ifndef TB_TESTS_MEMORY_FIXTURES_H
#define TB_TESTS_MEMORY_FIXTURES_H

#include "trainbudget/inputs.h"

/* A GPT-style shape as Korthikanti et al. 2022 assume it: multi-head
 * attention, a plain 4h MLP, two LayerNorms, learned positions. */
static inline void S_gpt_shape(tb_inputs *in, int64_t L, int64_t h, int64_t a, int64_t V)
{
	in->model.has_shape = true;
	in->model.layers = L; in->model.hidden = h; in->model.heads = a;
	in->model.kv_heads = a; in->model.head_dim = h / a; in->model.ffn_hidden = 4 * h;
	in->model.vocab = V; in->model.mlp = TB_MLP_PLAIN;
	in->model.norm = TB_NORM_LAYERNORM; in->model.positions = TB_POS_LEARNED;
	in->model.max_positions = 2048;
}

#endif
