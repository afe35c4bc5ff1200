/* test_signoff.c: the inputs a report rests on and their digest.
 *
 * The digest is checked against its definition (docs/json.md, "What the
 * numbers rest on"), rebuilt here from FIPS 180-4 SHA-256 and the documented
 * lines, not against a value the code once printed. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trainbudget/sha256.h"
#include "trainbudget/signoff.h"
#include "trainbudget/scenario.h"
#include "trainbudget/xalloc.h"

static void S_hex(const char *s, char out[65])
{
	tb_sha256_hex(s, strlen(s), out);
}

Test(signoff, digest_is_sha256_of_the_documented_lines)
{
	tb_signoff so;
	tb_signoff_init(&so);
	const char *scen = "title: t\n", *cfg = "{\"model_type\": \"llama\"}\n";
	tb_signoff_add(&so, TB_INPUT_HF_CONFIG, "c.json", cfg, strlen(cfg));
	tb_signoff_add(&so, TB_INPUT_SCENARIO, "s.yaml", scen, strlen(scen));
	const char *sets[2] = { "hardware.count=8", "training.tokens=1T" };
	const char *sweeps[1] = { "hardware.count=8..64:x2" };
	tb_signoff_set_overrides(&so, sets, 2, sweeps, 1);
	tb_signoff_seal(&so, "1.2.3");

	char hs[65], hc[65], h1[65], h2[65], hw[65], want[65];
	S_hex(scen, hs);
	S_hex(cfg, hc);
	S_hex(sets[0], h1);
	S_hex(sets[1], h2);
	S_hex(sweeps[0], hw);
	char text[600];
	snprintf(text, sizeof text,
	         "trainbudget-inputs 1\nversion 1.2.3\nscenario %s\nhf_config %s\nset %s\nset %s\n"
	         "sweep %s\n", hs, hc, h1, h2, hw);
	S_hex(text, want);
	cr_assert_str_eq(so.digest, want);
	/* kind order, whatever the order of adding */
	cr_assert_eq(so.nfiles, 2);
	cr_assert_eq(so.files[0].kind, TB_INPUT_SCENARIO);
	cr_assert_str_eq(so.files[0].sha256, hs);
	cr_assert_str_eq(so.files[1].path, "c.json");
	tb_signoff_release(&so);
}

/* Every part moves the digest: the bytes of each file, the version, the
 * overrides and their order; a path does not. */
Test(signoff, every_input_moves_the_digest_and_a_path_does_not)
{
	const char *sets[2] = { "a=1", "b=2" };
	const char *rsets[2] = { "b=2", "a=1" };
	char seen[8][65];
	int n = 0;
	for (int k = 0; k < 7; k++) {
		tb_signoff so;
		tb_signoff_init(&so);
		tb_signoff_add(&so, TB_INPUT_SCENARIO, k == 6 ? "/elsewhere/s.yaml" : "s.yaml",
		               k == 1 ? "title: u\n" : "title: t\n", 9);
		tb_signoff_add(&so, TB_INPUT_HF_CONFIG, "c.json", k == 2 ? "{\"a\": 2}" : "{\"a\": 1}", 8);
		tb_signoff_set_overrides(&so, k == 5 ? rsets : sets, k == 4 ? 1 : 2, NULL, 0);
		tb_signoff_seal(&so, k == 3 ? "1.2.4" : "1.2.3");
		memcpy(seen[n++], so.digest, 65);
		tb_signoff_release(&so);
	}
	for (int i = 0; i < 6; i++)
		for (int j = i + 1; j < 6; j++)
			cr_expect_str_neq(seen[i], seen[j], "cases %d and %d", i, j);
	cr_expect_str_eq(seen[6], seen[0], "where the file lives is no input");
}

/* An override holding a line break cannot pass for another line. */
Test(signoff, an_override_cannot_forge_a_line)
{
	tb_signoff a, b;
	tb_signoff_init(&a);
	tb_signoff_init(&b);
	tb_signoff_add(&a, TB_INPUT_SCENARIO, "s", "x", 1);
	tb_signoff_add(&b, TB_INPUT_SCENARIO, "s", "x", 1);
	const char *one[1] = { "a=1\nset b=2" };
	const char *two[2] = { "a=1", "b=2" };
	tb_signoff_set_overrides(&a, one, 1, NULL, 0);
	tb_signoff_set_overrides(&b, two, 2, NULL, 0);
	tb_signoff_seal(&a, "1");
	tb_signoff_seal(&b, "1");
	/* nor a --set pass for a --sweep */
	tb_signoff_set_overrides(&b, NULL, 0, two, 2);
	char sweep_digest[65];
	tb_signoff_seal(&b, "1");
	memcpy(sweep_digest, b.digest, 65);
	tb_signoff_set_overrides(&b, two, 2, NULL, 0);
	tb_signoff_seal(&b, "1");
	cr_assert_str_neq(sweep_digest, b.digest);
	cr_assert_str_neq(a.digest, b.digest);
	tb_signoff_release(&a);
	tb_signoff_release(&b);
}

