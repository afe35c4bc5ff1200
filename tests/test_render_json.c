/* test_render_json.c: the JSON contract (docs/json.md): well-formed,
 * every contract key present, hostile strings escaped, unknown figures
 * null, numbers exact, output deterministic. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calc.h"
#include "trainbudget/render.h"

/* ---- a minimal JSON checker (RFC 8259 grammar, no semantics) ---------- */

typedef struct { const char *p; int depth; } J;

static void ws(J *j)
{
	while (*j->p == ' ' || *j->p == '\n' || *j->p == '\t' || *j->p == '\r')
		j->p++;
}

static bool value(J *j);

static bool string(J *j)
{
	if (*j->p != '"')
		return false;
	j->p++;
	while (*j->p && *j->p != '"') {
		unsigned char c = (unsigned char)*j->p;
		if (c < 0x20)
			return false;
		if (c == '\\') {
			j->p++;
			if (*j->p == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF", j->p[i]) || !j->p[i])
						return false;
				j->p += 5;
				continue;
			}
			if (!*j->p || !strchr("\"\\/bfnrt", *j->p))
				return false;
		}
		j->p++;
	}
	if (*j->p != '"')
		return false;
	j->p++;
	return true;
}

static bool number(J *j)
{
	char *end;
	if (!(*j->p == '-' || (*j->p >= '0' && *j->p <= '9')))
		return false;
	double v = strtod(j->p, &end);
	if (end == j->p || !isfinite(v))
		return false;
	j->p = end;
	return true;
}

static bool container(J *j, char open, char close, bool obj)
{
	if (*j->p != open || ++j->depth > 64)
		return false;
	j->p++;
	ws(j);
	if (*j->p == close) {
		j->p++;
		j->depth--;
		return true;
	}
	for (;;) {
		ws(j);
		if (obj) {
			if (!string(j))
				return false;
			ws(j);
			if (*j->p++ != ':')
				return false;
			ws(j);
		}
		if (!value(j))
			return false;
		ws(j);
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		if (*j->p != close)
			return false;
		j->p++;
		j->depth--;
		return true;
	}
}

static bool value(J *j)
{
	ws(j);
	switch (*j->p) {
	case '{': return container(j, '{', '}', true);
	case '[': return container(j, '[', ']', false);
	case '"': return string(j);
	case 't': return strncmp(j->p, "true", 4) == 0 ? (j->p += 4, true) : false;
	case 'f': return strncmp(j->p, "false", 5) == 0 ? (j->p += 5, true) : false;
	case 'n': return strncmp(j->p, "null", 4) == 0 ? (j->p += 4, true) : false;
	default: return number(j);
	}
}

static bool valid_json(const char *s)
{
	J j = { s, 0 };
	if (!value(&j))
		return false;
	ws(&j);
	return *j.p == '\0';
}

/* ---- fixtures --------------------------------------------------------- */

static void inputs_7b(tb_inputs *in)
{
	memset(in, 0, sizeof *in);
	in->model.has_shape = true;
	in->model.layers = 32;
	in->model.hidden = 4096;
	in->model.heads = 32;
	in->model.kv_heads = 32;
	in->model.head_dim = 128;
	in->model.ffn_hidden = 11008;
	in->model.vocab = 32000;
	in->model.mlp = TB_MLP_GATED;
	in->training.tokens = 100e9;
	in->training.seq_len = 4096;
	in->training.global_batch = 256;
	in->training.micro_batch = 1;
	in->training.precision = TB_PREC_BF16_MIXED;
	strcpy(in->hardware.gpu.name, "h100-sxm");
	in->hardware.gpu.peak_flops[TB_DTYPE_BF16] = 989.4e12;
	in->hardware.gpu.memory_bytes = 80e9;
	in->hardware.gpu.bandwidth_bytes_per_s = 3.35e12;
	in->hardware.gpu.tdp_w = 700;
	in->hardware.count = 64;
	in->hardware.mfu[0] = 0.25;
	in->hardware.mfu[1] = 0.35;
	in->hardware.mfu[2] = 0.45;
	in->hardware.price_per_gpu_hour = 2;
	strcpy(in->hardware.currency, "USD");
	in->hardware.pue = 1;
	in->parallelism.tensor = in->parallelism.pipeline = in->parallelism.expert = 1;
	in->parallelism.data = 64;
	in->plan.has_deadline = true;
	in->plan.deadline_s = 30 * 86400.0;
	in->plan.n_overtrain = 3;
	in->plan.overtrain[0] = 1;
	in->plan.overtrain[1] = 2;
	in->plan.overtrain[2] = 5;
}

