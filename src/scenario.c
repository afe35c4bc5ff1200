/* scenario.c: a scenario file -> a located tree -> --set -> checked inputs.
 *
 * The tree (yamltree.c) keeps every value's file:line:col, so a check made
 * long after parsing still points at the value it is about.  --set
 * overrides are parsed as YAML of their own and grafted onto the tree;
 * their nodes point into the "KEY=VALUE" string under the file name
 * "<--set>".  The sections' keys are read by one file each (see
 * scenario_sections.h); this file holds their order, the unknown-key
 * check, --set and the entry points.  Every problem is collected in one
 * pass; any error makes the load return NULL.
 *
 * Untrusted input: input size, nesting depth, node count and every integer
 * are bounded, and aliases are refused (no "billion laughs"). */
#include "trainbudget/scenario.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_sections.h"
#include "trainbudget/fileio.h"
#include "trainbudget/sha256.h"
#include "trainbudget/version.h"
#include "trainbudget/xalloc.h"
#include "utf8.h"

#define S_MAX_FILE_BYTES (4u << 20)

/* ---- the schema: which keys exist where ------------------------------ */

/* The sections in the order their keys are checked and read. */
static const tb_scenario_section *const S_sections[] = {
	&tb_scenario_section_model,
	&tb_scenario_section_training,
	&tb_scenario_section_hardware,
	&tb_scenario_section_parallelism,
	&tb_scenario_section_plan,
	&tb_scenario_section_measured,
};

/* The checks across sections, in order; each may stop the rest. */
static tb_scenario_check *const S_checks[] = {
	tb_scenario_check_sequence,     /* seq_len first: the layout divides it */
	tb_scenario_check_layout,
	tb_scenario_check_hardware,
	tb_scenario_check_tuning,       /* the adapters' targets against the model */
};

/* The top-level keys that are not sections: free text about the run. */
static const char *const S_meta_keys[] = { "title", "author", "date", "notes", "lang" };
/* A list of overrides, each a stage of the run (scenario_stages.c). */
static const char *const S_list_keys[] = { "stages" };

#define S_NTOP (TB_N(S_meta_keys) + TB_N(S_sections) + TB_N(S_list_keys))

/* Every top-level key, in the order messages list them. */
static void S_top_keys(const char *keys[S_NTOP])
{
	size_t k = 0;
	for (size_t i = 0; i < TB_N(S_meta_keys); i++)
		keys[k++] = S_meta_keys[i];
	for (size_t i = 0; i < TB_N(S_sections); i++)
		keys[k++] = S_sections[i]->name;
	for (size_t i = 0; i < TB_N(S_list_keys); i++)
		keys[k++] = S_list_keys[i];
}

static const tb_scenario_section *S_section_find(const char *name)
{
	for (size_t i = 0; i < TB_N(S_sections); i++)
		if (strcmp(S_sections[i]->name, name) == 0)
			return S_sections[i];
	return NULL;
}

static const tb_scenario_subsection *S_subsection_find(const tb_scenario_section *sec,
                                                       const char *name)
{
	for (size_t i = 0; i < sec->nsubs; i++)
		if (strcmp(sec->subs[i].name, name) == 0)
			return &sec->subs[i];
	return NULL;
}

static void S_check_all_keys(tb_yaml_ctx *c, const tb_yaml_node *root)
{
	const char *top[S_NTOP];
	S_top_keys(top);
	tb_yaml_check_keys(c, root, "", top, S_NTOP);
	for (size_t i = 0; i < TB_N(S_sections); i++) {
		const tb_scenario_section *s = S_sections[i];
		const tb_yaml_node *sec = tb_yaml_child_map(root, s->name);
		if (!sec)
			continue;
		char prefix[64];
		snprintf(prefix, sizeof prefix, "%s.", s->name);
		tb_yaml_check_keys(c, sec, prefix, s->keys, s->n);
		for (size_t j = 0; j < s->nsubs; j++) {
			const tb_yaml_node *sub = tb_yaml_child_map(sec, s->subs[j].name);
			if (!sub)
				continue;
			snprintf(prefix, sizeof prefix, "%s.%s.", s->name, s->subs[j].name);
			tb_yaml_check_keys(c, sub, prefix, s->subs[j].keys, s->subs[j].n);
		}
	}
}

/* ---- adapted defaults ------------------------------------------------- */

