/* fuzz_pilot.c: libFuzzer target for tb_pilot_parse (pilot.h).
 *
 * Beyond "does not crash", it checks the contract: a parsed log has a kind,
 * at least three steady samples, a positive finite step (or tokens per
 * second) with its spread around it, and a non-negative peak; a refused
 * one leaves *out zeroed with an error said.  A violation aborts, so
 * libFuzzer keeps the input. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/pilot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size ? size : 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	tb_diags d;
	tb_diags_init(&d);
	tb_pilot_log lg;
	int rc = tb_pilot_parse("fuzz.log", s, size, &lg, &d);
	if (rc == 0) {
		if (lg.kind == TB_PILOT_NONE || lg.samples < 3 || lg.samples > lg.lines || d.errors)
			abort();
		double mid = lg.kind == TB_PILOT_TORCHTITAN_LOG ? lg.tokens_per_s_per_gpu : lg.step_s;
		double lo = lg.kind == TB_PILOT_TORCHTITAN_LOG ? lg.tps_p10 : lg.step_s_p10;
		double hi = lg.kind == TB_PILOT_TORCHTITAN_LOG ? lg.tps_p90 : lg.step_s_p90;
		if (!isfinite(mid) || !(mid >= 0) || !(lo <= mid) || !(mid <= hi) || !isfinite(hi))
			abort();
		if (!isfinite(lg.peak_memory_bytes) || lg.peak_memory_bytes < 0)
			abort();
	} else {
		tb_pilot_log zero;
		memset(&zero, 0, sizeof zero);
		if (rc != -1 || d.errors == 0 || memcmp(&lg, &zero, sizeof lg) != 0)
			abort();
	}
	tb_diags_release(&d);
	free(s);
	return 0;
}
