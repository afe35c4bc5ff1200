/* memory_act.c: the tensors one layer keeps for its backward, item by
 * item (Korthikanti et al. 2022, Sec. 4.1), under each checkpointing mode
 * and selective policy: under that paper's assumptions the inventory sums
 * to its Table 2 exactly; the same items, sized from the real shapes,
 * cover gated MLPs, GQA, MLA, mixtures, no dropout and flash attention.
 * memory.c sums them over the stages. */
#include "calc.h"

#include "trainbudget/tuning.h"

/* One layer's activations for micro-batch 1 under `mode`; fills the
 * inventory when items != NULL.  Layers of different kinds (dense or MoE
 * MLP, global or local attention) are averaged: an item present in only
 * some layers is weighted by their share, and its shape says so. */
double tb_memory_act_layer(const tb_inputs *in, const tb_arch *ar, tb_checkpointing mode,
                           tb_act_item *items, int *n)
{
	const tb_model *m = &in->model;
	const tb_training *tr = &in->training;
	double s = (double)tr->seq_len, bsz = 1;
	double h = (double)m->hidden, a = (double)m->heads;
	double K = (double)m->kv_heads, dh = (double)m->head_dim;
	double f = (double)m->ffn_hidden;
	double t = in->parallelism.tensor > 0 ? (double)in->parallelism.tensor : 1;
	double rep = in->parallelism.sequence_parallel ? 1 / t : 1;
	/* the inputs the tensor-parallel linears gather: Megatron-LM's
	 * sequence parallelism saves them sharded and gathers again for the
	 * backward (Korthikanti et al. 2022 Sec. 4.2.2); PyTorch's DTensor
	 * TP (torchtitan, framework fsdp) gathers them in PrepareModuleInput,
	 * outside the linears, which save the gathered copy whole */
	double rep_in = in->parallelism.framework == TB_FW_FSDP && ar->L_moe <= 0 ? 1 : rep;
	/* routed copies only where there are experts (a config's MoE layers
	 * can all be overridden away: layers below first_k_dense_replace) */
	double k = ar->L_moe > 0 && m->experts_per_token > 1 ? (double)m->experts_per_token : 1;
	double sbh = s * bsz * h;
	double total = 0;
	int cnt = 0;
	/* the pre-existing inventory, unchanged for a plain decoder */
	bool plain_mlp = ar->L_moe <= 0 ||
	                 (ar->L_dense <= 0 && ar->f_shared <= 0 && ar->f_expert == f);
	bool sandwich = m->norms_per_layer >= 4;
	/* fp8 attention (Transformer Engine's FusedAttnFunc) keeps the
	 * query, key and value it quantized, 1 B an element, in place of the
	 * 16-bit ones; under delayed scaling its fp8 output too, beside the
	 * 16-bit one the output projection reads (current scaling and MXFP8
	 * keep that one: NVTE_DPA_FP8CS_O_in_F16) */
	tb_fp8_recipe ar8 = tb_fp8_attention_recipe(in);
	bool qkv8 = ar8 != TB_FP8_AUTO;

#define S_ITEM(nm, shp, val) do { \
		double v_ = (val); \
		total += v_; \
		if (items && cnt < TB_ACT_ITEMS_MAX) { \
			items[cnt].name = (nm); items[cnt].shape = (shp); \
			items[cnt].bytes = v_; cnt++; \
		} \
	} while (0)

	if (mode == TB_CKPT_SELECTIVE && tr->selective_policy == TB_SELECTIVE_OP) {
		/* PyTorch's per-op policy as torchtitan writes it: the layer's
		 * input (the checkpoint) and what the policy keeps, the outputs
		 * of the odd matmuls of the order q, k, v, o, gate (or up), up,
		 * down, the attention's output and statistics, and the
		 * reduce-scatters' outputs; every other op is recomputed (the
		 * scenario allows it for dense layers without MLA only).  A
		 * row-parallel matmul's output is the whole sequence's partial
		 * sum, h wide on every tensor rank. */
		bool gated = m->mlp == TB_MLP_GATED;
		S_ITEM("layer input (checkpoint)", "2*s*b*h", 2 * sbh * rep);
		S_ITEM("attention: Q projection output (matmul 1)", "2*s*b*a*d/t", 2 * s * bsz * a * dh / t);
		S_ITEM("attention: V projection output (matmul 3)", "2*s*b*k_h*d/t", 2 * s * bsz * K * dh / t);
		S_ITEM("attention: output", "2*s*b*a*d/t", 2 * s * bsz * a * dh / t);
		if (tr->flash_attention)
			S_ITEM("attention: softmax statistics (fp32, flash)", "4*a*s*b/t", 4 * a * s * bsz / t);
		S_ITEM(gated ? "MLP: gate output (matmul 5)" : "MLP: first linear output (matmul 5)",
		       "2*s*b*f/t", 2 * s * bsz * f / t);
		if (gated)
			S_ITEM("MLP: down projection output (matmul 7)", "2*s*b*h", 2 * sbh);
		if (t > 1 && in->parallelism.sequence_parallel)
			S_ITEM("attention and MLP outputs, reduce-scattered", "4*s*b*h/t", 4 * sbh / t);
	} else if (mode == TB_CKPT_SELECTIVE && tr->selective_policy == TB_SELECTIVE_DEEPSEEK) {
		/* DeepSeek-V3's recipe (Sec. 3.2.3): the norms' outputs and
		 * MLA's up-projected queries, keys and values are rebuilt in the
		 * backward, so what is kept is each norm's input (the residual
		 * stream, the latents), the attention's output and statistics,
		 * and the MLPs' inner tensors.  Sec. 3.3.2: a linear layer's
		 * cached input is FP8 (1 B and a 4 B scale per 1x128 tile); the
		 * MoE SwiGLU's inputs are cached in FP8 and its output rebuilt;
		 * the attention's output stays in a wider format (E5M6, counted
		 * in a 16-bit container).  Outside fp8-mixed the caches are the
		 * 16-bit ones.  Under flash attention only (the scenario says). */
		bool f8 = tr->precision == TB_PREC_FP8_MIXED;
		double c8 = f8 ? 1 + 4.0 / 128 : 2;
		bool gated = m->mlp == TB_MLP_GATED;
		double wd = ar->L_moe > 0 ? ar->L_dense / ar->L : 1, wm = ar->L_moe > 0 ? ar->L_moe / ar->L : 0;
		double fe = ar->f_expert, fs = ar->L_moe > 0 ? ar->f_shared : 0;
		S_ITEM("layer input (attention norm input)", "2*s*b*h", 2 * sbh * rep);
		if (ar->mla) {
			double rq = (double)m->q_lora_rank, rkv = (double)m->kv_lora_rank;
			if (rq > 0)
				S_ITEM("MLA: query latent (its norm and up-projection rebuilt)", "2*s*b*r_q",
				       2 * s * bsz * rq);
			S_ITEM("MLA: key/value latent (its norm and up-projection rebuilt)", "2*s*b*r_kv",
			       2 * s * bsz * rkv);
		} else {
			S_ITEM("attention: Q and K", "2*s*b*(a+k_h)*d/t", 2 * s * bsz * (a + K) * dh / t);
			S_ITEM("attention: V", "2*s*b*k_h*d/t", 2 * s * bsz * K * dh / t);
		}
		S_ITEM("attention: softmax statistics (fp32, flash)", "4*a*s*b/t", 4 * a * s * bsz / t);
		S_ITEM("attention: output projection input (E5M6 in 16 bits)", "2*s*b*a*d_v/t",
		       2 * s * bsz * a * ar->d_v / t);
		if (tr->dropout)
			S_ITEM("attention: output dropout mask", "s*b*h", sbh * rep);
		S_ITEM("MLP norm: input (the residual)", "2*s*b*h", 2 * sbh * rep);
		if (wd > 0) {
			S_ITEM(gated ? "dense MLP: gate and up outputs" : "dense MLP: activation input",
			       gated ? "4*s*b*f/t x L_d/L" : "2*s*b*f/t x L_d/L",
			       (gated ? 4 : 2) * s * bsz * f / t * wd);
			S_ITEM("dense MLP: down input (cached for its linear)",
			       f8 ? "(1+1/32)*s*b*f/t x L_d/L (fp8)" : "2*s*b*f/t x L_d/L",
			       c8 * s * bsz * f / t * wd);
		}
		if (fs > 0)
			S_ITEM("MoE: shared expert SwiGLU inputs (cached; output rebuilt)",
			       f8 ? (gated ? "2*(1+1/32)*s*b*f_s/t x L_moe/L (fp8)" : "(1+1/32)*s*b*f_s/t x L_moe/L (fp8)")
			          : (gated ? "4*s*b*f_s/t x L_moe/L" : "2*s*b*f_s/t x L_moe/L"),
			       (gated ? 2 : 1) * c8 * s * bsz * fs / t * wm);
		if (wm > 0) {
			S_ITEM("MoE: routed copies of the input (cached for the experts' linear)",
			       f8 ? "(1+1/32)*s*b*h*k x L_moe/L (fp8)" : "2*s*b*h*k x L_moe/L",
			       c8 * sbh * rep * k * wm);
			S_ITEM("MoE: experts' SwiGLU inputs (cached; output rebuilt)",
			       f8 ? (gated ? "2*(1+1/32)*s*b*f_e/t*k x L_moe/L (fp8)" : "(1+1/32)*s*b*f_e/t*k x L_moe/L (fp8)")
			          : (gated ? "4*s*b*f_e/t*k x L_moe/L" : "2*s*b*f_e/t*k x L_moe/L"),
			       (gated ? 2 : 1) * c8 * s * bsz * fe / t * k * wm);
			S_ITEM("MoE: router logits (fp32)", "4*s*b*E x L_moe/L", 4 * s * bsz * ar->E * wm);
		}
		if (tr->dropout)
			S_ITEM("MLP: dropout mask", "s*b*h", sbh * rep);
		if (sandwich) {
			S_ITEM("post-attention norm: input", "2*s*b*h", 2 * sbh * rep);
			S_ITEM("post-MLP norm: input", "2*s*b*h", 2 * sbh * rep);
		}
	} else if (mode == TB_CKPT_FULL) {
		/* The layer input, Table 2's 2sbh; under sequence parallelism
		 * that input is this rank's [s/t, b, h] shard of the residual
		 * stream, so the checkpoint is too: Megatron-Core refuses
		 * distribute_saved_activations with sequence_parallel for that
		 * reason (transformer_config.py), and torchtitan's block input is
		 * a sequence-sharded DTensor (its SequenceParallel norms) */
		S_ITEM("layer input (checkpoint)", rep < 1 ? "2*s*b*h/t" : "2*s*b*h", 2 * sbh * rep);
	} else {
		/* Megatron-LM's layernorm and moe modules (the moe policy): the
		 * norms' outputs are rebuilt from their inputs, and an expert
		 * layer keeps its input (the MLP norm's) and nothing of its block */
		bool moe_rc = mode == TB_CKPT_SELECTIVE && tr->selective_policy == TB_SELECTIVE_MOE &&
		              ar->L_moe > 0;
		/* A frozen linear layer's input is kept for nothing: its weight
		 * takes no gradient, and its input's gradient needs only the
		 * weight (PyTorch saves a matmul's operand only for the other's
		 * gradient; Transformer Engine keeps a frozen linear's input no
		 * more).  Under LoRA an adapter reads it, unless its dropout
		 * gives it a copy of its own (counted below). */
		bool frozen = tb_method_adapters(tr->method);
		unsigned wrap = tr->lora.all_linear ? ~0u : tr->lora.targets;
		bool own = tr->lora.dropout > 0;
		bool keep_qkv = !frozen || (!own && (wrap & (TB_LORA_Q | TB_LORA_K | TB_LORA_V | TB_LORA_QKV |
		                                             TB_LORA_Q_A | TB_LORA_KV_A)));
		bool keep_up = !frozen || (!own && (wrap & (TB_LORA_GATE | TB_LORA_UP)));
		bool keep_down = !frozen || (!own && (wrap & TB_LORA_DOWN));
		S_ITEM("attention norm: input", "2*s*b*h", 2 * sbh * rep);
		if (!moe_rc && keep_qkv)
			S_ITEM("attention: QKV projection input", "2*s*b*h", 2 * sbh * rep_in);
		if (ar->mla) {
			/* the latents come from replicated down-projections: not split by t */
			double rq = (double)m->q_lora_rank, rkv = (double)m->kv_lora_rank;
			if (rq > 0) {
				S_ITEM("MLA: query latent, norm input", "2*s*b*r_q", 2 * s * bsz * rq);
				S_ITEM("MLA: query latent, up-projection input", "2*s*b*r_q", 2 * s * bsz * rq);
			}
			S_ITEM("MLA: key/value latent, norm input", "2*s*b*r_kv", 2 * s * bsz * rkv);
			S_ITEM("MLA: key/value latent, up-projection input", "2*s*b*r_kv", 2 * s * bsz * rkv);
			if (qkv8) {
				S_ITEM("attention: Q and K (fp8)", "2*s*b*a*d_qk/t", 2 * s * bsz * a * ar->d_qk / t);
				S_ITEM("attention: V (fp8)", "s*b*a*d_v/t", s * bsz * a * ar->d_v / t);
			} else {
				S_ITEM("attention: Q and K", "4*s*b*a*d_qk/t", 4 * s * bsz * a * ar->d_qk / t);
				S_ITEM("attention: V", "2*s*b*a*d_v/t", 2 * s * bsz * a * ar->d_v / t);
			}
		} else {
			if (m->qk_norm != TB_QKNORM_NONE)
				S_ITEM("attention: q/k norm inputs", "2*s*b*(a+k_h)*d/t",
				       2 * s * bsz * (a + K) * dh / t);
			if (qkv8) {
				S_ITEM("attention: Q and K (fp8)", "s*b*(a+k_h)*d/t", s * bsz * (a + K) * dh / t);
				S_ITEM("attention: V (fp8)", "s*b*k_h*d/t", s * bsz * K * dh / t);
			} else {
				S_ITEM("attention: Q and K", "2*s*b*(a+k_h)*d/t", 2 * s * bsz * (a + K) * dh / t);
				S_ITEM("attention: V", "2*s*b*k_h*d/t", 2 * s * bsz * K * dh / t);
			}
		}
		if (ar8 == TB_FP8_DELAYED)
			S_ITEM("attention: output (fp8, for its backward)", "s*b*a*d_v/t", s * bsz * a * ar->d_v / t);
		if (tr->flash_attention) {
			S_ITEM("attention: softmax statistics (fp32, flash)", "4*a*s*b/t",
			       4 * a * s * bsz / t);
		} else if (mode == TB_CKPT_NONE && ar->L_local <= 0) {
			S_ITEM("attention: softmax output", "2*a*s^2*b/t", 2 * a * s * s * bsz / t);
			if (tr->dropout) {
				S_ITEM("attention: softmax dropout mask", "a*s^2*b/t", a * s * s * bsz / t);
				S_ITEM("attention: dropout output", "2*a*s^2*b/t", 2 * a * s * s * bsz / t);
			}
		} else if (mode == TB_CKPT_NONE) {
			/* a local layer keeps the scores of the keys it sees */
			double span = ar->window < s ? ar->window : s;
			double skv = ((ar->L - ar->L_local) * s + ar->L_local * span) / ar->L;
			S_ITEM("attention: softmax output", "2*a*s*s_kv*b/t (s_kv: mean keys kept)",
			       2 * a * s * skv * bsz / t);
			if (tr->dropout) {
				S_ITEM("attention: softmax dropout mask", "a*s*s_kv*b/t", a * s * skv * bsz / t);
				S_ITEM("attention: dropout output", "2*a*s*s_kv*b/t", 2 * a * s * skv * bsz / t);
			}
		}
		if (ar->mla)
			S_ITEM("attention: output projection input", "2*s*b*a*d_v/t", 2 * s * bsz * a * ar->d_v / t);
		else
			S_ITEM("attention: output projection input", "2*s*b*a*d/t", 2 * s * bsz * a * dh / t);
		if (tr->dropout)
			S_ITEM("attention: output dropout mask", "s*b*h", sbh * rep);
		if (sandwich)
			S_ITEM("post-attention norm: input", "2*s*b*h", 2 * sbh * rep);
		S_ITEM("MLP norm: input", "2*s*b*h", 2 * sbh * rep);
		if (moe_rc) {
			/* the dense layers of a mixture keep their MLP's inner
			 * tensors, the norm's output rebuilt */
			double wd = ar->L_dense / ar->L;
			bool gated = m->mlp == TB_MLP_GATED;
			if (wd > 0) {
				S_ITEM(gated ? "dense MLP: gate and up outputs" : "dense MLP: activation input",
				       gated ? "4*s*b*f/t x L_d/L" : "2*s*b*f/t x L_d/L",
				       (gated ? 4 : 2) * s * bsz * f / t * wd);
				S_ITEM(gated ? "dense MLP: gated product (down input)" : "dense MLP: activation output",
				       "2*s*b*f/t x L_d/L", 2 * s * bsz * f / t * wd);
			}
			if (tr->dropout)
				S_ITEM("MLP: dropout mask", "s*b*h", sbh * rep);
		} else if (plain_mlp) {
			double fm = ar->L_moe > 0 ? ar->f_expert : f;
			if (keep_up)
				S_ITEM("MLP: first linear input", "2*s*b*h (x k routed)", 2 * sbh * rep_in * k);
			if (m->mlp == TB_MLP_GATED) {
				if (ar->L_moe <= 0 && tr->act_fp8_store)
					S_ITEM("MLP: gate and up outputs (fp8)", "2*s*b*f/t", 2 * s * bsz * fm / t);
				else
					S_ITEM("MLP: gate and up outputs", "4*s*b*f/t (x k)", 4 * s * bsz * fm / t * k);
				if (keep_down)
					S_ITEM("MLP: gated product (down input)", "2*s*b*f/t (x k)",
					       2 * s * bsz * fm / t * k);
			} else {
				S_ITEM("MLP: activation input", "2*s*b*f/t (x k)", 2 * s * bsz * fm / t * k);
				if (keep_down)
					S_ITEM("MLP: activation output (down input)", "2*s*b*f/t (x k)",
					       2 * s * bsz * fm / t * k);
			}
			if (tr->dropout)
				S_ITEM("MLP: dropout mask", "s*b*h", sbh * rep);
			if (ar->L_moe > 0)
				S_ITEM("MoE: router logits (fp32)", "4*s*b*E", 4 * s * bsz * (double)m->experts);
		} else {
			double wd = ar->L_dense / ar->L, wm = ar->L_moe / ar->L;
			double fe = ar->f_expert, fs = ar->f_shared;
			bool gated = m->mlp == TB_MLP_GATED;
			if (wd > 0) {
				if (keep_up)
					S_ITEM("dense MLP: first linear input", "2*s*b*h x L_d/L", 2 * sbh * rep * wd);
				if (gated && tr->act_fp8_store)
					S_ITEM("dense MLP: gate and up outputs (fp8)", "2*s*b*f/t x L_d/L",
					       2 * s * bsz * f / t * wd);
				else
					S_ITEM(gated ? "dense MLP: gate and up outputs" : "dense MLP: activation input",
					       gated ? "4*s*b*f/t x L_d/L" : "2*s*b*f/t x L_d/L",
					       (gated ? 4 : 2) * s * bsz * f / t * wd);
				if (keep_down)
					S_ITEM(gated ? "dense MLP: gated product (down input)"
					             : "dense MLP: activation output",
					       "2*s*b*f/t x L_d/L", 2 * s * bsz * f / t * wd);
			}
			if (fs > 0) {
				/* the router's input, also the shared expert's */
				S_ITEM("MoE: router and shared-expert input", "2*s*b*h x L_moe/L", 2 * sbh * rep * wm);
				S_ITEM(gated ? "MoE: shared expert gate and up outputs" : "MoE: shared expert activation input",
				       gated ? "4*s*b*f_s/t x L_moe/L" : "2*s*b*f_s/t x L_moe/L",
				       (gated ? 4 : 2) * s * bsz * fs / t * wm);
				S_ITEM("MoE: shared expert down input", "2*s*b*f_s/t x L_moe/L", 2 * s * bsz * fs / t * wm);
			}
			S_ITEM("MoE: routed copies of the input", "2*s*b*h*k x L_moe/L", 2 * sbh * rep * k * wm);
			S_ITEM(gated ? "MoE: experts' gate and up outputs" : "MoE: experts' activation input",
			       gated ? "4*s*b*f_e/t*k x L_moe/L" : "2*s*b*f_e/t*k x L_moe/L",
			       (gated ? 4 : 2) * s * bsz * fe / t * k * wm);
			S_ITEM("MoE: experts' down input", "2*s*b*f_e/t*k x L_moe/L", 2 * s * bsz * fe / t * k * wm);
			S_ITEM("MoE: router logits (fp32)", "4*s*b*E x L_moe/L", 4 * s * bsz * ar->E * wm);
			if (tr->dropout)
				S_ITEM("MLP: dropout mask", "s*b*h", sbh * rep);
		}
		if (sandwich)
			S_ITEM("post-MLP norm: input", "2*s*b*h", 2 * sbh * rep);
		tb_lora_count lc;
		const char *why;
		if (tb_method_adapters(tr->method) &&
		    tb_lora_count_compute(m, &tr->lora, &lc, &why)) {
			/* B's input, x A, for B's gradient; with lora_dropout each
			 * adapter's own dropped copy of x and its mask (PEFT
			 * applies the dropout per adapter) */
			S_ITEM("LoRA: adapter A outputs (B inputs)", "2*s*b*sum(r)",
			       2 * s * bsz * lc.rank_elems_per_layer);
			if (tr->lora.dropout > 0)
				S_ITEM("LoRA: dropped inputs and masks", "3*s*b*sum(in)",
				       3 * s * bsz * lc.dropout_elems_per_layer);
		}
	}
#undef S_ITEM
	if (n)
		*n = cnt;
	return total;
}

double tb_memory_act_layer_b1(const tb_inputs *in, const tb_arch *ar, tb_checkpointing mode)
{
	return tb_memory_act_layer(in, ar, mode, NULL, NULL);
}
