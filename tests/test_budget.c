/* test_budget.c: the orchestrator and the derivations it leaves, on a
 * Llama-2-7B scenario whose headline figures are known independently. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "calc.h"
#include "trainbudget/gpus.h"
#include "trainbudget/presets.h"

static tb_budget B;

static void llama7b(tb_inputs *in)
{
	memset(in, 0, sizeof *in);
	tb_model *m = &in->model;
	m->has_shape = true;
	m->layers = 32; m->hidden = 4096; m->heads = 32; m->kv_heads = 32;
	m->head_dim = 128; m->ffn_hidden = 11008; m->vocab = 32000;
	m->mlp = TB_MLP_GATED; m->norm = TB_NORM_RMSNORM; m->positions = TB_POS_ROPE;
	in->training.tokens = 100e9;
	in->training.seq_len = 4096;
	in->training.global_batch = 256;
	in->training.micro_batch = 1;
	in->training.precision = TB_PREC_BF16_MIXED;
	in->training.optimizer = TB_OPT_ADAMW;
	in->training.flash_attention = true;
	in->hardware.gpu = *tb_gpus_find("h100-sxm");
	in->hardware.count = 64;
	in->hardware.mfu[0] = 0.25; in->hardware.mfu[1] = 0.35; in->hardware.mfu[2] = 0.45;
	in->hardware.price_per_gpu_hour = 2;
	strcpy(in->hardware.currency, "USD");
	in->hardware.pue = 1;
	in->hardware.overhead_bytes = 3e9;
	in->parallelism.tensor = in->parallelism.pipeline = in->parallelism.expert = 1;
	in->parallelism.data = 64;
	in->parallelism.zero = 1;
	in->plan.n_overtrain = 1;
	in->plan.overtrain[0] = 1;
}

Test(budget, compute_runs_every_step)
{
	tb_inputs in;
	llama7b(&in);
	memset(&B, 0xff, sizeof B);          /* compute must zero first */
	tb_budget_compute(&in, &B);
	cr_expect(B.params.total == 6738415616.0);
	cr_expect(B.flops.total_6nd == 6 * 6738415616.0 * 100e9);
	/* bf16-mixed AdamW with fp32 gradients, the default: 18 B/param */
	cr_expect(B.memory.model_states_bytes == 18 * 6738415616.0);
	cr_expect(B.memory.activations_known);
	cr_expect(B.n_warnings >= 0 && B.n_warnings <= TB_WARNINGS_MAX);
	cr_expect(B.n_derivs > 5 && B.n_derivs <= TB_DERIVS_MAX);
}

Test(budget, derivations_by_key)
{
	tb_inputs in;
	llama7b(&in);
	tb_budget_compute(&in, &B);
	const char *keys[] = {
		"params.total", "flops.total_6nd", "flops.total_model", "flops.total_hardware",
		"memory.model_states", "memory.activations_per_layer", "memory.per_gpu_total",
		"memory.kv_cache_per_token",
	};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		const tb_deriv *d = tb_budget_deriv(&B, keys[i]);
		cr_assert(d, "%s missing", keys[i]);
		cr_expect(d->formula && d->formula[0] && d->source && d->source[0], "%s", keys[i]);
		cr_expect(d->nvars >= 1, "%s has no variables", keys[i]);
		cr_expect(isfinite(d->result), "%s", keys[i]);
		/* every var symbol appears in the formula it substitutes into */
		for (int v = 0; v < d->nvars; v++)
			cr_expect(strstr(d->formula, d->vars[v].sym) != NULL, "%s: %s not in %s",
			          keys[i], d->vars[v].sym, d->formula);
	}
	cr_expect(tb_budget_deriv(&B, "params.total")->result == 6738415616.0);
	cr_expect(tb_budget_deriv(&B, "memory.model_states")->result == B.memory.model_states_bytes);
	cr_expect_null(tb_budget_deriv(&B, "no.such.key"));
	cr_expect_null(tb_budget_deriv(NULL, "params.total"));
}

Test(budget, count_only_has_no_nan)
{
	tb_inputs in;
	llama7b(&in);
	memset(&in.model, 0, sizeof in.model);
	in.model.params_count = 7e9;
	tb_budget_compute(&in, &B);
	cr_expect(B.flops.total_6nd == 4.2e21);
	cr_expect(!B.memory.activations_known);
	for (int i = 0; i < B.n_derivs; i++) {
		cr_expect(isfinite(B.derivs[i].result), "%s", B.derivs[i].key);
		for (int v = 0; v < B.derivs[i].nvars; v++)
			cr_expect(isfinite(B.derivs[i].vars[v].value), "%s", B.derivs[i].key);
	}
	cr_expect(B.memory.per_gpu.total >= 0 && B.memory.headroom_bytes == B.memory.capacity_bytes - B.memory.per_gpu.total);
}

/* The variable of derivation d written as sym, or NULL. */
static const tb_deriv_var *S_var(const tb_deriv *d, const char *sym)
{
	for (int j = 0; j < d->nvars; j++)
		if (strcmp(d->vars[j].sym, sym) == 0)
			return &d->vars[j];
	return NULL;
}

/* The optimizer step's derivation names where its HBM fraction comes from
 * by the same test the price reads (tb_perf_mem_measured): H100's is the
 * one cuDNN's RMSNorm measured on its die (0.782, gpus.c), A100's the
 * fitted constant. */
Test(budget, optimizer_eta_says_its_basis)
{
	static const struct { const char *gpu; bool measured; } c[] = {
		{ "h100-sxm", true }, { "a100-80gb", false },
	};
	for (int i = 0; i < 2; i++) {
		tb_inputs in;
		llama7b(&in);
		in.hardware.gpu = *tb_gpus_find(c[i].gpu);
		tb_budget_compute(&in, &B);
		const tb_deriv *d = tb_budget_deriv(&B, "perf.optimizer");
		cr_assert_not_null(d, "%s", c[i].gpu);
		const tb_deriv_var *eta = S_var(d, "eta");
		cr_assert_not_null(eta, "%s", c[i].gpu);
		cr_expect(strstr(eta->meaning, c[i].measured ? "measured on the card" : "(fitted)") != NULL,
		          "%s: %s", c[i].gpu, eta->meaning);
		cr_expect(c[i].measured ? eta->value == 0.782 : eta->value == tb_perf_fitted.mem_fraction,
		          "%s: %g", c[i].gpu, eta->value);
	}
}

/* The layer's derivation states the attention's key share where layers
 * have windows (Gemma 2 9B at 8,192 tokens: 21 of 42 layers at 4,096
 * keys, 0.875 by hand, tests/test_perf_blocks.c) and not where none has. */
Test(budget, layer_derivation_states_the_windows)
{
	static const struct { const char *preset; double share; } c[] = {
		{ "gemma-2-9b", 0.875 }, { "llama-3-8b", 0 },
	};
	for (int i = 0; i < 2; i++) {
		tb_inputs in;
		llama7b(&in);
		in.model = tb_presets_find(c[i].preset)->model;
		in.training.seq_len = 8192;
		tb_budget_compute(&in, &B);
		const tb_deriv *d = tb_budget_deriv(&B, "perf.layer_fwd");
		cr_assert_not_null(d, "%s", c[i].preset);
		const tb_deriv_var *sw = S_var(d, "sigma_w");
		if (c[i].share > 0) {
			cr_assert_not_null(sw, "%s", c[i].preset);
			cr_expect(fabs(sw->value - c[i].share) < 1e-12, "%s: %g", c[i].preset, sw->value);
		} else {
			cr_expect_null(sw, "%s", c[i].preset);
		}
	}
}
