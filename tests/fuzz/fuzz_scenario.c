/* fuzz_scenario.c: libFuzzer target for tb_scenario_load, and everything
 * downstream of a scenario that loads: the budget, the risk, its stages, the layout
 * search `estimate` runs (its counts must add up), the text and JSON
 * summaries.
 *
 * Checks the loader's contract (NULL exactly when there is an error), the
 * project's rule that no output prints NaN or inf (a loaded scenario's
 * JSON must not hold a non-finite number), and the diagnostics' (diag.h):
 * at most TB_DIAGS_MAX_SHOWN kept, the printed text bounded whatever the
 * input, and nothing in it a terminal would act on; the text summary, which
 * `estimate` prints to a terminal, holds none either. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "trainbudget/budget.h"
#include "trainbudget/diag.h"
#include "trainbudget/render.h"
#include "trainbudget/scenario.h"
#include "trainbudget/stages.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* JSON numbers only: "nan"/"inf" inside strings (a title) are fine. */
static int S_json_has_nonfinite(const char *j)
{
	int in_str = 0;
	for (const char *p = j; *p; p++) {
		if (in_str) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"')
				in_str = 0;
			continue;
		}
		if (*p == '"')
			in_str = 1;
		else if ((p[0] == 'n' || p[0] == 'N') && (p[1] == 'a' || p[1] == 'A'))
			return 1;
		else if ((p[0] == 'i' || p[0] == 'I') && (p[1] == 'n' || p[1] == 'N'))
			return 1;
	}
	return 0;
}

/* A byte a terminal acts on: C0 controls but tab and newline, DEL, and
 * the UTF-8 of the C1 controls and the bidirectional controls. */
static int S_has_raw_control(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; u[i]; i++) {
		if ((u[i] < 0x20 && u[i] != '\n' && u[i] != '\t') || u[i] == 0x7f)
			return 1;
		if (u[i] == 0xC2 && u[i + 1] >= 0x80 && u[i + 1] <= 0x9F)
			return 1;
		if (u[i] == 0xE2 && u[i + 1] == 0x80 &&
		    ((u[i + 2] >= 0xAA && u[i + 2] <= 0xAE) || u[i + 2] == 0x8E || u[i + 2] == 0x8F))
			return 1;
		if (u[i] == 0xD8 && u[i + 1] == 0x9C)
			return 1;
		if (u[i] == 0xE2 && u[i + 1] == 0x81 && u[i + 2] >= 0xA6 && u[i + 2] <= 0xA9)
			return 1;
	}
	return 0;
}

static tb_budget S_budget;  /* large: keep it off the stack */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Exact-size copy, no terminator: the loader is given a length. */
	char *text = malloc(size ? size : 1);
	if (!text)
		return 0;
	if (size)
		memcpy(text, data, size);

	tb_diags d;
	tb_diags_init(&d);
	tb_scenario *sc = tb_scenario_load("fuzz.yaml", text, size, NULL, 0, &d);
	if (sc == NULL && d.errors == 0)
		abort();
	if (sc != NULL && d.errors != 0)
		abort();
	if (d.n > TB_DIAGS_MAX_SHOWN)
		abort();
	char *msg = tb_diags_format(&d);
	/* per diagnostic: a file name, a message of at most 1 KB and a window
	 * of 120 characters, each escaped at most 8 bytes for one */
	if (strlen(msg) > 200 + TB_DIAGS_MAX_SHOWN * (64 + 8 * TB_DIAGS_MAX_MSG + 2 * 8 * (2 * TB_DIAGS_WINDOW + 8)) ||
	    S_has_raw_control(msg))
		abort();
	free(msg);
	if (sc) {
		tb_budget_compute(&sc->inputs, &S_budget);
		tb_budget_compute_risk(&sc->inputs, &S_budget);
		/* a run in stages: each priced, the whole run drawn (issue 22) */
		tb_budget_compute_stages(&sc->inputs, sc->stages, sc->nstages, &S_budget);
		/* the layout search every estimate runs, with its pruning */
		tb_budget_compute_plan(&sc->inputs, &S_budget, NULL);
		if (S_budget.plan.known &&
		    S_budget.plan.searched != S_budget.plan.pruned_rules + S_budget.plan.pruned_batch +
		                              S_budget.plan.pruned_memory + S_budget.plan.feasible)
			abort();
		char *t = tb_render_text(sc, &S_budget);
		if (t && S_has_raw_control(t))
			abort();
		char *j = tb_render_json(sc, &S_budget);
		if (j && S_json_has_nonfinite(j))
			abort();
		free(t);
		free(j);
		tb_scenario_free(sc);
	}
	tb_diags_release(&d);
	free(text);
	return 0;
}
