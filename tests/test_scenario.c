/* The scenario loader: the malformed catalogue (each file states its own
 * first diagnostic), the examples, the docs' YAML blocks, defaults and
 * --set.  Expected values are the scenario's own text or documented
 * defaults, never figures the loader computed. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/buf.h"
#include "trainbudget/scenario.h"

static char *S_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	cr_assert(f, "cannot open %s", path);
	tb_buf b;
	tb_buf_init(&b);
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		tb_buf_put(&b, chunk, n);
	fclose(f);
	return tb_buf_detach(&b, len);
}

static char *S_first_diag(const tb_diags *d)
{
	char *all = tb_diags_format(d);
	char *nl = strchr(all, '\n');
	if (nl)
		*nl = '\0';
	return all;
}

static tb_scenario *S_load_text(const char *text, const char *const *sets, size_t nsets, tb_diags *d)
{
	tb_diags_init(d);
	return tb_scenario_load("mem.yaml", text, strlen(text), sets, nsets, d);
}

static const char *const S_base =
	"title: t\n"
	"model:\n"
	"  preset: llama-2-7b\n"
	"training:\n"
	"  tokens: 100B\n"
	"hardware:\n"
	"  gpu: h100-sxm\n"
	"  count: 64\n";

Test(scenario, catalogue_first_diagnostic)
{
	DIR *dir = opendir("tests/scenarios");
	cr_assert(dir);
	struct dirent *e;
	size_t files = 0;
	while ((e = readdir(dir))) {
		size_t l = strlen(e->d_name);
		if (strncmp(e->d_name, "bad-", 4) != 0 || l < 5 || strcmp(e->d_name + l - 5, ".yaml") != 0)
			continue;
		char path[512];
		snprintf(path, sizeof path, "tests/scenarios/%s", e->d_name);
		size_t len = 0;
		char *text = S_slurp(path, &len);
		cr_assert(strncmp(text, "# expect: ", 10) == 0, "%s: no '# expect:' first line", path);
		char *nl = strchr(text, '\n');
		cr_assert(nl);
		char *want = strndup(text + 10, (size_t)(nl - text - 10));
		tb_diags d;
		tb_diags_init(&d);
		tb_scenario *sc = tb_scenario_load(path, text, len, NULL, 0, &d);
		cr_assert_null(sc, "%s was accepted", path);
		cr_assert(d.errors >= 1, "%s: no error", path);
		char *got = S_first_diag(&d);
		cr_assert_str_eq(got, want, "%s", path);
		free(got);
		free(want);
		free(text);
		tb_diags_release(&d);
		files++;
	}
	closedir(dir);
	cr_assert_geq(files, 40, "only %zu malformed scenarios", files);
}

Test(scenario, examples_load)
{
	static const char *const files[] = {
		"docs/examples/default-7b.yaml", "docs/examples/70b-15t-1024-h100.yaml",
		"docs/examples/llama3-8b-hf.yaml", "docs/examples/mixtral-8x7b.yaml",
		"docs/examples/does-not-fit.yaml", "docs/examples/llama-3.1-405b.yaml",
		"docs/examples/gpt3-175b.yaml",
	};
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		tb_diags d;
		tb_diags_init(&d);
		tb_scenario *sc = tb_scenario_load_file(files[i], NULL, 0, &d);
		char *msg = tb_diags_format(&d);
		cr_assert_not_null(sc, "%s: %s", files[i], msg);
		cr_assert_not_null(sc->title);
		cr_assert_not_null(sc->author);
		cr_assert_not_null(sc->date);
		cr_assert_not_null(sc->notes);
		free(msg);
		tb_scenario_free(sc);
		tb_diags_release(&d);
	}
}

Test(scenario, llama3_from_config_json)
{
	tb_diags d;
	tb_diags_init(&d);
	tb_scenario *sc = tb_scenario_load_file("docs/examples/llama3-8b-hf.yaml", NULL, 0, &d);
	cr_assert_not_null(sc);
	const tb_model *m = &sc->inputs.model;
	/* meta-llama/Meta-Llama-3-8B config.json */
	cr_assert(m->has_shape);
	cr_assert_eq(m->layers, 32);
	cr_assert_eq(m->hidden, 4096);
	cr_assert_eq(m->heads, 32);
	cr_assert_eq(m->kv_heads, 8);
	cr_assert_eq(m->head_dim, 128);
	cr_assert_eq(m->ffn_hidden, 14336);
	cr_assert_eq(m->vocab, 128256);
	cr_assert(!m->tied_embeddings);
	cr_assert_eq(m->mlp, TB_MLP_GATED);
	cr_assert_eq(m->positions, TB_POS_ROPE);
	tb_scenario_free(sc);
	tb_diags_release(&d);
}

