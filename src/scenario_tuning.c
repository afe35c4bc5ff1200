/* scenario_tuning.c: the training keys that say what is trained:
 * training.method, training.lora {rank, alpha, targets, dropout},
 * training.quantization and training.double_quant, each with its default
 * (PEFT's LoraConfig for the adapters, QLoRA's NF4 with double
 * quantization), and the check of the targets against the model's
 * modules, which waits for the model section. */
#include "scenario_sections.h"

#include <stdio.h>
#include <string.h>

static const char *const S_method_names[] = { "full", "lora", "qlora", "frozen", "dpo" };
static const char *const S_quant_names[] = { "none", "nf4", "fp4", "int8", "fp8" };

static const char S_targets_expected[] =
	"a list of module names such as [q_proj, v_proj], or all-linear";

/* One target name: canonical, alias or all-linear. */
static bool S_target(tb_yaml_ctx *c, const tb_yaml_node *n, const char *word, tb_lora *l)
{
	if (strcmp(word, "all-linear") == 0) {
		l->all_linear = true;
		return true;
	}
	unsigned bit = tb_lora_target_parse(word);
	if (!bit) {
		char sh[48];
		tb_yaml_err(c, n, "training.lora.targets: unknown module '%s'; expected %s",
		            tb_yaml_show(word, sh), tb_lora_target_names);
		return false;
	}
	l->targets |= bit;
	return true;
}

/* A list of names, or one scalar: all-linear, a name, or names joined by
 * commas as PEFT's command lines take them. */
static bool S_targets(tb_yaml_ctx *c, const tb_yaml_node *n, tb_lora *l)
{
	l->targets = 0;
	l->all_linear = false;
	if (n->kind == TB_YAML_SEQ) {
		if (n->n == 0) {
			tb_yaml_err(c, n, "training.lora.targets is empty; expected %s", S_targets_expected);
			return false;
		}
		for (size_t i = 0; i < n->n; i++) {
			const char *w = tb_yaml_scalar(c, n->vals[i], "training.lora.targets", S_targets_expected);
			if (!w || !S_target(c, n->vals[i], w, l))
				return false;
		}
		return true;
	}
	const char *s = tb_yaml_scalar(c, n, "training.lora.targets", S_targets_expected);
	if (!s)
		return false;
	char word[64];
	for (const char *p = s;;) {
		while (*p == ' ' || *p == ',')
			p++;
		if (!*p)
			break;
		size_t k = strcspn(p, ", ");
		if (k >= sizeof word) {
			tb_yaml_err(c, n, "training.lora.targets: a module name of %zu characters; "
			            "expected %s", k, S_targets_expected);
			return false;
		}
		memcpy(word, p, k);
		word[k] = '\0';
		if (!S_target(c, n, word, l))
			return false;
		p += k;
	}
	if (!l->targets && !l->all_linear) {
		tb_yaml_err(c, n, "training.lora.targets is empty; expected %s", S_targets_expected);
		return false;
	}
	return true;
}

bool tb_scenario_load_tuning(tb_yaml_ctx *c, const tb_yaml_node *tr, tb_training *t)
{
	/* PEFT's LoraConfig: r 8, lora_alpha 8, lora_dropout 0, and for
	 * Llama-family models q_proj and v_proj */
	t->method = TB_METHOD_FULL;
	t->lora.rank = 8;
	t->lora.alpha = 8;
	t->lora.targets = TB_LORA_Q | TB_LORA_V;
	t->lora.all_linear = false;
	t->lora.dropout = 0;
	t->quantization = TB_QUANT_NONE;
	t->double_quant = true;
	t->paged_optimizer = false;
	if (!tr)
		return true;
	bool ok = true;
	const tb_yaml_node *n;
	int e;
	if ((n = tb_yaml_get(tr, "method"))) {
		if (tb_yaml_enum(c, n, "training.method", S_method_names, TB_N(S_method_names), &e))
			t->method = (tb_method)e;
		else
			ok = false;
	}
	if (t->method == TB_METHOD_QLORA)
		t->quantization = TB_QUANT_NF4;
	if ((n = tb_yaml_get(tr, "quantization"))) {
		if (tb_yaml_enum(c, n, "training.quantization", S_quant_names, TB_N(S_quant_names), &e))
			t->quantization = (tb_quant)e;
		else
			ok = false;
	}
	if ((n = tb_yaml_get(tr, "double_quant")) &&
	    !tb_yaml_bool(c, n, "training.double_quant", &t->double_quant))
		ok = false;
	if ((n = tb_yaml_get(tr, "paged_optimizer")) &&
	    !tb_yaml_bool(c, n, "training.paged_optimizer", &t->paged_optimizer))
		ok = false;
	const tb_yaml_node *lm = tb_yaml_get_map(c, tr, "lora");
	if (lm) {
		int64_t r;
		double v;
		if ((n = tb_yaml_get(lm, "rank"))) {
			if (tb_yaml_int(c, n, "training.lora.rank", 1, 65536, &r))
				t->lora.rank = r;
			else
				ok = false;
		}
		/* PEFT's default alpha is 8 whatever the rank: only a rank
		 * written without it keeps alpha at 8 too */
		if ((n = tb_yaml_get(lm, "alpha"))) {
			if (tb_yaml_quant(c, n, "training.lora.alpha", TB_YAML_Q_NUMBER,
			                  "a positive number such as 16 or 32", 1e-6, 1e6, &v))
				t->lora.alpha = v;
			else
				ok = false;
		}
		if ((n = tb_yaml_get(lm, "dropout"))) {
			if (tb_yaml_quant(c, n, "training.lora.dropout", TB_YAML_Q_FRACTION,
			                  "a fraction in [0, 1) such as 0.05", 0, 0.999, &v))
				t->lora.dropout = v;
			else
				ok = false;
		}
		if ((n = tb_yaml_get(lm, "targets")) && !S_targets(c, n, &t->lora))
			ok = false;
		static const char *const S_lk[] = { "fused", "eager" };
		if ((n = tb_yaml_get(lm, "kernels"))) {
			if (tb_yaml_enum(c, n, "training.lora.kernels", S_lk, TB_N(S_lk), &e))
				t->lora.kernels = e ? TB_LORA_KERNELS_EAGER : TB_LORA_KERNELS_FUSED;
			else
				ok = false;
		}
	} else if (tb_yaml_map_broken(tr, "lora")) {
		ok = false;
	}
	return ok;
}

