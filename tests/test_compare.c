/* test_compare.c: proposals side by side (compare.c) and the comparison's
 * report (report_compare.c).  Each figure a comparison shows must be the
 * one `estimate` gives for that file alone; what is pinned beyond that is
 * by construction: which inputs the example files set differently, where
 * in a file its currency is written, which proposal is faster. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/budget.h"
#include "trainbudget/compare.h"
#include "trainbudget/fileio.h"
#include "trainbudget/plan.h"
#include "trainbudget/render.h"
#include "trainbudget/report.h"
#include "trainbudget/scenario.h"

#define S_H100 "docs/examples/compare/h100-512-6w.yaml"
#define S_A100 "docs/examples/compare/a100-1024-8w.yaml"

static tb_compare_input S_file(const char *path)
{
	tb_compare_input in = { path, NULL, 0 };
	char *text = NULL;
	tb_diags d;
	tb_diags_init(&d);
	cr_assert_eq(tb_fileio_read(path, 1 << 20, &text, &in.len, &d), 0, "cannot read %s", path);
	tb_diags_release(&d);
	in.text = text;
	return in;
}

static tb_compare_input S_text(const char *path, const char *text)
{
	tb_compare_input in = { path, text, strlen(text) };
	return in;
}

static char *S_first_line(const tb_diags *d)
{
	char *msg = tb_diags_format(d);
	char *nl = strchr(msg, '\n');
	if (nl)
		*nl = '\0';
	return msg;
}

Test(compare, figures_are_each_files_own)
{
	tb_compare_input in[2] = { S_file(S_H100), S_file(S_A100) };
	tb_diags d;
	tb_diags_init(&d);
	tb_compare *c = tb_compare_new(in, 2, NULL, 0, NULL, 0, &d);
	cr_assert_not_null(c);
	cr_expect_eq(d.errors, 0);
	cr_expect_str_eq(c->p[0].label, "h100-512-6w");
	cr_expect_str_eq(c->p[1].label, "a100-1024-8w");
	const tb_compare_figure *days = tb_compare_figure_find(c, "seconds");
	const tb_compare_figure *cost = tb_compare_figure_find(c, "cost");
	cr_assert(days && cost);
	for (size_t i = 0; i < 2; i++) {
		tb_diags d2;
		tb_diags_init(&d2);
		tb_scenario *sc = tb_scenario_load(in[i].path, in[i].text, in[i].len, NULL, 0, &d2);
		tb_budget *b = malloc(sizeof *b);
		/* each file's own answer, as estimate prices it */
		tb_inputs priced;
		tb_budget_compute_answer(&sc->inputs, &priced, b);
		/* "expected": the mean of its simulated runs, as estimate's */
		cr_expect(b->risk.known);
		cr_expect_eq(days->v[i], b->risk.days_mean * 86400);
		cr_expect_eq(cost->v[i], b->risk.cost_mean);
		free(b);
		tb_scenario_free(sc);
		tb_diags_release(&d2);
	}
	/* the best is the lower time; the difference is against the first */
	size_t faster = days->v[0] < days->v[1] ? 0 : 1;
	cr_expect(days->best[faster] && !days->best[1 - faster]);
	cr_expect(!days->delta_known[0]);
	cr_expect(days->delta_known[1]);
	cr_expect_float_eq(days->delta[1], (days->v[1] - days->v[0]) / days->v[0], 1e-12);
	/* the same model on the same tokens: no best parameter count */
	const tb_compare_figure *params = tb_compare_figure_find(c, "parameters");
	cr_expect(!params->best[0] && !params->best[1]);
	cr_expect_float_eq(params->delta[1], 0, 1e-15);
	tb_compare_free(c);
	free((char *)in[0].text);
	free((char *)in[1].text);
	tb_diags_release(&d);
}

