/* params.c: the parameter count, summed from the matrix shapes.
 *
 * Counting matrices rather than using 12*L*h^2 keeps GQA (kv_heads),
 * explicit head_dim, gated MLPs, MoE and tied heads exact to the
 * parameter, which is how the tests check it against official counts. */
#include "calc.h"

static const char S_src[] =
	"summed from the weight shapes of the model config (docs/formulas.md, Parameters)";

void tb_params_compute(const tb_inputs *in, tb_budget *b)
{
	const tb_model *m = &in->model;
	tb_params *p = &b->params;

	if (!m->has_shape) {
		p->known_breakdown = false;
		p->total = p->active = m->params_count;
		tb_deriv *d = tb_budget_add_deriv(b, "params.total",
			"Parameters (as given)", "N", "N_given",
			"model.params in the scenario; no shape, so no breakdown",
			p->total, "");
		tb_deriv_add_var(d, "N_given", "parameters, as given", p->total, "");
		return;
	}

	double L = (double)m->layers, h = (double)m->hidden;
	double H = (double)m->heads, K = (double)m->kv_heads;
	double dh = (double)m->head_dim, f = (double)m->ffn_hidden;
	double V = (double)m->vocab;
	double E = m->experts > 1 ? (double)m->experts : 1;
	double k = m->experts > 1 ? (double)m->experts_per_token : 1;
	if (k < 1)
		k = 1;
	if (k > E)
		k = E;

	/* attention: q (h x H*dh), k and v (h x K*dh), o (H*dh x h) */
	double attn = h * (H + 2 * K) * dh + H * dh * h;
	if (m->bias)
		attn += (H + 2 * K) * dh + h;
	else if (m->qkv_bias)
		attn += (H + 2 * K) * dh;

	double nmat = m->mlp == TB_MLP_GATED ? 3 : 2;
	double expert = nmat * h * f;
	if (m->bias)
		expert += (nmat - 1) * f + h;
	double router = E > 1 ? h * E : 0;

	double norm_vec = m->norm == TB_NORM_LAYERNORM ? 2 * h : h;
	double layer_norms = 2 * norm_vec;

	p->known_breakdown = true;
	p->position = m->positions == TB_POS_LEARNED ? (double)m->max_positions * h : 0;
	p->embedding = V * h + p->position;
	p->attention = L * attn;
	p->router = L * router;
	p->mlp = L * (E * expert + router);
	p->norm = L * layer_norms + norm_vec;
	p->output = m->tied_embeddings ? 0 : V * h;
	p->total = p->embedding + p->attention + p->mlp + p->norm + p->output;
	p->per_layer = attn + E * expert + router + layer_norms;
	double active_layer = attn + k * expert + router + layer_norms;
	p->active = p->embedding + L * active_layer + norm_vec + p->output;

	tb_deriv *d = tb_budget_add_deriv(b, "params.attention_per_layer",
		"Attention parameters per layer", "P_attn",
		"h * (H + 2 * K) * d + H * d * h + B_attn", S_src, attn, "");
	tb_deriv_add_var(d, "h", "hidden size", h, "");
	tb_deriv_add_var(d, "H", "query heads", H, "");
	tb_deriv_add_var(d, "K", "key/value heads", K, "");
	tb_deriv_add_var(d, "d", "head dimension", dh, "");
	tb_deriv_add_var(d, "B_attn", "attention biases", attn - (h * (H + 2 * K) * dh + H * dh * h), "");

	d = tb_budget_add_deriv(b, "params.mlp_per_layer",
		"MLP parameters per layer (all experts)", "P_mlp",
		"E * (m * h * f + B_mlp) + R", S_src, E * expert + router, "");
	tb_deriv_add_var(d, "E", "experts per layer (1 = dense)", E, "");
	tb_deriv_add_var(d, "m", "matrices per MLP (3 gated, 2 plain)", nmat, "");
	tb_deriv_add_var(d, "h", "hidden size", h, "");
	tb_deriv_add_var(d, "f", "MLP hidden size", f, "");
	tb_deriv_add_var(d, "B_mlp", "MLP biases per expert", expert - nmat * h * f, "");
	tb_deriv_add_var(d, "R", "router (h x E)", router, "");

	d = tb_budget_add_deriv(b, "params.total", "Parameters", "N",
		"P_emb + L * (P_attn + P_mlp + P_norm) + P_norm_f + P_out",
		S_src, p->total, "");
	tb_deriv_add_var(d, "P_emb", "token embedding (+ learned positions)", p->embedding, "");
	tb_deriv_add_var(d, "L", "layers", L, "");
	tb_deriv_add_var(d, "P_attn", "attention per layer", attn, "");
	tb_deriv_add_var(d, "P_mlp", "MLP per layer, all experts", E * expert + router, "");
	tb_deriv_add_var(d, "P_norm", "two norms per layer", layer_norms, "");
	tb_deriv_add_var(d, "P_norm_f", "final norm", norm_vec, "");
	tb_deriv_add_var(d, "P_out", "output head (0 when tied)", p->output, "");

	if (E > 1) {
		d = tb_budget_add_deriv(b, "params.active",
			"Active parameters per token", "N_act",
			"N - L * (E - k) * P_exp", S_src, p->active, "");
		tb_deriv_add_var(d, "N", "total parameters", p->total, "");
		tb_deriv_add_var(d, "L", "layers", L, "");
		tb_deriv_add_var(d, "E", "routed experts per layer", E, "");
		tb_deriv_add_var(d, "k", "experts per token", k, "");
		tb_deriv_add_var(d, "P_exp", "parameters per expert", expert, "");
	}
}
