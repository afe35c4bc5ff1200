/* scenario_training.c: the training section: tokens (required), the
 * sequence, the batch, precision, optimizer, checkpointing and attention
 * options, and the interval between saves of the model states, each with
 * its documented default. */
#include "scenario_sections.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const S_keys[] = {
	"tokens", "seq_len", "global_batch", "global_batch_tokens", "micro_batch", "precision",
	"optimizer", "checkpointing", "selective_policy", "recompute_layers", "flash_attention", "dropout",
	"attention_flops", "attention_kernel", "fp8_recipe", "checkpoint_interval", "grad_dtype",
	"grad_accumulation_fusion", "activation_func_fp8_input_store", "fp8_param_gather", "fp8_attention", "fp8_head", "kernels",
	"cross_entropy",
	"method", "lora", "quantization", "double_quant", "paged_optimizer",
	"packing", "avg_seq_len", "moe_routing", "moe_load_factor",
};

static const char *const S_prec_names[] = { "fp32", "bf16-mixed", "fp16-mixed", "bf16", "fp8-mixed", "fp4-mixed" };
static const char *const S_opt_names[] = { "adamw", "adamw-8bit", "adafactor", "sgd", "sgd-momentum", "lion" };
static const char *const S_ckpt_names[] = { "none", "selective", "full" };
static const char *const S_sel_names[] = { "attention", "op", "deepseek", "moe" };
static const char *const S_attn_names[] = { "full", "causal" };
/* indexed like tb_attn_kernel */
static const char *const S_kernel_names[] = { "auto", "flash2", "cudnn" };
/* indexed like tb_fp8_recipe */
static const char *const S_fp8_names[] = { "auto", "delayed", "tensorwise", "rowwise", "blockwise", "mxfp8", "deepseek" };
/* indexed like tb_fp8_attn */
static const char *const S_fp8_attn_names[] = { "false", "true", "delayed", "current", "mxfp8" };
/* indexed like tb_grad_dtype from TB_GRAD_BF16 on */
static const char *const S_grad_names[] = { "bf16", "fp16", "fp32" };
/* training.kernels: false = fused, true = eager */
static const char *const S_kernels_names[] = { "fused", "eager" };
/* indexed like tb_cross_entropy from TB_CE_FUSED on */
static const char *const S_ce_names[] = { "fused", "eager" };
/* indexed like tb_moe_routing */
static const char *const S_routing_names[] = { "dropless", "balanced" };

/* Gradients are in the precision's 16-bit dtype or in fp32: bf16 under
 * bf16-mixed, bf16 and fp8-mixed; fp16 under fp16-mixed; fp32 only under
 * fp32.  Returns the dtypes that would work, for the message. */
static const char *S_grad_allowed(tb_precision p, tb_grad_dtype g, bool *ok)
{
	switch (p) {
	case TB_PREC_FP32:
		*ok = g == TB_GRAD_FP32;
		return "fp32 (fp32 training keeps fp32 gradients)";
	case TB_PREC_FP16_MIXED:
		*ok = g == TB_GRAD_FP16 || g == TB_GRAD_FP32;
		return "fp16 or fp32";
	case TB_PREC_BF16_MIXED:
	case TB_PREC_BF16:
	case TB_PREC_FP8_MIXED:
	case TB_PREC_FP4_MIXED:
		break;
	}
	*ok = g == TB_GRAD_BF16 || g == TB_GRAD_FP32;
	return "bf16 or fp32";
}

bool tb_scenario_grad_fits(tb_precision p, tb_grad_dtype g)
{
	bool ok = true;
	if (g != TB_GRAD_DEFAULT)
		S_grad_allowed(p, g, &ok);
	return ok;
}

/* A count of tokens in a batch or a sequence, where k, M and G (or B) are
 * powers of two as every model card and paper means them: a "4k context"
 * is 4,096 tokens and Llama 3's "16M" batch 16,777,216 (2,048 sequences of
 * 8,192), not the decimal 8,000 and 16,000,000 the count units give.  The
 * value must come out whole; without a suffix it is a plain whole number
 * (issue 19). */