void tb_scenario_adapt(tb_scenario *sc, const char *key, const char *value, const char *deflt,
                       const char *why, ...)
{
	if (sc->nadapted >= TB_SCENARIO_ADAPTED_MAX)
		return;
	tb_scenario_adapted *a = &sc->adapted[sc->nadapted++];
	snprintf(a->key, sizeof a->key, "%s", key);
	snprintf(a->value, sizeof a->value, "%s", value);
	snprintf(a->deflt, sizeof a->deflt, "%s", deflt);
	va_list ap;
	va_start(ap, why);
	vsnprintf(a->why, sizeof a->why, why, ap);
	va_end(ap);
}

const tb_scenario_adapted *tb_scenario_adapted_find(const tb_scenario *sc, const char *key)
{
	for (size_t i = 0; sc && i < sc->nadapted; i++)
		if (strcmp(sc->adapted[i].key, key) == 0)
			return &sc->adapted[i];
	return NULL;
}

static void S_would(char *out, size_t cap, const char *key, int64_t below, int64_t above)
{
	if (below > 0 && above > 0)
		snprintf(out, cap, ": %s %lld or %lld would work", key, (long long)below, (long long)above);
	else if (below > 0 || above > 0)
		snprintf(out, cap, ": %s %lld would work", key, (long long)(below > 0 ? below : above));
	else if (cap)
		out[0] = '\0';
}

bool tb_scenario_divides(int64_t v, const void *arg)
{
	return v > 0 && *(const int64_t *)arg % v == 0;
}

void tb_scenario_near(char *out, size_t cap, const char *key, int64_t x, int64_t lo, int64_t hi,
                      bool (*ok)(int64_t v, const void *arg), const void *arg)
{
	/* Bounded: an error message must not cost seconds. */
	enum { S_STEPS = 1 << 16 };
	int64_t below = 0, above = 0;
	for (int64_t v = x - 1, k = 0; v >= lo && k < S_STEPS; v--, k++)
		if (ok(v, arg)) {
			below = v;
			break;
		}
	for (int64_t v = x + 1, k = 0; v <= hi && k < S_STEPS; v++, k++)
		if (ok(v, arg)) {
			above = v;
			break;
		}
	S_would(out, cap, key, below, above);
}

void tb_scenario_near_multiple(char *out, size_t cap, const char *key, int64_t x, int64_t unit,
                               int64_t hi)
{
	int64_t below = unit > 0 ? x / unit * unit : 0;
	int64_t above = unit > 0 && below <= hi - unit ? below + unit : 0;
	if (below == x)
		below = 0;
	S_would(out, cap, key, below, above);
}

/* ---- --set and --unset ------------------------------------------------ */

/* The keys that say what kind of model it is.  Setting one switches the
 * model: every model key given before (in the file or an earlier --set)
 * belongs to the old kind and is dropped, so `--set model.preset=gpt2` on
 * a file with a config.json and shape keys prices GPT-2, not a mix. */
static const char *const S_model_kinds[] = { "preset", "hf_config", "params" };

/* One override: "KEY=VALUE" sets, "KEY" alone (from --unset) removes.
 * KEY is checked against the schema; VALUE is parsed as YAML and grafted
 * on the tree, replacing what was there. */