static char *render(const char *title, tb_inputs *in, tb_budget *b)
{
	tb_scenario sc;
	memset(&sc, 0, sizeof sc);
	sc.title = (char *)title;
	sc.name = (char *)"t";
	strcpy(sc.sha256, "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
	sc.inputs = *in;
	const char *sets[1] = { "hardware.count=64" };
	tb_signoff_add(&sc.signoff, TB_INPUT_SCENARIO, "t.yaml", "title: t\n", 9);
	tb_signoff_set_overrides(&sc.signoff, sets, 1, NULL, 0);
	tb_signoff_seal(&sc.signoff, "0.0.0");
	char *s = tb_render_json(&sc, b);
	tb_signoff_release(&sc.signoff);
	return s;
}

/* ---- tests ------------------------------------------------------------ */

Test(render_json, well_formed_with_contract_keys)
{
	tb_inputs in;
	inputs_7b(&in);
	static tb_budget b;
	tb_budget_compute(&in, &b);
	char *s = render("7B", &in, &b);
	cr_assert(valid_json(s), "not valid JSON:\n%s", s);
	static const char *const keys[] = {
		"version", "scenario", "title", "sha256",
		"parameters", "total", "active", "embedding", "attention", "mlp", "norm", "output",
		"flops", "per_token_6n", "per_token_model", "per_token_hardware",
		"total_6nd", "total_model", "total_hardware",
		"memory", "bytes_per_param", "weights", "gradients", "master_weights", "optimizer",
		"model_states_bytes", "activations_per_layer_bytes", "activations_bytes",
		"per_gpu", "activations", "other", "capacity", "fits", "zero", "stage",
		"kv_cache_bytes_per_token",
		"time", "mfu", "seconds", "gpu_hours", "cost", "energy_kwh", "currency",
		"deadline_s", "meets_deadline", "gpus_for_deadline",
		"chinchilla", "compute_flops", "optimal_params", "optimal_tokens",
		"tokens_per_param", "plans", "label", "kind", "multiple", "params", "tokens", "loss",
		"warnings", "derivations", "levers", "gpu_scan",
		/* issue 10's contract: what the numbers rest on */
		"inputs_sha256", "inputs", "role", "path", "sets", "sweeps",
		/* issue 11's contract */
		"perf", "step_s", "tokens_per_s_per_gpu", "hfu", "tflops_per_gpu", "mfu_band",
		"breakdown_s", "tp_comm", "cp_comm", "ep_comm", "pp_comm", "bubble", "dp_comm",
		"recompute", "source", "mfu_source", "virtual_pipeline", "context", "node",
		/* issue 9's: names that say what they mean, the new figures */
		"max_params_fully_sharded", "max_params_one_gpu", "max_params_this_layout",
		"embedding_dropout_bytes", "grad_dtype", "memory_source",
		"gpus_for_deadline_compute", "global_batch_for_compute",
		"experts", "mtp", "mla", "kv_lora_rank", "shared_ffn_hidden", "mtp_modules",
	};
	/* the old names are gone (docs/json.md, "Renamed keys") */
	static const char *const gone[] = {
		"max_params_unsharded", "max_params_at_zero", "embedding_output_bytes",
	};
	for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++) {
		char k[64];
		snprintf(k, sizeof k, "\"%s\": ", gone[i]);
		cr_expect(strstr(s, k) == NULL, "old key %s still written", gone[i]);
	}
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		char k[64];
		snprintf(k, sizeof k, "\"%s\": ", keys[i]);
		cr_expect(strstr(s, k) != NULL, "missing key %s", keys[i]);
	}
	/* Four ZeRO rows. */
	int stages = 0;
	for (const char *p = s; (p = strstr(p, "\"stage\": ")); p++)
		stages++;
	cr_expect_eq(stages, 4);
	/* valid_json already refuses NaN and inf: only finite numbers or null. */
	cr_expect(strstr(s, "\"source\": \"assumed\"") != NULL);
	free(s);
	/* a count-only model: perf is null and says why */
	memset(&in.model, 0, sizeof in.model);
	in.model.params_count = 7e9;
	tb_budget_compute(&in, &b);
	s = render("7B", &in, &b);
	cr_assert(valid_json(s));
	cr_expect(strstr(s, "\"perf\": null,") != NULL, "%s", s);
	cr_expect(strstr(s, "\"perf_why\": \"the model has only a parameter count") != NULL);
	free(s);
}

Test(render_json, numbers_exact_and_integers_plain)
{
	tb_inputs in;
	inputs_7b(&in);
	static tb_budget b;
	tb_budget_compute(&in, &b);
	char *s = render("x", &in, &b);
	/* Shortest round-trip forms, not %.17g noise (0.34999999999999998). */
	cr_expect(strstr(s, "\"mfu\": [0.25, 0.35, 0.45]") != NULL, "%s", s);
	cr_expect(strstr(s, "\"count\": 64,") != NULL);
	cr_expect(strstr(s, "\"deadline_s\": 2592000,") != NULL);
	/* 6 x N x 100e9 with N an integer count: printed as an integer? It is
	 * above 2^53, so it prints in exponent form that reads back exactly. */
	const char *p = strstr(s, "\"total_6nd\": ");
	cr_assert(p);
	double v = strtod(p + strlen("\"total_6nd\": "), NULL);
	cr_expect_eq(v, b.flops.total_6nd, "reads back to the same double");
	free(s);
}

