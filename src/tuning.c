/* tuning.c: the fine-tuning methods' counts.  The modules a layer holds
 * are listed once from the shape (the same shapes params.c sums), and
 * the adapters are counted over them; docs/formulas.md, "Fine-tuning",
 * has the formulas and their sources. */
#include "trainbudget/tuning.h"

#include <string.h>

#include "trainbudget/inputs.h"

static const char *const S_method_names[TB_METHOD_COUNT] = {
	"full", "lora", "qlora", "frozen", "dpo",
};

static const char *const S_quant_names[TB_QUANT_COUNT] = { "none", "nf4", "fp4", "int8", "fp8" };

/* canonical first; every alias is a module name PEFT users write for the
 * same matrix in another family (OPT, GPT-NeoX, Mixtral, Falcon, GPT-2) */
static const struct {
	const char *name;
	unsigned bit;
} S_targets[] = {
	{ "q_proj", TB_LORA_Q }, { "k_proj", TB_LORA_K }, { "v_proj", TB_LORA_V },
	{ "o_proj", TB_LORA_O }, { "query_key_value", TB_LORA_QKV },
	{ "gate_proj", TB_LORA_GATE }, { "up_proj", TB_LORA_UP }, { "down_proj", TB_LORA_DOWN },
	{ "q_a_proj", TB_LORA_Q_A }, { "q_b_proj", TB_LORA_Q_B },
	{ "kv_a_proj_with_mqa", TB_LORA_KV_A }, { "kv_b_proj", TB_LORA_KV_B },
	{ "out_proj", TB_LORA_O }, { "dense", TB_LORA_O }, { "c_proj", TB_LORA_O },
	{ "c_attn", TB_LORA_QKV }, { "qkv_proj", TB_LORA_QKV }, { "Wqkv", TB_LORA_QKV },
	{ "w1", TB_LORA_GATE }, { "w3", TB_LORA_UP }, { "w2", TB_LORA_DOWN },
	{ "fc1", TB_LORA_UP }, { "fc2", TB_LORA_DOWN },
	{ "dense_h_to_4h", TB_LORA_UP }, { "dense_4h_to_h", TB_LORA_DOWN },
};

const char tb_lora_target_names[] =
	"q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj, query_key_value "
	"(fused), q_a_proj, q_b_proj, kv_a_proj_with_mqa, kv_b_proj (latent attention), "
	"or all-linear";

const char *tb_lora_target_name(int bit)
{
	for (size_t i = 0; i < sizeof S_targets / sizeof S_targets[0]; i++)
		if (S_targets[i].bit == (1u << bit))
			return S_targets[i].name;
	return NULL;
}

unsigned tb_lora_target_parse(const char *name)
{
	for (size_t i = 0; i < sizeof S_targets / sizeof S_targets[0]; i++)
		if (strcmp(S_targets[i].name, name) == 0)
			return S_targets[i].bit;
	return 0;
}

const char *tb_method_name(tb_method m)
{
	return (unsigned)m < TB_METHOD_COUNT ? S_method_names[m] : "?";
}

const char *tb_quant_name(tb_quant q)
{
	return (unsigned)q < TB_QUANT_COUNT ? S_quant_names[q] : "?";
}

bool tb_method_adapters(tb_method m)
{
	return m == TB_METHOD_LORA || m == TB_METHOD_QLORA;
}

bool tb_method_trains_base(tb_method m)
{
	return m == TB_METHOD_FULL || m == TB_METHOD_DPO;
}

/* 4-bit: half a byte, one absmax per block of 64; with double quantization
 * the absmax is 8 bits and each 256 of them share an fp32 constant
 * (QLoRA Sec. 3: 32/64 = 0.5 bits of constants, 8/64 + 32/(64*256) =
 * 0.127 bits with it).  LLM.int8(): one byte and one fp32 scale per row,
 * 4 bytes over in_features weights (Dettmers et al. 2022, Sec. 3.1). */
