/* params.c: the parameter count, summed from the matrix shapes.
 *
 * Counting matrices rather than using 12*L*h^2 keeps GQA (kv_heads),
 * explicit head_dim, gated MLPs, MoE and tied heads exact to the
 * parameter, which is how the tests check it against official counts.
 * The same shapes, reduced once by tb_calc_arch, feed the FLOP and memory
 * counts, so the three never disagree about what a layer holds. */
#include "calc.h"

#include <string.h>

static const char S_src[] =
	"summed from the weight shapes of the model config (docs/formulas.md, Parameters)";
static const char S_src_mla[] =
	"DeepSeek-V2, arXiv:2405.04434, Sec. 2.1 (MLA); shapes as in the released config and code";

static double S_clamp(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

void tb_calc_arch(const tb_model *m, tb_arch *a)
{
	memset(a, 0, sizeof *a);
	double L = (double)m->layers, h = (double)m->hidden;
	double H = (double)m->heads, K = (double)m->kv_heads;
	double d = (double)m->head_dim, f = (double)m->ffn_hidden;
	bool moe = m->experts > 1;
	a->L = L;
	a->h = h;
	a->V = (double)m->vocab;
	a->H = H;
	a->E = moe ? (double)m->experts : 1;
	a->k = moe ? S_clamp((double)m->experts_per_token, 1, a->E) : 1;
	a->L_dense = moe ? S_clamp((double)m->dense_layers, 0, L) : L;
	a->L_moe = L - a->L_dense;
	a->window = m->window > 0 ? (double)m->window : 0;
	a->L_local = a->window > 0 ? S_clamp((double)m->window_layers, 0, L) : 0;
	a->chunked = m->local_attn == TB_LOCAL_CHUNKED;

	/* ---- attention ---------------------------------------------------- */
	a->mla = m->kv_lora_rank > 0;
	if (a->mla) {
		double rq = (double)m->q_lora_rank, rkv = (double)m->kv_lora_rank;
		double dn = (double)m->qk_nope_dim, dr = (double)m->qk_rope_dim;
		double dv = (double)m->v_head_dim, dq = dn + dr;
		if (rq > 0) {
			/* q_a (h x r_q), its norm, q_b (r_q x H*dq) */
			a->attn_w = h * rq + rq * H * dq;
			a->attn_v = rq;
			a->attn_rc = (h + rq) + (rq + H * dq);
		} else {
			a->attn_w = h * H * dq;
			a->attn_rc = h + H * dq;
		}
		/* kv_a (h x (r_kv + dr)), its norm over r_kv, kv_b (r_kv x H*(dn+dv)), o */
		a->attn_w += h * (rkv + dr) + rkv * H * (dn + dv) + H * dv * h;
		a->attn_v += rkv;
		a->attn_rc += (h + rkv + dr) + (rkv + H * (dn + dv)) + (H * dv + h);
		if (m->bias || m->qkv_bias || m->attn_bias)  /* DeepSeek's attention_bias: q_a, kv_a and o */
			a->attn_v += (rq > 0 ? rq : 0) + rkv + dr + h;
		a->d_qk = dq;
		a->d_v = dv;
		/* the latent and the shared rope key, not K and V (Sec. 2.1.2) */
		a->kv_elems = rkv + dr;
	} else {
		/* q (h x H*d), k and v (h x K*d), o (H*d x h) */
		a->attn_w = h * (H + 2 * K) * d + H * d * h;
		a->attn_rc = (h + H * d) + 2 * (h + K * d) + (H * d + h);
		if (m->bias || m->attn_bias)
			a->attn_v = (H + 2 * K) * d + h;
		else if (m->qkv_bias)
			a->attn_v = (H + 2 * K) * d;
		if (m->attn_sinks)
			a->attn_v += H;
		if (m->qk_norm == TB_QKNORM_HEAD)
			a->attn_v += 2 * d;
		else if (m->qk_norm == TB_QKNORM_FULL)
			a->attn_v += (H + K) * d;
		a->d_qk = a->d_v = d;
		a->kv_elems = 2 * K * d;
	}

	/* ---- MLPs ----------------------------------------------------------- */
	double nm = m->mlp == TB_MLP_GATED ? 3 : 2;
	bool mb = m->bias || m->mlp_bias;
	a->mlp_mats = nm;
	a->f_dense = f;
	a->dense_w = nm * h * f;
	a->dense_v = mb ? (nm - 1) * f + h : 0;
	a->dense_rc = nm * (h + f);
	if (moe) {
		double fe = m->expert_ffn_hidden > 0 ? (double)m->expert_ffn_hidden : f;
		double fs = m->shared_ffn_hidden > 0 ? (double)m->shared_ffn_hidden : 0;
		a->f_expert = fe;
		a->f_shared = fs;
		a->expert_w = nm * h * fe;
		a->expert_v = mb ? (nm - 1) * fe + h : 0;
		a->expert_rc = nm * (h + fe);
		if (fs > 0) {
			a->shared_w = nm * h * fs;
			a->shared_v = mb ? (nm - 1) * fs + h : 0;
			a->shared_rc = nm * (h + fs);
			if (m->shared_expert_gate) {
				a->shared_w += h;
				a->shared_rc += h + 1;
			}
		}
		a->router_w = h * a->E;
		a->router_v = m->router_bias ? a->E : 0;
		a->router_rc = h + a->E;
	}

	double nv = m->norm == TB_NORM_LAYERNORM ? 2 * h : h;
	a->norm_v = (m->norms_per_layer > 0 ? (double)m->norms_per_layer : 2) * nv;
	a->final_norm = nv;
}

/* True when the model has none of the architecture details: the
 * derivations then keep the formulas (and texts) they always had. */
static bool S_plain(const tb_model *m)
{
	bool moe = m->experts > 1;
	return m->kv_lora_rank <= 0 && m->qk_norm == TB_QKNORM_NONE && !m->attn_bias && !m->mlp_bias &&
	       !m->attn_sinks &&
	       (m->norms_per_layer == 0 || m->norms_per_layer == 2) &&
	       (!moe || ((m->expert_ffn_hidden == 0 || m->expert_ffn_hidden == m->ffn_hidden) &&
	                 m->dense_layers == 0 && m->shared_ffn_hidden == 0 && !m->router_bias));
}

static void S_derive_plain(tb_budget *b, const tb_model *m, const tb_arch *a)
{
	const tb_params *p = &b->params;
	double h = a->h, H = a->H, K = (double)m->kv_heads, dh = (double)m->head_dim;
	double attn = a->attn_w + a->attn_v;
	double expert = a->L_moe > 0 ? a->expert_w + a->expert_v : a->dense_w + a->dense_v;
	double router = a->router_w;
	double E = a->E, L = a->L, f = a->L_moe > 0 ? a->f_expert : a->f_dense;

	tb_deriv *d = tb_budget_add_deriv(b, "params.attention_per_layer",
		"Attention parameters per layer", "P_attn",
		"h * (H + 2 * K) * d + H * d * h + B_attn", S_src, attn, "");
	tb_deriv_add_var(d, "h", "hidden size", h, "");
	tb_deriv_add_var(d, "H", "query heads", H, "");
	tb_deriv_add_var(d, "K", "key/value heads", K, "");
	tb_deriv_add_var(d, "d", "head dimension", dh, "");
	tb_deriv_add_var(d, "B_attn", "attention biases", a->attn_v, "");

	d = tb_budget_add_deriv(b, "params.mlp_per_layer",
		"MLP parameters per layer (all experts)", "P_mlp",
		"E * (m * h * f + B_mlp) + R", S_src, E * expert + router, "");
	tb_deriv_add_var(d, "E", "experts per layer (1 = dense)", E, "");
	tb_deriv_add_var(d, "m", "matrices per MLP (3 gated, 2 plain)", a->mlp_mats, "");
	tb_deriv_add_var(d, "h", "hidden size", h, "");
	tb_deriv_add_var(d, "f", "MLP hidden size", f, "");
	tb_deriv_add_var(d, "B_mlp", "MLP biases per expert", expert - a->mlp_mats * h * f, "");
	tb_deriv_add_var(d, "R", "router (h x E)", router, "");

	d = tb_budget_add_deriv(b, "params.total", "Parameters", "N",
		"P_emb + L * (P_attn + P_mlp + P_norm) + P_norm_f + P_out",
		S_src, p->total, "");
	tb_deriv_add_var(d, "P_emb", "token embedding (+ learned positions)", p->embedding, "");
	tb_deriv_add_var(d, "L", "layers", L, "");
	tb_deriv_add_var(d, "P_attn", "attention per layer", attn, "");
	tb_deriv_add_var(d, "P_mlp", "MLP per layer, all experts", E * expert + router, "");
	tb_deriv_add_var(d, "P_norm", "two norms per layer", a->norm_v, "");
	tb_deriv_add_var(d, "P_norm_f", "final norm", a->final_norm, "");
	tb_deriv_add_var(d, "P_out", "output head (0 when tied)", p->output, "");

	if (E > 1) {
		d = tb_budget_add_deriv(b, "params.active",
			"Active parameters per token", "N_act",
			"N - L * (E - k) * P_exp", S_src, p->active, "");
		tb_deriv_add_var(d, "N", "total parameters", p->total, "");
		tb_deriv_add_var(d, "L", "layers", L, "");
		tb_deriv_add_var(d, "E", "routed experts per layer", E, "");
		tb_deriv_add_var(d, "k", "experts per token", a->k, "");
		tb_deriv_add_var(d, "P_exp", "parameters per expert", expert, "");
	}
}

static void S_derive_attention(tb_budget *b, const tb_model *m, const tb_arch *a)
{
	double attn = a->attn_w + a->attn_v;
	tb_deriv *d;
	if (!a->mla) {
		d = tb_budget_add_deriv(b, "params.attention_per_layer",
			"Attention parameters per layer", "P_attn",
			"h * (H + 2 * K) * d + H * d * h + B_attn", S_src, attn, "");
		tb_deriv_add_var(d, "h", "hidden size", a->h, "");
		tb_deriv_add_var(d, "H", "query heads", a->H, "");
		tb_deriv_add_var(d, "K", "key/value heads", (double)m->kv_heads, "");
		tb_deriv_add_var(d, "d", "head dimension", (double)m->head_dim, "");
		tb_deriv_add_var(d, "B_attn", "attention biases and q/k norm scales", a->attn_v, "");
		return;
	}
	const char *formula = m->q_lora_rank > 0
		? "h * r_q + r_q * H * (d_n + d_r) + h * (r_kv + d_r) + r_kv * H * (d_n + d_v) + H * d_v * h + B_attn"
		: "h * H * (d_n + d_r) + h * (r_kv + d_r) + r_kv * H * (d_n + d_v) + H * d_v * h + B_attn";
	d = tb_budget_add_deriv(b, "params.attention_per_layer",
		"Attention parameters per layer (multi-head latent attention)", "P_attn",
		formula, S_src_mla, attn, "");
	tb_deriv_add_var(d, "h", "hidden size", a->h, "");
	if (m->q_lora_rank > 0)
		tb_deriv_add_var(d, "r_q", "query latent rank", (double)m->q_lora_rank, "");
	tb_deriv_add_var(d, "H", "heads", a->H, "");
	tb_deriv_add_var(d, "d_n", "per-head query/key width without rope", (double)m->qk_nope_dim, "");
	tb_deriv_add_var(d, "d_r", "per-head rope width (one rope key shared by the heads)",
	                 (double)m->qk_rope_dim, "");
	tb_deriv_add_var(d, "r_kv", "key/value latent rank", (double)m->kv_lora_rank, "");
	tb_deriv_add_var(d, "d_v", "per-head value width", (double)m->v_head_dim, "");
	tb_deriv_add_var(d, "B_attn", "latent norm scales and biases", a->attn_v, "");
}

static void S_derive_extended(tb_budget *b, const tb_model *m, const tb_arch *a)
{
	const tb_params *p = &b->params;
	S_derive_attention(b, m, a);
	double attn = a->attn_w + a->attn_v;
	double dense = a->dense_w + a->dense_v;
	double expert = a->expert_w + a->expert_v;
	double moe_mlp = a->E * expert + a->shared_w + a->shared_v + a->router_w + a->router_v;
	tb_deriv *d;

	if (a->L_moe > 0) {
		d = tb_budget_add_deriv(b, "params.mlp_per_layer",
			"MLP parameters per MoE layer (all experts)", "P_moe",
			"E * (m * h * f_e + B_mlp) + P_sh + R", S_src, moe_mlp, "");
		tb_deriv_add_var(d, "E", "routed experts", a->E, "");
		tb_deriv_add_var(d, "m", "matrices per MLP (3 gated, 2 plain)", a->mlp_mats, "");
		tb_deriv_add_var(d, "h", "hidden size", a->h, "");
		tb_deriv_add_var(d, "f_e", "routed expert's hidden size", a->f_expert, "");
		tb_deriv_add_var(d, "B_mlp", "MLP biases per expert", a->expert_v, "");
		tb_deriv_add_var(d, "P_sh", "shared expert(s) and their gate", a->shared_w + a->shared_v, "");
		tb_deriv_add_var(d, "R", "router (h x E, + one bias per expert)", a->router_w + a->router_v, "");
	} else {
		d = tb_budget_add_deriv(b, "params.mlp_per_layer",
			"MLP parameters per layer", "P_mlp", "m * h * f + B_mlp", S_src, dense, "");
		tb_deriv_add_var(d, "m", "matrices per MLP (3 gated, 2 plain)", a->mlp_mats, "");
		tb_deriv_add_var(d, "h", "hidden size", a->h, "");
		tb_deriv_add_var(d, "f", "MLP hidden size", a->f_dense, "");
		tb_deriv_add_var(d, "B_mlp", "MLP biases", a->dense_v, "");
	}

	d = tb_budget_add_deriv(b, "params.total", "Parameters", "N",
		"P_emb + L * (P_attn + P_norm) + L_d * P_dense + L_moe * P_moe + P_norm_f + P_out",
		S_src, p->total, "");
	tb_deriv_add_var(d, "P_emb", "token embedding (+ learned positions)", p->embedding, "");
	tb_deriv_add_var(d, "L", "layers", a->L, "");
	tb_deriv_add_var(d, "P_attn", "attention per layer", attn, "");
	tb_deriv_add_var(d, "P_norm", "norms per layer", a->norm_v, "");
	tb_deriv_add_var(d, "L_d", "layers with a dense MLP", a->L_dense, "");
	tb_deriv_add_var(d, "P_dense", "dense MLP", dense, "");
	tb_deriv_add_var(d, "L_moe", "layers with experts", a->L_moe, "");
	tb_deriv_add_var(d, "P_moe", "MoE MLP, all experts", a->L_moe > 0 ? moe_mlp : 0, "");
	tb_deriv_add_var(d, "P_norm_f", "final norm", a->final_norm, "");
	tb_deriv_add_var(d, "P_out", "output head (0 when tied)", p->output, "");

	if (a->L_moe > 0) {
		d = tb_budget_add_deriv(b, "params.active",
			"Active parameters per token", "N_act",
			"N - L_moe * (E - k) * P_exp", S_src, p->active, "");
		tb_deriv_add_var(d, "N", "total parameters", p->total, "");
		tb_deriv_add_var(d, "L_moe", "layers with experts", a->L_moe, "");
		tb_deriv_add_var(d, "E", "routed experts per layer", a->E, "");
		tb_deriv_add_var(d, "k", "experts per token", a->k, "");
		tb_deriv_add_var(d, "P_exp", "parameters per routed expert", expert, "");
	}
}

static const char S_src_lora[] =
	"Hu et al. 2021 (LoRA), arXiv:2106.09685, Sec. 4: A (r x in) and B (out x r) "
	"per adapted matrix; counted as PEFT's print_trainable_parameters";

static void S_trainable(const tb_inputs *in, tb_params *p)
{
	const tb_training *t = &in->training;
	p->adapters = p->adapters_active = p->adapters_expert = 0;
	if (tb_method_adapters(t->method) && in->model.has_shape) {
		tb_lora_count lc;
		const char *why;
		/* the scenario checked the targets: false cannot happen here */
		if (tb_lora_count_compute(&in->model, &t->lora, &lc, &why)) {
			p->adapters = lc.total;
			p->adapters_active = lc.active;
			p->adapters_expert = lc.expert;
		}
	}
	p->trainable = tb_method_trains_base(t->method) ? p->total : p->adapters;
}

static void S_derive_trainable(const tb_inputs *in, tb_budget *b)
{
	const tb_params *p = &b->params;
	if (!tb_method_adapters(in->training.method))
		return;
	tb_deriv *d = tb_budget_add_deriv(b, "params.adapters",
		"LoRA adapter parameters (trainable)", "N_a",
		"r * S_io", S_src_lora, p->adapters, "");
	tb_deriv_add_var(d, "r", "adapter rank", (double)in->training.lora.rank, "");
	tb_deriv_add_var(d, "S_io", "in + out features, summed over the adapted matrices of every layer",
	                 (double)in->training.lora.rank > 0 ? p->adapters / (double)in->training.lora.rank : 0, "");
}

/* One multi-token-prediction module: a layer like the last one, a
 * projection of the concatenated [embedding; hidden] (2h x h) and three
 * norms (of the embedding, of the hidden state, before the shared head);
 * the embedding and the head are the main model's (DeepSeek-V3 report,
 * Sec. 2.2; README_WEIGHTS.md of the release).  *layer: the layer's. */
static double S_mtp_module(const tb_arch *a, double *layer)
{
	double expert = a->expert_w + a->expert_v;
	double moe_mlp = a->E * expert + a->shared_w + a->shared_v + a->router_w + a->router_v;
	double dense = a->dense_w + a->dense_v;
	*layer = a->attn_w + a->attn_v + a->norm_v + (a->L_moe > 0 ? moe_mlp : dense);
	return *layer + 2 * a->h * a->h + 3 * a->final_norm;
}

/* The counts into p (cleared), and the shape's arithmetic into *a. */
static void S_counts(const tb_inputs *in, tb_params *p, tb_arch *a)
{
	const tb_model *m = &in->model;
	if (!m->has_shape) {
		p->known_breakdown = false;
		p->total = p->active = m->params_count;
		S_trainable(in, p);
		return;
	}
	tb_calc_arch(m, a);
	double h = a->h, V = a->V, L = a->L;
	double expert = a->expert_w + a->expert_v;
	double moe_mlp = a->E * expert + a->shared_w + a->shared_v + a->router_w + a->router_v;
	double dense = a->dense_w + a->dense_v;

	p->known_breakdown = true;
	p->position = m->positions == TB_POS_LEARNED ? (double)m->max_positions * h : 0;
	p->embedding = V * h + p->position;
	p->attention = L * (a->attn_w + a->attn_v);
	p->router = a->L_moe * (a->router_w + a->router_v);
	p->experts = a->L_moe * a->E * expert;
	p->mlp = a->L_dense * dense + a->L_moe * moe_mlp;
	p->norm = L * a->norm_v + a->final_norm;
	p->output = m->tied_embeddings ? 0 : V * h;
	p->total = p->embedding + p->attention + p->mlp + p->norm + p->output;
	p->per_layer = L > 0 ? (p->attention + p->mlp + L * a->norm_v) / L : 0;
	p->active = p->total - a->L_moe * (a->E - a->k) * expert;
	p->matrices_expert = a->L_moe * a->E * a->expert_w;
	p->matrices = L * a->attn_w + a->L_dense * a->dense_w +
	              a->L_moe * (a->shared_w + a->router_w) + p->matrices_expert;
	S_trainable(in, p);
	if (m->mtp_modules > 0) {
		double layer;
		p->mtp = (double)m->mtp_modules * S_mtp_module(a, &layer);
	}
}

void tb_params_values(const tb_inputs *in, tb_params *out)
{
	tb_arch a;
	memset(out, 0, sizeof *out);
	S_counts(in, out, &a);
}

void tb_params_compute(const tb_inputs *in, tb_budget *b)
{
	const tb_model *m = &in->model;
	tb_params *p = &b->params;
	tb_arch a;
	S_counts(in, p, &a);

	if (!m->has_shape) {
		tb_deriv *d = tb_budget_add_deriv(b, "params.total",
			"Parameters (as given)", "N", "N_given",
			"model.params in the scenario; no shape, so no breakdown",
			p->total, "");
		tb_deriv_add_var(d, "N_given", "parameters, as given", p->total, "");
		return;
	}
	S_derive_trainable(in, b);

	if (S_plain(m))
		S_derive_plain(b, m, &a);
	else
		S_derive_extended(b, m, &a);

	if (m->vision_not_counted)
		tb_budget_warn(b, "Language model only: the config's vision encoder and projector are "
		                  "not counted in parameters, FLOPs or memory");
	if (m->mtp_modules > 0) {
		double layer, n = (double)m->mtp_modules;
		(void)S_mtp_module(&a, &layer);
		tb_deriv *d = tb_budget_add_deriv(b, "params.mtp",
			"Multi-token-prediction modules (not in N)", "P_mtp",
			"n_mtp * (P_layer + 2 * h * h + 3 * P_norm_f)",
			"DeepSeek-V3 technical report, arXiv:2412.19437, Sec. 2.2; the embedding and head are shared",
			p->mtp, "");
		tb_deriv_add_var(d, "n_mtp", "modules", n, "");
		tb_deriv_add_var(d, "P_layer", "one transformer layer, as the last one", layer, "");
		tb_deriv_add_var(d, "h", "hidden size", a.h, "");
		tb_deriv_add_var(d, "P_norm_f", "one norm", a.final_norm, "");
		tb_budget_warn(b, "%lld multi-token-prediction module%s (%.2fB parameters) not counted: "
		               "parameters, FLOPs and memory are the main model's, as in its official "
		               "count (training %s adds about %.1f%%)",
		               (long long)m->mtp_modules, m->mtp_modules == 1 ? "" : "s", p->mtp / 1e9,
		               m->mtp_modules == 1 ? "it" : "them",
		               100 * p->mtp / (p->attention + p->mlp + a.L * a.norm_v));
	}
}