static void S_apply_set(tb_yaml_ctx *c, tb_yaml_node **root, const tb_yaml_src *src)
{
	const char *s = src->text;
	const char *eq = strchr(s, '=');
	bool unset = !eq;
	const char *end = eq ? eq : s + strlen(s);
	/* Split KEY into at most 3 segments, remembering their columns. */
	char seg[3][64];
	size_t segcol[3], nseg = 0;
	const char *p = s;
	while (p <= end) {
		const char *dot = p;
		while (dot < end && *dot != '.')
			dot++;
		size_t l = (size_t)(dot - p);
		if (l == 0 || l >= sizeof seg[0] || nseg == 3) {
			tb_yaml_err_at(c, src, 1, (size_t)(p - s) + 1,
			               nseg == 3 ? "--%s key nested too deeply; expected SECTION.KEY such as training.tokens"
			                         : "empty or overlong --%s key segment; expected SECTION.KEY such as training.tokens",
			               unset ? "unset" : "set");
			return;
		}
		memcpy(seg[nseg], p, l);
		seg[nseg][l] = '\0';
		segcol[nseg++] = (size_t)(p - s) + 1;
		p = dot + 1;
		if (dot == end)
			break;
	}

	/* Validate the path against the schema. */
	char sh[48];
	const char *top[S_NTOP];
	S_top_keys(top);
	if (!tb_yaml_in(seg[0], top, S_NTOP)) {
		const char *sugg = tb_diags_suggest(seg[0], top, S_NTOP);
		if (sugg)
			tb_yaml_err_at(c, src, 1, segcol[0], "unknown key '%s'; did you mean '%s'?", tb_yaml_show(seg[0], sh), sugg);
		else
			tb_yaml_err_at(c, src, 1, segcol[0], "unknown key '%s'; expected a section such as training or hardware",
			               tb_yaml_show(seg[0], sh));
		return;
	}
	const tb_scenario_section *sec = S_section_find(seg[0]);
	/* A whole section can be removed (--unset plan), not set. */
	if ((sec && nseg < 2 && !unset) || (!sec && nseg > 1)) {
		tb_yaml_err_at(c, src, 1, segcol[0], sec ? "--set '%s' names a whole section; expected %s.KEY"
		                                         : "'%s' has no sub-keys; expected %s=VALUE",
		               seg[0], seg[0]);
		return;
	}
	if (sec && nseg >= 2 && !tb_yaml_in(seg[1], sec->keys, sec->n)) {
		const char *sugg = tb_diags_suggest(seg[1], sec->keys, sec->n);
		if (sugg)
			tb_yaml_err_at(c, src, 1, segcol[1], "unknown key '%s.%s'; did you mean '%s.%s'?",
			               seg[0], tb_yaml_show(seg[1], sh), seg[0], sugg);
		else
			tb_yaml_err_at(c, src, 1, segcol[1], "unknown key '%s.%s'; expected a key of %s", seg[0],
			               tb_yaml_show(seg[1], sh), seg[0]);
		return;
	}
	if (nseg == 3) {
		const tb_scenario_subsection *sub = S_subsection_find(sec, seg[1]);
		if (!sub) {
			tb_yaml_err_at(c, src, 1, segcol[2], "'%s.%s' has no sub-keys; expected %s.%s=VALUE",
			               seg[0], seg[1], seg[0], seg[1]);
			return;
		}
		if (!tb_yaml_in(seg[2], sub->keys, sub->n)) {
			const char *sugg = tb_diags_suggest(seg[2], sub->keys, sub->n);
			if (sugg)
				tb_yaml_err_at(c, src, 1, segcol[2], "unknown key '%s.%s.%s'; did you mean '%s.%s.%s'?",
				               seg[0], seg[1], tb_yaml_show(seg[2], sh), seg[0], seg[1], sugg);
			else
				tb_yaml_err_at(c, src, 1, segcol[2], "unknown key '%s.%s.%s'; expected %s",
				               seg[0], seg[1], tb_yaml_show(seg[2], sh), sub->expected);
			return;
		}
	}

	if (unset) {
		/* Removing what is not there leaves the scenario as it is: the
		 * key is valid, so the intent (its default) already holds. */
		tb_yaml_node *map = *root;
		for (size_t i = 0; i + 1 < nseg && map; i++)
			map = tb_yaml_get(map, seg[i]);
		long at = map && map->kind == TB_YAML_MAP ? tb_yaml_find(map, seg[nseg - 1]) : -1;
		if (at >= 0)
			tb_yaml_remove(map, (size_t)at);
		return;
	}

	size_t errors0 = c->d->errors;
	tb_yaml_node *val = tb_yaml_parse(c, src, eq + 1, strlen(eq + 1), false);
	if (!val) {
		if (c->d->errors == errors0)    /* an empty VALUE parses to nothing */
			tb_yaml_err_at(c, src, 1, (size_t)(eq - s) + 2, "--set '%.*s' has no value; expected KEY=VALUE "
			               "(--unset %.*s removes it)", (int)(eq - s), s, (int)(eq - s), s);
		return;
	}
	if (!*root)
		*root = tb_yaml_node_new(c, TB_YAML_MAP, src, 1, 1);
	tb_yaml_node *map = *root;
	if (map->kind != TB_YAML_MAP) {
		tb_yaml_node_free(val);
		return;     /* the root's type error is reported later */
	}
	for (size_t i = 0; i + 1 < nseg; i++) {
		tb_yaml_node *next = tb_yaml_get(map, seg[i]);
		if (!next) {
			tb_yaml_node *k = tb_yaml_node_new(c, TB_YAML_SCALAR, src, 1, segcol[i]);
			k->str = tb_xstrdup(seg[i]);
			next = tb_yaml_node_new(c, TB_YAML_MAP, src, 1, segcol[i]);
			tb_yaml_append(map, k, next);
		} else if (next->kind != TB_YAML_MAP) {
			tb_yaml_err_at(c, src, 1, segcol[i + 1],
			               "cannot set '%s' inside '%s', which is %s in the scenario; expected a mapping there",
			               seg[i + 1], seg[i], tb_yaml_kind_name(next));
			tb_yaml_node_free(val);
			return;
		}
		map = next;
	}
	if (nseg == 2 && sec == &tb_scenario_section_model &&
	    tb_yaml_in(seg[1], S_model_kinds, TB_N(S_model_kinds))) {
		while (map->n > 0)
			tb_yaml_remove(map, map->n - 1);
	}
	long at = tb_yaml_find(map, seg[nseg - 1]);
	if (at >= 0) {
		tb_yaml_node_free(map->vals[at]);
		map->vals[at] = val;
	} else {
		tb_yaml_node *k = tb_yaml_node_new(c, TB_YAML_SCALAR, src, 1, segcol[nseg - 1]);
		k->str = tb_xstrdup(seg[nseg - 1]);
		tb_yaml_append(map, k, val);
	}
}