double tb_quant_bytes_per_param(tb_quant q, bool double_quant, double in_features)
{
	switch (q) {
	case TB_QUANT_NF4:
	case TB_QUANT_FP4:
		return double_quant ? 0.5 + 1.0 / 64 + 4.0 / (64.0 * 256.0) : 0.5 + 4.0 / 64;
	case TB_QUANT_INT8:
		return 1 + (in_features > 0 ? 4 / in_features : 0);
	case TB_QUANT_FP8:
		return 1;
	case TB_QUANT_NONE:
	case TB_QUANT_COUNT:
	default:
		return 2;
	}
}

typedef struct S_list {
	int n;
	tb_lora_module *m;
} S_list;

static void S_add(S_list *l, unsigned bit, double in, double out, bool row, bool expert,
                  bool shared)
{
	if (l->n >= TB_LORA_MODULES_MAX)
		return;
	tb_lora_module *x = &l->m[l->n++];
	x->bit = bit;
	x->in = in;
	x->out = out;
	x->row_parallel = row;
	x->expert = expert;
	x->shared = shared;
}

/* Every linear module of an attention block and of one MLP kind, as the
 * model has them; `fused` lists q, k and v as one. */
static void S_attention(const tb_model *m, bool fused, S_list *l)
{
	double h = (double)m->hidden, H = (double)m->heads, K = (double)m->kv_heads;
	double d = (double)m->head_dim;
	if (m->kv_lora_rank > 0) {
		double rq = (double)m->q_lora_rank, rkv = (double)m->kv_lora_rank;
		double dq = (double)(m->qk_nope_dim + m->qk_rope_dim), dr = (double)m->qk_rope_dim;
		double dn = (double)m->qk_nope_dim, dv = (double)m->v_head_dim;
		if (rq > 0) {
			S_add(l, TB_LORA_Q_A, h, rq, false, false, false);
			S_add(l, TB_LORA_Q_B, rq, H * dq, false, false, false);
		} else {
			S_add(l, TB_LORA_Q, h, H * dq, false, false, false);
		}
		S_add(l, TB_LORA_KV_A, h, rkv + dr, false, false, false);
		S_add(l, TB_LORA_KV_B, rkv, H * (dn + dv), false, false, false);
		S_add(l, TB_LORA_O, H * dv, h, true, false, false);
		return;
	}
	if (fused) {
		S_add(l, TB_LORA_QKV, h, (H + 2 * K) * d, false, false, false);
	} else {
		S_add(l, TB_LORA_Q, h, H * d, false, false, false);
		S_add(l, TB_LORA_K, h, K * d, false, false, false);
		S_add(l, TB_LORA_V, h, K * d, false, false, false);
	}
	S_add(l, TB_LORA_O, H * d, h, true, false, false);
}

static void S_mlp(const tb_model *m, double f, bool expert, bool shared, S_list *l)
{
	double h = (double)m->hidden;
	if (m->mlp == TB_MLP_GATED)
		S_add(l, TB_LORA_GATE, h, f, false, expert, shared);
	S_add(l, TB_LORA_UP, h, f, false, expert, shared);
	S_add(l, TB_LORA_DOWN, f, h, true, expert, shared);
}

/* Keeps the modules the targets name; the bits of `want` no module had
 * are left in *missing. */
static int S_keep(tb_lora_module *mods, int n, unsigned want, bool all, unsigned *found)
{
	int k = 0;
	for (int i = 0; i < n; i++) {
		if (!all && !(mods[i].bit & want))
			continue;
		*found |= mods[i].bit;
		mods[k++] = mods[i];
	}
	return k;
}

