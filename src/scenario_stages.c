/* scenario_stages.c: a run in stages (`stages:`), as Llama 3 and
 * DeepSeek-V3 were trained: pre-training, long-context extension,
 * annealing or post-training, each at its own sequence, batch, layout,
 * precision or method.  Each stage is the scenario with the stage's
 * `training` and `parallelism` keys laid over it, loaded through the same
 * sections and checks as any scenario, so a stage prices exactly as the
 * same scenario written alone would.  The model and the hardware are the
 * run's: a stage cannot change them. */
#include "scenario_sections.h"
#include "trainbudget/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const S_stage_keys[] = { "name", "training", "parallelism" };
static const char S_expected[] =
	"a list of stages such as [{name: 8k, training: {tokens: 15T}}, "
	"{name: long context, training: {tokens: 800B, seq_len: 128k}}]";

/* The stage's keys of `section` over the tree's own, key by key: what the
 * stage does not say is the scenario's. */
static void S_overlay(tb_yaml_node *tree, const tb_yaml_node *stage, const char *section)
{
	long si = tb_yaml_find(stage, section);
	if (si < 0 || stage->vals[si]->kind != TB_YAML_MAP)
		return;
	const tb_yaml_node *sv = stage->vals[si];
	long at = tb_yaml_find(tree, section);
	if (at < 0) {
		tb_yaml_append(tree, tb_yaml_node_copy(stage->keys[si]), tb_yaml_node_copy(sv));
		return;
	}
	if (tree->vals[at]->kind != TB_YAML_MAP) {
		tb_yaml_node_free(tree->vals[at]);
		tree->vals[at] = tb_yaml_node_copy(sv);
		return;
	}
	tb_yaml_node *dst = tree->vals[at];
	for (size_t i = 0; i < sv->n; i++) {
		if (sv->keys[i]->dup || !sv->keys[i]->str)
			continue;
		long j = tb_yaml_find(dst, sv->keys[i]->str);
		if (j >= 0) {
			tb_yaml_node_free(dst->vals[j]);
			dst->vals[j] = tb_yaml_node_copy(sv->vals[i]);
		} else {
			tb_yaml_append(dst, tb_yaml_node_copy(sv->keys[i]), tb_yaml_node_copy(sv->vals[i]));
		}
	}
}

/* The stage's shape: a mapping of name, training and parallelism, at
 * least one of the last two not empty, its tokens written.  Fills *name. */
static bool S_stage_shape(tb_yaml_ctx *c, const tb_yaml_node *st, int i, char name[64])
{
	snprintf(name, 64, "stage %d", i + 1);
	if (st->kind != TB_YAML_MAP) {
		tb_yaml_err(c, st, "stage %d is %s; expected a mapping of name, training and parallelism",
		            i + 1, tb_yaml_kind_name(st));
		return false;
	}
	bool ok = true;
	for (size_t k = 0; k < st->n; k++) {
		const tb_yaml_node *key = st->keys[k];
		if (key->dup || !key->str || tb_yaml_in(key->str, S_stage_keys, TB_N(S_stage_keys)))
			continue;
		if (strcmp(key->str, "model") == 0 || strcmp(key->str, "hardware") == 0) {
			tb_yaml_err(c, key, "stage %d sets %s: a stage cannot change the %s, which every "
			            "stage shares; expected name, training or parallelism (a run on another "
			            "%s is a scenario of its own)", i + 1, key->str, key->str,
			            strcmp(key->str, "model") == 0 ? "model" : "cluster");
		} else {
			char sh[48];
			tb_yaml_err(c, key, "unknown key '%s' in stage %d; expected name, training or "
			            "parallelism", tb_yaml_show(key->str, sh), i + 1);
		}
		ok = false;
	}
	const tb_yaml_node *n = tb_yaml_get(st, "name");
	if (n) {
		char *s = tb_yaml_string(c, n, "stages.name", 60, true);
		if (s && s[0])
			snprintf(name, 64, "%s", s);
		else if (s)
			tb_yaml_err(c, n, "stage %d has an empty name; expected a short name such as "
			            "\"long context\"", i + 1);
		ok = ok && s && s[0];
		free(s);
	}
	const tb_yaml_node *tr = tb_yaml_get(st, "training");
	const tb_yaml_node *pa = tb_yaml_get(st, "parallelism");
	for (int k = 0; k < 2; k++) {
		const tb_yaml_node *m = k ? pa : tr;
		if (m && m->kind != TB_YAML_MAP && !(m->kind == TB_YAML_SCALAR && !m->quoted &&
		                                     (!m->str || !m->str[0]))) {
			tb_yaml_err(c, m, "stage '%s': %s is %s; expected a mapping of %s keys", name,
			            k ? "parallelism" : "training", tb_yaml_kind_name(m),
			            k ? "parallelism" : "training");
			ok = false;
		}
	}
	if (!ok)
		return false;
	bool has_tr = tr && tr->kind == TB_YAML_MAP && tr->n > 0;
	bool has_pa = pa && pa->kind == TB_YAML_MAP && pa->n > 0;
	if (!has_tr && !has_pa) {
		tb_yaml_err(c, st, "stage '%s' is empty; expected its training keys (tokens at "
		            "least) and any parallelism keys it changes", name);
		return false;
	}
	if (!has_tr || !tb_yaml_get(tr, "tokens")) {
		tb_yaml_err(c, has_tr ? tr : st, "stage '%s' has no training.tokens; expected the tokens "
		            "this stage trains, such as 800B", name);
		return false;
	}
	return true;
}