Test(scenario, defaults_documented)
{
	tb_diags d;
	tb_scenario *sc = S_load_text(S_base, NULL, 0, &d);
	cr_assert_not_null(sc);
	const tb_inputs *in = &sc->inputs;
	cr_assert_eq(in->training.tokens, 100e9);
	cr_assert_eq(in->training.seq_len, 4096);
	cr_assert_eq(in->training.global_batch, 1024);
	cr_assert_eq(in->training.micro_batch, 1);
	cr_assert_eq(in->training.precision, TB_PREC_BF16_MIXED);
	cr_assert_eq(in->training.optimizer, TB_OPT_ADAMW);
	cr_assert_eq(in->training.checkpointing, TB_CKPT_NONE);
	cr_assert_eq(in->training.attention_flops, TB_ATTN_FLOPS_FULL);
	cr_assert(in->training.flash_attention);
	cr_assert(!in->training.dropout);
	cr_assert_eq(in->hardware.count, 64);
	cr_assert_eq(in->hardware.mfu[0], 0.25);
	cr_assert_eq(in->hardware.mfu[1], 0.35);
	cr_assert_eq(in->hardware.mfu[2], 0.45);
	cr_assert_eq(in->hardware.price_per_gpu_hour, 2.00);
	cr_assert_str_eq(in->hardware.currency, "USD");
	cr_assert_eq(in->hardware.pue, 1.0);
	cr_assert_eq(in->hardware.overhead_bytes, 2.0 * 1024 * 1024 * 1024);
	cr_assert_str_eq(in->hardware.gpu.name, "h100-sxm");
	cr_assert_eq(in->parallelism.tensor, 1);
	cr_assert_eq(in->parallelism.pipeline, 1);
	cr_assert_eq(in->parallelism.expert, 1);
	cr_assert_eq(in->parallelism.data, 64);
	cr_assert_eq(in->parallelism.zero, 0);
	cr_assert_eq(in->plan.n_overtrain, 3);
	cr_assert_eq(in->plan.overtrain[0], 1);
	cr_assert_eq(in->plan.overtrain[1], 2);
	cr_assert_eq(in->plan.overtrain[2], 5);
	cr_assert(!in->plan.has_deadline);
	cr_assert(!in->plan.has_budget);
	cr_assert(!in->measured.has_step_time);
	cr_assert_str_eq(in->model.preset, "llama-2-7b");
	cr_assert_eq(in->model.head_dim, 128);
	cr_assert_eq(in->model.kv_heads, 32);
	cr_assert_null(sc->author);
	cr_assert(sc->price_assumed);
	cr_assert(in->hardware.mfu_predicted);
	cr_assert_eq(in->parallelism.virtual_pipeline, 1);
	cr_assert_eq(in->parallelism.context, 1);
	cr_assert_eq(in->hardware.node.gpus, 0);             /* 0: the GPU table's */
	cr_assert_eq(in->hardware.node.network_bytes_per_s, 0);
	cr_assert(!sc->gpu_assumed);
	cr_assert_str_eq(sc->name, "mem");
	cr_assert_str_eq(sc->title, "t");
	tb_scenario_free(sc);
	tb_diags_release(&d);
}