/* A sweep over model.hf_config reads several configs: each is listed;
 * the same name with other bytes is a file that changed during the run. */
Test(signoff, several_configs_and_a_changed_one)
{
	tb_signoff so;
	tb_signoff_init(&so);
	char ha[65], hb[65];
	S_hex("a", ha);
	S_hex("b", hb);
	cr_assert(tb_signoff_add_hash(&so, TB_INPUT_HF_CONFIG, "a.json", ha));
	cr_assert(tb_signoff_add_hash(&so, TB_INPUT_HF_CONFIG, "b.json", hb));
	cr_assert(tb_signoff_add_hash(&so, TB_INPUT_HF_CONFIG, "a.json", ha), "the same bytes again");
	cr_assert_eq(so.nfiles, 2);
	tb_signoff_add(&so, TB_INPUT_SCENARIO, "s.yaml", "x", 1);
	cr_assert_eq(so.files[0].kind, TB_INPUT_SCENARIO, "kind order");
	cr_assert_str_eq(so.files[1].path, "a.json");
	cr_assert_str_eq(so.files[2].path, "b.json", "then the order added");
	cr_assert_not(tb_signoff_add_hash(&so, TB_INPUT_HF_CONFIG, "a.json", hb), "a.json changed");
	cr_assert_str_eq(so.files[1].sha256, ha, "nothing changed");
	cr_assert_not(tb_signoff_add_hash(&so, TB_INPUT_HF_CONFIG, "c.json", "not hex"));
	/* two files of one base name are two inputs, not a changed one, and
	 * are published apart (issue 18) */
	cr_assert(tb_signoff_add_hash(&so, TB_INPUT_HF_CONFIG, "/m/a/config.json", ha));
	cr_assert(tb_signoff_add_hash(&so, TB_INPUT_HF_CONFIG, "/m/b/config.json", hb));
	cr_assert_str_eq(so.files[3].path, "a/config.json");
	cr_assert_str_eq(so.files[4].path, "b/config.json");
	cr_assert_str_eq(so.files[4].read_as, "/m/b/config.json");
	for (int i = 0; so.nfiles < TB_SIGNOFF_MAX_FILES; i++) {
		char name[16];
		snprintf(name, sizeof name, "%d.json", i);
		cr_assert(tb_signoff_add_hash(&so, TB_INPUT_HF_CONFIG, name, ha));
	}
	cr_assert_not(tb_signoff_add_hash(&so, TB_INPUT_HF_CONFIG, "full.json", ha), "full");
	tb_signoff copy;
	tb_signoff_init(&copy);
	tb_signoff_copy(&copy, &so);
	tb_signoff_drop(&copy, TB_INPUT_HF_CONFIG);
	cr_assert_eq(copy.nfiles, 1);
	cr_assert_eq(so.nfiles, TB_SIGNOFF_MAX_FILES, "a deep copy");
	tb_signoff_release(&copy);
	tb_signoff_release(&so);
}

Test(signoff, a_later_file_of_a_kind_replaces_the_first)
{
	tb_signoff so;
	tb_signoff_init(&so);
	tb_signoff_add(&so, TB_INPUT_TEMPLATE, "a.md", "a", 1);
	tb_signoff_add(&so, TB_INPUT_TEMPLATE, "b.md", "b", 1);
	cr_assert_eq(so.nfiles, 1);
	cr_assert_str_eq(so.files[0].path, "b.md");
	tb_signoff_drop(&so, TB_INPUT_TEMPLATE);
	cr_assert_eq(so.nfiles, 0);
	tb_signoff_drop(&so, TB_INPUT_TEMPLATE);
	tb_signoff_release(&so);
}

Test(signoff, published_paths_never_show_where_files_live)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "docs/examples/x.yaml", "docs/examples/x.yaml" },
		{ "../cfg/config.json", "../cfg/config.json" },
		{ "/home/alice/secret/x.yaml", "x.yaml" },
		{ "/x.yaml", "x.yaml" },
		{ "/", "?" },
		{ "-", "-" },
		{ "<builtin>", "<builtin>" },
		{ "", "?" },
		{ "a\033]0;t\007b.yaml", "a?]0;t?b.yaml" },
		{ "caf\xC3\xA9.yaml", "caf\xC3\xA9.yaml" },
		{ "bad\xFF\xC3.yaml", "bad??.yaml" },
		{ "c1\xC2\x85.yaml", "c1?.yaml" },
		/* a right-to-left override would show "lmay.txt": Trojan Source */
		{ "\xE2\x80\xAEtxt.yaml", "?txt.yaml" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *p = tb_signoff_path(cases[i].in);
		cr_expect_str_eq(p, cases[i].out, "case %zu", i);
		free(p);
	}
	char *p = tb_signoff_path(NULL);
	cr_expect_str_eq(p, "?");
	free(p);
}

static void S_put(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	fclose(f);
}

