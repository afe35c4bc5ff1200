/* scenario_model.c: the model section: a preset, a Hugging Face
 * config.json, an explicit shape (over a preset or alone), or a parameter
 * count alone for a count-only budget; then the shape's own consistency
 * (heads divide hidden, kv_heads divide heads, experts, positions). */
#include "scenario_sections.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/fileio.h"
#include "trainbudget/hfconfig.h"
#include "trainbudget/presets.h"
#include "trainbudget/xalloc.h"

#define S_MAX_HF_BYTES (16u << 20)

static const char *const S_keys[] = {
	"preset", "hf_config", "params", "layers", "hidden", "heads", "kv_heads",
	"head_dim", "ffn_hidden", "mlp", "vocab", "tied_embeddings", "norm",
	"bias", "qkv_bias", "positions", "max_positions", "experts",
	"experts_per_token",
};

static const char *const S_mlp_names[] = { "gated", "plain" };
static const char *const S_norm_names[] = { "rmsnorm", "layernorm" };
static const char *const S_pos_names[] = { "rope", "learned", "alibi", "none" };

char *tb_scenario_dir_join(const char *scenario_path, const char *rel)
{
	tb_buf b;
	tb_buf_init(&b);
	const char *slash = scenario_path ? strrchr(scenario_path, '/') : NULL;
	if (rel[0] != '/' && slash && scenario_path[0] != '<')
		tb_buf_put(&b, scenario_path, (size_t)(slash - scenario_path) + 1);
	tb_buf_puts(&b, rel);
	return tb_buf_detach(&b, NULL);
}

char *tb_scenario_read_named(tb_yaml_ctx *c, const tb_yaml_node *n, const char *key,
                             const char *name, const char *scalar, const char *what,
                             size_t cap, const char *too_big, const char **rel, char **path,
                             size_t *len)
{
	*path = NULL;
	*rel = tb_yaml_scalar(c, n, key, scalar);
	if (!*rel)
		return NULL;
	/* A path typed in a --set is the shell's: relative to the working
	 * directory, not to the scenario file. */
	bool from_set = n->src && n->src->col_offset != 0;
	*path = tb_scenario_dir_join(from_set ? NULL : c->path, *rel);
	char *text = tb_fileio_slurp(*path, cap, len);
	if (!text) {
		char sh[48];
		tb_yaml_err(c, n, "cannot read %s '%s' (%s); expected %s path relative to the scenario file",
		            name, tb_yaml_show(*rel, sh), errno == EFBIG ? too_big : tb_fileio_why(errno),
		            what);
		free(*path);
		*path = NULL;
	}
	return text;
}

/* Whether a preset or a config.json was loaded into *m.  A config.json
 * joins the inputs the report's hash covers, hashed from the bytes parsed
 * and named as the scenario names it (relative to the scenario). */
static bool S_model_base(tb_yaml_ctx *c, const tb_yaml_node *mm, tb_model *m,
                         tb_signoff *so, bool *failed)
{
	const tb_yaml_node *pn = tb_yaml_get(mm, "preset"), *hn = tb_yaml_get(mm, "hf_config");
	if (pn && hn) {
		tb_yaml_err(c, hn, "model.preset and model.hf_config are both given; expected one of them");
		*failed = true;
		return false;
	}
	if (pn) {
		const char *name = tb_yaml_scalar(c, pn, "model.preset", "a preset name from `trainbudget models`");
		if (!name) {
			*failed = true;
			return false;
		}
		const tb_preset *p = tb_presets_find(name);
		if (!p) {
			const char *names[64];
			size_t n = 0;
			for (size_t i = 0; i < tb_presets_count() && n < TB_N(names); i++)
				names[n++] = tb_presets_at(i)->name;
			const char *sugg = tb_diags_suggest(name, names, n);
			char sh[48];
			if (sugg)
				tb_yaml_err(c, pn, "unknown model preset '%s'; did you mean '%s'?", tb_yaml_show(name, sh), sugg);
			else
				tb_yaml_err(c, pn, "unknown model preset '%s'; expected a name from `trainbudget models`",
				            tb_yaml_show(name, sh));
			*failed = true;
			return false;
		}
		*m = p->model;
		snprintf(m->preset, sizeof m->preset, "%s", p->name);
		return true;
	}
	if (hn) {
		const char *rel;
		char *path;
		size_t len = 0;
		char *text = tb_scenario_read_named(c, hn, "model.hf_config", "hf_config",
		                                    "a path to a Hugging Face config.json", "a config.json",
		                                    S_MAX_HF_BYTES, "larger than 16 MiB", &rel, &path, &len);
		if (!text) {
			*failed = true;
			return false;
		}
		int rc = tb_hfconfig_parse(path, text, len, m, c->d);
		if (rc == 0)
			tb_signoff_add(so, TB_INPUT_HF_CONFIG, rel, text, len);
		free(text);
		free(path);
		if (rc != 0) {
			*failed = true;
			return false;
		}
		return true;
	}
	return false;
}