Test(scenario, mfu_forms)
{
	const char *one[] = { "hardware.mfu=0.4" };
	const char *two[] = { "hardware.mfu=[0.3, 0.5]" };
	const char *three[] = { "hardware.mfu=[30%, 35%, 50%]" };
	tb_diags d;
	tb_scenario *sc = S_load_text(S_base, one, 1, &d);
	cr_assert_not_null(sc);
	cr_assert_eq(sc->inputs.hardware.mfu[0], 0.4);
	cr_assert_eq(sc->inputs.hardware.mfu[1], 0.4);
	cr_assert_eq(sc->inputs.hardware.mfu[2], 0.4);
	cr_assert(!sc->inputs.hardware.mfu_predicted, "a written MFU is used as written");
	tb_scenario_free(sc);
	tb_diags_release(&d);
	sc = S_load_text(S_base, two, 1, &d);
	cr_assert_not_null(sc);
	cr_assert_eq(sc->inputs.hardware.mfu[0], 0.3);
	cr_assert_eq(sc->inputs.hardware.mfu[1], 0.4);
	cr_assert_eq(sc->inputs.hardware.mfu[2], 0.5);
	tb_scenario_free(sc);
	tb_diags_release(&d);
	sc = S_load_text(S_base, three, 1, &d);
	cr_assert_not_null(sc);
	cr_assert_eq(sc->inputs.hardware.mfu[0], 0.30);
	cr_assert_eq(sc->inputs.hardware.mfu[1], 0.35);
	cr_assert_eq(sc->inputs.hardware.mfu[2], 0.50);
	tb_scenario_free(sc);
	tb_diags_release(&d);
}

Test(scenario, mfu_predicted_and_given)
{
	const char *pred[] = { "hardware.mfu=predicted" };
	const char *num[] = { "hardware.mfu=0.4" };
	tb_diags d;
	tb_scenario *sc = S_load_text(S_base, pred, 1, &d);
	cr_assert_not_null(sc);
	cr_assert(sc->inputs.hardware.mfu_predicted);
	tb_scenario_free(sc);
	tb_diags_release(&d);
	sc = S_load_text(S_base, num, 1, &d);
	cr_assert_not_null(sc);
	cr_assert(!sc->inputs.hardware.mfu_predicted);
	tb_scenario_free(sc);
	tb_diags_release(&d);
}

/* The step-time model's keys: a node (400Gbit/s is 50 GB/s), interleaving
 * and context parallelism, whose GPUs leave data = 64 / (2 x 2 x 4). */
Test(scenario, node_and_layout_keys)
{
	const char *sets[] = {
		"hardware.node.gpus=4", "hardware.node.nvlink=450GB/s",
		"hardware.node.network=400Gbit/s", "parallelism.tensor=2",
		"parallelism.pipeline=2", "parallelism.virtual_pipeline=2",
		"parallelism.context=4", "training.global_batch=64",
	};
	tb_diags d;
	tb_scenario *sc = S_load_text(S_base, sets, sizeof sets / sizeof sets[0], &d);
	cr_assert_not_null(sc, "%s", d.n ? d.items[0].msg : "");
	const tb_inputs *in = &sc->inputs;
	cr_expect_eq(in->hardware.node.gpus, 4);
	cr_expect_eq(in->hardware.node.nvlink_bytes_per_s, 450e9);
	cr_expect_eq(in->hardware.node.network_bytes_per_s, 50e9);
	cr_expect_eq(in->parallelism.virtual_pipeline, 2);
	cr_expect_eq(in->parallelism.context, 4);
	cr_expect_eq(in->parallelism.data, 4);
	tb_scenario_free(sc);
	tb_diags_release(&d);
}

Test(scenario, set_overrides)
{
	const char *sets[] = { "hardware.count=128", "training.tokens=2T",
	                       "parallelism.tensor=8", "model.kv_heads=8",
	                       "plan.deadline=720h" };
	tb_diags d;
	tb_scenario *sc = S_load_text(S_base, sets, 5, &d);
	char *msg = tb_diags_format(&d);
	cr_assert_not_null(sc, "%s", msg);
	free(msg);
	cr_assert_eq(sc->inputs.hardware.count, 128);
	cr_assert_eq(sc->inputs.training.tokens, 2e12);
	cr_assert_eq(sc->inputs.parallelism.data, 16);
	cr_assert_eq(sc->inputs.model.kv_heads, 8);
	cr_assert_eq(sc->inputs.plan.deadline_s, 720 * 3600.0);
	cr_assert_eq(sc->nsets, 5);
	cr_assert_str_eq(sc->sets[0], "hardware.count=128");
	cr_assert_str_eq(sc->sets[4], "plan.deadline=720h");
	tb_scenario_free(sc);
	tb_diags_release(&d);
}

typedef struct S_set_case {
	char set[64];
	char want[200];
} S_set_case;

