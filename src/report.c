/* report.c: the report model's entry points and its section table.
 *
 * Expands a template (template.c) against the names the sections offer:
 * placeholders and conditions (report_values.c), tables and charts (one
 * file per family of sections, listed in S_sections below), derivations
 * (report_deriv.c) and the title and verdict blocks (report_summary.c).
 * Everything selects and formats; nothing computes a figure the budget
 * does not hold.  Tables, charts and derivations become custom blocks
 * whose user_data is a tb_block owned by the report. */
#include "trainbudget/report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_build.h"
#include "template.h"
#include "templates.h"
#include "trainbudget/fileio.h"
#include "trainbudget/version.h"
#include "trainbudget/xalloc.h"

/* Every family of sections, in the order "did you mean" lists their names.
 * A new family is a file defining a tb_rsection and a line here. */
static const tb_rsection *const S_sections[] = {
	&tb_rsection_summary,
	&tb_rsection_compute,
	&tb_rsection_memory,
	&tb_rsection_perf,
	&tb_rsection_time,
	&tb_rsection_scaling,
	&tb_rsection_risk,
	&tb_rsection_sweep,
	&tb_rsection_plan,
};

#define S_NSECTIONS (sizeof S_sections / sizeof S_sections[0])

static const tb_rtable_def *S_table_find(const tb_report *r, const char *name)
{
	for (size_t i = 0; i < r->nsections; i++)
		for (size_t k = 0; k < r->sections[i]->ntables; k++)
			if (strcmp(r->sections[i]->tables[k].name, name) == 0)
				return &r->sections[i]->tables[k];
	return NULL;
}

static const tb_rchart_def *S_chart_find(const tb_report *r, const char *name)
{
	for (size_t i = 0; i < r->nsections; i++)
		for (size_t k = 0; k < r->sections[i]->ncharts; k++)
			if (strcmp(r->sections[i]->charts[k].name, name) == 0)
				return &r->sections[i]->charts[k];
	return NULL;
}

static const tb_rmulti_def *S_multi_find(const tb_report *r, const char *kind, const char *name)
{
	for (size_t k = 0; k < r->nmultis; k++)
		if (strcmp(r->multis[k].kind, kind) == 0 && strcmp(r->multis[k].name, name) == 0)
			return &r->multis[k];
	return NULL;
}

tb_block *tb_rchart_place(tb_report *r, const tb_chart_spec *spec, cmark_node *into)
{
	tb_block *blk = tb_rblock_new(r, TB_BLOCK_CHART, into);
	tb_chart_layout(spec, 480, 300, &blk->chart);
	/* the id and title are the report's, whatever the layout did */
	tb_rcopy(blk->chart.id, sizeof blk->chart.id, spec->id);
	tb_rcopy(blk->chart.title, sizeof blk->chart.title, spec->title);
	return blk;
}

/* ---- directives ------------------------------------------------------ */

/* A pipe table the template wrote: a table block like the built ones, so
 * every back end draws it as it draws them (right-aligned columns are
 * the numeric ones; centring is not kept). */
void tb_rpipe_table(void *ctx, size_t ncols, size_t nrows, const char *const *cells,
                    const char *align, cmark_node *into)
{
	tb_table *t = &tb_rblock_new(ctx, TB_BLOCK_TABLE, into)->table;
	t->ncols = ncols;
	t->nrows = nrows;
	t->cells = tb_xcalloc(ncols * nrows, sizeof *t->cells);
	for (size_t i = 0; i < ncols * nrows; i++)
		t->cells[i] = tb_xstrdup(cells[i]);
	t->numeric = tb_xcalloc(ncols, sizeof *t->numeric);
	for (size_t k = 0; k < ncols; k++)
		t->numeric[k] = align[k] == 'r';
}