#define S_SHAPE_INTS 10

static void S_load_model(tb_yaml_ctx *c, const tb_yaml_node *root, tb_model *m,
                         tb_signoff *so)
{
	memset(m, 0, sizeof *m);
	const tb_yaml_node *mm = tb_yaml_get_map(c, root, "model");
	if (!mm) {
		if (!tb_yaml_get(root, "model"))
			tb_yaml_err(c, root, "missing key 'model'; expected a preset, hf_config, explicit shape or params");
		return;
	}
	bool failed = false;
	bool have_base = S_model_base(c, mm, m, so, &failed);
	const tb_model base = *m;

	static const char *const int_keys[S_SHAPE_INTS] = {
		"layers", "hidden", "heads", "kv_heads", "head_dim", "ffn_hidden",
		"vocab", "max_positions", "experts", "experts_per_token",
	};
	static const int64_t int_max[S_SHAPE_INTS] = {
		10000, 1000000, 100000, 100000, 100000, 10000000,
		100000000, 100000000, 100000, 100000,
	};
	int64_t *int_dst[S_SHAPE_INTS] = {
		&m->layers, &m->hidden, &m->heads, &m->kv_heads, &m->head_dim,
		&m->ffn_hidden, &m->vocab, &m->max_positions, &m->experts,
		&m->experts_per_token,
	};
	bool given[S_SHAPE_INTS] = { false };
	bool any_shape = false;
	char name[48];
	for (size_t i = 0; i < S_SHAPE_INTS; i++) {
		const tb_yaml_node *n = tb_yaml_get(mm, int_keys[i]);
		if (!n)
			continue;
		any_shape = true;
		snprintf(name, sizeof name, "model.%s", int_keys[i]);
		int64_t lo = (i == 7 || i == 8) ? 0 : 1;
		if (tb_yaml_int(c, n, name, lo, int_max[i], int_dst[i]))
			given[i] = true;
		else
			failed = true;
	}
	const tb_yaml_node *n;
	int e;
	if ((n = tb_yaml_get(mm, "mlp"))) {
		any_shape = true;
		if (tb_yaml_enum(c, n, "model.mlp", S_mlp_names, TB_N(S_mlp_names), &e)) m->mlp = (tb_mlp)e; else failed = true;
	} else if (!have_base) {
		m->mlp = TB_MLP_GATED;
	}
	if ((n = tb_yaml_get(mm, "norm"))) {
		any_shape = true;
		if (tb_yaml_enum(c, n, "model.norm", S_norm_names, TB_N(S_norm_names), &e)) m->norm = (tb_norm)e; else failed = true;
	}
	bool pos_given = false;
	if ((n = tb_yaml_get(mm, "positions"))) {
		any_shape = true;
		pos_given = true;
		if (tb_yaml_enum(c, n, "model.positions", S_pos_names, TB_N(S_pos_names), &e)) m->positions = (tb_positions)e; else failed = true;
	}
	static const char *const bool_keys[] = { "tied_embeddings", "bias", "qkv_bias" };
	bool *bool_dst[] = { &m->tied_embeddings, &m->bias, &m->qkv_bias };
	for (size_t i = 0; i < TB_N(bool_keys); i++) {
		if (!(n = tb_yaml_get(mm, bool_keys[i])))
			continue;
		any_shape = true;
		snprintf(name, sizeof name, "model.%s", bool_keys[i]);
		if (!tb_yaml_bool(c, n, name, bool_dst[i]))
			failed = true;
	}

	const tb_yaml_node *params = tb_yaml_get(mm, "params");
	if (params) {
		if (have_base || any_shape || tb_yaml_get(mm, "preset") || tb_yaml_get(mm, "hf_config")) {
			tb_yaml_err(c, params, "model.params given with a model shape; expected params alone (a count-only budget) or a shape without params");
			return;
		}
		double v = 0;
		if (tb_yaml_quant(c, params, "model.params", TB_YAML_Q_COUNT, "a parameter count such as 7B", 1, 1e16, &v)) {
			memset(m, 0, sizeof *m);
			m->has_shape = false;
			m->params_count = v;
		}
		return;
	}
	if (failed)
		return;
	const tb_yaml_node *mkey = tb_yaml_get_key(root, "model");
	if (!have_base) {
		if (!any_shape) {
			tb_yaml_err(c, mkey, "model has no preset, hf_config, shape or params; expected one of them");
			return;
		}
		static const size_t required[] = { 0, 1, 2, 5, 6 };
		bool missing = false;
		for (size_t i = 0; i < TB_N(required); i++) {
			if (!given[required[i]]) {
				tb_yaml_err(c, mkey, "missing key 'model.%s'; expected it with an explicit shape (or use a preset)",
				            int_keys[required[i]]);
				missing = true;
			}
		}
		if (missing)
			return;
	}
	m->has_shape = true;
	const tb_yaml_node *heads_n = tb_yaml_get(mm, "heads"), *kv_n = tb_yaml_get(mm, "kv_heads");
	const tb_yaml_node *hd_n = tb_yaml_get(mm, "head_dim");
	bool geometry_changed = given[1] || given[2];
	if (!given[4] && (!have_base || geometry_changed)) {
		if (m->hidden % m->heads != 0) {
			char near[64];
			tb_scenario_near(near, sizeof near, "heads", m->heads, 1, m->hidden, tb_scenario_divides, &m->hidden);
			tb_yaml_err(c, heads_n ? heads_n : tb_yaml_get(mm, "hidden"),
			            "model.heads (%lld) does not divide model.hidden (%lld); expected a divisor of hidden, or give head_dim%s",
			            (long long)m->heads, (long long)m->hidden, near);
			failed = true;
		} else {
			m->head_dim = m->hidden / m->heads;
		}
	}
	if (!given[3] && (!have_base || given[2]))
		m->kv_heads = have_base && base.kv_heads < base.heads && given[2] ? base.kv_heads : m->heads;
	if (m->kv_heads > m->heads || m->heads % m->kv_heads != 0) {
		char near[64];
		tb_scenario_near(near, sizeof near, "kv_heads", m->kv_heads, 1, m->heads, tb_scenario_divides, &m->heads);
		tb_yaml_err(c, kv_n ? kv_n : heads_n,
		            "model.kv_heads (%lld) does not divide model.heads (%lld); expected a divisor of heads (equal GQA groups)%s",
		            (long long)m->kv_heads, (long long)m->heads, near);
		failed = true;
	}
	(void)hd_n;
	const tb_yaml_node *ex_n = tb_yaml_get(mm, "experts"), *ept_n = tb_yaml_get(mm, "experts_per_token");
	if (m->experts > 1) {
		if (!given[9] && !(have_base && base.experts > 1))
			m->experts_per_token = 2 < m->experts ? 2 : m->experts;
		if (m->experts_per_token > m->experts) {
			tb_yaml_err(c, ept_n ? ept_n : ex_n,
			            "model.experts_per_token (%lld) is above model.experts (%lld); expected at most the number of experts",
			            (long long)m->experts_per_token, (long long)m->experts);
			failed = true;
		}
	} else {
		if (given[9] && m->experts_per_token > 1) {
			tb_yaml_err(c, ept_n,
			            "model.experts_per_token (%lld) is above model.experts (%lld); expected at most experts (set experts above 1 for a mixture of experts)",
			            (long long)m->experts_per_token, (long long)m->experts);
			failed = true;
		}
		m->experts_per_token = 1;
	}
	if (m->positions == TB_POS_LEARNED) {
		if (!given[7] && !(have_base && base.positions == TB_POS_LEARNED && !pos_given)) {
			tb_yaml_err(c, tb_yaml_get(mm, "positions"),
			            "model.positions is learned but model.max_positions is missing; expected the size of the position table such as 2048");
			failed = true;
		} else if (m->max_positions < 1) {
			tb_yaml_err(c, tb_yaml_get(mm, "max_positions"),
			            "model.max_positions is 0; expected a positive table size with learned positions");
			failed = true;
		}
	} else {
		m->max_positions = 0;
	}
	if (failed)
		m->has_shape = false;
}

/* A bad model leaves has_shape false, which the checks across sections
 * read; it does not stop them. */
static bool S_load(tb_yaml_ctx *c, const tb_yaml_node *root, tb_scenario *sc)
{
	S_load_model(c, root, &sc->inputs.model, &sc->signoff);
	return true;
}

const tb_scenario_section tb_scenario_section_model = {
	"model", S_keys, TB_N(S_keys), NULL, 0, S_load,
};