/* ---- the whole scenario ---------------------------------------------- */

static bool S_valid_date(const char *s)
{
	if (strlen(s) != 10 || s[4] != '-' || s[7] != '-')
		return false;
	for (int i = 0; i < 10; i++)
		if (i != 4 && i != 7 && !isdigit((unsigned char)s[i]))
			return false;
	int yr = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
	int mo = (s[5] - '0') * 10 + (s[6] - '0');
	int day = (s[8] - '0') * 10 + (s[9] - '0');
	static const int S_mdays[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	if (mo < 1 || mo > 12 || day < 1)
		return false;
	bool leap = (yr % 4 == 0 && yr % 100 != 0) || yr % 400 == 0;
	return day <= S_mdays[mo - 1] + (mo == 2 && leap);
}

/* A BCP 47 language tag's shape (RFC 5646): a primary subtag of 2 to 8
 * letters, then subtags of 1 to 8 letters or digits, joined by '-'; at
 * most 35 characters.  The shape only: the registry is not consulted. */
static bool S_valid_lang(const char *s)
{
	size_t n = strlen(s), part = 0, i = 0;
	if (n < 2 || n > 35)
		return false;
	for (; i < n && isalpha((unsigned char)s[i]); i++)
		;
	if (i < 2 || i > 8 || (i < n && s[i] != '-'))
		return false;
	for (; i < n; i++) {
		if (s[i] == '-') {
			if (i > 0 && s[i - 1] == '-')
				return false;
			part = 0;
			continue;
		}
		if (!isalnum((unsigned char)s[i]) || ++part > 8)
			return false;
	}
	return s[n - 1] != '-';
}

/* The free-text keys: title (required), author, notes, date, lang. */
static void S_load_meta(tb_yaml_ctx *c, const tb_yaml_node *root, tb_scenario *sc)
{
	const tb_yaml_node *n;
	if ((n = tb_yaml_get(root, "title"))) {
		sc->title = tb_yaml_string(c, n, "title", 200, true);
		if (sc->title && !sc->title[0]) {
			tb_yaml_err(c, n, "title is empty; expected a one-line description of the run");
			free(sc->title);
			sc->title = NULL;
		}
	} else {
		tb_yaml_err(c, root, "missing key 'title'; expected a one-line description of the run");
	}
	if ((n = tb_yaml_get(root, "author")))
		sc->author = tb_yaml_string(c, n, "author", 200, true);
	snprintf(sc->lang, sizeof sc->lang, "en");
	if ((n = tb_yaml_get(root, "lang"))) {
		const char *s = tb_yaml_scalar(c, n, "lang", "a language tag such as en, de or pt-BR");
		if (s && S_valid_lang(s)) {
			snprintf(sc->lang, sizeof sc->lang, "%s", s);
		} else if (s) {
			char sh[48];
			tb_yaml_err(c, n, "lang '%s' is not a language tag; expected a BCP 47 tag such as "
			            "en, de or pt-BR (letters and digits in parts of 1 to 8, joined by '-')",
			            tb_yaml_show(s, sh));
		}
	}
	if ((n = tb_yaml_get(root, "notes")))
		sc->notes = tb_yaml_string(c, n, "notes", 65536, false);
	if ((n = tb_yaml_get(root, "date"))) {
		const char *s = tb_yaml_scalar(c, n, "date", "a date as YYYY-MM-DD");
		if (s && S_valid_date(s))
			sc->date = tb_xstrdup(s);
		else if (s) {
			char sh[48];
			tb_yaml_err(c, n, "date '%s' is not a date; expected YYYY-MM-DD such as 2026-11-29", tb_yaml_show(s, sh));
		}
	}
}

/* Returns true when every key was valid on its own (whatever the checks
 * across sections then found). */
static bool S_load(tb_yaml_ctx *c, const tb_yaml_node *root, tb_scenario *sc)
{
	size_t errors0 = c->d->errors;
	S_check_all_keys(c, root);
	S_load_meta(c, root, sc);
	bool ok = true;
	for (size_t i = 0; i < TB_N(S_sections); i++)
		if (!S_sections[i]->load(c, root, sc))
			ok = false;
	/* Contradictions between sections, checked once each part is valid. */
	if (!ok || c->d->errors > errors0)
		return false;
	for (size_t i = 0; i < TB_N(S_checks); i++)
		if (!S_checks[i](c, root, sc))
			break;
	return true;
}

/* ---- entry points ---------------------------------------------------- */

static char *S_stem(const char *path)
{
	if (strcmp(path, "-") == 0)
		return tb_xstrdup("stdin");
	if (path[0] == '<')
		return tb_xstrdup("default");
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *dot = strrchr(base, '.');
	size_t n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
	if (n == 0)
		return tb_xstrdup("scenario");
	/* The stem lands in titles, headings, <title> and file names: the
	 * same rule as --name and every published path, so an ESC or a bidi
	 * override in a file's name is shown as '?', never obeyed. */
	return tb_utf8_shown(base, n);
}

tb_scenario *tb_scenario_load(const char *path, const char *text, size_t len,
                              const char *const *sets, size_t nsets,
                              tb_diags *d)
{
	return tb_scenario_load_ex(path, text, len, sets, nsets, d, NULL);
}

/* The overrides as a published report shows them (an absolute
 * model.hf_config path by its file name): the digest covers that config
 * by its bytes, so where it sits on the author's machine must neither
 * appear in a report nor move the digest. */
static char **S_public(const char *const *v, size_t n)
{
	char **pub = n ? tb_xcalloc(n, sizeof *pub) : NULL;
	for (size_t i = 0; i < n; i++) {
		tb_buf o;
		tb_buf_init(&o);
		tb_scenario_public_override(&o, v[i] ? v[i] : "");
		pub[i] = tb_buf_detach(&o, NULL);
	}
	return pub;
}

static void S_free_public(char **pub, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(pub[i]);
	free(pub);
}

static void S_signoff_overrides(tb_scenario *sc, const char *const *sweeps, size_t nsweeps)
{
	char **sets = S_public((const char *const *)sc->sets, sc->nsets);
	char **sw = S_public(sweeps, nsweeps);
	tb_signoff_set_overrides(&sc->signoff, (const char *const *)sets, sc->nsets,
	                         (const char *const *)sw, nsweeps);
	S_free_public(sets, sc->nsets);
	S_free_public(sw, nsweeps);
}

/* A scenario parsed and hashed once (tb_scenario_source_new). */
struct tb_scenario_source {
	char *path, *shown, *text;
	size_t len;
	char sha256[65];
	tb_yaml_src src;        /* what the cached tree's nodes point to */
	tb_yaml_node *root;     /* NULL: not cached (it has errors): parse each time */
	size_t nodes;
};

static tb_scenario *S_load_from(const char *path, const char *text, size_t len,
                                const tb_scenario_source *pre, const char *const *sets,
                                size_t nsets, tb_diags *d, tb_scenario_status *status);

tb_scenario *tb_scenario_load_ex(const char *path, const char *text, size_t len,
                                 const char *const *sets, size_t nsets,
                                 tb_diags *d, tb_scenario_status *status)
{
	return S_load_from(path, text, len, NULL, sets, nsets, d, status);
}

tb_scenario_source *tb_scenario_source_new(const char *path, const char *text, size_t len)
{
	tb_scenario_source *s = tb_xcalloc(1, sizeof *s);
	s->path = tb_xstrdup(path ? path : "<builtin>");
	s->shown = tb_xstrdup(strcmp(s->path, "-") == 0 ? "<stdin>" : s->path);
	s->len = text ? len : 0;
	s->text = tb_xmalloc(s->len + 1);
	if (s->len)
		memcpy(s->text, text, s->len);
	s->text[s->len] = '\0';
	tb_sha256_hex(s->text, s->len, s->sha256);
	s->src = (tb_yaml_src){ s->shown, s->text, s->len, 0 };
	/* Cached only when it parses without a word: anything said (a syntax
	 * error, a duplicate key, a tab) is said again by a full load. */
	if (s->len && s->len <= S_MAX_FILE_BYTES && !memchr(s->text, '\0', s->len)) {
		tb_diags quiet;
		tb_diags_init(&quiet);
		tb_yaml_ctx c = { &quiet, 0, s->path, false, true, 0 };
		tb_yaml_node *root = tb_yaml_parse(&c, &s->src, s->text, s->len, true);
		if (!c.parse_failed && !c.suppressed && quiet.errors == 0 && quiet.warnings == 0) {
			s->root = root;
			s->nodes = c.nodes;
		} else {
			tb_yaml_node_free(root);
		}
		tb_diags_release(&quiet);
	}
	return s;
}

void tb_scenario_source_free(tb_scenario_source *s)
{
	if (!s)
		return;
	tb_yaml_node_free(s->root);
	free(s->path);
	free(s->shown);
	free(s->text);
	free(s);
}

tb_scenario *tb_scenario_load_source(const tb_scenario_source *s, const char *const *sets,
                                     size_t nsets, tb_diags *d, tb_scenario_status *status)
{
	return S_load_from(s->path, s->text, s->len, s, sets, nsets, d, status);
}

static tb_scenario *S_load_from(const char *path, const char *text, size_t len,
                                const tb_scenario_source *pre, const char *const *sets,
                                size_t nsets, tb_diags *d, tb_scenario_status *status)
{
	bool keys_valid = false;
	if (status)
		*status = TB_SCENARIO_INVALID;
	if (!path)
		path = "<builtin>";
	if (!text)
		len = 0;
	size_t errors0 = d->errors;
	const char *shown = strcmp(path, "-") == 0 ? "<stdin>" : path;
	tb_yaml_ctx c = { d, 0, path, false, false, 0 };
	tb_yaml_src file_src = { shown, text, len, 0 };

	tb_yaml_node *root = NULL;
	if (len > S_MAX_FILE_BYTES) {
		tb_yaml_err_at(&c, &file_src, 0, 0, "the scenario is larger than 4 MiB; expected a small YAML file");
		return NULL;
	}
	if (len && memchr(text, '\0', len)) {
		size_t off = (size_t)((const char *)memchr(text, '\0', len) - text), line = 1, col = 1;
		for (size_t i = 0; i < off; i++) {
			if (text[i] == '\n') {
				line++;
				col = 1;
			} else {
				col++;
			}
		}
		tb_yaml_err_at(&c, &file_src, line, col, "NUL byte in the scenario; expected UTF-8 text");
		return NULL;
	}
	if (pre && pre->root) {
		/* parsed once, clean: a copy for the overrides to change */
		root = tb_yaml_node_copy(pre->root);
		c.nodes = pre->nodes;
	} else if (len) {
		/* A tab libyaml accepts (inside a block scalar, after a key) is
		 * harmless; only when the parse fails are tabs in indentation
		 * named as the cause, since libyaml's own words are obscure. */
		c.quiet = true;
		c.suppressed = 0;
		root = tb_yaml_parse(&c, &file_src, text, len, true);
		c.quiet = false;
		if (c.parse_failed) {
			/* Silent first try: report from a second parse. */
			if (tb_yaml_check_tabs(&c, &file_src, text, len) == 0)
				tb_yaml_node_free(tb_yaml_parse(&c, &file_src, text, len, false));
			c.parse_failed = true;
		} else if (c.suppressed) {
			/* the tree is fine, but what the quiet pass found (a
			 * duplicate key) must still be said */
			tb_yaml_node_free(root);
			root = tb_yaml_parse(&c, &file_src, text, len, false);
		}
	}
	bool syntax_failed = c.parse_failed;

	tb_yaml_src *set_src = nsets ? tb_xcalloc(nsets, sizeof *set_src) : NULL;
	for (size_t i = 0; i < nsets; i++) {
		set_src[i].text = sets[i] ? sets[i] : "";
		set_src[i].file = strchr(set_src[i].text, '=') ? "<--set>" : "<--unset>";
		set_src[i].len = strlen(set_src[i].text);
		const char *eq = strchr(set_src[i].text, '=');
		set_src[i].col_offset = eq ? (size_t)(eq - set_src[i].text) + 1 : 0;
		if (!syntax_failed)
			S_apply_set(&c, &root, &set_src[i]);
	}

	tb_scenario *sc = tb_xcalloc(1, sizeof *sc);
	if (!syntax_failed) {
		if (!root) {
			tb_yaml_err_at(&c, &file_src, 1, 1, "the scenario is empty; expected a mapping with title, model, training and hardware");
		} else if (root->kind != TB_YAML_MAP) {
			tb_yaml_err(&c, root, "the scenario is %s; expected a mapping with title, model, training and hardware",
			            tb_yaml_kind_name(root));
		} else if (tb_yaml_get(root, "model_type") && !tb_yaml_get(root, "model")) {
			/* JSON is YAML: a config.json reads as a mapping whose every
			 * key is unknown.  Say what the file is and where it goes. */
			const char *base = strrchr(shown, '/');
			base = base ? base + 1 : shown;
			char sh[48];
			tb_yaml_err(&c, tb_yaml_get_key(root, "model_type"),
			            "this is a Hugging Face config.json (it has model_type), not a scenario; "
			            "expected a scenario that uses it as model.hf_config, such as "
			            "model: {hf_config: %s}",
			            tb_yaml_show(shown[0] == '<' ? "config.json" : base, sh));
		} else {
			/* an error before the sections (a --set of an unknown key) is
			 * not a combination the checks refused */
			size_t before = d->errors;
			keys_valid = (tb_yaml_get(root, "stages") ? tb_scenario_load_stages(&c, root, sc, S_load)
			                                          : S_load(&c, root, sc)) &&
			             before == errors0;
		}
	}
	tb_yaml_node_free(root);
	free(set_src);

	if (d->errors > errors0) {
		if (status && keys_valid)
			*status = TB_SCENARIO_INCONSISTENT;
		tb_scenario_free(sc);
		return NULL;
	}
	if (status)
		*status = TB_SCENARIO_LOADED;
	sc->path = tb_xstrdup(path);
	sc->name = S_stem(path);
	sc->text = tb_xmalloc(len + 1);
	if (len)
		memcpy(sc->text, text, len);
	sc->text[len] = '\0';
	sc->text_len = len;
	if (pre)
		memcpy(sc->sha256, pre->sha256, sizeof sc->sha256);
	else
		tb_sha256_hex(sc->text, len, sc->sha256);
	sc->nsets = nsets;
	sc->sets = nsets ? tb_xcalloc(nsets, sizeof *sc->sets) : NULL;
	for (size_t i = 0; i < nsets; i++)
		sc->sets[i] = tb_xstrdup(sets[i] ? sets[i] : "");
	/* the bytes just parsed, not the file again: nothing can change
	 * between what was priced and what is hashed */
	tb_signoff_add_hash(&sc->signoff, TB_INPUT_SCENARIO, path, sc->sha256);
	S_signoff_overrides(sc, NULL, 0);
	tb_signoff_seal(&sc->signoff, TB_VERSION);
	return sc;
}

void tb_scenario_add_input(tb_scenario *sc, tb_input_kind kind, const char *path,
                           const void *data, size_t len)
{
	tb_signoff_add(&sc->signoff, kind, path, data, len);
	tb_signoff_seal(&sc->signoff, TB_VERSION);
}

bool tb_scenario_add_input_hash(tb_scenario *sc, tb_input_kind kind, const char *path,
                                const char *hex_sha256)
{
	if (!tb_signoff_add_hash(&sc->signoff, kind, path, hex_sha256))
		return false;
	tb_signoff_seal(&sc->signoff, TB_VERSION);
	return true;
}

void tb_scenario_set_sweeps(tb_scenario *sc, const char *const *sweeps, size_t n)
{
	S_signoff_overrides(sc, sweeps, n);
	tb_signoff_seal(&sc->signoff, TB_VERSION);
}

tb_scenario *tb_scenario_load_file(const char *path,
                                   const char *const *sets, size_t nsets,
                                   tb_diags *d)
{
	size_t len = 0;
	char *text = tb_fileio_slurp(path, S_MAX_FILE_BYTES, &len);
	if (!text) {
		tb_diags_add(d, TB_DIAG_ERROR, strcmp(path, "-") == 0 ? "<stdin>" : path, NULL, 0, 0, 0,
		             "cannot read the scenario (%s); expected a readable YAML file",
		             errno == EFBIG ? "larger than 4 MiB" : tb_fileio_why(errno));
		return NULL;
	}
	tb_scenario *sc = tb_scenario_load(path, text, len, sets, nsets, d);
	free(text);
	return sc;
}

void tb_scenario_public_override(tb_buf *b, const char *set)
{
	static const char key[] = "model.hf_config=";
	if (strncmp(set, key, sizeof key - 1) != 0) {
		tb_buf_puts(b, set);
		return;
	}
	/* each path as tb_signoff_paths publishes a list: a --set holds one,
	 * a --sweep a comma list, whose names must stay apart */
	tb_buf_puts(b, key);
	const char *list = set + sizeof key - 1;
	size_t n = 1;
	for (const char *c = list; *c; c++)
		n += *c == ',';
	char **given = tb_xcalloc(n, sizeof *given), **shown = tb_xcalloc(n, sizeof *shown);
	const char *p = list;
	for (size_t i = 0; i < n; i++) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		given[i] = tb_xmalloc(len + 1);
		memcpy(given[i], p, len);
		given[i][len] = '\0';
		p = comma ? comma + 1 : p + len;
	}
	tb_signoff_paths(shown, (const char *const *)given, n);
	for (size_t i = 0; i < n; i++) {
		/* relative paths as given (the signoff escapes only on display) */
		tb_buf_puts(b, given[i][0] == '/' ? shown[i] : given[i]);
		if (i + 1 < n)
			tb_buf_putc(b, ',');
		free(given[i]);
		free(shown[i]);
	}
	free(given);
	free(shown);
}

