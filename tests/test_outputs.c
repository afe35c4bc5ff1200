/* test_outputs.c: a command's output set in memory (src/outputs.c). */
#include <criterion/criterion.h>
#include <string.h>

#include "outputs.h"
#include "trainbudget/xalloc.h"

Test(outputs, names_and_the_first_of_a_name_kept)
{
	tb_outputs o;
	memset(&o, 0, sizeof o);
	tb_outputs_add(&o, "run", ".md", tb_xstrdup("# md"), 4);
	tb_outputs_add(&o, "run", "-zero.svg", tb_xstrdup("<svg/>"), 6);
	/* the same chart twice in one template: one file, the first */
	tb_outputs_add(&o, "run", "-zero.svg", tb_xstrdup("<svg>2</svg>"), 12);
	cr_assert_eq(o.n, 2);
	cr_expect_str_eq(o.files[0].name, "run.md");
	cr_expect_str_eq(o.files[1].name, "run-zero.svg");
	cr_expect_eq(o.files[1].len, 6);
	cr_expect_eq(memcmp(o.files[1].data, "<svg/>", 6), 0);
	tb_outputs_release(&o);
	cr_expect_eq(o.n, 0);
}

Test(outputs, each_file_hashed_as_it_is_added)
{
	/* FIPS 180-2's example: SHA-256("abc") */
	tb_outputs o;
	memset(&o, 0, sizeof o);
	tb_outputs_add(&o, "run", ".md", tb_xstrdup("abc"), 3);
	cr_assert_eq(o.n, 1);
	cr_assert_not_null(o.files[0].sha256_hex);
	cr_expect_str_eq(o.files[0].sha256_hex,
	                 "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	tb_outputs_release(&o);
}

Test(outputs, safe_ids)
{
	cr_expect(tb_outputs_safe_id("step-time_2"));
	cr_expect_not(tb_outputs_safe_id(""));
	cr_expect_not(tb_outputs_safe_id("../x"));
	cr_expect_not(tb_outputs_safe_id("a b"));
	cr_expect_not(tb_outputs_safe_id("\xC3\xA9"));
}