ParameterizedTestParameters(scenario, set_errors)
{
	static S_set_case cases[] = {
		{ "hardware.cont=5", "<--set>:1:10: error: unknown key 'hardware.cont'; did you mean 'hardware.count'?" },
		{ "hardwre.count=5", "<--set>:1:1: error: unknown key 'hardwre'; did you mean 'hardware'?" },
		/* "KEY" alone is --unset: the required count is then missing */
		{ "hardware.count", "mem.yaml:6:1: error: missing key 'hardware.count'; expected the number of GPUs such as 64" },
		{ "plan.deadlin", "<--unset>:1:6: error: unknown key 'plan.deadlin'; did you mean 'plan.deadline'?" },
		{ "hardware.count=abc", "<--set>:1:16: error: hardware.count 'abc' is not a number; expected a whole number from 1 to 100000000" },
		{ "hardware.mfu=[0.5, 0.3]", "<--set>:1:14: error: hardware.mfu range [0.5, 0.3] is reversed; expected [low, high] with low <= high" },
		{ "training.tokens=", "<--set>:1:17: error: --set 'training.tokens' has no value; expected KEY=VALUE (--unset training.tokens removes it)" },
		{ "training=5", "<--set>:1:1: error: --set 'training' names a whole section; expected training.KEY" },
		{ "hardware.gpu.memroy=1", "<--set>:1:14: error: unknown key 'hardware.gpu.memroy'; did you mean 'hardware.gpu.memory'?" },
		{ "hardware.gpu.zzzzz=1", "<--set>:1:14: error: unknown key 'hardware.gpu.zzzzz'; expected a GPU field such as memory or bf16" },
		{ "hardware.count.x=1", "<--set>:1:16: error: 'hardware.count' has no sub-keys; expected hardware.count=VALUE" },
	};
	return cr_make_param_array(S_set_case, cases, sizeof cases / sizeof *cases);
}

ParameterizedTest(S_set_case *c, scenario, set_errors)
{
	const char *sets[] = { c->set };
	tb_diags d;
	tb_scenario *sc = S_load_text(S_base, sets, 1, &d);
	cr_assert_null(sc, "--set %s accepted", c->set);
	char *got = S_first_diag(&d);
	cr_assert_str_eq(got, c->want);
	free(got);
	tb_diags_release(&d);
}

/* --unset KEY (an override without '='): the key goes, its default comes
 * back; a whole section can go; a key that is not there is no error. */
Test(scenario, unset)
{
	const char *text =
		"title: t\n"
		"model: {preset: llama-2-7b}\n"
		"training: {tokens: 100B, global_batch: 512}\n"
		"hardware: {count: 64, price_per_gpu_hour: 3}\n"
		"plan: {deadline: 30 days, budget: 1000}\n";
	const char *sets[] = { "training.global_batch", "plan.deadline", "hardware.price_per_gpu_hour",
	                       "parallelism.zero", "measured" };
	tb_diags d;
	tb_scenario *sc = S_load_text(text, sets, 5, &d);
	cr_assert_not_null(sc, "%s", d.n ? d.items[0].msg : "");
	cr_expect_eq(sc->inputs.training.global_batch, 1024);   /* docs/scenario.md default */
	cr_expect_not(sc->inputs.plan.has_deadline);
	cr_expect(sc->inputs.plan.has_budget);
	cr_expect(sc->price_assumed);
	cr_expect_eq(sc->inputs.hardware.price_per_gpu_hour, 2.0);
	tb_scenario_free(sc);
	tb_diags_release(&d);

	const char *whole[] = { "plan" };
	sc = S_load_text(text, whole, 1, &d);
	cr_assert_not_null(sc);
	cr_expect_not(sc->inputs.plan.has_deadline);
	cr_expect_not(sc->inputs.plan.has_budget);
	tb_scenario_free(sc);
	tb_diags_release(&d);

	/* in order: set, then unset, leaves the default; unset then set, the value */
	const char *order1[] = { "training.micro_batch=2", "training.micro_batch" };
	sc = S_load_text(text, order1, 2, &d);
	cr_assert_not_null(sc);
	cr_expect_eq(sc->inputs.training.micro_batch, 1);
	tb_scenario_free(sc);
	tb_diags_release(&d);
	const char *order2[] = { "training.global_batch", "training.global_batch=256" };
	sc = S_load_text(text, order2, 2, &d);
	cr_assert_not_null(sc);
	cr_expect_eq(sc->inputs.training.global_batch, 256);
	tb_scenario_free(sc);
	tb_diags_release(&d);
}