static bool S_binary_count(tb_yaml_ctx *c, const tb_yaml_node *n, const char *name,
                           const char *expected, double max, double *out)
{
	const char *s = n->kind == TB_YAML_SCALAR && n->str ? n->str : NULL;
	size_t len = s ? strlen(s) : 0;
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	double unit = 0;
	if (len >= 2 && isdigit((unsigned char)s[0])) {
		char u = s[len - 1];
		unit = u == 'k' || u == 'K' ? 1024.0 : u == 'M' ? 1048576.0
		       : u == 'G' || u == 'B' ? 1073741824.0 : 0;
	}
	if (unit > 0) {
		char num[32];
		size_t k = len - 1;
		while (k && s[k - 1] == ' ')
			k--;
		bool digits = k > 0 && k < sizeof num;
		for (size_t i = 0; digits && i < k; i++)
			digits = isdigit((unsigned char)s[i]) || s[i] == '.';
		if (digits) {
			memcpy(num, s, k);
			num[k] = '\0';
			double v = strtod(num, NULL) * unit;
			if (v >= 1 && v <= max && v == floor(v)) {
				*out = v;
				return true;
			}
			char sh[48];
			tb_yaml_err(c, n, "%s '%s' is not a whole number of tokens (k, M and G are 1,024, "
			            "2^20 and 2^30 here); expected %s", name, tb_yaml_show(s, sh), expected);
			return false;
		}
	}
	int64_t v = 0;
	if (!tb_yaml_int(c, n, name, 1, (int64_t)max, &v))
		return false;
	*out = (double)v;
	return true;
}

