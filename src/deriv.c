/* deriv.c: a budget's derivation and warning lists (deriv.h), and the
 * look-up by key that the report and the back ends use (budget.h).
 *
 * Allocation-free and cheap: a planner may compute a million budgets, and
 * every step adds its derivations on each. */
#include "deriv.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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
	char *w = b->warnings[b->n_warnings++];
	size_t cap = sizeof b->warnings[0], n;
	/* Most warnings are fixed sentences: copy them without vsnprintf. */
	if (!strchr(fmt, '%')) {
		n = strlen(fmt);
		memcpy(w, fmt, n < cap ? n + 1 : cap - 1);
	} else {
		va_list ap;
		va_start(ap, fmt);
		int r = vsnprintf(w, cap, fmt, ap);
		va_end(ap);
		n = r < 0 ? 0 : (size_t)r;
	}
	if (n < cap)
		return;
	/* too long (a long name in it): cut at a whole UTF-8 character and
	 * say so, never mid-sequence */
	size_t end = cap - 4;
	while (end > 0 && ((unsigned char)w[end] & 0xC0) == 0x80)
		end--;
	memcpy(w + end, "...", 4);
}
