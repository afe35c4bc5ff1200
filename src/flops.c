/* flops.c: training compute, by the 6ND rule and operator by operator.
 *
 * Operator count: a matmul of (m x k) by (k x n) is 2*m*n*k FLOPs forward
 * and twice that backward (one product for the input gradient, one for
 * the weight gradient), so training is 3x forward.  Per token that makes
 * 6 FLOPs per weight in a matmul, plus the attention score (Q K^T) and
 * context (P V) products, which have no weights: 2*T*H*d each per token
 * per layer forward over the full T x T square (PaLM App. B), or half of
 * it under the causal convention (FlashAttention counts only the lower
 * triangle).  Megatron-LM counted the full square (Narayanan et al. 2021
 * Eq. (3)) up to core_v0.11.0; since commit 8873b55 (2025-03-06, first
 * released in core_v0.12.0) its num_floating_point_operations halves the
 * square for the causal mask.  Norms, softmax, activations and biases are
 * elementwise and left out, as in both papers.  The input embedding is
 * a lookup, not a matmul; the output projection is a matmul even when its
 * matrix is tied to the embedding. */
#include "calc.h"

#include <string.h>

static const char S_src_6nd[] =
	"Kaplan et al. 2020, arXiv:2001.08361, Sec. 2.1 (C = 6ND)";
static const char S_src_local[] =
	"PaLM App. B per layer, with d_qk + d_v for 2d (MLA: DeepSeek-V2, arXiv:2405.04434); "
	"local layers count the keys they can see (docs/formulas.md, Compute)";
static const char S_src_op[] =
	"PaLM (Chowdhery et al. 2022) App. B: 6N + 12LHQT; Korthikanti et al. 2022 App. A Eq. (7)";

double tb_calc_keys_global(double T, bool causal)
{
	return causal ? T / 2 : T;
}

/* A sliding window of w sees min(i, w) keys at position i: over T tokens
 * that is the band T*w - w^2/2 (the triangle of the first w positions
 * cut off), w - w^2/(2T) per query; "full" counts the whole strip of w
 * per query, as MaxText does for Gemma 2's local layers.  Chunks of C
 * attend within themselves: n = floor(T/C) full chunks and a rest r give
 * n*C^2 + r^2 pairs in full, half of that causal.  Both meet the global
 * count when the span reaches T. */
double tb_calc_keys_local(double window, bool chunked, double T, bool causal)
{
	double w = window;
	if (w <= 0 || w >= T || T <= 0)
		return tb_calc_keys_global(T, causal);
	if (chunked) {
		double n = floor(T / w), r = T - n * w;
		double pairs = n * w * w + r * r;
		return (causal ? pairs / 2 : pairs) / T;
	}
	return causal ? w - w * w / (2 * T) : w;
}

static const char S_src_frozen[] =
	"Kaplan et al. 2020 Sec. 2.1: 2N forward; a frozen matrix's backward computes the input "
	"gradient only (2N), the adapters all three products (6 N_a; Hu et al. 2021)";
static const char S_src_dpo[] =
	"Rafailov et al. 2023 (DPO), arXiv:2305.18290, Eq. (7): the policy trained (6N) and the "
	"reference model's log-probabilities forward (2N), on both sequences of each pair";

static const char S_src_op_method[] =
	"PaLM App. B operator count; frozen matrices without their weight-gradient product "
	"(docs/formulas.md, Fine-tuning)";

static const char *S_op_formula(tb_method m)
{
	switch (m) {
	case TB_METHOD_LORA:
	case TB_METHOD_QLORA:
		return "2 * F_mm + 3 * F_attn + 3 * F_a";
	case TB_METHOD_FROZEN:
		return "F_mm + F_attn";
	case TB_METHOD_DPO:
		return "4 * (F_mm + F_attn)";
	case TB_METHOD_FULL:
	case TB_METHOD_COUNT:
	default:
		return "3 * (F_mm + F_attn)";
	}
}

/* The rule's FLOPs per token for a method: 6N trained, 2N forward. */
static double S_rule_per_token(tb_method m, double N, double Na)
{
	switch (m) {
	case TB_METHOD_LORA:
	case TB_METHOD_QLORA:
		return 4 * N + 6 * Na;
	case TB_METHOD_FROZEN:
		return 2 * N;
	case TB_METHOD_DPO:
		return 8 * N;
	case TB_METHOD_FULL:
	case TB_METHOD_COUNT:
	default:
		return 6 * N;
	}
}

/* The counts into fl (as cleared), from the parameter counts p; *a
 * gets the shape's arithmetic and *kl the keys a local layer's query
 * sees, for the derivations. */
