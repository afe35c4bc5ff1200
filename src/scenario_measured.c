/* scenario_measured.c: the measured section: what a real run of the
 * scenario achieved (step time, peak memory), set against the estimate. */
#include "scenario_sections.h"

#include <float.h>

static const char *const S_keys[] = { "step_time", "peak_memory" };

static bool S_load(tb_yaml_ctx *c, const tb_yaml_node *root, tb_scenario *sc)
{
	tb_inputs *in = &sc->inputs;
	const tb_yaml_node *n;
	bool ok = true;

	tb_measured *me = &in->measured;
	const tb_yaml_node *mn = tb_yaml_get_map(c, root, "measured");
	if (mn) {
		/* A measurement below these floors is a unit slip (ms for s, MB
		 * for GB), and would turn into an MFU or an error of 1e300. */
		if ((n = tb_yaml_get(mn, "step_time"))) {
			if (!tb_yaml_quant(c, n, "measured.step_time", TB_YAML_Q_DURATION, "a duration such as 1.8 s", DBL_MIN, 1e7, &me->step_time_s)) {
				ok = false;
			} else if (me->step_time_s < 1e-3) {
				tb_yaml_err(c, n, "measured.step_time is under a millisecond; expected a training step's time such as 1.8 s");
				ok = false;
			} else {
				me->has_step_time = true;
			}
		}
		if ((n = tb_yaml_get(mn, "peak_memory"))) {
			if (!tb_yaml_quant(c, n, "measured.peak_memory", TB_YAML_Q_BYTES, "a size such as 71 GiB", 1e6, 1e15, &me->peak_memory_bytes)) {
				ok = false;
			} else if (me->peak_memory_bytes < 1048576.0) {
				tb_yaml_err(c, n, "measured.peak_memory is under 1 MiB; expected a GPU's peak such as 71 GiB");
				ok = false;
			} else {
				me->has_peak_memory = true;
			}
		}
	}
	return ok;
}

const tb_scenario_section tb_scenario_section_measured = {
	"measured", S_keys, TB_N(S_keys), NULL, 0, S_load,
};