tb_tpl_status tb_rdirective(void *ctx, const char *kind, const char *arg, cmark_node *into)
{
	tb_report *r = ctx;
	const tb_rmulti_def *multi = S_multi_find(r, kind, arg);
	if (multi) {
		if (into)
			multi->build(r, into);
		return TB_TPL_OK;
	}
	if (strcmp(kind, "signoff") == 0) {
		/* the roles, checked by the tag's grammar, ", "-separated; the
		 * last directive a template has wins; it draws nothing itself */
		if (!into)
			return TB_TPL_OK;
		for (size_t i = 0; i < r->meta.nroles; i++)
			free(r->roles[i]);
		r->meta.nroles = 0;
		for (const char *p = arg; *p && r->meta.nroles < TB_SIGNOFF_ROLES_MAX;) {
			const char *e = strstr(p, ", ");
			size_t n = e ? (size_t)(e - p) : strlen(p);
			r->roles[r->meta.nroles++] = tb_xstrndup(p, n);
			p += n + (e ? 2 : 0);
		}
		r->meta.roles = (const char *const *)r->roles;
		return TB_TPL_OK;
	}
	if (strcmp(kind, "table") == 0) {
		const tb_rtable_def *def = S_table_find(r, arg);
		if (!def)
			return TB_TPL_UNKNOWN_NAME;
		if (into) {
			tb_block *blk = tb_rblock_new(r, TB_BLOCK_TABLE, into);
			def->build(r, &blk->table);
		}
		return TB_TPL_OK;
	}
	if (strcmp(kind, "chart") == 0) {
		const tb_rchart_def *def = S_chart_find(r, arg);
		if (!def)
			return TB_TPL_UNKNOWN_NAME;
		if (into) {
			/* a spec holds a sweep's 128 points per series: not on the stack */
			tb_chart_spec *spec = tb_xcalloc(1, sizeof *spec);
			def->build(r, spec);
			tb_rchart_place(r, spec, into);
			free(spec);
		}
		return TB_TPL_OK;
	}
	if (strcmp(kind, "block") == 0) {
		if (strcmp(arg, "sweep_cliffs") == 0) {
			if (into)
				tb_rsweep_cliffs_block(r, into);
			return TB_TPL_OK;
		}
		if (r->cmp) {
			if (strcmp(arg, "title_block") != 0)
				return TB_TPL_UNKNOWN_NAME;
			if (into)
				tb_rcompare_title_block(r, into);
			return TB_TPL_OK;
		}
		bool title = strcmp(arg, "title_block") == 0;
		if (!title && strcmp(arg, "verdict") != 0)
			return TB_TPL_UNKNOWN_NAME;
		if (into && title)
			tb_rsummary_title_block(r, into);
		else if (into)
			tb_rsummary_verdict_block(r, into);
		return TB_TPL_OK;
	}
	if (strcmp(kind, "derivation") == 0 && !r->cmp) {
		const tb_budget *b = r->b;
		if (strcmp(arg, "all") == 0) {
			if (!into)
				return TB_TPL_OK;
			int n = b->n_derivs < TB_DERIVS_MAX ? b->n_derivs : TB_DERIVS_MAX;
			for (int i = 0; i < n; i++) {
				tb_block *blk = tb_rblock_new(r, TB_BLOCK_DERIVATION, into);
				tb_rderiv_fill(&blk->deriv, &b->derivs[i], tb_rcurrency(r));
			}
			if (n == 0)
				tb_rnote(into, "No derivations were recorded for this scenario.");
			return TB_TPL_OK;
		}
		const tb_deriv *dv = tb_budget_deriv(b, arg);
		if (!dv) {
			size_t k = 0;
			while (tb_rderiv_key(k) && strcmp(tb_rderiv_key(k), arg) != 0)
				k++;
			if (!tb_rderiv_key(k))
				return TB_TPL_UNKNOWN_NAME;
			if (into) {
				char *msg = tb_rstrf("%s: not computed for this scenario.", arg);
				tb_rnote(into, msg);
				free(msg);
			}
			return TB_TPL_OK;
		}
		if (into) {
			tb_block *blk = tb_rblock_new(r, TB_BLOCK_DERIVATION, into);
			tb_rderiv_fill(&blk->deriv, dv, tb_rcurrency(r));
		}
		return TB_TPL_OK;
	}
	return TB_TPL_UNKNOWN_NAME;
}