static void S_values(const tb_inputs *in, const tb_params *p, tb_flops *fl, tb_arch *a, double *kl)
{
	const tb_model *m = &in->model;
	double D = in->training.tokens;

	if (!m->has_shape) {
		/* Without a shape every weight is taken to be in a matmul and the
		 * attention term is unknown: the operator count falls back to 6N. */
		fl->fwd_matmul_per_token = 2 * p->active;
		fl->fwd_attention_per_token = 0;
		fl->fwd_logits_per_token = 0;
	} else {
		tb_calc_arch(m, a);
		double T = (double)in->training.seq_len;
		bool causal = in->training.attention_flops == TB_ATTN_FLOPS_CAUSAL;
		double kg = tb_calc_keys_global(T, causal);
		*kl = a->L_local > 0 ? tb_calc_keys_local(a->window, a->chunked, T, causal) : 0;
		double layers_w = a->L * a->attn_w + a->L_dense * a->dense_w +
		                  a->L_moe * (a->k * a->expert_w + a->shared_w + a->router_w);

		fl->fwd_logits_per_token = 2 * a->V * a->h;
		double dh = (double)m->head_dim;
		fl->fwd_op_recompute_per_token =
			2 * a->L * (a->h * (double)m->kv_heads * dh + (double)m->heads * dh * a->h +
			            a->f_dense * a->h);
		if (a->mla) {
			double dn = (double)m->qk_nope_dim, dv = a->d_v;
			fl->fwd_deepseek_recompute_per_token =
				2 * a->L * a->H * ((double)m->q_lora_rank * a->d_qk + (double)m->kv_lora_rank * (dn + dv));
		}
		fl->fwd_matmul_per_token = 2 * layers_w + fl->fwd_logits_per_token;
		/* scores: d_qk per key; context: d_v per key; 2 FLOP each */
		fl->fwd_attention_per_token = 2 * a->H * (a->d_qk + a->d_v) *
		                              ((a->L - a->L_local) * kg + a->L_local * *kl);
	}

	tb_method meth = in->training.method;
	fl->fwd_adapter_per_token = 2 * p->adapters_active;
	fl->forward_only = meth == TB_METHOD_FROZEN;
	fl->per_token_6n = S_rule_per_token(meth, p->active, p->adapters_active);
	double fwd = fl->fwd_matmul_per_token + fl->fwd_attention_per_token;
	switch (meth) {
	case TB_METHOD_LORA:
	case TB_METHOD_QLORA:
		/* frozen matrices: forward, and backward for the input gradient
		 * only; attention and the adapters: forward and twice that back */
		fl->per_token_model = 2 * fl->fwd_matmul_per_token + 3 * fl->fwd_attention_per_token +
		                      3 * fl->fwd_adapter_per_token;
		break;
	case TB_METHOD_FROZEN:
		fl->per_token_model = fwd;
		break;
	case TB_METHOD_DPO:
		/* the policy trained, the reference forward */
		fl->per_token_model = 4 * fwd;
		break;
	case TB_METHOD_FULL:
	case TB_METHOD_COUNT:
	default:
		fl->per_token_model = 3 * fwd;
		break;
	}
	fl->recompute_per_token = tb_calc_recompute_per_token(fl, in, in->training.checkpointing);
	fl->per_token_hardware = fl->per_token_model + fl->recompute_per_token;
	fl->total_6nd = fl->per_token_6n * D;
	fl->total_model = fl->per_token_model * D;
	fl->total_hardware = fl->per_token_hardware * D;
	fl->model_over_6n = fl->per_token_6n > 0 ? fl->per_token_model / fl->per_token_6n : 0;
}

void tb_flops_values(const tb_inputs *in, const tb_params *p, tb_flops *out)
{
	tb_arch a;
	double kl = 0;
	memset(out, 0, sizeof *out);
	S_values(in, p, out, &a, &kl);
}