Test(compare, only_the_inputs_that_differ)
{
	tb_compare_input in[2] = { S_file(S_H100), S_file(S_A100) };
	tb_diags d;
	tb_diags_init(&d);
	tb_compare *c = tb_compare_new(in, 2, NULL, 0, NULL, 0, &d);
	cr_assert_not_null(c);
	/* the files differ in the GPU, its count, its price and the deadline;
	 * the data-parallel size follows from the count, and the virtual
	 * stages the answer chose (neither file writes them) from the card */
	static const char *const want[] = { "hardware.gpu", "hardware.count",
	                                    "hardware.price_per_gpu_hour",
	                                    "parallelism.virtual_pipeline", "parallelism.data",
	                                    "plan.deadline" };
	cr_assert_eq(c->ninputs, 6);
	for (size_t k = 0; k < 6; k++)
		cr_expect_str_eq(c->inputs[k].key, want[k]);
	cr_expect_str_eq(c->inputs[1].values[0], "512");
	cr_expect_str_eq(c->inputs[1].values[1], "1,024");
	tb_compare_free(c);
	/* one --set for both: the count no longer differs */
	const char *sets[1] = { "hardware.count=512" };
	c = tb_compare_new(in, 2, sets, 1, NULL, 0, &d);
	cr_assert_not_null(c);
	for (size_t k = 0; k < c->ninputs; k++)
		cr_expect_str_neq(c->inputs[k].key, "hardware.count");
	tb_compare_free(c);
	free((char *)in[0].text);
	free((char *)in[1].text);
	tb_diags_release(&d);
}

static const char S_base[] =
	"title: base\n"
	"model:\n"
	"  preset: llama-2-7b\n"
	"training:\n"
	"  tokens: 100B\n"
	"hardware:\n"
	"  gpu: h100-sxm\n"
	"  count: 64\n";

Test(compare, currencies_that_differ_cannot_be_compared)
{
	char eur[512];
	snprintf(eur, sizeof eur, "%s  currency: EUR\n", S_base);
	tb_compare_input in[2] = { S_text("usd.yaml", S_base), S_text("eur.yaml", eur) };
	tb_diags d;
	tb_diags_init(&d);
	cr_expect_null(tb_compare_new(in, 2, NULL, 0, NULL, 0, &d));
	char *first = S_first_line(&d);
	/* line 9, column 13: the value of currency: */
	cr_expect_str_eq(first, "eur.yaml:9:13: error: this proposal prices in EUR and usd.yaml in USD; "
	                 "expected every proposal in one currency (hardware.currency), since no "
	                 "exchange rate is known");
	free(first);
	tb_diags_release(&d);
}

Test(compare, the_same_scenario_twice_cannot_be_compared)
{
	tb_compare_input in[2] = { S_text("a.yaml", S_base), S_text("b.yaml", S_base) };
	tb_diags d;
	tb_diags_init(&d);
	cr_expect_null(tb_compare_new(in, 2, NULL, 0, NULL, 0, &d));
	char *first = S_first_line(&d);
	cr_expect(strncmp(first, "b.yaml: error: the same inputs as a.yaml (inputs SHA-256 ", 57) == 0, "%s", first);
	free(first);
	tb_diags_release(&d);
}

Test(compare, every_error_of_every_file)
{
	tb_compare_input in[3] = {
		S_text("one.yaml", "title: one\nmodel: {preset: llama-2-7b}\ntraining: {tokens: 1B}\n"
		       "hardware: {gpu: h1000, count: 8}\n"),
		S_text("two.yaml", S_base),
		S_text("three.yaml", "title: three\nmodel: {preset: llama-2-7b}\ntraining: {tokens: -1}\n"
		       "hardware: {gpu: h100-sxm, count: 0}\n"),
	};
	tb_diags d;
	tb_diags_init(&d);
	cr_expect_null(tb_compare_new(in, 3, NULL, 0, NULL, 0, &d));
	char *all = tb_diags_format(&d);
	cr_expect(strstr(all, "one.yaml:4:17: error: unknown GPU 'h1000'") != NULL, "%s", all);
	cr_expect(strstr(all, "three.yaml:3:20: error:") != NULL, "%s", all);
	cr_expect(strstr(all, "three.yaml:4:34: error:") != NULL, "%s", all);
	cr_expect(strstr(all, "two.yaml") == NULL, "%s", all);
	free(all);
	tb_diags_release(&d);
}

Test(compare, repeated_stems_get_their_own_columns)
{
	char other[512];
	snprintf(other, sizeof other, "%s  price_per_gpu_hour: 3\n", S_base);
	tb_compare_input in[2] = { S_text("a/plan.yaml", S_base), S_text("b/plan.yaml", other) };
	tb_diags d;
	tb_diags_init(&d);
	tb_compare *c = tb_compare_new(in, 2, NULL, 0, NULL, 0, &d);
	cr_assert_not_null(c);
	cr_expect_str_eq(c->p[0].label, "plan");
	cr_expect_str_eq(c->p[1].label, "plan (2)");
	tb_compare_free(c);
	tb_diags_release(&d);
}

