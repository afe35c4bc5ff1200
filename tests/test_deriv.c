/* test_deriv.c: a budget's derivation and warning lists (src/deriv.c):
 * their caps, the truncation of a long warning, the look-up by key. */
#include <criterion/criterion.h>
#include <string.h>

#include "deriv.h"

static tb_budget B;

Test(deriv, deriv_list_caps_silently)
{
	memset(&B, 0, sizeof B);
	for (int i = 0; i < TB_DERIVS_MAX + 5; i++) {
		tb_deriv *d = tb_budget_add_deriv(&B, "k", "t", "x", "a", "s", i, "");
		cr_assert(d);
		for (int v = 0; v < TB_DERIV_VARS + 3; v++)
			tb_deriv_add_var(d, "a", "m", v, "");
	}
	cr_expect(B.n_derivs == TB_DERIVS_MAX);
	cr_expect(B.derivs[0].nvars == TB_DERIV_VARS);
	cr_expect(B.derivs[TB_DERIVS_MAX - 1].result == TB_DERIVS_MAX - 1);
}

Test(deriv, warnings_cap_and_truncate)
{
	memset(&B, 0, sizeof B);
	char longer[400];
	memset(longer, 'x', sizeof longer - 1);
	longer[sizeof longer - 1] = 0;
	for (int i = 0; i < TB_WARNINGS_MAX + 3; i++)
		tb_budget_warn(&B, "w%d %s", i, longer);
	cr_expect(B.n_warnings == TB_WARNINGS_MAX);
	cr_expect(strlen(B.warnings[0]) == sizeof B.warnings[0] - 1);
	cr_expect(strncmp(B.warnings[0], "w0 x", 4) == 0);
}

Test(deriv, lookup_by_key)
{
	memset(&B, 0, sizeof B);
	tb_budget_add_deriv(&B, "a.one", "t", "x", "a", "s", 1, "");
	tb_budget_add_deriv(&B, "a.two", "t", "x", "a", "s", 2, "");
	cr_assert_not_null(tb_budget_deriv(&B, "a.two"));
	cr_expect(tb_budget_deriv(&B, "a.two")->result == 2);
	cr_expect_null(tb_budget_deriv(&B, "a"));
	cr_expect_null(tb_budget_deriv(&B, NULL));
}

Test(deriv, fixed_warning_is_copied_whole)
{
	memset(&B, 0, sizeof B);
	tb_budget_warn(&B, "no format here: 100 percent");
	tb_budget_warn(&B, "%d%%", 5);
	cr_expect(B.n_warnings == 2);
	cr_expect_str_eq(B.warnings[0], "no format here: 100 percent");
	cr_expect_str_eq(B.warnings[1], "5%");
}