void tb_flops_compute(const tb_inputs *in, tb_budget *b)
{
	const tb_model *m = &in->model;
	tb_flops *fl = &b->flops;
	double D = in->training.tokens;
	tb_arch a;
	double kl = 0;
	S_values(in, &b->params, fl, &a, &kl);

	if (!m->has_shape) {
		tb_budget_warn(b, "Operator-level FLOPs use 6N: the model has only a "
		                  "parameter count, so the attention term is not known");
	} else {
		double T = (double)in->training.seq_len;
		bool causal = in->training.attention_flops == TB_ATTN_FLOPS_CAUSAL;
		tb_deriv *d;
		if (a.L_local <= 0 && !a.mla) {
			d = tb_budget_add_deriv(b, "flops.fwd_attention_per_token",
				"Attention score and context FLOPs per token, forward", "F_attn",
				"c * 4 * L * H * d * T",
				"PaLM App. B (full square, c = 1); causal c = 1/2 as FlashAttention (Dao et al. 2022) counts",
				fl->fwd_attention_per_token, "FLOP");
			tb_deriv_add_var(d, "c", "1 full square, 1/2 causal", causal ? 0.5 : 1, "");
			tb_deriv_add_var(d, "L", "layers", a.L, "");
			tb_deriv_add_var(d, "H", "query heads", a.H, "");
			tb_deriv_add_var(d, "d", "head dimension", a.d_qk, "");
			tb_deriv_add_var(d, "T", "sequence length", T, "tokens");
		} else {
			d = tb_budget_add_deriv(b, "flops.fwd_attention_per_token",
				"Attention score and context FLOPs per token, forward", "F_attn",
				"2 * H * (d_qk + d_v) * ((L - L_w) * c * T + L_w * T_w)",
				S_src_local, fl->fwd_attention_per_token, "FLOP");
			tb_deriv_add_var(d, "H", "query heads", a.H, "");
			tb_deriv_add_var(d, "d_qk", "per-head query/key width", a.d_qk, "");
			tb_deriv_add_var(d, "d_v", "per-head value width", a.d_v, "");
			tb_deriv_add_var(d, "L", "layers", a.L, "");
			tb_deriv_add_var(d, "L_w", a.chunked ? "layers attending within chunks"
			                                   : "layers with a sliding window", a.L_local, "");
			tb_deriv_add_var(d, "c", "1 full square, 1/2 causal", causal ? 0.5 : 1, "");
			tb_deriv_add_var(d, "T", "sequence length", T, "tokens");
			tb_deriv_add_var(d, "T_w", "keys per query in a local layer", kl, "tokens");
		}
	}

	tb_method meth = in->training.method;
	tb_deriv *d;
	switch (meth) {
	case TB_METHOD_LORA:
	case TB_METHOD_QLORA:
		d = tb_budget_add_deriv(b, "flops.total_6nd",
			"Training compute, 6ND rule with frozen weights and adapters", "C",
			"(4 * N + 6 * N_a) * D", S_src_frozen, fl->total_6nd, "FLOP");
		tb_deriv_add_var(d, "N", "parameters active per token (frozen)", b->params.active, "");
		tb_deriv_add_var(d, "N_a", "adapter parameters active per token", b->params.adapters_active, "");
		break;
	case TB_METHOD_FROZEN:
		d = tb_budget_add_deriv(b, "flops.total_6nd",
			"Forward compute, 2ND rule (nothing trained)", "C", "2 * N * D", S_src_frozen,
			fl->total_6nd, "FLOP");
		tb_deriv_add_var(d, "N", "parameters active per token", b->params.active, "");
		break;
	case TB_METHOD_DPO:
		d = tb_budget_add_deriv(b, "flops.total_6nd",
			"Training compute, 6ND rule plus the reference model's forward", "C",
			"(6 * N + 2 * N) * D", S_src_dpo, fl->total_6nd, "FLOP");
		tb_deriv_add_var(d, "N", "parameters active per token", b->params.active, "");
		break;
	case TB_METHOD_FULL:
	case TB_METHOD_COUNT:
	default:
		d = tb_budget_add_deriv(b, "flops.total_6nd",
			"Training compute, 6ND rule", "C", "6 * N * D", S_src_6nd,
			fl->total_6nd, "FLOP");
		tb_deriv_add_var(d, "N", "parameters active per token", b->params.active, "");
		break;
	}
	tb_deriv_add_var(d, "D", meth == TB_METHOD_FROZEN ? "tokens run through the model"
	                         : meth == TB_METHOD_DPO ? "training tokens, chosen and rejected sequences"
	                         : "training tokens", D, "tokens");

	d = tb_budget_add_deriv(b, "flops.per_token_model",
		"Model FLOPs per token, operator level", "F_tok", S_op_formula(meth),
		meth == TB_METHOD_FULL ? S_src_op : S_src_op_method, fl->per_token_model, "FLOP");
	tb_deriv_add_var(d, "F_mm", "forward matmul FLOPs per token (2 per weight, logits included)",
	                 fl->fwd_matmul_per_token, "FLOP");
	tb_deriv_add_var(d, "F_attn", "forward attention score + context FLOPs per token",
	                 fl->fwd_attention_per_token, "FLOP");
	if (tb_method_adapters(meth))
		tb_deriv_add_var(d, "F_a", "forward adapter FLOPs per token (2 N_a)",
		                 fl->fwd_adapter_per_token, "FLOP");

	d = tb_budget_add_deriv(b, "flops.total_model",
		"Training compute, operator level (model FLOPs)", "C_model",
		"F_tok * D", S_src_op, fl->total_model, "FLOP");
	tb_deriv_add_var(d, "F_tok", "model FLOPs per token", fl->per_token_model, "FLOP");
	tb_deriv_add_var(d, "D", "training tokens", D, "tokens");

	d = tb_budget_add_deriv(b, "flops.total_hardware",
		"Training compute with recomputation (hardware FLOPs)", "C_hw",
		"(F_tok + F_re) * D",
		"Korthikanti et al. 2022, arXiv:2205.05198, Sec. 5; Narayanan et al. 2021 Eq. (3) (full)",
		fl->total_hardware, "FLOP");
	tb_deriv_add_var(d, "F_tok", "model FLOPs per token", fl->per_token_model, "FLOP");
	tb_deriv_add_var(d, "F_re", "recomputed forward FLOPs per token", fl->recompute_per_token, "FLOP");
	tb_deriv_add_var(d, "D", "training tokens", D, "tokens");
}