/* --set of model.preset, model.hf_config or model.params switches the kind
 * of model: the keys of the old kind (a config.json, shape overrides) go. */
Test(scenario, set_switches_the_model)
{
	const char *text =
		"title: t\n"
		"model:\n"
		"  hf_config: tests/fixtures/hf/qwen3-8b.json\n"
		"  layers: 40\n"
		"  max_positions: 4096\n"
		"training: {tokens: 100B}\n"
		"hardware: {count: 64}\n";
	tb_diags d;
	/* the file alone: the config with 40 layers (Qwen3-8B has 36) */
	tb_scenario *sc = S_load_text(text, NULL, 0, &d);
	cr_assert_not_null(sc, "%s", d.n ? d.items[0].msg : "");
	cr_expect_eq(sc->inputs.model.layers, 40);
	tb_scenario_free(sc);
	tb_diags_release(&d);

	/* GPT-2 small: 12 layers, 768 wide (openai-community/gpt2 config.json) */
	const char *preset[] = { "model.preset=gpt2" };
	sc = S_load_text(text, preset, 1, &d);
	cr_assert_not_null(sc, "%s", d.n ? d.items[0].msg : "");
	cr_expect_eq(sc->inputs.model.layers, 12);
	cr_expect_eq(sc->inputs.model.hidden, 768);
	cr_expect_str_eq(sc->inputs.model.preset, "gpt2");
	tb_scenario_free(sc);
	tb_diags_release(&d);

	/* a shape key after the switch applies on top of the new kind */
	const char *then[] = { "model.preset=gpt2", "model.layers=24" };
	sc = S_load_text(text, then, 2, &d);
	cr_assert_not_null(sc, "%s", d.n ? d.items[0].msg : "");
	cr_expect_eq(sc->inputs.model.layers, 24);
	cr_expect_eq(sc->inputs.model.hidden, 768);
	tb_scenario_free(sc);
	tb_diags_release(&d);

	/* a bare parameter count: a count-only budget */
	const char *params[] = { "model.params=7B" };
	sc = S_load_text(text, params, 1, &d);
	cr_assert_not_null(sc, "%s", d.n ? d.items[0].msg : "");
	cr_expect_not(sc->inputs.model.has_shape);
	cr_expect_eq(sc->inputs.model.params_count, 7e9);
	tb_scenario_free(sc);
	tb_diags_release(&d);

	/* a config.json given with --set is the shell's path, relative to the
	 * working directory even when the scenario is elsewhere; Qwen3-8B has
	 * 36 layers and hidden 4096 (Qwen/Qwen3-8B config.json) */
	const char *hf[] = { "model.hf_config=tests/fixtures/hf/qwen3-8b.json" };
	tb_diags_init(&d);
	sc = tb_scenario_load("elsewhere/dir/x.yaml", S_base, strlen(S_base), hf, 1, &d);
	cr_assert_not_null(sc, "%s", d.n ? d.items[0].msg : "");
	cr_expect_eq(sc->inputs.model.layers, 36);
	cr_expect_eq(sc->inputs.model.hidden, 4096);
	cr_expect_eq(sc->inputs.model.preset[0], '\0');
	tb_scenario_free(sc);
	tb_diags_release(&d);
}