/* ---- the report ------------------------------------------------------------ */

static const tb_block *S_table_with(const tb_report *r, const char *head0)
{
	for (size_t i = 0; i < tb_report_nblocks(r); i++) {
		const tb_block *b = tb_report_block_at(r, i);
		if (b->kind == TB_BLOCK_TABLE && b->table.nrows > 0 && strcmp(b->table.cells[0], head0) == 0)
			return b;
	}
	return NULL;
}

Test(compare, the_report_marks_the_best_and_the_differences)
{
	tb_compare_input in[2] = { S_file(S_H100), S_file(S_A100) };
	tb_diags d;
	tb_diags_init(&d);
	tb_compare *c = tb_compare_new(in, 2, NULL, 0, NULL, 0, &d);
	cr_assert_not_null(c);
	tb_report_options o;
	memset(&o, 0, sizeof o);
	o.command = "trainbudget compare a b";
	tb_report *r = tb_report_new_compare(c, &o, &d);
	cr_assert_not_null(r, "%s", tb_diags_format(&d));
	const tb_block *fig = S_table_with(r, "Figure");
	cr_assert_not_null(fig);
	const tb_compare_figure *days = tb_compare_figure_find(c, "seconds");
	size_t best = days->best[0] ? 0 : 1;
	bool found = false;
	for (size_t row = 1; row < fig->table.nrows; row++) {
		const char *const *cells = (const char *const *)fig->table.cells + row * fig->table.ncols;
		if (strcmp(cells[0], "Wall clock, expected (failures and checkpoints)") != 0)
			continue;
		found = true;
		cr_expect(strstr(cells[1 + best], "\u25c6") != NULL, "%s", cells[1 + best]);
		cr_expect(strstr(cells[2 - best], "\u25c6") == NULL, "%s", cells[2 - best]);
		cr_expect(strchr(cells[2], '(') && strchr(cells[2], '%'), "%s", cells[2]);
	}
	cr_expect(found);
	/* the PDF's title block says whose hash it shows */
	const tb_report_meta *m = tb_report_get_meta(r);
	cr_expect_str_eq(m->hash_of, "proposals");
	cr_expect_str_eq(m->sha256, c->sha256);
	cr_expect_str_eq(m->date, "2026-11-29");    /* the files' own date */
	char *md = tb_render_md(r, "x-");
	cr_expect(strstr(md, "| GPUs (hardware.count) | 512 | 1,024 |") != NULL);
	cr_expect(strstr(md, "(x-compare-days.svg)") != NULL);
	free(md);
	tb_report_free(r);

	/* a template error points into the template; the report's own names
	 * are not the comparison's */
	o.template_text = "# {{compare.count}}\n\n{{parameters.total}}\n";
	o.template_len = strlen(o.template_text);
	o.template_path = "mine.md";
	cr_expect_null(tb_report_new_compare(c, &o, &d));
	char *first = S_first_line(&d);
	cr_expect(strncmp(first, "mine.md:3:1: error: unknown placeholder 'parameters.total'", 58) == 0,
	          "%s", first);
	free(first);
	tb_compare_free(c);
	free((char *)in[0].text);
	free((char *)in[1].text);
	tb_diags_release(&d);
}

