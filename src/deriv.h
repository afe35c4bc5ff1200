/* deriv.h: the derivation and warning lists of a budget, internal to the
 * library.  The calculator steps (through calc.h) and any later model that
 * explains its figures include this; the orchestrator, budget.c, does not
 * need it.
 *
 * Strings are borrowed and must be static.  Full arrays drop further
 * entries silently: the array sizes in budget.h are chosen to hold every
 * derivation the steps make.  Allocation-free, like the steps. */
#ifndef TB_DERIV_H
#define TB_DERIV_H

#include "trainbudget/budget.h"

/* Appends a derivation and hands it back for its variables.  A full list
 * hands back a scratch entry, so callers never check for NULL. */
tb_deriv *tb_budget_add_deriv(tb_budget *b, const char *key, const char *title,
                              const char *sym, const char *formula,
                              const char *source, double result,
                              const char *unit);

/* Inline: the steps add a few hundred vars per budget, and a call across
 * files costs more than the four stores it makes. */
static inline void tb_deriv_add_var(tb_deriv *d, const char *sym,
                                    const char *meaning, double value,
                                    const char *unit)
{
	if (d->nvars >= TB_DERIV_VARS)
		return;
	tb_deriv_var *v = &d->vars[d->nvars++];
	v->sym = sym;
	v->meaning = meaning;
	v->value = value;
	v->unit = unit;
}

/* Appends a warning, cut to the slot's size. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void tb_budget_warn(tb_budget *b, const char *fmt, ...);

#endif