/* What a published report may show of a path: never an absolute one. */
Test(scenario, public_paths)
{
	static const char *const cases[][2] = {
		{ "model.hf_config=/home/alice/cfg/config.json", "model.hf_config=config.json" },
		{ "model.hf_config=cfg/config.json", "model.hf_config=cfg/config.json" },
		/* a --sweep's comma list, each path on its own */
		{ "model.hf_config=/m/a/config.json,b.json,/m/c/x.json",
		  "model.hf_config=config.json,b.json,x.json" },
		/* a bidi override in a file name is never published raw */
		{ "model.hf_config=/m/\xE2\x80\xAE" "evil.json", "model.hf_config=?evil.json" },
		{ "hardware.count=128", "hardware.count=128" },
		{ "plan.budget", "plan.budget" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		tb_buf b;
		tb_buf_init(&b);
		tb_scenario_public_override(&b, cases[i][0]);
		cr_expect_str_eq(b.ptr, cases[i][1]);
		tb_buf_release(&b);
	}
}

Test(scenario, all_errors_in_one_pass)
{
	const char *text =
		"title: t\n"
		"model:\n"
		"  preset: llama-2-7c\n"
		"training:\n"
		"  tokens: -5\n"
		"  precision: bf17\n"
		"hardware:\n"
		"  gpu: h1000\n"
		"  count: 1e30\n";
	tb_diags d;
	tb_scenario *sc = S_load_text(text, NULL, 0, &d);
	cr_assert_null(sc);
	cr_assert_eq(d.errors, 5);
	char *all = tb_diags_format(&d);
	cr_assert(strstr(all, "mem.yaml:3:11: error: unknown model preset 'llama-2-7c'; did you mean 'llama-2-7b'?"));
	cr_assert(strstr(all, "mem.yaml:8:8: error: unknown GPU 'h1000'; did you mean 'h100-sxm'?\n      gpu: h1000\n           ^\n"), "%s", all);
	cr_assert(strstr(all, "5 errors\n"));
	free(all);
	tb_diags_release(&d);
}

Test(scenario, builtin_default)
{
	const char *text = tb_scenario_default_text();
	tb_diags d;
	tb_diags_init(&d);
	tb_scenario *sc = tb_scenario_load("<builtin>", text, strlen(text), NULL, 0, &d);
	cr_assert_not_null(sc);
	cr_assert_str_eq(sc->name, "default");
	cr_assert_str_eq(sc->inputs.model.preset, "llama-2-7b");
	cr_assert_eq(sc->inputs.training.tokens, 100e9);
	cr_assert_str_eq(sc->inputs.hardware.gpu.name, "h100-sxm");
	cr_assert_eq(sc->inputs.hardware.count, 64);
	cr_assert(sc->inputs.plan.has_deadline);
	cr_assert_eq(sc->inputs.plan.deadline_s, 30 * 86400.0);
	tb_scenario_free(sc);
	tb_diags_release(&d);
}

Test(scenario, name_and_hash)
{
	tb_diags d;
	tb_diags_init(&d);
	tb_scenario *sc = tb_scenario_load("docs/examples/default-7b.yaml", S_base, strlen(S_base), NULL, 0, &d);
	cr_assert_not_null(sc);
	cr_assert_str_eq(sc->name, "default-7b");
	cr_assert_str_eq(sc->path, "docs/examples/default-7b.yaml");
	cr_assert_eq(sc->text_len, strlen(S_base));
	cr_assert_str_eq(sc->text, S_base);
	/* sha256sum of the same bytes */
	cr_assert_str_eq(sc->sha256, "ecbd97330e7924eade7cfd939cba535f706a1f26357c25c718c1f285e260224f");
	tb_scenario_free(sc);
	sc = tb_scenario_load("-", S_base, strlen(S_base), NULL, 0, &d);
	cr_assert_not_null(sc);
	cr_assert_str_eq(sc->name, "stdin");
	tb_scenario_free(sc);
	tb_diags_release(&d);
}

Test(scenario, params_alone_and_inline_gpu)
{
	const char *text =
		"title: count only\n"
		"model:\n"
		"  params: 7B\n"
		"training:\n"
		"  tokens: 1.5T\n"
		"hardware:\n"
		"  gpu:\n"
		"    name: my-gpu\n"
		"    memory: 96GiB\n"
		"    bf16: 1000T\n"
		"    bandwidth: 4TB/s\n"
		"    tdp: 800W\n"
		"  count: 8\n";
	tb_diags d;
	tb_scenario *sc = S_load_text(text, NULL, 0, &d);
	char *msg = tb_diags_format(&d);
	cr_assert_not_null(sc, "%s", msg);
	free(msg);
	cr_assert(!sc->inputs.model.has_shape);
	cr_assert_eq(sc->inputs.model.params_count, 7e9);
	cr_assert_eq(sc->inputs.training.tokens, 1.5e12);
	cr_assert_str_eq(sc->inputs.hardware.gpu.name, "my-gpu");
	cr_assert_eq(sc->inputs.hardware.gpu.memory_bytes, 96.0 * 1073741824.0);
	cr_assert_eq(sc->inputs.hardware.gpu.peak_flops[TB_DTYPE_BF16], 1e15);
	cr_assert_eq(sc->inputs.hardware.gpu.bandwidth_bytes_per_s, 4e12);
	cr_assert_eq(sc->inputs.hardware.gpu.tdp_w, 800);
	tb_scenario_free(sc);
	tb_diags_release(&d);
}

Test(scenario, explicit_fields_override_preset)
{
	const char *text =
		"title: t\n"
		"model:\n"
		"  preset: llama-2-7b\n"
		"  vocab: 128256\n"
		"  layers: 40\n"
		"training:\n"
		"  tokens: 100B\n"
		"hardware:\n"
		"  count: 64\n";
	tb_diags d;
	tb_scenario *sc = S_load_text(text, NULL, 0, &d);
	cr_assert_not_null(sc);
	cr_assert_eq(sc->inputs.model.vocab, 128256);
	cr_assert_eq(sc->inputs.model.layers, 40);
	cr_assert_eq(sc->inputs.model.hidden, 4096);
	cr_assert_eq(sc->inputs.model.ffn_hidden, 11008);
	tb_scenario_free(sc);
	tb_diags_release(&d);
}

/* Every ```yaml block in docs/scenario.md must load, so the docs cannot
 * drift from the loader. */
Test(scenario, docs_yaml_blocks_load)
{
	size_t len = 0;
	char *doc = S_slurp("docs/scenario.md", &len);
	size_t blocks = 0;
	const char *p = doc;
	while ((p = strstr(p, "```yaml\n"))) {
		p += 8;
		const char *end = strstr(p, "```");
		cr_assert(end, "unterminated yaml block");
		/* Blocks are loaded as if they sat in docs/, for hf_config paths. */
		tb_diags d;
		tb_diags_init(&d);
		tb_scenario *sc = tb_scenario_load("docs/scenario-example.yaml", p, (size_t)(end - p), NULL, 0, &d);
		char *msg = tb_diags_format(&d);
		cr_assert_not_null(sc, "docs/scenario.md block %zu:\n%.*s\n%s", blocks + 1, (int)(end - p), p, msg);
		free(msg);
		tb_scenario_free(sc);
		tb_diags_release(&d);
		blocks++;
		p = end + 3;
	}
	free(doc);
	cr_assert_geq(blocks, 3, "docs/scenario.md has only %zu yaml blocks", blocks);
}

Test(scenario, hostile_inputs_do_not_crash)
{
	static const char *const texts[] = {
		"", "\n", ":", "- - - -", "{", "[", "\"", "? ? ?", "&a [*a]",
		"title: !!binary AAAA", "%YAML 1.1\n---\n", "a: b\n\t- c",
		"title: t\nmodel: {layers: 99999999999999999999999}\n",
		"\xef\xbb\xbftitle: bom\n",
	};
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
		tb_diags d;
		tb_diags_init(&d);
		tb_scenario *sc = tb_scenario_load("h.yaml", texts[i], strlen(texts[i]), NULL, 0, &d);
		cr_assert_null(sc, "hostile input %zu accepted", i);
		cr_assert_geq(d.errors, 1);
		tb_diags_release(&d);
	}
	/* NUL inside the text */
	tb_diags d;
	tb_diags_init(&d);
	cr_assert_null(tb_scenario_load("h.yaml", "title: a\0b\n", 11, NULL, 0, &d));
	tb_diags_release(&d);
}