Test(render_json, hostile_title_escaped)
{
	tb_inputs in;
	inputs_7b(&in);
	static tb_budget b;
	tb_budget_compute(&in, &b);
	char *s = render("q\"b\\s\n\t\x01\x7f </script> \xc3\xbc \xe2\x82\xac \xff end", &in, &b);
	cr_assert(valid_json(s), "not valid JSON:\n%s", s);
	cr_expect(strstr(s, "\"title\": \"q\\\"b\\\\s\\n\\t\\u0001\\u007f </script> \xc3\xbc \xe2\x82\xac \\ufffd end\"") != NULL,
	          "%s", s);
	free(s);
}

Test(render_json, count_only_model_activations_null)
{
	tb_inputs in;
	inputs_7b(&in);
	in.model.has_shape = false;
	in.model.params_count = 7e9;
	in.model.layers = in.model.hidden = in.model.heads = in.model.kv_heads = 0;
	in.model.head_dim = in.model.ffn_hidden = in.model.vocab = 0;
	static tb_budget b;
	tb_budget_compute(&in, &b);
	/* The contract: whatever memory.c decides, JSON null follows the flag. */
	b.memory.activations_known = false;
	char *s = render("count only", &in, &b);
	cr_assert(valid_json(s), "%s", s);
	cr_expect(strstr(s, "\"activations_bytes\": null") != NULL);
	cr_expect(strstr(s, "\"activations_per_layer_bytes\": null") != NULL);
	cr_expect(strstr(s, "\"activations\": null") != NULL);
	cr_expect(strstr(s, "\"embedding\": null") != NULL || b.params.known_breakdown);
	free(s);
}

Test(render_json, non_finite_is_null)
{
	tb_inputs in;
	inputs_7b(&in);
	static tb_budget b;
	tb_budget_compute(&in, &b);
	b.params.total = NAN;
	b.flops.total_model = INFINITY;
	char *s = render("x", &in, &b);
	cr_assert(valid_json(s));
	cr_expect(strstr(s, "\"total\": null") != NULL);
	cr_expect(strstr(s, "\"total_model\": null") != NULL);
	free(s);
}

Test(render_json, unknown_time_is_null)
{
	tb_inputs in;
	inputs_7b(&in);
	in.hardware.gpu.peak_flops[TB_DTYPE_BF16] = 0;
	static tb_budget b;
	tb_budget_compute(&in, &b);
	char *s = render("x", &in, &b);
	cr_assert(valid_json(s));
	cr_expect(strstr(s, "\"seconds\": null") != NULL);
	cr_expect(strstr(s, "\"cost\": null") != NULL);
	cr_expect(strstr(s, "lists no dense bf16 peak") != NULL, "explained in warnings");
	free(s);
}

/* The search's counts: numbers from a search that made them, null (never
 * a zero that reads as "none fit") from one that looked for the best
 * alone (plan.h, best_only); the best layout listed either way. */
Test(render_json, plan_counts_null_when_not_made)
{
	tb_inputs in;
	inputs_7b(&in);
	in.hardware.mfu_predicted = true;
	static tb_budget b;
	tb_plan_space sp;
	for (int best = 0; best < 2; best++) {
		tb_budget_compute(&in, &b);
		memset(&sp, 0, sizeof sp);
		sp.top = 1;
		sp.best_only = best;
		tb_budget_compute_plan(&in, &b, &sp);
		cr_assert(b.plan.known && b.plan.n_layouts == 1);
		char *s = render("x", &in, &b);
		cr_assert(valid_json(s), "%s", s);
		cr_expect_eq(strstr(s, "\"feasible\": null") != NULL, !b.plan.counted,
		             "best_only %d, counted %d", best, b.plan.counted);
		cr_expect_eq(strstr(s, "\"pruned_memory\": null") != NULL, !b.plan.counted);
		if (best)
			cr_expect(!b.plan.counted, "the bound ruled shapes out, and they were skipped");
		else
			cr_expect(b.plan.counted && strstr(s, "\"feasible\": null") == NULL);
		free(s);
	}
}

Test(render_json, deterministic)
{
	tb_inputs in;
	inputs_7b(&in);
	static tb_budget b1, b2;
	tb_budget_compute(&in, &b1);
	tb_budget_compute(&in, &b2);
	char *s1 = render("same", &in, &b1);
	char *s2 = render("same", &in, &b2);
	cr_expect_str_eq(s1, s2);
	free(s1);
	free(s2);
}

Test(render_json, no_scenario)
{
	static tb_budget b;
	memset(&b, 0, sizeof b);
	char *s = tb_render_json(NULL, &b);
	cr_assert(valid_json(s), "%s", s);
	cr_expect(strstr(s, "\"title\": null") != NULL);
	free(s);
}
