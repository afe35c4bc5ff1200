/* fuzz_scenario.c: libFuzzer target for tb_scenario_load, and everything
 * downstream of a scenario that loads: the budget, the text and JSON
 * summaries.
 *
 * Checks the loader's contract (NULL exactly when there is an error) and
 * the project's rule that no output prints NaN or inf: a loaded scenario's
 * JSON must not hold a non-finite number. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "trainbudget/budget.h"
#include "trainbudget/diag.h"
#include "trainbudget/render.h"
#include "trainbudget/scenario.h"

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
	char *msg = tb_diags_format(&d);
	free(msg);
	if (sc) {
		tb_budget_compute(&sc->inputs, &S_budget);
		tb_budget_compute_risk(&sc->inputs, &S_budget);
		char *t = tb_render_text(sc, &S_budget);
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