/* ---- a source parsed once (tb_scenario_source) ----------------------------- */

#include "trainbudget/fileio.h"

/* Each load of a source is tb_scenario_load_ex's: the same inputs to the
 * byte, the same digest, the same status, the same errors word for word,
 * over valid overrides, refused combinations and bad values; and a file
 * that does not parse cleanly (a duplicate key) says so on every load. */
static void S_same_as_load(const char *path, const char *const *sets, size_t nsets)
{
	size_t len = 0;
	char *text = tb_fileio_slurp(path, 1 << 22, &len);
	cr_assert_not_null(text, "%s", path);
	tb_scenario_source *src = tb_scenario_source_new(path, text, len);
	for (int twice = 0; twice < 2; twice++) {
		tb_diags d1, d2;
		tb_diags_init(&d1);
		tb_diags_init(&d2);
		tb_scenario_status s1, s2;
		tb_scenario *a = tb_scenario_load_ex(path, text, len, sets, nsets, &d1, &s1);
		tb_scenario *b = tb_scenario_load_source(src, sets, nsets, &d2, &s2);
		cr_expect_eq(s1, s2, "%s: status", path);
		char *m1 = tb_diags_format(&d1), *m2 = tb_diags_format(&d2);
		cr_expect_str_eq(m1, m2, "%s: diagnostics", path);
		free(m1);
		free(m2);
		cr_expect_eq(a == NULL, b == NULL);
		if (a && b) {
			cr_expect(memcmp(&a->inputs, &b->inputs, sizeof a->inputs) == 0, "%s: inputs", path);
			cr_expect_str_eq(a->sha256, b->sha256);
			cr_expect_str_eq(a->signoff.digest, b->signoff.digest);
			cr_expect_str_eq(a->name, b->name);
		}
		tb_scenario_free(a);
		tb_scenario_free(b);
		tb_diags_release(&d1);
		tb_diags_release(&d2);
	}
	tb_scenario_source_free(src);
	free(text);
}

