/* validate_eval.c: the forward pass alone against the forward-only steps
 * the sources log beside their training steps (MLPerf's evaluation: the
 * same global batch through the same layout, forward only), so that a
 * training-step miss can be placed in the forward or in what the training
 * step adds to it (backward, optimizer, the data-parallel reduction, the
 * step's fixed cost).  A section of docs/validation.md. */
#include "validate_perf.h"
#include "validate_runs.h"

#include <math.h>
#include <string.h>

/* The row's training step and its forward-only step as the model prices
 * them.  The evaluation runs without tensor-parallel overlap (NeMo's
 * NVTE_TP_OVERLAP_TRAINING_ONLY=1 in every MLPerf config here). */
static bool S_predict(const tb_vruns_case *c, double *train_s, double *fwd_s)
{
	tb_perf_result r;
	tb_perf_predict(&c->in, NULL, &r);
	if (!r.ok)
		return false;
	*train_s = r.step_s;
	tb_perf_input e = c->in;
	e.method = TB_METHOD_FROZEN;
	e.overlap_tp = false;
	tb_perf_predict(&e, NULL, &r);
	if (!r.ok)
		return false;
	*fwd_s = r.step_s;
	return *train_s > 0 && *fwd_s > 0;
}

static bool S_has_eval(const tb_vruns_case *c)
{
	return c->set != TB_VRUNS_NOT_SCORED && c->eval_s > 0 && c->published_s > c->eval_s;
}

void tb_vperf_dump_eval(void)
{
	for (int i = 0; i < tb_vruns_nmodern; i++) {
		const tb_vruns_case *c = &tb_vruns_modern[i];
		double tr, fw;
		if (!S_has_eval(c) || !S_predict(c, &tr, &fw))
			continue;
		printf("%-40s train pub %.4g pred %.4g (%+.1f%%) | forward pub %.4g pred %.4g (%+.1f%%) | "
		       "rest pub %.4g pred %.4g (%+.1f%%)\n",
		       c->id, c->published_s, tr, 100 * (tr / c->published_s - 1), c->eval_s, fw,
		       100 * (fw / c->eval_s - 1), c->published_s - c->eval_s, tr - fw,
		       100 * ((tr - fw) / (c->published_s - c->eval_s) - 1));
	}
}

void tb_vperf_write_eval(FILE *f)
{
	fprintf(f, "\n## The forward pass apart (MLPerf's evaluation steps)\n\n"
	           "Written by `make validate` (tests/validate_eval.c). Every MLPerf Training v5.0-v5.1 "
	           "Llama 3.1 log here records, beside each training step, the time of each evaluation "
	           "step (`validation_step_time` in its `tracked_stats`): the same global batch through the "
	           "same layout and precision, forward only, without tensor-parallel overlap "
	           "(`NVTE_TP_OVERLAP_TRAINING_ONLY=1` in every config). `eval_step_s` in "
	           "`tests/fixtures/runs.yaml` is its median per result file, then over the files, as "
	           "`step_s` is the training step's. The model prices that step as a forward-only run "
	           "(`training.method: frozen`, no overlap of the tensor-parallel collectives), so "
	           "each row's training-step error splits into the forward's and that of what the "
	           "training step adds to it: the backward, the optimizer, the data-parallel reduction "
	           "and whatever the step costs once. Nothing here is fitted. Error = (predicted - "
	           "published) / published.\n\n");
	fprintf(f, "| Group | runs | training step, median error | forward, median error | rest of the step, median error |\n"
	           "|---|---:|---:|---:|---:|\n");
	for (int i = 0; i < tb_vruns_nmodern; i++) {
		const tb_vruns_case *c = &tb_vruns_modern[i];
		if (!S_has_eval(c))
			continue;
		bool first = true;
		for (int j = 0; j < i && first; j++)
			if (S_has_eval(&tb_vruns_modern[j]) && strcmp(tb_vruns_modern[j].group, c->group) == 0)
				first = false;
		if (!first)
			continue;
		double et[TB_VRUNS_ROWS_MAX], ef[TB_VRUNS_ROWS_MAX], er[TB_VRUNS_ROWS_MAX];
		int n = 0;
		for (int j = i; j < tb_vruns_nmodern; j++) {
			const tb_vruns_case *d = &tb_vruns_modern[j];
			double tr, fw;
			if (!S_has_eval(d) || strcmp(d->group, c->group) != 0 || !S_predict(d, &tr, &fw))
				continue;
			et[n] = tr / d->published_s - 1;
			ef[n] = fw / d->eval_s - 1;
			er[n++] = (tr - fw) / (d->published_s - d->eval_s) - 1;
		}
		if (n == 0)
			continue;
		fprintf(f, "| %s | %d | %+.1f%% | %+.1f%% | %+.1f%% |\n", c->group, n,
		        100 * tb_vperf_median(et, n), 100 * tb_vperf_median(ef, n), 100 * tb_vperf_median(er, n));
	}
	fprintf(f, "\n| Run | Training step, published | predicted | Forward, published | predicted | error "
	           "| Rest, published | predicted | error |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (int i = 0; i < tb_vruns_nmodern; i++) {
		const tb_vruns_case *c = &tb_vruns_modern[i];
		double tr, fw;
		if (!S_has_eval(c) || !S_predict(c, &tr, &fw))
			continue;
		double rp = c->published_s - c->eval_s;
		fprintf(f, "| %s | %.4g s | %.4g s | %.4g s | %.4g s | %+.1f%% | %.4g s | %.4g s | %+.1f%% |\n",
		        c->id, c->published_s, tr, c->eval_s, fw, 100 * (fw / c->eval_s - 1), rp, tr - fw,
		        100 * ((tr - fw) / rp - 1));
	}
}
