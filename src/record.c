/* record.c: the step-time model's held-out record per card and format
 * (record.h).  Each row is what `make validate` finds over the held-out
 * rows of tests/fixtures/runs.yaml, older and modern, and it fails when a
 * row here no longer is; docs/validation.md has the table with the
 * sources. */
#include "trainbudget/record.h"
#include "trainbudget/buf.h"
#include "trainbudget/ceiling.h"
#include "trainbudget/gpus.h"

#include <math.h>
#include <string.h>

/* card, format, sources, held-out runs, sources within the bar, median */
static const tb_record S_rows[] = {
	{ "a100-80gb", TB_DTYPE_BF16, 12, 42, 7, -0.072 },
	{ "h100-sxm", TB_DTYPE_BF16, 15, 32, 9, -0.084 },
	{ "b200", TB_DTYPE_BF16, 2, 4, 0, -0.404 },
	{ "h800", TB_DTYPE_FP8, 1, 1, 1, 0.045 },
	{ "h100-sxm", TB_DTYPE_FP8, 17, 34, 10, -0.078 },
	{ "h200", TB_DTYPE_FP8, 5, 25, 4, -0.068 },
	{ "gb200", TB_DTYPE_BF16, 3, 3, 2, -0.045 },
	{ "gb200", TB_DTYPE_FP8, 11, 38, 1, -0.161 },
	{ "gb300", TB_DTYPE_FP8, 7, 37, 3, 0.005 },
	{ "mi300x", TB_DTYPE_BF16, 1, 1, 0, -0.381 },
	{ "mi300x", TB_DTYPE_FP8, 3, 13, 1, -0.121 },
	{ "b200", TB_DTYPE_FP8, 6, 44, 3, -0.086 },
	{ "gb300", TB_DTYPE_FP4, 5, 22, 3, 0.053 },
	{ "gb200", TB_DTYPE_FP4, 2, 3, 2, 0.087 },
	{ "b300", TB_DTYPE_FP8, 4, 20, 4, -0.004 },
	{ "b200", TB_DTYPE_FP4, 2, 5, 1, 0.111 },
	{ "b300", TB_DTYPE_FP4, 3, 15, 3, 0.056 },
	{ "mi355x", TB_DTYPE_FP8, 2, 8, 2, 0.059 },
	{ "mi325x", TB_DTYPE_FP8, 2, 12, 2, -0.038 },
};

size_t tb_record_count(void)
{
	return sizeof S_rows / sizeof S_rows[0];
}

const tb_record *tb_record_at(size_t i)
{
	return i < tb_record_count() ? &S_rows[i] : NULL;
}

const tb_record *tb_record_find(const char *card, tb_dtype dtype)
{
	if (!card)
		return NULL;
	for (size_t i = 0; i < tb_record_count(); i++)
		if (S_rows[i].dtype == dtype && strcmp(S_rows[i].card, card) == 0)
			return &S_rows[i];
	return NULL;
}

const tb_record *tb_record_for(const tb_gpu *g, tb_precision p)
{
	/* the runs measured the table card's efficiencies over its peaks, as
	 * the ceilings (tb_gpus_table_card) */
	const tb_gpu *t = tb_gpus_table_card(g);
	return t ? tb_record_find(t->name, tb_ceiling_dtype(t, p)) : NULL;
}

const tb_record *tb_record_off(const tb_gpu *g, tb_precision p)
{
	const tb_record *r = tb_record_for(g, p);
	return r && fabs(r->median_err) > TB_RECORD_BAR ? r : NULL;
}

const tb_record *tb_record_said(const tb_inputs *in, const tb_gpu *g)
{
	if (!in || !g || (in->calib.known && strcmp(in->calib.card, g->name) == 0))
		return NULL;
	return tb_record_off(g, in->training.precision);
}

void tb_record_say(const tb_record *r, tb_buf *out)
{
	if (!r || !out)
		return;
	bool fast = r->median_err < 0;
	tb_buf_printf(out, "on %s in %s the model's steps were a median %.0f%% %s than published over "
	                   "the %d run%s of %d source%s held out of its fit (docs/validation.md): read "
	                   "this prediction as %s by about as much",
	              r->card, tb_ceiling_format_dtype(r->dtype), 100 * fabs(r->median_err),
	              fast ? "shorter" : "longer", r->runs, r->runs == 1 ? "" : "s", r->sources,
	              r->sources == 1 ? "" : "s", fast ? "optimistic" : "pessimistic");
}
