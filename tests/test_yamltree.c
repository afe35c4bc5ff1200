/* test_yamltree.c: the located-YAML layer (src/yamltree.c) on its own:
 * positions kept per node, look-ups, the limits on untrusted input and the
 * typed getters' messages.  Expected positions are counted by hand from
 * the texts below; expected messages are the documented wording. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "yamltree.h"

static tb_diags D;
static tb_yaml_ctx C;
static tb_yaml_src SRC;

static tb_yaml_node *S_parse(const char *text)
{
	tb_diags_init(&D);
	memset(&C, 0, sizeof C);
	C.d = &D;
	C.path = "t.yaml";
	SRC = (tb_yaml_src){ "t.yaml", text, strlen(text), 0 };
	return tb_yaml_parse(&C, &SRC, text, strlen(text), false);
}

/* The first diagnostic's first line, which the caller frees. */
static char *S_first(void)
{
	char *all = tb_diags_format(&D);
	char *nl = strchr(all, '\n');
	if (nl)
		*nl = '\0';
	return all;
}

static void S_done(tb_yaml_node *root)
{
	tb_yaml_node_free(root);
	tb_diags_release(&D);
}

Test(yamltree, nodes_keep_line_and_column)
{
	tb_yaml_node *root = S_parse("a: 1\nb:\n  c: [x, \"y\"]\n");
	cr_assert_not_null(root);
	cr_expect(root->kind == TB_YAML_MAP && root->n == 2);
	const tb_yaml_node *b = tb_yaml_get(root, "b");
	cr_assert_not_null(b);
	const tb_yaml_node *c = tb_yaml_get(b, "c");
	cr_assert(c && c->kind == TB_YAML_SEQ && c->n == 2);
	cr_expect(c->line == 3 && c->col == 6);
	cr_expect(c->vals[1]->line == 3 && c->vals[1]->col == 10);
	cr_expect(!c->vals[0]->quoted && c->vals[1]->quoted);
	cr_expect(tb_yaml_get_key(b, "c")->line == 3 && tb_yaml_get_key(b, "c")->col == 3);
	cr_expect_null(tb_yaml_get(root, "z"));
	cr_expect_null(tb_yaml_get(c, "x"));     /* a list has no keys */
	cr_expect(D.errors == 0);
	S_done(root);
}

Test(yamltree, duplicate_key_reported_and_first_kept)
{
	tb_yaml_node *root = S_parse("a: 1\nb: 2\na: 3\n");
	cr_assert_not_null(root);
	char *msg = S_first();
	cr_expect_str_eq(msg, "t.yaml:3:1: error: duplicate key 'a' (first at line 1); expected each key once");
	free(msg);
	cr_expect_str_eq(tb_yaml_get(root, "a")->str, "1");
	S_done(root);
}

Test(yamltree, aliases_refused)
{
	tb_yaml_node *root = S_parse("a: &x 1\nb: *x\n");
	cr_expect_null(root);
	cr_expect(C.parse_failed);
	char *msg = S_first();
	cr_expect_str_eq(msg, "t.yaml:2:4: error: YAML alias '*x'; expected the value written out (aliases are not supported)");
	free(msg);
	S_done(root);
}

Test(yamltree, nesting_is_bounded)
{
	char text[200] = "";
	for (int i = 0; i < 40; i++)
		strcat(text, "[");
	tb_yaml_node *root = S_parse(text);
	cr_expect_null(root);
	char *msg = S_first();
	cr_expect(strstr(msg, "nesting deeper than 32 levels") != NULL, "%s", msg);
	free(msg);
	S_done(root);
}

Test(yamltree, tabs_in_indentation_named)
{
	const char *text = "a:\n\tb: 1\n";
	tb_diags_init(&D);
	memset(&C, 0, sizeof C);
	C.d = &D;
	SRC = (tb_yaml_src){ "t.yaml", text, strlen(text), 0 };
	cr_expect(tb_yaml_check_tabs(&C, &SRC, text, strlen(text)) == 1);
	char *msg = S_first();
	cr_expect_str_eq(msg, "t.yaml:2:1: error: tab character in indentation; use spaces");
	free(msg);
	tb_diags_release(&D);
}

Test(yamltree, typed_getters)
{
	tb_yaml_node *root = S_parse("n: 4k\nf: 35%\nb: yes\ne: beta\ns: hi\nbad: 2.5\nnull: ~\n");
	cr_assert_not_null(root);
	int64_t i = 0;
	double f = 0;
	bool b = false;
	int e = -1;
	cr_expect(tb_yaml_int(&C, tb_yaml_get(root, "n"), "n", 1, 10000, &i) && i == 4000);
	cr_expect(tb_yaml_quant(&C, tb_yaml_get(root, "f"), "f", TB_YAML_Q_FRACTION, "a fraction", false, 0, &f) && f == 0.35);
	cr_expect(tb_yaml_bool(&C, tb_yaml_get(root, "b"), "b", &b) && b);
	static const char *const names[] = { "alpha", "beta" };
	cr_expect(tb_yaml_enum(&C, tb_yaml_get(root, "e"), "e", names, 2, &e) && e == 1);
	char *s = tb_yaml_string(&C, tb_yaml_get(root, "s"), "s", 10, true);
	cr_expect_str_eq(s, "hi");
	free(s);
	cr_expect(D.errors == 0);

	cr_expect(!tb_yaml_int(&C, tb_yaml_get(root, "bad"), "x.bad", 1, 10, &i));
	char *msg = S_first();
	cr_expect_str_eq(msg, "t.yaml:6:6: error: x.bad '2.5' is not a whole number; expected a whole number from 1 to 10");
	free(msg);
	cr_expect(!tb_yaml_scalar(&C, tb_yaml_get(root, "null"), "x.null", "a value"));
	cr_expect(!tb_yaml_enum(&C, tb_yaml_get(root, "s"), "x.s", names, 2, &e));
	cr_expect(D.errors == 3);
	S_done(root);
}

