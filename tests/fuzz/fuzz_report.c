/* fuzz_report.c: libFuzzer target for a user template through the whole
 * report path (tb_report_new, then the Markdown and HTML back ends).
 *
 * The template is the fuzzed input; the scenario is the built-in default,
 * loaded once.  Each input goes through tb_report_new (which parses the
 * template with cmark and substitutes on the tree) and the Markdown and
 * HTML back ends.  A report is built exactly when there is no error. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "trainbudget/budget.h"
#include "trainbudget/diag.h"
#include "trainbudget/render.h"
#include "trainbudget/report.h"
#include "trainbudget/scenario.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static tb_scenario *S_sc;
static tb_budget S_budget;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	tb_diags d;
	tb_diags_init(&d);
	const char *y = tb_scenario_default_text();
	S_sc = tb_scenario_load("<builtin>", y, strlen(y), NULL, 0, &d);
	tb_diags_release(&d);
	if (S_sc)
		tb_budget_compute(&S_sc->inputs, &S_budget);
		tb_budget_compute_risk(&S_sc->inputs, &S_budget);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!S_sc)
		return 0;   /* the loader has not landed: nothing to drive */
	char *text = malloc(size ? size : 1);
	if (!text)
		return 0;
	if (size)
		memcpy(text, data, size);

	tb_diags d;
	tb_diags_init(&d);
	tb_report_options opt;
	memset(&opt, 0, sizeof opt);
	opt.template_path = "fuzz.md";
	opt.template_text = text;
	opt.template_len = size;
	opt.date = "2024-01-01";
	opt.command = "trainbudget report";
	tb_report *r = tb_report_new(S_sc, &S_budget, &opt, &d);
	if (r == NULL && d.errors == 0)
		abort();
	char *msg = tb_diags_format(&d);
	free(msg);
	if (r) {
		char *md = tb_render_md(r, "fuzz-");
		char *html = tb_render_html(r);
		free(md);
		free(html);
		tb_report_free(r);
	}
	tb_diags_release(&d);
	free(text);
	return 0;
}