/* The keys that only mean something under another method, named where
 * they are written. */
bool tb_scenario_check_tuning(tb_yaml_ctx *c, const tb_yaml_node *root, tb_scenario *sc)
{
	tb_training *t = &sc->inputs.training;
	const tb_yaml_node *tr = tb_yaml_child_map(root, "training");
	const tb_yaml_node *lk = tr ? tb_yaml_get_key(tr, "lora") : NULL;
	const tb_yaml_node *lm = tr ? tb_yaml_child_map(tr, "lora") : NULL;
	const tb_yaml_node *qn = tr ? tb_yaml_get(tr, "quantization") : NULL;
	const char *method = tb_method_name(t->method);
	if (lk && !tb_method_adapters(t->method)) {
		tb_yaml_err(c, lk, "training.lora under training.method %s, which trains no adapters; "
		            "expected training.method lora or qlora, or no training.lora", method);
		return false;
	}
	if (qn && t->quantization != TB_QUANT_NONE &&
	    (t->method == TB_METHOD_FULL || t->method == TB_METHOD_DPO)) {
		tb_yaml_err(c, qn, "training.quantization %s under training.method %s: trained weights "
		            "are not stored quantized; expected none, or a method that freezes them "
		            "(qlora, lora, frozen)", tb_quant_name(t->quantization), method);
		return false;
	}
	/* Transformer Engine's fp8 weights exist only for its fp8 GEMMs */
	if (t->quantization == TB_QUANT_FP8 && t->precision != TB_PREC_FP8_MIXED) {
		tb_yaml_err(c, qn ? qn : tr, "training.quantization fp8 under training.precision %s: "
		            "Transformer Engine stores weights in fp8 for its fp8 matmuls alone; expected "
		            "training.precision fp8-mixed", tb_precision_name(t->precision));
		return false;
	}
	if (t->method == TB_METHOD_QLORA && t->quantization == TB_QUANT_NONE) {
		tb_yaml_err(c, qn, "training.quantization none under training.method qlora; expected "
		            "nf4 (QLoRA's), fp4 or int8, or training.method lora for 16-bit frozen weights");
		return false;
	}
	if (!tb_method_adapters(t->method))
		return true;
	const char *why = NULL;
	tb_lora_count lc;
	if (!tb_lora_count_compute(&sc->inputs.model, &t->lora, &lc, &why)) {
		const tb_yaml_node *at = lm ? tb_yaml_get(lm, "targets") : NULL;
		if (!at)
			at = lk ? lk : tb_yaml_get(tr, "method");
		tb_yaml_err(c, at, "training.lora.targets: %s", why);
		return false;
	}
	/* past the narrowest adapted matrix's width, A B has more parameters
	 * than the matrix and no more rank: a typo, not an adapter */
	double narrow = 0;
	for (int k = 0; k < lc.n_dense + lc.n_moe; k++) {
		const tb_lora_module *x = k < lc.n_dense ? &lc.dense_mods[k] : &lc.moe_mods[k - lc.n_dense];
		double w = x->in < x->out ? x->in : x->out;
		if (narrow == 0 || w < narrow)
			narrow = w;
	}
	if ((double)t->lora.rank > narrow) {
		const tb_yaml_node *rn = lm ? tb_yaml_get(lm, "rank") : NULL;
		tb_yaml_err(c, rn ? rn : lk, "training.lora.rank %lld is above the width of the narrowest "
		            "adapted matrix (%.0f); expected at most %.0f, usually 8 to 256",
		            (long long)t->lora.rank, narrow, narrow);
		return false;
	}
	return true;
}