/* The defaults a stage's load adapted that the scenario's own did not,
 * said with the stage's name, so the documents list them among the
 * assumptions like the scenario's. */
static void S_adapted(tb_scenario *sc, const tb_scenario *st, const char *name)
{
	for (size_t k = 0; k < st->nadapted; k++) {
		const tb_scenario_adapted *a = &st->adapted[k];
		bool known = false;
		for (size_t j = 0; j < sc->nadapted && !known; j++)
			known = strcmp(sc->adapted[j].key, a->key) == 0 &&
			        strcmp(sc->adapted[j].value, a->value) == 0;
		if (!known)
			tb_scenario_adapt(sc, a->key, a->value, a->deflt, "in stage '%s': %s", name, a->why);
	}
}

bool tb_scenario_load_stages(tb_yaml_ctx *c, const tb_yaml_node *root, tb_scenario *sc,
                             tb_scenario_loader *load)
{
	const tb_yaml_node *sn = tb_yaml_get(root, "stages");
	size_t errors0 = c->d->errors;
	if (sn->kind != TB_YAML_SEQ) {
		tb_yaml_err(c, sn, "stages is %s; expected %s", tb_yaml_kind_name(sn), S_expected);
		return false;
	}
	if (sn->n == 0 || sn->n > TB_STAGES_MAX) {
		tb_yaml_err(c, sn, "stages has %zu stages; expected 1 to %d: %s", sn->n, TB_STAGES_MAX,
		            S_expected);
		return false;
	}
	int n = (int)sn->n;
	char names[TB_STAGES_MAX][64];
	bool ok = true;
	for (int i = 0; i < n; i++) {
		if (!S_stage_shape(c, sn->vals[i], i, names[i]))
			ok = false;
		for (int j = 0; ok && j < i; j++) {
			if (strcmp(names[i], names[j]) == 0) {
				const tb_yaml_node *nm = tb_yaml_get(sn->vals[i], "name");
				tb_yaml_err(c, nm ? nm : sn->vals[i], "stage %d is named '%s' like stage %d; "
				            "expected a name of its own", i + 1, names[i], j + 1);
				ok = false;
			}
		}
	}
	if (!ok)
		return false;

	/* the scenario without its stages: checked once, so that its own
	 * errors are said once; a total it lacks is the stages' (a stand-in
	 * until they are read) */
	tb_yaml_node *base = tb_yaml_node_copy(root);
	tb_yaml_remove(base, (size_t)tb_yaml_find(base, "stages"));
	const tb_yaml_node *btr = tb_yaml_child_map(root, "training");
	const tb_yaml_node *written = btr ? tb_yaml_get(btr, "tokens") : NULL;
	if (!written) {
		/* {training: {tokens: 1}} laid over it */
		tb_yaml_node *wrap = tb_yaml_node_new(c, TB_YAML_MAP, sn->src, sn->line, sn->col);
		tb_yaml_node *wk = tb_yaml_node_new(c, TB_YAML_SCALAR, sn->src, sn->line, sn->col);
		tb_yaml_node *t = tb_yaml_node_new(c, TB_YAML_MAP, sn->src, sn->line, sn->col);
		tb_yaml_node *k = tb_yaml_node_new(c, TB_YAML_SCALAR, sn->src, sn->line, sn->col);
		tb_yaml_node *v = tb_yaml_node_new(c, TB_YAML_SCALAR, sn->src, sn->line, sn->col);
		wk->str = tb_xstrdup("training");
		k->str = tb_xstrdup("tokens");
		v->str = tb_xstrdup("1");
		tb_yaml_append(t, k, v);
		tb_yaml_append(wrap, wk, t);
		S_overlay(base, wrap, "training");
		tb_yaml_node_free(wrap);
	}
	if (!load(c, base, sc) || c->d->errors > errors0) {
		tb_yaml_node_free(base);
		return false;
	}

	sc->stages = tb_xcalloc((size_t)n, sizeof *sc->stages);
	sc->nstages = n;
	double total = 0, data = 0;
	bool all = true;
	for (int i = 0; i < n; i++) {
		tb_yaml_node *tree = tb_yaml_node_copy(base);
		S_overlay(tree, sn->vals[i], "training");
		S_overlay(tree, sn->vals[i], "parallelism");
		tb_scenario *st = tb_xcalloc(1, sizeof *st);
		size_t before = c->d->errors;
		bool good = load(c, tree, st) && c->d->errors == before;
		if (good) {
			snprintf(sc->stages[i].name, sizeof sc->stages[i].name, "%s", names[i]);
			sc->stages[i].inputs = st->inputs;
			S_adapted(sc, st, names[i]);
			total += st->inputs.training.tokens;
			data += st->inputs.training.data_tokens;
		}
		all = all && good;
		tb_scenario_free(st);
		tb_yaml_node_free(tree);
	}
	tb_yaml_node_free(base);
	if (!all)
		return c->d->errors == errors0;
	if (written && fabs(sc->inputs.training.data_tokens - data) > 1e-9 * data) {
		tb_yaml_err(c, written, "training.tokens (%.6g) is not the stages' total (%.6g); expected "
		            "their sum, or no training.tokens beside stages",
		            sc->inputs.training.data_tokens, data);
		return true;
	}
	/* the run as a whole: every stage's tokens (as processed, padding
	 * included, and as the data holds them) */
	sc->inputs.training.tokens = total;
	sc->inputs.training.data_tokens = data;
	sc->inputs.training.padding_fraction = total > 0 ? 1 - data / total : 0;
	return true;
}