/* A growable list of borrowed names, for the suggestions. */
typedef struct S_names {
	const char **v;
	size_t n, cap;
} S_names;

static void S_names_add(S_names *l, const char *name)
{
	if (!name)
		return;
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->v = tb_xrealloc(l->v, l->cap * sizeof *l->v);
	}
	l->v[l->n++] = name;
}

/* Suggestions for "did you mean": the closest name of the kind asked. */
const char *tb_rsuggest(void *ctx, const char *what, const char *word)
{
	const tb_report *r = ctx;
	S_names l = { NULL, 0, 0 };
	if (strcmp(what, "placeholder") == 0) {
		for (size_t k = 0; !r->cmp && tb_rvalue_name(k); k++)
			S_names_add(&l, tb_rvalue_name(k));
		for (size_t k = 0; r->cmp && tb_rcompare_value_name(k); k++)
			S_names_add(&l, tb_rcompare_value_name(k));
		for (size_t k = 0; !r->cmp && tb_rplan_value_name(k); k++)
			S_names_add(&l, tb_rplan_value_name(k));
		for (size_t k = 0; tb_rsweep_value_name(k); k++)
			S_names_add(&l, tb_rsweep_value_name(k));
		S_names_add(&l, "title_block");
		S_names_add(&l, "sweep_cliffs");
		if (!r->cmp)
			S_names_add(&l, "verdict");
	} else if (strcmp(what, "filter") == 0) {
		for (size_t k = 0; tb_rfilter_name(k); k++)
			S_names_add(&l, tb_rfilter_name(k));
	} else if (strcmp(what, "condition") == 0) {
		for (size_t k = 0; !r->cmp && tb_rcondition_name(k); k++)
			S_names_add(&l, tb_rcondition_name(k));
		for (size_t k = 0; r->cmp && tb_rcompare_condition_name(k); k++)
			S_names_add(&l, tb_rcompare_condition_name(k));
		for (size_t k = 0; !r->cmp && tb_rplan_condition_name(k); k++)
			S_names_add(&l, tb_rplan_condition_name(k));
		for (size_t k = 0; tb_rsweep_condition_name(k); k++)
			S_names_add(&l, tb_rsweep_condition_name(k));
	} else if (strcmp(what, "table") == 0 || strcmp(what, "chart") == 0) {
		bool table = strcmp(what, "table") == 0;
		for (size_t i = 0; i < r->nsections; i++) {
			const tb_rsection *sec = r->sections[i];
			for (size_t k = 0; table && k < sec->ntables; k++)
				S_names_add(&l, sec->tables[k].name);
			for (size_t k = 0; !table && k < sec->ncharts; k++)
				S_names_add(&l, sec->charts[k].name);
		}
		for (size_t k = 0; k < r->nmultis; k++)
			if (strcmp(r->multis[k].kind, what) == 0)
				S_names_add(&l, r->multis[k].name);
	} else if (strcmp(what, "derivation") == 0 && !r->cmp) {
		for (size_t k = 0; tb_rderiv_key(k); k++)
			S_names_add(&l, tb_rderiv_key(k));
		int nd = r->b->n_derivs < TB_DERIVS_MAX ? r->b->n_derivs : TB_DERIVS_MAX;
		for (int k = 0; k < nd; k++)
			S_names_add(&l, r->b->derivs[k].key);
	}
	const char *best = l.n ? tb_diags_suggest(word, l.v, l.n) : NULL;
	free(l.v);
	return best;
}

/* ---- the report ------------------------------------------------------ */

/* The template file, read with a cap: `--template /dev/zero` once read
 * until memory ran out.  "-" is a file of that name here (standard input,
 * if anything, is the scenario). */