static bool S_load(tb_yaml_ctx *c, const tb_yaml_node *root, tb_scenario *sc)
{
	tb_inputs *in = &sc->inputs;
	const tb_yaml_node *n;
	bool ok = true;

	tb_training *t = &in->training;
	t->seq_len = 4096;
	t->global_batch = 1024;
	t->micro_batch = 1;
	t->precision = TB_PREC_BF16_MIXED;
	t->grad_dtype = TB_GRAD_DEFAULT;
	t->optimizer = TB_OPT_ADAMW;
	t->checkpointing = TB_CKPT_NONE;
	t->selective_policy = TB_SELECTIVE_ATTENTION;
	t->attention_flops = TB_ATTN_FLOPS_FULL;
	t->flash_attention = true;
	t->attention_kernel = TB_ATTN_KERNEL_AUTO;
	t->fp8_recipe = TB_FP8_AUTO;
	t->dropout = false;
	t->packing = true;
	t->avg_seq_len = 0;
	t->padding_fraction = 0;
	const tb_yaml_node *tr = tb_yaml_get_map(c, root, "training");
	const tb_yaml_node *trkey = tb_yaml_get_key(root, "training");
	if (tr && (n = tb_yaml_get(tr, "tokens"))) {
		if (!tb_yaml_quant(c, n, "training.tokens", TB_YAML_Q_COUNT, "a token count such as 100B or 1.5T", 1, 1e30, &t->tokens))
			ok = false;
	} else {
		if (!tb_yaml_map_broken(root, "training"))
			tb_yaml_err(c, tr ? trkey : root, "missing key 'training.tokens'; expected a token count such as 100B or 1.5T");
		ok = false;
	}
	if (!tb_scenario_load_tuning(c, tr, t))
		ok = false;
	int e;
	if (tr) {
		double sl = 0;
		if ((n = tb_yaml_get(tr, "seq_len"))) {
			if (S_binary_count(c, n, "training.seq_len", "a length such as 4096 or 8k", 100000000, &sl))
				t->seq_len = (int64_t)sl;
			else
				ok = false;
		}
		if ((n = tb_yaml_get(tr, "global_batch")) && !tb_yaml_int(c, n, "training.global_batch", 1, 1000000000, &t->global_batch)) ok = false;
		const tb_yaml_node *bt = tb_yaml_get(tr, "global_batch_tokens");
		if (bt && n) {
			tb_yaml_err(c, bt, "training.global_batch_tokens with training.global_batch; expected "
			            "one of them: the batch in sequences or in tokens");
			ok = false;
		} else if (bt && !S_binary_count(c, bt, "training.global_batch_tokens",
		                                 "a batch in tokens such as 4M or 16M", 1e15,
		                                 &t->global_batch_tokens)) {
			ok = false;
		}
		if ((n = tb_yaml_get(tr, "micro_batch")) && !tb_yaml_int(c, n, "training.micro_batch", 1, 10000000, &t->micro_batch)) ok = false;
		if (n)
			sc->inputs.parallelism.written |= TB_LAYOUT_MICRO_BATCH;
		if ((n = tb_yaml_get(tr, "precision"))) {
			if (tb_yaml_enum(c, n, "training.precision", S_prec_names, TB_N(S_prec_names), &e)) t->precision = (tb_precision)e; else ok = false;
		}
		if ((n = tb_yaml_get(tr, "grad_dtype"))) {
			if (tb_yaml_enum(c, n, "training.grad_dtype", S_grad_names, TB_N(S_grad_names), &e)) {
				bool fits;
				const char *want = S_grad_allowed(t->precision, (tb_grad_dtype)(e + 1), &fits);
				/* Against a precision the user left out, the check waits:
				 * the default precision follows the gradients written
				 * (tb_scenario_check_hardware). */
				if (fits || !tb_yaml_get(tr, "precision")) {
					t->grad_dtype = (tb_grad_dtype)(e + 1);
				} else {
					tb_yaml_err(c, n, "training.grad_dtype '%s' does not go with training.precision %s; "
					            "expected %s", S_grad_names[e], tb_precision_name(t->precision), want);
					ok = false;
				}
			} else {
				ok = false;
			}
		}
		if ((n = tb_yaml_get(tr, "optimizer"))) {
			if (tb_yaml_enum(c, n, "training.optimizer", S_opt_names, TB_N(S_opt_names), &e)) t->optimizer = (tb_optimizer)e; else ok = false;
		}
		if ((n = tb_yaml_get(tr, "checkpointing"))) {
			sc->inputs.parallelism.written |= TB_LAYOUT_CHECKPOINTING;
			if (tb_yaml_enum(c, n, "training.checkpointing", S_ckpt_names, TB_N(S_ckpt_names), &e)) t->checkpointing = (tb_checkpointing)e; else ok = false;
		}
		if ((n = tb_yaml_get(tr, "selective_policy"))) {
			if (tb_yaml_enum(c, n, "training.selective_policy", S_sel_names, TB_N(S_sel_names), &e)) t->selective_policy = (tb_selective)e; else ok = false;
		}
		if ((n = tb_yaml_get(tr, "recompute_layers")) &&
		    !tb_yaml_int(c, n, "training.recompute_layers", 1, 1000000, &t->recompute_layers))
			ok = false;
		if ((n = tb_yaml_get(tr, "attention_flops"))) {
			if (tb_yaml_enum(c, n, "training.attention_flops", S_attn_names, TB_N(S_attn_names), &e)) t->attention_flops = (tb_attention_flops)e; else ok = false;
		}
		if ((n = tb_yaml_get(tr, "flash_attention")) && !tb_yaml_bool(c, n, "training.flash_attention", &t->flash_attention)) ok = false;
		if ((n = tb_yaml_get(tr, "attention_kernel"))) {
			if (tb_yaml_enum(c, n, "training.attention_kernel", S_kernel_names, TB_N(S_kernel_names), &e)) t->attention_kernel = (tb_attn_kernel)e; else ok = false;
		}
		if ((n = tb_yaml_get(tr, "fp8_recipe"))) {
			if (tb_yaml_enum(c, n, "training.fp8_recipe", S_fp8_names, TB_N(S_fp8_names), &e)) t->fp8_recipe = (tb_fp8_recipe)e; else ok = false;
		}
		if ((n = tb_yaml_get(tr, "dropout")) && !tb_yaml_bool(c, n, "training.dropout", &t->dropout)) ok = false;
		bool gaf = true;
		if ((n = tb_yaml_get(tr, "grad_accumulation_fusion")) &&
		    !tb_yaml_bool(c, n, "training.grad_accumulation_fusion", &gaf))
			ok = false;
		t->no_grad_accum_fusion = !gaf;
		if ((n = tb_yaml_get(tr, "activation_func_fp8_input_store")) &&
		    !tb_yaml_bool(c, n, "training.activation_func_fp8_input_store", &t->act_fp8_store))
			ok = false;
		if ((n = tb_yaml_get(tr, "fp8_param_gather")) &&
		    !tb_yaml_bool(c, n, "training.fp8_param_gather", &t->fp8_param_gather))
			ok = false;
		if ((n = tb_yaml_get(tr, "fp8_head")) && !tb_yaml_bool(c, n, "training.fp8_head", &t->fp8_head))
			ok = false;
		if ((n = tb_yaml_get(tr, "fp8_attention"))) {
			if (tb_yaml_switch(c, n, "training.fp8_attention", S_fp8_attn_names, TB_N(S_fp8_attn_names), &e)) t->fp8_attention = (tb_fp8_attn)e; else ok = false;
		}
		if ((n = tb_yaml_get(tr, "kernels"))) {
			if (tb_yaml_enum(c, n, "training.kernels", S_kernels_names, TB_N(S_kernels_names), &e)) t->eager_kernels = e == 1; else ok = false;
		}
		if ((n = tb_yaml_get(tr, "cross_entropy"))) {
			if (tb_yaml_enum(c, n, "training.cross_entropy", S_ce_names, TB_N(S_ce_names), &e)) t->cross_entropy = (tb_cross_entropy)(TB_CE_FUSED + e); else ok = false;
		}
		if ((n = tb_yaml_get(tr, "packing")) && !tb_yaml_bool(c, n, "training.packing", &t->packing))
			ok = false;
		if ((n = tb_yaml_get(tr, "moe_routing"))) {
			if (tb_yaml_enum(c, n, "training.moe_routing", S_routing_names, TB_N(S_routing_names), &e)) t->moe_routing = (tb_moe_routing)e; else ok = false;
		}
		/* a balanced router's busiest rank carries the mean, so a factor
		 * beside it would say two things */
		if ((n = tb_yaml_get(tr, "moe_load_factor"))) {
			if (!tb_yaml_quant(c, n, "training.moe_load_factor", TB_YAML_Q_NUMBER,
			                   "the busiest expert-parallel rank's routed tokens over the mean, from 1 to 64, such as 1.3",
			                   1, 64, &t->moe_load_factor)) {
				ok = false;
			} else if (t->moe_routing == TB_MOE_BALANCED && t->moe_load_factor != 1) {
				tb_yaml_err(c, n, "training.moe_load_factor %g under training.moe_routing balanced, whose ranks "
				            "carry the mean; expected 1, or training.moe_routing dropless", t->moe_load_factor);
				ok = false;
			}
		}
		if ((n = tb_yaml_get(tr, "avg_seq_len")) &&
		    !tb_yaml_quant(c, n, "training.avg_seq_len", TB_YAML_Q_COUNT,
		                   "the examples' mean length in tokens such as 600", 1, 1e8, &t->avg_seq_len))
			ok = false;
		if ((n = tb_yaml_get(tr, "checkpoint_interval")) &&
		    !tb_yaml_quant(c, n, "training.checkpoint_interval", TB_YAML_Q_DURATION,
		                   "a duration of compute between two saves such as 30min", 1e-3, 365 * 86400.0,
		                   &t->checkpoint_interval_s))
			ok = false;
	}
	return ok;
}

