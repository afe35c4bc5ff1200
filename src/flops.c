/* flops.c: training compute, by the 6ND rule and operator by operator.
 *
 * Operator count: a matmul of (m x k) by (k x n) is 2*m*n*k FLOPs forward
 * and twice that backward (one product for the input gradient, one for
 * the weight gradient), so training is 3x forward.  Per token that makes
 * 6 FLOPs per weight in a matmul, plus the attention score (Q K^T) and
 * context (P V) products, which have no weights: 2*T*H*d each per token
 * per layer forward over the full T x T square (PaLM App. B), or half of
 * it under the causal convention (FlashAttention counts only the lower
 * triangle; Megatron-LM, Narayanan et al. 2021 Eq. (3), counts the full
 * square like PaLM).  Norms, softmax, activations and biases are
 * elementwise and left out, as in both papers.  The input embedding is
 * a lookup, not a matmul; the output projection is a matmul even when its
 * matrix is tied to the embedding. */
#include "calc.h"

static const char S_src_6nd[] =
	"Kaplan et al. 2020, arXiv:2001.08361, Sec. 2.1 (C = 6ND)";
static const char S_src_op[] =
	"PaLM (Chowdhery et al. 2022) App. B: 6N + 12LHQT; Korthikanti et al. 2022 App. A Eq. (7)";

void tb_flops_compute(const tb_inputs *in, tb_budget *b)
{
	const tb_model *m = &in->model;
	tb_flops *fl = &b->flops;
	double D = in->training.tokens;

	fl->per_token_6n = 6 * b->params.active;

	if (!m->has_shape) {
		/* Without a shape every weight is taken to be in a matmul and the
		 * attention term is unknown: the operator count falls back to 6N. */
		fl->fwd_matmul_per_token = 2 * b->params.active;
		fl->fwd_attention_per_token = 0;
		fl->fwd_logits_per_token = 0;
		tb_budget_warn(b, "Operator-level FLOPs use 6N: the model has only a "
		                  "parameter count, so the attention term is not known");
	} else {
		double L = (double)m->layers, h = (double)m->hidden;
		double H = (double)m->heads, K = (double)m->kv_heads;
		double dh = (double)m->head_dim, f = (double)m->ffn_hidden;
		double V = (double)m->vocab, T = (double)in->training.seq_len;
		double k = 1, router = 0;
		if (m->experts > 1) {
			k = (double)m->experts_per_token;
			if (k < 1)
				k = 1;
			router = h * (double)m->experts;
		}
		double nmat = m->mlp == TB_MLP_GATED ? 3 : 2;
		double attn_w = h * (H + 2 * K) * dh + H * dh * h;
		double mlp_w = k * nmat * h * f + router;
		double half = in->training.attention_flops == TB_ATTN_FLOPS_CAUSAL ? 0.5 : 1;

		fl->fwd_logits_per_token = 2 * V * h;
		fl->fwd_matmul_per_token = 2 * L * (attn_w + mlp_w) + fl->fwd_logits_per_token;
		fl->fwd_attention_per_token = half * 4 * L * H * dh * T;

		tb_deriv *d = tb_budget_add_deriv(b, "flops.fwd_attention_per_token",
			"Attention score and context FLOPs per token, forward", "F_attn",
			"c * 4 * L * H * d * T",
			"PaLM App. B (full square, c = 1); causal c = 1/2 as FlashAttention (Dao et al. 2022) counts",
			fl->fwd_attention_per_token, "FLOP");
		tb_deriv_add_var(d, "c", "1 full square, 1/2 causal", half, "");
		tb_deriv_add_var(d, "L", "layers", L, "");
		tb_deriv_add_var(d, "H", "query heads", H, "");
		tb_deriv_add_var(d, "d", "head dimension", dh, "");
		tb_deriv_add_var(d, "T", "sequence length", T, "tokens");
	}

	fl->per_token_model = 3 * (fl->fwd_matmul_per_token + fl->fwd_attention_per_token);
	fl->recompute_per_token = tb_calc_recompute_per_token(fl, in->training.checkpointing);
	fl->per_token_hardware = fl->per_token_model + fl->recompute_per_token;
	fl->total_6nd = fl->per_token_6n * D;
	fl->total_model = fl->per_token_model * D;
	fl->total_hardware = fl->per_token_hardware * D;
	fl->model_over_6n = fl->per_token_6n > 0 ? fl->per_token_model / fl->per_token_6n : 0;

	tb_deriv *d = tb_budget_add_deriv(b, "flops.total_6nd",
		"Training compute, 6ND rule", "C", "6 * N * D", S_src_6nd,
		fl->total_6nd, "FLOP");
	tb_deriv_add_var(d, "N", "parameters active per token", b->params.active, "");
	tb_deriv_add_var(d, "D", "training tokens", D, "tokens");

	d = tb_budget_add_deriv(b, "flops.per_token_model",
		"Model FLOPs per token, operator level", "F_tok",
		"3 * (F_mm + F_attn)", S_src_op, fl->per_token_model, "FLOP");
	tb_deriv_add_var(d, "F_mm", "forward matmul FLOPs per token (2 per weight, logits included)",
	                 fl->fwd_matmul_per_token, "FLOP");
	tb_deriv_add_var(d, "F_attn", "forward attention score + context FLOPs per token",
	                 fl->fwd_attention_per_token, "FLOP");

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
