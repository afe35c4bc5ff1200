/* Presets: shapes as published, and the published parameter counts
 * reproduced from the shape by the standard transformer count (written out
 * here, independently of params.c). */
#include <criterion/criterion.h>
#include <string.h>

#include "trainbudget/presets.h"

static double S_count(const tb_model *m)
{
	double h = (double)m->hidden, hd = (double)m->head_dim;
	double attn = h * m->heads * hd * 2 + h * m->kv_heads * hd * 2;
	if (m->bias)
		attn += m->heads * hd + 2 * m->kv_heads * hd + h;
	double mlp = (m->mlp == TB_MLP_GATED ? 3 : 2) * h * m->ffn_hidden;
	if (m->bias)
		mlp += m->ffn_hidden + h;
	double experts = m->experts > 1 ? (double)m->experts : 1;
	double router = m->experts > 1 ? h * m->experts : 0;
	double norms = m->norm == TB_NORM_RMSNORM ? 2 * h : 4 * h;
	double final_norm = m->norm == TB_NORM_RMSNORM ? h : 2 * h;
	double emb = (double)m->vocab * h + (double)m->max_positions * h;
	double out = m->tied_embeddings ? 0 : (double)m->vocab * h;
	return m->layers * (attn + mlp * experts + router + norms) + emb + out + final_norm;
}

Test(presets, published_counts_exact)
{
	/* Hugging Face safetensors totals. */
	static const struct { const char *name; double count; } want[] = {
		{ "llama-2-7b", 6738415616.0 }, { "llama-2-13b", 13015864320.0 },
		{ "llama-2-70b", 68976648192.0 }, { "llama-3-8b", 8030261248.0 },
		{ "llama-3-70b", 70553706496.0 }, { "llama-3.1-8b", 8030261248.0 },
		{ "llama-3.1-70b", 70553706496.0 }, { "llama-3.1-405b", 405853388800.0 },
		{ "mistral-7b", 7241732096.0 }, { "mixtral-8x7b", 46702792704.0 },
		{ "gpt2", 124439808.0 }, { "gpt2-medium", 354823168.0 },
		{ "gpt2-large", 774030080.0 }, { "gpt2-xl", 1557611200.0 },
	};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		const tb_preset *p = tb_presets_find(want[i].name);
		cr_assert_not_null(p, "%s missing", want[i].name);
		cr_assert_eq(p->official_params, want[i].count, "%s official", want[i].name);
		cr_assert_eq(S_count(&p->model), want[i].count, "%s: shape counts %.0f", want[i].name, S_count(&p->model));
	}
}

Test(presets, paper_models_nominal)
{
	/* GPT-3: Brown et al. Table 2.1 says 175.0B; the shape gives 174.6B. */
	const tb_preset *g = tb_presets_find("gpt3-175b");
	cr_assert_not_null(g);
	cr_assert_eq(g->model.layers, 96);
	cr_assert_eq(g->model.hidden, 12288);
	cr_assert_eq(g->model.heads, 96);
	cr_assert_eq(g->model.max_positions, 2048);
	cr_assert_float_eq(S_count(&g->model), 175e9, 0.005 * 175e9);
	/* Chinchilla: Hoffmann et al. Table 4; nominal 70B. */
	const tb_preset *c = tb_presets_find("chinchilla-70b");
	cr_assert_not_null(c);
	cr_assert_eq(c->model.layers, 80);
	cr_assert_eq(c->model.hidden, 8192);
	cr_assert_eq(c->model.heads, 64);
	cr_assert_eq(c->model.head_dim, 128);
	cr_assert_eq(c->model.vocab, 32000);
	cr_assert_float_eq(S_count(&c->model), 70e9, 0.1 * 70e9);
}

Test(presets, table_is_well_formed)
{
	cr_assert_geq(tb_presets_count(), 16);
	for (size_t i = 0; i < tb_presets_count(); i++) {
		const tb_preset *p = tb_presets_at(i);
		const tb_model *m = &p->model;
		cr_assert(m->has_shape, "%s", p->name);
		cr_assert(strlen(p->name) < sizeof m->preset, "%s", p->name);
		cr_assert(p->source && p->source[0], "%s has no source", p->name);
		cr_assert_eq(m->heads % m->kv_heads, 0, "%s", p->name);
		cr_assert_geq(m->experts_per_token, 1, "%s", p->name);
		cr_assert_eq(tb_presets_find(p->name), p);
	}
	cr_assert_null(tb_presets_at(tb_presets_count()));
	cr_assert_null(tb_presets_find("llama-2-7c"));
	cr_assert_null(tb_presets_find(NULL));
}