bool tb_lora_count_compute(const tb_model *m, const tb_lora *lora, tb_lora_count *out,
                           const char **why)
{
	memset(out, 0, sizeof *out);
	*why = NULL;
	if (!m->has_shape) {
		*why = "LoRA needs the model's shape (layers, hidden, heads, ffn_hidden) to count "
		       "its adapters; a parameter count alone does not say which matrices there are";
		return false;
	}
	bool moe = m->experts > 1;
	bool fused = (lora->targets & TB_LORA_QKV) != 0;
	if (fused && (lora->targets & (TB_LORA_Q | TB_LORA_K | TB_LORA_V))) {
		*why = "targets name the fused query_key_value and q_proj, k_proj or v_proj too; "
		       "a model has one or the other";
		return false;
	}
	double L = (double)m->layers;
	double Ld = moe ? (double)(m->dense_layers < m->layers ? m->dense_layers : m->layers) : L;
	double Lm = L - Ld;
	double E = moe ? (double)m->experts : 1;
	double k = moe ? (double)(m->experts_per_token < 1 ? 1 : m->experts_per_token) : 1;
	if (k > E)
		k = E;
	double fe = m->expert_ffn_hidden > 0 ? (double)m->expert_ffn_hidden : (double)m->ffn_hidden;
	double fs = (double)m->shared_ffn_hidden;

	S_list dl = { 0, out->dense_mods }, ml = { 0, out->moe_mods };
	S_attention(m, fused, &dl);
	S_mlp(m, (double)m->ffn_hidden, false, false, &dl);
	S_attention(m, fused, &ml);
	S_mlp(m, fe, true, false, &ml);
	if (fs > 0)
		S_mlp(m, fs, false, true, &ml);

	unsigned found = 0;
	out->n_dense = Ld > 0 ? S_keep(out->dense_mods, dl.n, lora->targets, lora->all_linear, &found) : 0;
	out->n_moe = Lm > 0 ? S_keep(out->moe_mods, ml.n, lora->targets, lora->all_linear, &found) : 0;
	unsigned missing = lora->all_linear ? 0 : lora->targets & ~found;
	if (missing) {
		for (int b = 0; b < TB_LORA_TARGETS; b++) {
			if (!(missing & (1u << b)))
				continue;
			switch (1u << b) {
			case TB_LORA_GATE:
				*why = "the model's MLP is not gated, so it has no gate_proj; expected up_proj or "
				       "down_proj for its MLP";
				break;
			case TB_LORA_K: case TB_LORA_V: case TB_LORA_QKV:
				*why = m->kv_lora_rank > 0
				       ? "latent attention has no k_proj, v_proj or query_key_value; "
				         "expected kv_a_proj_with_mqa or kv_b_proj"
				       : "the target is not in the model; expected q_proj, k_proj, v_proj, o_proj";
				break;
			case TB_LORA_Q:
				*why = "the model's latent attention projects queries through a latent, so "
				       "it has no q_proj; expected q_a_proj or q_b_proj";
				break;
			default:
				*why = m->kv_lora_rank > 0
				       ? "the model's latent attention has no query latent (q_lora_rank 0); "
				         "expected q_proj for its queries"
				       : "the model has no latent attention; expected q_proj, k_proj, "
				         "v_proj or o_proj for its attention";
				break;
			}
			return false;
		}
	}
	if (out->n_dense + out->n_moe == 0) {
		*why = "no module of the model is targeted";
		return false;
	}

	double r = (double)lora->rank;
	double dense_total = 0, expert_total = 0, active = 0;
	double drop_in = 0, rank_tok = 0;
	for (int i = 0; i < out->n_dense; i++) {
		const tb_lora_module *x = &out->dense_mods[i];
		double p = r * (x->in + x->out);
		dense_total += Ld * p;
		active += Ld * p;
		drop_in += Ld * x->in;
		rank_tok += Ld * r;
	}
	for (int i = 0; i < out->n_moe; i++) {
		const tb_lora_module *x = &out->moe_mods[i];
		double p = r * (x->in + x->out);
		if (x->expert) {
			expert_total += Lm * E * p;
			active += Lm * k * p;
			drop_in += Lm * k * x->in;
			rank_tok += Lm * k * r;
		} else {
			dense_total += Lm * p;
			active += Lm * p;
			drop_in += Lm * x->in;
			rank_tok += Lm * r;
		}
	}
	out->dense = dense_total;
	out->expert = expert_total;
	out->total = dense_total + expert_total;
	out->active = active;
	out->dropout_elems_per_layer = L > 0 ? drop_in / L : 0;
	out->rank_elems_per_layer = L > 0 ? rank_tok / L : 0;
	return true;
}
