/* fuzz_trace.c: libFuzzer target for tb_trace_parse (trace.h).
 *
 * Beyond "does not crash": a parsed trace has steps, a positive finite
 * step, and every term finite and non-negative; a refused one leaves *out
 * zeroed with an error said.  A violation aborts. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size ? size : 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	tb_diags d;
	tb_diags_init(&d);
	tb_trace tr;
	int rc = tb_trace_parse("fuzz.json", s, size, &tr, &d);
	if (rc == 0) {
		if (tr.steps < 1 || !isfinite(tr.step_s) || tr.step_s < 0 || d.errors)
			abort();
		for (int t = 0; t < TB_TRACE_TERMS; t++)
			if (!isfinite(tr.terms_s[t]) || tr.terms_s[t] < 0)
				abort();
	} else {
		tb_trace zero;
		memset(&zero, 0, sizeof zero);
		if (d.errors == 0 || memcmp(&tr, &zero, sizeof tr) != 0)
			abort();
	}
	tb_diags_release(&d);
	free(s);
	return 0;
}
