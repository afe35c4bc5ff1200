/* budget.c: the orchestrator.  Runs the calculator steps of calc.h in
 * order on a zeroed budget, and keeps the derivation and warning lists.
 *
 * Everything here must stay allocation-free and cheap: a planner may call
 * tb_budget_compute a million times in a sweep. */
#include "calc.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Approach-3 constants.  Hoffmann's are the unrounded ones from the paper's
 * TeX source (exp(6.0073404) = 406.401, ...): the rounded alpha/beta move
 * the Gopher-budget optimum from 40B to 32B, which the paper does not say.
 * Hoffmann et al. 2022, arXiv:2203.15556, App. D.2 Eq. (10);
 * Besiroglu et al. 2024, arXiv:2404.10102 (Epoch AI replication). */
const tb_fit tb_fit_hoffmann = {
	"Hoffmann et al. 2022", 1.69337, 406.401, 410.723, 0.33917084, 0.2849083
};
const tb_fit tb_fit_epoch = {
	"Epoch AI 2024", 1.8172, 482.01, 2085.43, 0.3478, 0.3658
};

void tb_budget_compute(const tb_inputs *in, tb_budget *out)
{
	/* The derivation and warning arrays are most of the struct (about
	 * 27 KB) and are only read up to their counts, so zeroing them would
	 * cost more than the calculators themselves.  The steps from timecost
	 * on clear their own parts (tb_time, the fixed part of tb_chinchilla)
	 * and write every plan and lever row whole, so only params, flops and
	 * memory are cleared here. */
	memset(out, 0, offsetof(tb_budget, time));
	out->n_derivs = 0;
	out->n_warnings = 0;
	tb_params_compute(in, out);
	tb_flops_compute(in, out);
	tb_memory_compute(in, out);
	tb_timecost_compute(in, out);
	tb_scaling_compute(in, out);
}

const tb_deriv *tb_budget_deriv(const tb_budget *b, const char *key)
{
	if (!b || !key)
		return NULL;
	for (int i = 0; i < b->n_derivs; i++)
		if (b->derivs[i].key && strcmp(b->derivs[i].key, key) == 0)
			return &b->derivs[i];
	return NULL;
}

/* A full list hands back a scratch entry, so the steps never need to check
 * for NULL; what they write there is dropped. */
static _Thread_local tb_deriv S_scratch_deriv;

tb_deriv *tb_budget_add_deriv(tb_budget *b, const char *key, const char *title,
                              const char *sym, const char *formula,
                              const char *source, double result,
                              const char *unit)
{
	tb_deriv *d = b->n_derivs < TB_DERIVS_MAX ? &b->derivs[b->n_derivs++]
	                                          : &S_scratch_deriv;
	d->key = key;
	d->title = title;
	d->sym = sym;
	d->formula = formula;
	d->source = source;
	d->nvars = 0;
	d->result = result;
	d->unit = unit;
	return d;
}

void tb_budget_warn(tb_budget *b, const char *fmt, ...)
{
	if (b->n_warnings >= TB_WARNINGS_MAX)
		return;
	/* Most warnings are fixed sentences: copy them without vsnprintf. */
	if (!strchr(fmt, '%')) {
		size_t n = strlen(fmt);
		if (n >= sizeof b->warnings[0])
			n = sizeof b->warnings[0] - 1;
		memcpy(b->warnings[b->n_warnings], fmt, n);
		b->warnings[b->n_warnings++][n] = '\0';
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(b->warnings[b->n_warnings], sizeof b->warnings[0], fmt, ap);
	va_end(ap);
	b->n_warnings++;
}