char *tb_report_read_template(const char *path, size_t *len, tb_diags *d)
{
	char *text = tb_fileio_slurp(strcmp(path, "-") == 0 ? "./-" : path,
	                             TB_TEMPLATE_MAX_BYTES, len);
	if (!text && errno == EFBIG)
		tb_diags_add(d, TB_DIAG_ERROR, path, NULL, 0, 0, 0,
		             "the template is larger than %zu MiB; expected a CommonMark file "
		             "of a few kilobytes", TB_TEMPLATE_MAX_BYTES >> 20);
	else if (!text)
		tb_diags_add(d, TB_DIAG_ERROR, path, NULL, 0, 0, 0,
		             "cannot read the template: %s; expected a readable CommonMark file",
		             tb_fileio_why(errno));
	return text;
}

/* Placeholders and conditions: the report's own, the search's, then the
 * sweep's. */
static tb_tpl_status S_value(void *ctx, const char *name, const char *filter, tb_buf *out)
{
	tb_tpl_status st = tb_rvalue(ctx, name, filter, out);
	if (st == TB_TPL_UNKNOWN_NAME)
		st = tb_rplan_value(ctx, name, filter, out);
	return st == TB_TPL_UNKNOWN_NAME ? tb_rsweep_value(ctx, name, filter, out) : st;
}

static tb_tpl_status S_condition(void *ctx, const char *name, int *truth)
{
	tb_tpl_status st = tb_rcondition(ctx, name, truth);
	if (st == TB_TPL_UNKNOWN_NAME)
		st = tb_rplan_condition(ctx, name, truth);
	return st == TB_TPL_UNKNOWN_NAME ? tb_rsweep_condition(ctx, name, truth) : st;
}

tb_report *tb_report_expand(tb_report *r, const tb_report_options *opt, const char *deflt,
                            size_t deflt_len, const char *deflt_name, tb_tpl_env *env,
                            tb_diags *d)
{
	const char *text;
	size_t len;
	const char *file;
	char *owned = NULL;
	if (opt->template_text) {
		text = opt->template_text;
		len = opt->template_len;
		file = opt->template_path ? opt->template_path : "<template>";
	} else if (opt->template_path) {
		owned = tb_report_read_template(opt->template_path, &len, d);
		if (!owned) {
			tb_report_free(r);
			return NULL;
		}
		text = owned;
		file = opt->template_path;
	} else {
		text = deflt;
		len = deflt_len;
		file = deflt_name;
	}
	env->ctx = r;
	r->root = tb_template_expand(text, len, file, env, d);
	free(owned);
	if (!r->root) {
		tb_report_free(r);
		return NULL;
	}
	return r;
}