static const char *const S_lora_keys[] = { "rank", "alpha", "targets", "dropout", "kernels" };
static const tb_scenario_subsection S_subs[] = {
	{ "lora", S_lora_keys, TB_N(S_lora_keys), "a LoRA field: rank, alpha, targets or dropout" },
};

const tb_scenario_section tb_scenario_section_training = {
	"training", S_keys, TB_N(S_keys), S_subs, TB_N(S_subs), S_load,
};

/* Examples shorter than the sequence: packed, they fill it; padded, each
 * takes a whole sequence, so the run processes tokens x seq_len / mean
 * length, the padding being 1 - mean / seq_len of it. */
static bool S_padding(tb_yaml_ctx *c, const tb_yaml_node *root, tb_training *t)
{
	t->data_tokens = t->tokens;
	t->padding_fraction = 0;
	if (!(t->avg_seq_len > 0))
		return true;
	const tb_yaml_node *tr = tb_yaml_child_map(root, "training");
	const tb_yaml_node *an = tr ? tb_yaml_get(tr, "avg_seq_len") : NULL;
	if (t->avg_seq_len > (double)t->seq_len) {
		tb_yaml_err(c, an ? an : root, "training.avg_seq_len (%.0f) is longer than training.seq_len "
		            "(%lld); expected the examples' mean length, at most the sequence",
		            t->avg_seq_len, (long long)t->seq_len);
		return true;
	}
	if (t->packing)
		return true;
	t->padding_fraction = 1 - t->avg_seq_len / (double)t->seq_len;
	t->tokens = t->data_tokens * (double)t->seq_len / t->avg_seq_len;
	return true;
}