Test(compare, a_grid_heat_map_is_a_table_in_markdown)
{
	tb_compare_input in[2] = { S_file(S_H100), S_file(S_A100) };
	tb_diags d;
	tb_diags_init(&d);
	const char *sweeps[2] = { "training.micro_batch=1,2", "training.seq_len=2048,4096" };
	tb_compare *c = tb_compare_new(in, 2, NULL, 0, sweeps, 2, &d);
	cr_assert_not_null(c, "%s", tb_diags_format(&d));
	tb_report_options o;
	memset(&o, 0, sizeof o);
	o.template_text = "# Grid\n\n{{chart sweep-grid}}\n";
	o.template_len = strlen(o.template_text);
	tb_report *r = tb_report_new_compare(c, &o, &d);
	cr_assert_not_null(r);
	size_t heat = 0;
	for (size_t i = 0; i < tb_report_nblocks(r); i++) {
		const tb_block *b = tb_report_block_at(r, i);
		if (b->kind != TB_BLOCK_CHART)
			continue;
		heat++;
		cr_expect_eq(b->table.nrows, 3);    /* a header and a row per seq_len */
		cr_expect_eq(b->table.ncols, 3);    /* a label and a column per micro_batch */
	}
	cr_expect_eq(heat, 2, "one heat map per proposal");
	char *md = tb_render_md(r, "x-");
	cr_expect(strstr(md, ".svg") == NULL, "Markdown shows the grid's table, not a picture");
	cr_expect(strstr(md, "| training.seq\\_len \\\\ training.micro\\_batch | 1 | 2 |") != NULL, "%s", md);
	free(md);
	tb_report_free(r);
	tb_compare_free(c);
	free((char *)in[0].text);
	free((char *)in[1].text);
	tb_diags_release(&d);
}

/* Issue 19: a proposal that cannot run is never best and gets no time or
 * cost; each proposal is priced on its answer (the 7B's layout left open
 * fits with ZeRO-2 where its written default needed 141 GB), and memory
 * to spare keeps its sign. */
Test(compare, a_proposal_that_cannot_run_is_never_best)
{
	static const char S_big[] =
		"title: big\n"
		"model:\n"
		"  preset: llama-2-70b\n"
		"training:\n"
		"  tokens: 20B\n"
		"hardware:\n"
		"  gpu: a100-40gb\n"
		"  count: 8\n";
	tb_compare_input in[2] = { S_text("big.yaml", S_big), S_text("base.yaml", S_base) };
	tb_diags d;
	tb_diags_init(&d);
	tb_compare *c = tb_compare_new(in, 2, NULL, 0, NULL, 0, &d);
	cr_assert_not_null(c);
	cr_expect(c->p[0].b->answer.decided && !c->p[0].b->answer.runs);
	cr_expect(c->p[1].b->answer.runs);
	cr_expect(c->p[1].b->memory.fits, "the 7B priced on a layout that fits");
	const char *keys[] = { "seconds", "cost", "gpu_hours", "seconds_compute" };
	for (size_t k = 0; k < 4; k++) {
		const tb_compare_figure *f = tb_compare_figure_find(c, keys[k]);
		cr_assert_not_null(f, "%s", keys[k]);
		cr_expect(!f->known[0] && !f->best[0], "%s: the 70B that cannot run", keys[k]);
	}
	const tb_compare_figure *h = tb_compare_figure_find(c, "headroom_bytes");
	cr_assert_not_null(h);
	cr_expect(h->v[0] < 0, "over the card is negative headroom: %g", h->v[0]);
	tb_compare_free(c);
	tb_diags_release(&d);
}

/* The proposals are priced on the cores, each into its own slot
 * (compare.c, tb_pool_for): one thread and four give the same figures,
 * to the bit, for three proposals. */
Test(compare, the_same_whatever_the_threads)
{
	tb_compare_input in[3] = { S_file("docs/examples/compare/7b-2t.yaml"),
	                           S_file("docs/examples/compare/13b-1t.yaml"),
	                           S_file("docs/examples/compare/13b-1t-128.yaml") };
	tb_compare *c[2];
	for (int t = 0; t < 2; t++) {
		tb_plan_set_jobs(t ? 4 : 1);
		tb_diags d;
		tb_diags_init(&d);
		c[t] = tb_compare_new(in, 3, NULL, 0, NULL, 0, &d);
		cr_assert_not_null(c[t]);
		tb_diags_release(&d);
	}
	tb_plan_set_jobs(0);
	cr_assert_eq(c[0]->nfigures, c[1]->nfigures);
	for (size_t f = 0; f < c[0]->nfigures; f++)
		for (size_t i = 0; i < c[0]->n; i++) {
			const tb_compare_figure *a = &c[0]->figures[f], *b = &c[1]->figures[f];
			cr_expect(a->known[i] == b->known[i] && a->best[i] == b->best[i] &&
			          (!a->known[i] || a->v[i] == b->v[i]), "%s of %zu", a->key, i);
		}
	for (int t = 0; t < 2; t++)
		tb_compare_free(c[t]);
	for (int i = 0; i < 3; i++)
		free((char *)in[i].text);
}