/* A switch that may name how (training.fp8_attention): YAML's boolean
 * spellings give off or on, other values are names, and a list or an
 * unknown name is a located error. */
Test(yamltree, switch_takes_booleans_and_names)
{
	tb_yaml_node *root = S_parse("a: True\nb: no\nc: delayed\nd: 'on'\ne: [1]\nf: maybe\n");
	cr_assert_not_null(root);
	static const char *const names[] = { "false", "true", "delayed", "current" };
	int v = -1;
	cr_expect(tb_yaml_switch(&C, tb_yaml_get(root, "a"), "a", names, 4, &v) && v == 1);
	cr_expect(tb_yaml_switch(&C, tb_yaml_get(root, "b"), "b", names, 4, &v) && v == 0);
	cr_expect(tb_yaml_switch(&C, tb_yaml_get(root, "c"), "c", names, 4, &v) && v == 2);
	cr_expect(tb_yaml_switch(&C, tb_yaml_get(root, "d"), "d", names, 4, &v) && v == 1);
	cr_expect(D.errors == 0);
	v = -1;
	cr_expect(!tb_yaml_switch(&C, tb_yaml_get(root, "e"), "x.e", names, 4, &v));
	cr_expect(!tb_yaml_switch(&C, tb_yaml_get(root, "f"), "x.f", names, 4, &v));
	cr_expect(v == -1);
	cr_expect(D.errors == 2);
	S_done(root);
}

Test(yamltree, child_maps_and_broken_sections)
{
	tb_yaml_node *root = S_parse("m:\n  k: 1\nempty:\nlist: [1]\n");
	cr_assert_not_null(root);
	cr_expect_not_null(tb_yaml_child_map(root, "m"));
	cr_expect_null(tb_yaml_child_map(root, "list"));
	cr_expect(!tb_yaml_map_broken(root, "empty"));
	cr_expect(tb_yaml_map_broken(root, "list"));
	cr_expect(!tb_yaml_map_broken(root, "absent"));
	cr_expect_null(tb_yaml_get_map(&C, root, "empty"));
	cr_expect(D.errors == 0);
	cr_expect_null(tb_yaml_get_map(&C, root, "list"));
	char *msg = S_first();
	cr_expect_str_eq(msg, "t.yaml:4:7: error: list is a list; expected a mapping of list keys");
	free(msg);
	S_done(root);
}

/* An escaped NUL would end the C string and silently cut the value. */
Test(yamltree, escaped_nul_in_a_string_is_refused_where_it_is)
{
	tb_yaml_node *root = S_parse("a: 1\nt: \"ok\\0hidden\"\n");
	char *first = S_first();
	cr_expect_str_eq(first, "t.yaml:2:4: error: a NUL character (\\0) in a string; "
	                        "expected text without control characters");
	free(first);
	S_done(root);
}

/* libyaml's reader errors carry a byte offset, not a mark: reported at
 * 1:1 once.  Lines 1-7 are fine; the bad byte is on line 8, column 6
 * (columns count characters: the 'é' before it is one). */
Test(yamltree, bytes_that_are_not_utf8_are_reported_where_they_are)
{
	static const struct { const char *bad; const char *want; } cases[] = {
		{ "\xe9\"", "t.yaml:8:6: error: not UTF-8 (byte 0xE9); expected UTF-8 text (a Latin-1 file can be converted with iconv)" },
		{ "\xff", "t.yaml:8:6: error: not UTF-8 (byte 0xFF); expected UTF-8 text (a Latin-1 file can be converted with iconv)" },
		{ "\xe2\x82\"", "t.yaml:8:6: error: not UTF-8 (byte 0xE2); expected UTF-8 text (a Latin-1 file can be converted with iconv)" },
		{ "\x1b[2J", "t.yaml:8:6: error: control character U+001B; expected printable text (tabs and line breaks are fine)" },
		{ "\xc2\x9b" "2J", "t.yaml:8:6: error: control character U+009B; expected printable text (tabs and line breaks are fine)" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char text[128];
		snprintf(text, sizeof text, "a: 1\nb: 2\nc: 3\nd: 4\ne: 5\nf: 6\ng: 7\nh: \"\xc3\xa9%s\"\n",
		         cases[i].bad);
		tb_yaml_node *root = S_parse(text);
		cr_expect_null(root);
		char *first = S_first();
		cr_expect_str_eq(first, cases[i].want, "case %zu", i);
		free(first);
		S_done(root);
	}
}
