/* sweep_text.c: a sweep's values and cliffs in words, the same in the
 * estimate's text and in every report ("does not fit from micro_batch 6";
 * "past 2,048 GPUs each doubling buys less than 30% (12% at best)"). */
#include "trainbudget/sweep.h"

#include <math.h>
#include <string.h>

#include "trainbudget/fmt.h"

static bool S_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

bool tb_sweep_point_replaced(const tb_sweep_point *p)
{
	const tb_sweep_figures *f = &p->f;
	return p->valid && f->answer_decided && f->answer_runs &&
	       f->answer_source == TB_LAYOUT_REPLACED;
}

void tb_sweep_value_text(const tb_sweep *s, size_t a, size_t i, tb_buf *out)
{
	const tb_sweep_axis *ax = &s->axis[a];
	if (i >= ax->n)
		return;
	/* a plain count reads better grouped; anything else as it was given */
	if (S_digits(ax->values[i]) && strlen(ax->values[i]) < 16 && isfinite(ax->x[i]))
		tb_fmt_grouped(out, ax->x[i]);
	else
		tb_buf_puts(out, ax->shown ? ax->shown[i] : ax->values[i]);
}

void tb_sweep_value_words(const tb_sweep *s, size_t a, size_t i, tb_buf *out)
{
	const tb_sweep_axis *ax = &s->axis[a];
	if (i >= ax->n)
		return;
	bool gpus = strcmp(ax->key, "hardware.count") == 0;
	if (!gpus) {
		const char *dot = strrchr(ax->key, '.');
		tb_buf_printf(out, "%s ", dot ? dot + 1 : ax->key);
	}
	tb_sweep_value_text(s, a, i, out);
	if (gpus)
		tb_buf_puts(out, ax->x[i] == 1 ? " GPU" : " GPUs");
}

void tb_sweep_cliff_words(const tb_sweep *s, const tb_sweep_cliff *c, tb_buf *out)
{
	if (s->naxes == 2) {
		tb_buf_puts(out, "at ");
		tb_sweep_value_words(s, 1, c->row, out);
		tb_buf_puts(out, ", ");
	}
	switch (c->kind) {
	case TB_CLIFF_STOPS_FITTING:
		tb_buf_puts(out, "does not fit from ");
		tb_sweep_value_words(s, 0, c->at, out);
		break;
	case TB_CLIFF_STARTS_FITTING:
		tb_buf_puts(out, "fits from ");
		tb_sweep_value_words(s, 0, c->at, out);
		break;
	case TB_CLIFF_NEVER_FITS:
		tb_buf_puts(out, "does not fit at any value swept");
		break;
	case TB_CLIFF_NOT_VALID:
		tb_buf_puts(out, "cannot be laid out from ");
		tb_sweep_value_words(s, 0, c->at, out);
		tb_buf_puts(out, " on (the scenario refuses it)");
		break;
	case TB_CLIFF_SCALING:
		tb_buf_puts(out, "past ");
		tb_sweep_value_words(s, 0, c->at, out);
		tb_buf_printf(out, " each doubling buys less than %.0f%% (", TB_SWEEP_DOUBLING_GAIN * 100);
		tb_fmt_pct(out, c->gain > 0 ? c->gain : 0);
		tb_buf_puts(out, " at best)");
		break;
	}
}