/* training.global_batch_tokens: the batch in sequences of the sequence
 * length finally used, whole (Llama 3's 16M is 2,048 sequences of 8,192). */
static bool S_batch_from_tokens(tb_yaml_ctx *c, const tb_yaml_node *root, tb_training *t)
{
	S_padding(c, root, t);
	if (!(t->global_batch_tokens > 0) || t->seq_len < 1)
		return true;
	double b = t->global_batch_tokens / (double)t->seq_len;
	const tb_yaml_node *tr = tb_yaml_child_map(root, "training");
	const tb_yaml_node *bt = tr ? tb_yaml_get(tr, "global_batch_tokens") : NULL;
	if (b < 1 || b > 1e9 || b != floor(b)) {
		double lo = floor(b), hi = ceil(b);
		if (lo < 1)
			lo = hi;
		tb_yaml_err(c, bt ? bt : root, "training.global_batch_tokens (%.0f) is not a whole number "
		            "of sequences of %lld tokens; expected a multiple of training.seq_len: "
		            "%.0f or %.0f would work", t->global_batch_tokens, (long long)t->seq_len,
		            lo * (double)t->seq_len, hi * (double)t->seq_len);
		return true;
	}
	t->global_batch = (int64_t)b;
	return true;
}

/* The sequence against the model: a learned position table holds
 * model.max_positions positions and no more (GPT-2's 1,024), so a longer
 * sequence the user wrote is an error, and the default follows the model. */
bool tb_scenario_check_sequence(tb_yaml_ctx *c, const tb_yaml_node *root, tb_scenario *sc)
{
	const tb_model *m = &sc->inputs.model;
	tb_training *t = &sc->inputs.training;
	if (!m->has_shape || m->positions != TB_POS_LEARNED || m->max_positions < 1 ||
	    t->seq_len <= m->max_positions)
		return S_batch_from_tokens(c, root, t);
	const tb_yaml_node *tr = tb_yaml_child_map(root, "training");
	const tb_yaml_node *sn = tr ? tb_yaml_get(tr, "seq_len") : NULL;
	if (sn) {
		tb_yaml_err(c, sn, "training.seq_len (%lld) is longer than the model's learned position table "
		            "(model.max_positions %lld); expected at most %lld: seq_len %lld would work",
		            (long long)t->seq_len, (long long)m->max_positions,
		            (long long)m->max_positions, (long long)m->max_positions);
		return true;
	}
	char value[32], deflt[32];
	snprintf(value, sizeof value, "%lld", (long long)m->max_positions);
	snprintf(deflt, sizeof deflt, "%lld", (long long)t->seq_len);
	tb_scenario_adapt(sc, "training.seq_len", value, deflt,
	                  "%lld is longer than the model's learned position table "
	                  "(model.max_positions %lld)", (long long)t->seq_len, (long long)m->max_positions);
	t->seq_len = m->max_positions;
	return S_batch_from_tokens(c, root, t);
}