static tb_report *S_new(const tb_scenario *sc, const tb_budget *b,
                        const tb_report_options *opt, bool plan, tb_diags *d)
{
	tb_report_options none;
	memset(&none, 0, sizeof none);
	if (!opt)
		opt = &none;

	/* The template first: its bytes are read once, and the hash printed
	 * from the first page on covers exactly what is expanded. */
	tb_report_options own = *opt;
	char *owned = NULL;
	if (!opt->template_text && opt->template_path) {
		owned = tb_report_read_template(opt->template_path, &own.template_len, d);
		if (!owned)
			return NULL;
		own.template_text = owned;
	}
	tb_report *r = tb_xcalloc(1, sizeof *r);
	r->sc = sc;
	r->b = b;
	r->sections = S_sections;
	r->nsections = S_NSECTIONS;
	r->multis = tb_rsweep_multis;
	r->nmultis = tb_rsweep_nmultis;
	if (opt->sweep) {
		r->sweeps.n = 1;
		r->sweeps.s[0] = opt->sweep;
		r->sweeps.label[0] = sc->name;
	}
	/* the scenario's inputs, with the template expanded here in place of
	 * any other; the built-in one is part of the tool (the version) */
	tb_signoff_copy(&r->signoff, &sc->signoff);
	tb_signoff_drop(&r->signoff, TB_INPUT_TEMPLATE);
	if (own.template_text)
		tb_signoff_add(&r->signoff, TB_INPUT_TEMPLATE,
		               own.template_path ? own.template_path : "<template>",
		               own.template_text, own.template_len);
	tb_signoff_seal(&r->signoff, TB_VERSION);
	r->date = tb_xstrdup(opt->date && *opt->date ? opt->date
	                     : sc->date && *sc->date ? sc->date : "undated");
	if (opt->command && *opt->command) {
		r->command = tb_xstrdup(opt->command);
	} else {
		char *shown = tb_signoff_path(sc->path ? sc->path : "SCENARIO");
		r->command = tb_rstrf("trainbudget %s %s", plan ? "plan" : "report", shown);
		free(shown);
	}
	tb_rcopy(r->short_hash, sizeof r->short_hash, r->signoff.digest);
	tb_rcopy(r->file_short, sizeof r->file_short, sc->sha256);
	r->money_ref = tb_budget_money_ref(b);
	r->meta.title = sc->title && *sc->title ? sc->title : sc->name;
	r->meta.author = sc->author;
	r->meta.lang = sc->lang[0] ? sc->lang : NULL;
	r->meta.date = r->date;
	r->meta.version = TB_VERSION;
	r->meta.sha256 = r->signoff.digest;
	r->meta.hash_of = "inputs";
	r->meta.signoff = &r->signoff;
	r->meta.name = sc->name;
	r->meta.command = r->command;
	tb_rsummary_meta(r);

	tb_rplan_init(r);

	tb_tpl_env env = { r, S_value, S_condition, tb_rdirective, tb_rsuggest, tb_rpipe_table };
	if (plan)
		r = tb_report_expand(r, &own, tb_template_plan_md, tb_template_plan_md_len,
		                     "templates/plan.md", &env, d);
	else
		r = tb_report_expand(r, &own, tb_template_report_md, tb_template_report_md_len,
		                     "templates/report.md", &env, d);
	free(owned);
	return r;
}

tb_report *tb_report_new(const tb_scenario *sc, const tb_budget *b,
                         const tb_report_options *opt, tb_diags *d)
{
	return S_new(sc, b, opt, false, d);
}

tb_report *tb_report_new_plan(const tb_scenario *sc, const tb_budget *b,
                              const tb_report_options *opt, tb_diags *d)
{
	return S_new(sc, b, opt, true, d);
}

void tb_report_free(tb_report *r)
{
	if (!r)
		return;
	if (r->root)
		cmark_node_free(r->root);
	for (size_t i = 0; i < r->nblocks; i++)
		tb_rblock_free(r->blocks[i]);
	free(r->blocks);
	for (size_t i = 0; i < r->meta.nverdict; i++)
		free(r->verdict[i].text);
	for (size_t i = 0; i < r->meta.nkey; i++) {
		free(r->key_labels[i]);
		free(r->key_values[i]);
	}
	free(r->date);
	free(r->command);
	free(r->owned_title);
	tb_signoff_release(&r->signoff);
	for (size_t i = 0; i < sizeof r->plan_text / sizeof r->plan_text[0]; i++)
		free(r->plan_text[i]);
	for (size_t i = 0; i < r->meta.nroles; i++)
		free(r->roles[i]);
	free(r);
}

cmark_node *tb_report_root(const tb_report *r) { return r ? r->root : NULL; }

const tb_block *tb_report_block(cmark_node *node)
{
	if (!node || cmark_node_get_type(node) != CMARK_NODE_CUSTOM_BLOCK)
		return NULL;
	return cmark_node_get_user_data(node);
}

const tb_report_meta *tb_report_get_meta(const tb_report *r) { return r ? &r->meta : NULL; }
size_t tb_report_nblocks(const tb_report *r) { return r ? r->nblocks : 0; }

const tb_block *tb_report_block_at(const tb_report *r, size_t i)
{
	return r && i < r->nblocks ? r->blocks[i] : NULL;
}