static char *S_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	cr_assert_not_null(f, "%s", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = tb_xmalloc((size_t)n + 1);
	cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	s[n] = '\0';
	*len = (size_t)n;
	return s;
}

/* The case: editing the config.json a scenario names changes the
 * parameter count, and now the digest too; the scenario's own hash (of
 * its unchanged bytes) stays. */
Test(signoff, editing_the_hf_config_changes_the_digest)
{
	char dir[] = "/tmp/tb-signoff-XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	char scen[64], cfg[64];
	snprintf(scen, sizeof scen, "%s/s.yaml", dir);
	snprintf(cfg, sizeof cfg, "%s/c.json", dir);
	size_t len;
	char *orig = S_slurp("docs/examples/llama3-8b-config.json", &len);
	S_put(cfg, orig);
	S_put(scen, "title: t\nmodel: {hf_config: c.json}\ntraining: {tokens: 1T}\n"
	            "hardware: {gpu: h100-sxm, count: 8}\n");
	tb_diags d;
	tb_diags_init(&d);
	tb_scenario *a = tb_scenario_load_file(scen, NULL, 0, &d);
	cr_assert_not_null(a);
	/* the config as listed: named as the scenario names it, hashed from
	 * its bytes */
	cr_assert_eq(a->signoff.nfiles, 2);
	cr_assert_eq(a->signoff.files[1].kind, TB_INPUT_HF_CONFIG);
	cr_assert_str_eq(a->signoff.files[1].path, "c.json");
	char want[65];
	tb_sha256_hex(orig, len, want);
	cr_assert_str_eq(a->signoff.files[1].sha256, want);
	cr_assert_str_eq(a->signoff.files[0].sha256, a->sha256);
	cr_assert_str_eq(a->signoff.files[0].path, "s.yaml", "an absolute path shows its base name");

	/* 32 layers -> 31: another model, another digest */
	char *edited = tb_xstrdup(orig);
	char *at = strstr(edited, "\"num_hidden_layers\": 32");
	cr_assert_not_null(at);
	at[strlen("\"num_hidden_layers\": 3")] = '1';
	S_put(cfg, edited);
	tb_scenario *b = tb_scenario_load_file(scen, NULL, 0, &d);
	cr_assert_not_null(b);
	cr_expect_neq(a->inputs.model.layers, b->inputs.model.layers);
	cr_expect_str_eq(a->sha256, b->sha256, "the scenario file did not change");
	cr_expect_str_neq(a->signoff.digest, b->signoff.digest);

	/* back to the same bytes: the same digest */
	S_put(cfg, orig);
	tb_scenario *c = tb_scenario_load_file(scen, NULL, 0, &d);
	cr_assert_not_null(c);
	cr_expect_str_eq(a->signoff.digest, c->signoff.digest);

	/* an override is an input */
	const char *set[1] = { "hardware.count=16" };
	tb_scenario *e = tb_scenario_load_file(scen, set, 1, &d);
	cr_assert_not_null(e);
	cr_expect_str_neq(a->signoff.digest, e->signoff.digest);

	/* a template added later joins the digest */
	char before[65];
	memcpy(before, c->signoff.digest, 65);
	tb_scenario_add_input(c, TB_INPUT_TEMPLATE, "/abs/t.md", "# t\n", 4);
	cr_expect_str_neq(before, c->signoff.digest);
	cr_expect_str_eq(c->signoff.files[2].path, "t.md");
	cr_assert_eq(d.errors, 0);

	tb_scenario_free(a);
	tb_scenario_free(b);
	tb_scenario_free(c);
	tb_scenario_free(e);
	tb_diags_release(&d);
	free(edited);
	free(orig);
	unlink(scen);
	unlink(cfg);
	rmdir(dir);
}

/* Issue 18: two configs of one name in a sweep, given by absolute paths,
 * were both published as config.json (points not told apart, and a
 * regenerate line the tool refuses).  Each keeps as many directories as it
 * takes to differ, and no more; a lone absolute path is its base name. */
Test(signoff, paths_published_apart)
{
	const char *given[] = { "/home/u/runs/a/config.json", "/home/u/runs/b/config.json",
	                        "/srv/x/b/config.json", "rel/config.json", "/opt/other.json" };
	char *out[5];
	tb_signoff_paths(out, given, 5);
	cr_expect_str_eq(out[0], "a/config.json");
	cr_expect_str_eq(out[1], "runs/b/config.json");
	cr_expect_str_eq(out[2], "x/b/config.json");
	cr_expect_str_eq(out[3], "rel/config.json");
	cr_expect_str_eq(out[4], "other.json");
	for (int i = 0; i < 5; i++)
		free(out[i]);
	/* the same file twice cannot be told apart: it stays whole, never "?" */
	const char *same[] = { "/a/config.json", "/a/config.json" };
	tb_signoff_paths(out, same, 2);
	cr_expect_str_eq(out[0], "a/config.json");
	cr_expect_str_eq(out[1], "a/config.json");
	free(out[0]);
	free(out[1]);
}
