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
	/* cut, and saying so */
	size_t n = strlen(B.warnings[0]);
	cr_expect(n == sizeof B.warnings[0] - 1, "%zu", n);
	cr_expect(strncmp(B.warnings[0], "w0 x", 4) == 0);
	cr_expect_str_eq(B.warnings[0] + n - 3, "...");
}

/* A warning cut inside a multi-byte character drops the whole character
 * (a report must stay valid UTF-8), fixed or formatted: 'a' and 128 euro
 * signs of 3 bytes, 385 bytes, do not fit. */
#define S_E "\xe2\x82\xac"
#define S_E8 S_E S_E S_E S_E S_E S_E S_E S_E
#define S_E64 S_E8 S_E8 S_E8 S_E8 S_E8 S_E8 S_E8 S_E8
Test(deriv, truncation_keeps_utf8_whole)
{
	for (int fixed = 0; fixed < 2; fixed++) {
		memset(&B, 0, sizeof B);
		if (fixed)
			tb_budget_warn(&B, "a" S_E64 S_E64);
		else
			tb_budget_warn(&B, "%s", "a" S_E64 S_E64);
		const char *w = B.warnings[0];
		size_t n = strlen(w);
		cr_expect(n < sizeof B.warnings[0] && n > sizeof B.warnings[0] - 8, "%zu", n);
		cr_expect_str_eq(w + n - 3, "...");
		/* what precedes is 'a' and whole euro signs */
		cr_expect((n - 3 - 1) % 3 == 0, "%zu", n);
		cr_expect(memcmp(w + n - 6, S_E, 3) == 0);
	}
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