const char *tb_scenario_default_text(void)
{
	return "# The built-in question: can we train a 7B model on 100B tokens\n"
	       "# in a month with 64 H100s?\n"
	       "title: \"7B on 100B tokens in a month with 64 x H100\"\n"
	       "model:\n"
	       "  preset: llama-2-7b\n"
	       "training:\n"
	       "  tokens: 100B\n"
	       "hardware:\n"
	       "  gpu: h100-sxm\n"
	       "  count: 64\n"
	       "  price_per_gpu_hour: 2.50\n"
	       "plan:\n"
	       "  deadline: 30 days\n"
	       "  budget: 500000\n";
}

void tb_scenario_free(tb_scenario *s)
{
	if (!s)
		return;
	free(s->path);
	free(s->name);
	free(s->title);
	free(s->author);
	free(s->date);
	free(s->notes);
	free(s->text);
	for (size_t i = 0; i < s->nsets; i++)
		free(s->sets[i]);
	free(s->sets);
	free(s->stages);
	tb_signoff_release(&s->signoff);
	free(s);
}

bool tb_scenario_calibrate(tb_scenario *sc, const char *const *pilots, size_t n, tb_diags *d)
{
	for (size_t i = 0; i < n; i++) {
		const char *path = pilots[i];
		char *text = NULL;
		size_t len = 0;
		if (tb_fileio_read(path, TB_FILEIO_READ_MAX_BYTES, &text, &len, d) != 0)
			return false;
		size_t before = d->errors;
		tb_scenario *pilot = tb_scenario_load(path, text, len, NULL, 0, d);
		bool ok = pilot && d->errors == before;
		const char *why = "";
		if (ok && !tb_calib_add(&sc->inputs.calib, &pilot->inputs, path, pilot->sha256, &why)) {
			tb_diags_add(d, TB_DIAG_ERROR, path, text, len, 1, 1,
			             "cannot calibrate on this pilot: %s", why);
			ok = false;
		}
		if (ok && strcmp(pilot->inputs.hardware.gpu.name, sc->inputs.hardware.gpu.name) != 0) {
			tb_diags_add(d, TB_DIAG_ERROR, path, text, len, 1, 1,
			             "the pilot ran on %s and the scenario prices %s; expected the same "
			             "card: the efficiencies a pilot measures are its card's",
			             pilot->inputs.hardware.gpu.name, sc->inputs.hardware.gpu.name);
			ok = false;
		}
		if (ok) {
			tb_scenario_add_input(sc, TB_INPUT_PILOT, path, text, len);
			const tb_signoff *ps = &pilot->signoff;
			for (size_t k = 0; k < ps->nfiles; k++)
				if (ps->files[k].kind == TB_INPUT_MEASURED_LOG ||
				    ps->files[k].kind == TB_INPUT_MEASURED_TRACE ||
				    ps->files[k].kind == TB_INPUT_HF_CONFIG)
					ok = ok && tb_scenario_add_input_hash(sc, ps->files[k].kind,
					                                      ps->files[k].read_as,
					                                      ps->files[k].sha256);
		}
		tb_scenario_free(pilot);
		free(text);
		if (!ok)
			return false;
	}
	/* every stage runs on the calibrated cluster */
	for (int i = 0; i < sc->nstages; i++)
		sc->stages[i].inputs.calib = sc->inputs.calib;
	return true;
}