Test(scenario, a_source_loads_as_the_file_does)
{
	static const char *const none[] = { NULL };
	static const char *const ok[] = { "hardware.count=128", "training.micro_batch=2" };
	static const char *const refused[] = { "hardware.count=96" };
	static const char *const bad[] = { "training.tokens=-1", "model.nope=1" };
	static const char *const unset[] = { "hardware.mfu" };
	S_same_as_load("docs/examples/default-7b.yaml", none, 0);
	S_same_as_load("docs/examples/default-7b.yaml", ok, 2);
	S_same_as_load("docs/examples/default-7b.yaml", refused, 1);
	S_same_as_load("docs/examples/default-7b.yaml", bad, 2);
	S_same_as_load("docs/examples/deepseek-v3.yaml", unset, 1);
	S_same_as_load("docs/examples/llama3-8b-hf.yaml", ok, 2);
	S_same_as_load("tests/scenarios/bad-duplicate-key.yaml", ok, 2);
	S_same_as_load("tests/scenarios/bad-empty.yaml", none, 0);
}

/* parallelism.overlap_dp defaults to true (today's frameworks overlap the
 * gradient reduction) and takes false. */
/* parallelism.pipeline_layout: read for the written pipeline, the model's
 * dense layers and MTP module placed, the virtual size set from it and
 * counted as written (every search then holds it). */
Test(scenario, pipeline_layout)
{
	static const char *const text =
		"title: t\n"
		"model:\n"
		"  preset: deepseek-v3\n"
		"training:\n"
		"  tokens: 1T\n"
		"  global_batch: 16384\n"
		"hardware:\n"
		"  gpu: h800\n"
		"  count: 2048\n"
		"parallelism:\n"
		"  pipeline: 8\n"
		"  expert: 64\n"
		"  pipeline_layout: Et|(tt|)*30mL\n";
	tb_diags d;
	tb_scenario *sc = S_load_text(text, NULL, 0, &d);
	cr_assert_not_null(sc, "%s", d.n ? d.items[0].msg : "");
	const tb_parallelism *par = &sc->inputs.parallelism;
	cr_expect_eq(par->layout.pipeline, 8);
	cr_expect_eq(par->layout.virtual_pipeline, 4);
	cr_expect_eq(par->virtual_pipeline, 4);
	cr_expect(par->written & TB_LAYOUT_VIRTUAL);
	cr_expect_eq(par->layout.first.dense, 1);
	cr_expect_eq(par->layout.last.mtp, 1);
	cr_expect_str_eq(par->layout.text, "Et|(tt|)*30mL");
	tb_scenario_free(sc);
	tb_diags_release(&d);
}

Test(scenario, overlap_dp)
{
	tb_diags d;
	tb_scenario *sc = S_load_text(S_base, NULL, 0, &d);
	cr_assert(sc);
	cr_expect(!sc->inputs.parallelism.no_overlap_dp);
	tb_scenario_free(sc);
	tb_diags_release(&d);
	const char *const set[] = { "parallelism.overlap_dp=false" };
	sc = S_load_text(S_base, set, 1, &d);
	cr_assert(sc);
	cr_expect(sc->inputs.parallelism.no_overlap_dp);
	tb_scenario_free(sc);
	tb_diags_release(&d);
}
