/* report_summary.c: what a reader sees first: the verdict lines and key
 * figures (the report's meta, which the PDF draws as its own title block
 * and verdict box), the {{title_block}} and {{verdict}} blocks, the
 * assumptions behind every figure, and the budget's warnings. */
#include "report_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/fmt.h"
#include "trainbudget/gpus.h"
#include "trainbudget/sha256.h"
#include "trainbudget/version.h"
#include "trainbudget/xalloc.h"

static const char *S_outcome_name(tb_outcome o)
{
	switch (o) {
	case TB_OUTCOME_GOOD: return "GOOD";
	case TB_OUTCOME_WARN: return "WARN";
	case TB_OUTCOME_BAD: return "BAD";
	case TB_OUTCOME_NONE: break;
	}
	return "N/A";
}

static void S_table_verdict(tb_report *r, tb_table *t)
{
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, NULL, "ll", "Outcome", "Finding", NULL);
	for (size_t i = 0; i < r->meta.nverdict; i++) {
		tb_rtab_str(&tb, S_outcome_name(r->verdict[i].outcome));
		tb_rtab_str(&tb, r->verdict[i].text);
	}
}

static void S_table_key(tb_report *r, tb_table *t)
{
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, NULL, "lr", "Key figure", "Value", NULL);
	for (size_t i = 0; i < r->meta.nkey; i++) {
		tb_rtab_str(&tb, r->key_labels[i]);
		tb_rtab_str(&tb, r->key_values[i]);
	}
}

/* " (adapted: ...)" after a setting whose default the loader changed to
 * fit the rest of the scenario. */
static void S_adapted(const tb_report *r, tb_buf *o, const char *key)
{
	const tb_scenario_adapted *a = tb_scenario_adapted_find(r->sc, key);
	if (a)
		tb_buf_printf(o, " (adapted: %s %s instead of the default %s: %s)", key, a->value,
		              a->deflt, a->why);
}

/* Where the overlapped GEMMs' SMs come from, as the report says it. */
static const char *S_ub_basis(const tb_parallelism *pa)
{
	uint16_t all = (uint16_t)((1u << TB_UB_COUNT) - 1);
	bool megatron = pa->framework == TB_FW_MEGATRON;
	if (!pa->sequence_parallel)
		return "Transformer Engine's userbuffers overlap only under sequence parallelism";
	if (pa->overlap_tp_sms_set == all || (pa->overlap_tp_sms_set && !megatron))
		return "parallelism.overlap_tp_sms";
	if (pa->overlap_tp_sms_set)
		return "parallelism.overlap_tp_sms; the rest Transformer Engine 2's defaults under megatron";
	return megatron ? "Transformer Engine 2's defaults under megatron"
	                : "no defaults outside framework megatron, whose Transformer Engine alone holds SMs";
}

/* The busiest expert rank's share as the step priced it (the priced
 * layout's result), and where the figure comes from. */
static void S_expert_load(tb_rtab *tb, const tb_training *t, const tb_perf_budget *pb)
{
	const tb_perf_input *pi = &pb->in;
	double load = pb->r.expert_load;
	tb_rtab_str(tb, "Experts' load");
	if (pi->expert <= 1)
		tb_rtab_str(tb, "one expert rank: every expert on each GPU, whatever their loads");
	else if (t->moe_routing == TB_MOE_BALANCED)
		tb_rtab_str(tb, "balanced: each expert rank the mean's tokens (training.moe_routing: balanced)");
	else if (t->moe_load_factor > load)
		tb_rtab_fmt(tb, "dropless: the busiest expert rank receives every routed token, %.4g times the "
		            "mean's, and the others wait for it (training.moe_load_factor's %.4g is more than "
		            "%lld ranks can hold)", load, t->moe_load_factor, (long long)pi->expert);
	else
		tb_rtab_fmt(tb, "dropless: the busiest expert rank receives %.4g times the mean's tokens, and "
		            "the others wait for it (%s)", load,
		            t->moe_load_factor > 0 ? "training.moe_load_factor, measured"
		            : "fitted on published dropless runs, docs/validation.md; training.moe_load_factor "
		              "sets a measured one");
}

static void S_table_assumptions(tb_report *r, tb_table *t)
{
	const tb_inputs *in = &r->sc->inputs;
	const tb_budget *b = r->b;
	tb_rtab tb;
	tb_buf *o;
	tb_rtab_init(&tb, t, r, NULL, "ll", "Setting", "Value", NULL);
	tb_rtab_str(&tb, "Precision");
	o = tb_rtab_begin(&tb);
	tb_buf_printf(o, "%s (matmuls in %s)", tb_precision_name(in->training.precision),
	              tb_dtype_name(b->time.dtype));
	S_adapted(r, o, "training.precision");
	tb_rtab_end(&tb);
	if (in->training.precision == TB_PREC_FP8_MIXED && b->perf.known) {
		tb_rtab_str(&tb, "fp8 scaling");
		tb_rtab_fmt(&tb, "%s (training.fp8_recipe%s)", tb_perf_fp8_text(&b->perf.in),
		            in->training.fp8_recipe == TB_FP8_AUTO ? ": auto, the framework's default" : "");
	} else if (in->training.precision == TB_PREC_FP4_MIXED && b->perf.known) {
		tb_rtab_str(&tb, "fp4 scaling");
		tb_rtab_fmt(&tb, "%s (the card's fp4 format; its matmuls priced at %.0f%% of the fp4 "
		            "peak, %s)",
		            tb_perf_fp8_text(&b->perf.in), 100 * b->perf.in.hw.matmul_ceiling,
		            b->perf.fp4_basis ? b->perf.fp4_basis : "?");
	}
	tb_rtab_str(&tb, "Gradients");
	if (in->training.grad_dtype != TB_GRAD_DEFAULT)
		tb_rtab_fmt(&tb, "%s (training.grad_dtype)", tb_grad_dtype_name(in->training.grad_dtype));
	else if (tb_grad_dtype_of(&in->training) == TB_GRAD_FP32 && in->training.precision != TB_PREC_FP32)
		tb_rtab_fmt(&tb, "fp32, as Megatron-LM and DeepSpeed accumulate them under %s "
		            "(training.grad_dtype: bf16 for the textbook 16-bit gradients)",
		            tb_precision_name(in->training.precision));
	else
		tb_rtab_fmt(&tb, "%s, the default under %s", tb_grad_dtype_name(tb_grad_dtype_of(&in->training)),
		            tb_precision_name(in->training.precision));
	if (in->training.act_fp8_store) {
		tb_rtab_str(&tb, "SwiGLU input");
		tb_rtab_str(&tb, "kept for the backward in fp8, 1 B an element "
		                 "(training.activation_func_fp8_input_store)");
	}
	if (b->memory.fp8_weights_bytes > 0) {
		bool fp4 = in->training.precision == TB_PREC_FP4_MIXED;
		tb_rtab_str(&tb, fp4 ? "fp4 weights" : "fp8 weights");
		tb_rtab_str(&tb, b->memory.fp8_replaced_bytes > 0
		                 ? "the linear layers' weights stored in fp8, no bf16 copy (a transpose made "
		                   "for the backward, not kept), and gathered in fp8 but MXFP8 "
		                   "(training.fp8_param_gather, Megatron-LM's --fp8-param-gather)"
		                 : fp4 ? "Transformer Engine keeps an fp4 copy of each linear layer's weight, "
		                         "both orientations, between micro-batches, beside the bf16 weight"
		                 : "Transformer Engine keeps an fp8 copy of each linear layer's weight "
		                   "between micro-batches (with a transpose on cards whose fp8 GEMMs take "
		                   "only the TN layout), beside the bf16 weight (training.fp8_param_gather "
		                   "stores the weights in fp8 instead)");
	}
	/* as priced: the step-time model decides where the head runs */
	if (b->perf.known && b->perf.in.matmul_bytes < b->perf.in.act_bytes) {
		tb_rtab_str(&tb, "Vocabulary head");
		tb_rtab_str(&tb, b->perf.in.fp8_head
		                 ? "its GEMMs in the linear layers' fp8 recipe, with its casts "
		                   "(training.fp8_head, Megatron-LM's --fp8-output-proj)"
		                 : "its GEMMs in 16 bits, as Megatron-LM and torchtitan leave it under "
		                   "fp8 (training.fp8_head runs it in fp8)");
	}
	if (in->training.eager_kernels) {
		tb_rtab_str(&tb, "Memory-bound kernels");
		tb_rtab_str(&tb, "PyTorch eager: each norm, rotation, activation and GQA copy as the "
		                 "eager ops of torchtitan's Llama, not one fused kernel (training.kernels: eager)");
	}
	if (tb_cross_entropy_eager(in)) {
		tb_rtab_str(&tb, "Cross-entropy");
		tb_rtab_fmt(&tb, "PyTorch eager over fp32 logits: the saved log-softmax and two gradients "
		                 "held at once, %g bytes a logit where a fused loss holds %g "
		                 "(training.cross_entropy: eager)",
		            tb_cross_entropy_bytes_per_logit(true), tb_cross_entropy_bytes_per_logit(false));
	}
	if (tb_method_adapters(in->training.method) && tb_lora_eager(&in->training) &&
	    !in->training.eager_kernels) {
		tb_rtab_str(&tb, "LoRA adapters");
		tb_rtab_str(&tb, "unfused: the scaling's product and the sums into the base output and "
		                 "the input's gradient as kernels of their own, as PEFT and NeMo's "
		                 "ParallelLinearAdapter run them (training.lora.kernels: eager)");
	}
	if (in->training.no_grad_accum_fusion) {
		tb_rtab_str(&tb, "Gradient accumulation");
		tb_rtab_str(&tb, "unfused: each micro-batch's weight gradients added into the main gradient "
		                 "by a kernel of their own (training.grad_accumulation_fusion: false)");
	}
	const tb_model *mo = &in->model;
	if (mo->has_shape && mo->kv_lora_rank > 0) {
		tb_rtab_str(&tb, "Attention");
		o = tb_rtab_begin(&tb);
		tb_buf_puts(o, "multi-head latent (DeepSeek-V2): query rank ");
		tb_rfmt(o, TB_RF_GROUPED, (double)mo->q_lora_rank, NULL);
		tb_buf_puts(o, ", key/value rank ");
		tb_rfmt(o, TB_RF_GROUPED, (double)mo->kv_lora_rank, NULL);
		tb_buf_puts(o, ", rope key ");
		tb_rfmt(o, TB_RF_GROUPED, (double)mo->qk_rope_dim, NULL);
		tb_buf_puts(o, ", value head ");
		tb_rfmt(o, TB_RF_GROUPED, (double)mo->v_head_dim, NULL);
		tb_rtab_end(&tb);
	}
	if (mo->has_shape && mo->experts > 1) {
		tb_rtab_str(&tb, "Experts");
		o = tb_rtab_begin(&tb);
		tb_rfmt(o, TB_RF_GROUPED, (double)mo->experts, NULL);
		tb_buf_puts(o, " routed, ");
		tb_rfmt(o, TB_RF_GROUPED, (double)mo->experts_per_token, NULL);
		tb_buf_puts(o, " per token, ");
		tb_rfmt(o, TB_RF_GROUPED, (double)(mo->expert_ffn_hidden > 0 ? mo->expert_ffn_hidden
		                                                             : mo->ffn_hidden), NULL);
		tb_buf_puts(o, " wide");
		if (mo->shared_ffn_hidden > 0) {
			tb_buf_puts(o, "; shared, ");
			tb_rfmt(o, TB_RF_GROUPED, (double)mo->shared_ffn_hidden, NULL);
			tb_buf_puts(o, " wide in all");
		}
		if (mo->dense_layers > 0)
			tb_buf_printf(o, "; %lld dense layer%s first", (long long)mo->dense_layers,
			              mo->dense_layers == 1 ? "" : "s");
		tb_rtab_end(&tb);
	}
	if (mo->has_shape && mo->mtp_modules > 0) {
		tb_rtab_str(&tb, "Multi-token prediction");
		tb_rtab_fmt(&tb, "%lld module%s, not counted in parameters, FLOPs or memory",
		            (long long)mo->mtp_modules, mo->mtp_modules == 1 ? "" : "s");
	}
	tb_rtab_str(&tb, "Optimizer");
	tb_rtab_str(&tb, tb_optimizer_name(in->training.optimizer));
	tb_rtab_str(&tb, "Parallelism (TP × PP × DP)");
	tb_rtab_fmt(&tb, "%lld × %lld × %lld%s", (long long)in->parallelism.tensor,
	            (long long)in->parallelism.pipeline, (long long)in->parallelism.data,
	            in->parallelism.sequence_parallel ? ", sequence parallel" : "");
	if (in->parallelism.virtual_pipeline > 1) {
		tb_rtab_str(&tb, "Interleaved stages per pipeline rank");
		tb_rtab_fmt(&tb, "%lld", (long long)in->parallelism.virtual_pipeline);
	}
	if (in->parallelism.overlap_tp && in->parallelism.tensor > 1) {
		const tb_parallelism *pa = &in->parallelism;
		char sms[256];
		tb_overlap_tp_sms_text(pa, sms, sizeof sms);
		bool any = tb_overlap_tp_holds_sms(pa);
		bool known = tb_gpu_sms(&in->hardware.gpu) > 0;
		tb_rtab_str(&tb, "Tensor-parallel overlap");
		tb_rtab_fmt(&tb, "each collective behind the GEMM next to it%s%s; SMs the overlapped GEMMs "
		            "give up to their collectives: %s (%s)%s",
		            tb_overlap_tp_qkv(pa) ? "" : ", the QKV projection's exposed (overlap_tp_qkv: false)",
		            tb_overlap_tp_dgrad(pa) ? ""
		            : ", the input gradients' reduce-scatters behind the weight-gradient GEMMs "
		              "(overlap_tp_dgrad: false)",
		            sms, S_ub_basis(pa),
		            any && !known ? "; not priced: the card's SM count is not known" : "");
	}
	if (in->parallelism.context > 1) {
		tb_rtab_str(&tb, "Context parallelism");
		tb_rtab_fmt(&tb, "%lld; %s (parallelism.cp_comm_type: %s)", (long long)in->parallelism.context,
		            tb_perf_cp_rule(in->parallelism.cp_comm), tb_cp_comm_name(in->parallelism.cp_comm));
	}
	if (in->model.experts > 1) {
		tb_rtab_str(&tb, "Expert parallelism");
		tb_rtab_fmt(&tb, "%lld", (long long)in->parallelism.expert);
		int64_t et = tb_perf_expert_tensor(in->parallelism.expert_tensor, in->parallelism.tensor);
		if (et != in->parallelism.tensor) {
			tb_rtab_str(&tb, "Expert tensor parallelism");
			tb_rtab_fmt(&tb, "%lld (expert groups folded over the tensor ranks)", (long long)et);
		}
		tb_rtab_str(&tb, "Expert all-to-all");
		tb_rtab_fmt(&tb, "%s; %s",
		            in->parallelism.dispatcher == TB_DISPATCH_DEEPEP
		            ? "DeepEP: each token once per destination node, then NVLink (parallelism.dispatcher)"
		            : "all-to-all: every routed copy sent (parallelism.dispatcher: alltoall)",
		            in->parallelism.overlap_ep
		            ? "overlapped with another micro-batch's compute (parallelism.overlap_ep)"
		            : "in line with the compute (parallelism.overlap_ep: false)");
		if (b->perf.known)
			S_expert_load(&tb, &in->training, &b->perf);
		const char *rule = tb_perf_ep_rule(in->parallelism.framework, in->training.method,
		                                   in->parallelism.overlap_ep);
		if (rule) {
			tb_rtab_str(&tb, "All-to-all overlap");
			tb_rtab_str(&tb, rule);
		}
	}
	tb_rtab_str(&tb, "ZeRO stage");
	const char *held = b->memory.weights_whole
		? "; under the pipeline FSDP holds the stage's weights gathered and its gradients "
		  "unsharded through the step, reduced once after the last backward"
		: b->memory.gradients_whole && !in->parallelism.no_sync
		? "; under the pipeline FSDP holds the stage's gradients unsharded through the step, "
		  "reduced once after the last backward"
		: b->memory.gradients_whole ? "; gradients reduced once a step (no_sync)" : "";
	if (in->parallelism.shard_group > 0)
		tb_rtab_fmt(&tb, "%d within groups of %lld, replicated across them (HSDP)%s",
		            in->parallelism.zero, (long long)in->parallelism.shard_group, held);
	else
		tb_rtab_fmt(&tb, "%d%s", in->parallelism.zero, held);
	if (in->parallelism.data * in->parallelism.context > 1) {
		const tb_parallelism *pa = &in->parallelism;
		tb_rtab_str(&tb, "Data-parallel reduction");
		o = tb_rtab_begin(&tb);
		if (pa->framework == TB_FW_ANY)
			tb_buf_puts(o, "framework not named (parallelism.framework); ");
		else
			tb_buf_printf(o, "%s; ", tb_framework_name(pa->framework));
		tb_buf_puts(o, tb_perf_dp_rule(pa->framework, pa->zero, pa->no_sync, pa->pipeline));
		if (pa->zero >= 3) {
			tb_buf_puts(o, " (");
			tb_rfmt(o, TB_RF_PCT, tb_perf_zero3_overlap_cost(pa->framework, NULL), NULL);
			tb_buf_puts(o, ")");
		}
		tb_buf_puts(o, pa->no_overlap_dp
		               ? "; after the backward, not overlapped with it (parallelism.overlap_dp: false)"
		               : !tb_perf_dp_hidden(pa)
		               ? "; dispatched beside the compute but priced as waiting for it: the step is "
		                 "captured whole in a CUDA graph (parallelism.cuda_graph: full_iteration), "
		                 "where MLPerf's runs show it unhidden"
		               : "; hidden behind the compute where the overlap rule allows (parallelism.overlap_dp)");
		if (!pa->no_overlap_dp && tb_perf_dp_hidden(pa) && pa->zero < 3) {
			tb_buf_puts(o, ", and what hides still costs ");
			tb_rfmt(o, TB_RF_PCT, tb_perf_fitted.fsdp_overlap_cost, NULL);
			tb_buf_puts(o, " of its time (fsdp_overlap_cost: the collectives' kernels take SMs and "
			               "memory bandwidth from the compute beside them)");
		}
		const char *bb;
		double bn = tb_perf_dp_bucket_of(in, &bb);
		if (bn > 0) {
			tb_buf_puts(o, "; in buckets of ");
			tb_rfmt(o, TB_RF_GROUPED, bn, NULL);
			tb_buf_printf(o, " %s (%s), each of whole parameters, so none smaller than the "
			              "mean weight tensor it reduces", bn == 1 ? "weight" : "weights", bb);
		}
		tb_rtab_end(&tb);
	}
	tb_rtab_str(&tb, "Sequence length");
	o = tb_rtab_begin(&tb);
	tb_rfmt(o, TB_RF_GROUPED, (double)in->training.seq_len, NULL);
	S_adapted(r, o, "training.seq_len");
	tb_rtab_end(&tb);
	tb_rtab_str(&tb, "Micro-batch / global batch (sequences)");
	o = tb_rtab_begin(&tb);
	tb_rfmt(o, TB_RF_GROUPED, (double)in->training.micro_batch, NULL);
	tb_buf_puts(o, " / ");
	tb_rfmt(o, TB_RF_GROUPED, (double)in->training.global_batch, NULL);
	S_adapted(r, o, "training.global_batch");
	tb_rtab_end(&tb);
	tb_rtab_str(&tb, "Training tokens");
	tb_rtab_num(&tb, TB_RF_COUNT, in->training.tokens);
	tb_rtab_str(&tb, "Activation checkpointing");
	if (in->training.checkpointing == TB_CKPT_FULL && in->training.recompute_layers > 0) {
		o = tb_rtab_begin(&tb);
		tb_buf_printf(o, "full, the first %lld layers of each pipeline chunk (Megatron-LM's block "
		              "method); the others keep their activations",
		              (long long)in->training.recompute_layers);
		tb_rtab_end(&tb);
	} else {
		bool sel = in->training.checkpointing == TB_CKPT_SELECTIVE;
		tb_rtab_str(&tb, sel && in->training.selective_policy == TB_SELECTIVE_OP
		                 ? "selective, op policy (every second matmul and the memory-bound ops recomputed)"
		                 : sel && in->training.selective_policy == TB_SELECTIVE_MOE
		                 ? "selective, moe policy (the norms and each expert layer's whole block "
		                   "recomputed, its dispatch and combine too: Megatron-LM's --recompute-modules "
		                   "layernorm moe)"
		                 : sel && in->training.selective_policy == TB_SELECTIVE_DEEPSEEK
		                 ? "selective, DeepSeek-V3's recipe (the norms, MLA's up-projections and the "
		                   "MoE SwiGLU's output recomputed; under fp8 the linear layers' inputs cached in FP8)"
		                 : tb_checkpointing_name(in->training.checkpointing));
	}
	tb_rtab_str(&tb, "Flash attention");
	if (!in->training.flash_attention || !b->perf.known)
		tb_rtab_str(&tb, tb_ryesno(in->training.flash_attention));
	else {
		char rel[16], at[64] = "";
		if (b->perf.in.cudnn_table > 0)
			snprintf(at, sizeof at, ", at cuDNN %s's rates (hardware.cudnn)",
			         tb_gpus_cudnn_name(b->perf.in.cudnn_table, rel));
		tb_rtab_fmt(&tb, "yes, %s%s%s",
		            tb_perf_attention_kernel_text(in->parallelism.framework,
		                                          in->training.attention_kernel,
		                                          b->perf.in.hw.attention_kernel, false),
		            b->perf.in.hw.attention_fp8_fwd_ratio > 0
		            ? ", in fp8 (training.fp8_attention)" : "", at);
	}
	tb_rtab_str(&tb, "Attention FLOPs convention");
	tb_rtab_str(&tb, in->training.attention_flops == TB_ATTN_FLOPS_CAUSAL
	                 ? "causal (FlashAttention: the lower triangle, half the score matrix)"
	                 : "full (PaLM: the whole score matrix)");
	tb_rtab_str(&tb, "MFU range (low / most likely / high)");
	o = tb_rtab_begin(&tb);
	for (int i = 0; i < 3; i++) {
		if (i)
			tb_buf_puts(o, " / ");
		tb_rfmt(o, TB_RF_PCT, b->time.mfu[i], NULL);
	}
	if (in->hardware.mfu_predicted && b->perf.known)
		tb_buf_puts(o, " (predicted by the step-time model, with its measured error band)");
	else if (in->hardware.mfu_predicted)
		tb_buf_puts(o, " (default range: the step-time model cannot predict this run)");
	tb_rtab_end(&tb);
	tb_rtab_str(&tb, "GPU");
	o = tb_rtab_begin(&tb);
	tb_rfmt(o, TB_RF_GROUPED, (double)in->hardware.count, NULL);
	const tb_gpu *gpu = &in->hardware.gpu;
	tb_buf_printf(o, " × %s", gpu->label[0] ? gpu->label : gpu->name);
	if (r->sc->gpu_assumed)
		tb_buf_puts(o, " (assumed: not in the scenario)");
	tb_rtab_end(&tb);
	tb_rtab_str(&tb, "Dense peak per GPU");
	o = tb_rtab_begin(&tb);
	tb_rfmt(o, TB_RF_SCI, b->time.peak_flops_per_gpu, NULL);
	tb_buf_printf(o, " FLOP/s (%s)", tb_dtype_name(b->time.dtype));
	tb_rtab_end(&tb);
	tb_rtab_str(&tb, "GPU memory");
	o = tb_rtab_begin(&tb);
	tb_rfmt(o, TB_RF_BYTES, in->hardware.gpu.memory_bytes, NULL);
	if (gpu->memory_source[0]) {
		char ms[sizeof gpu->memory_source + 1];
		tb_rcopy(ms, sizeof ms, gpu->memory_source);
		tb_buf_printf(o, " (%s)", ms);
	}
	tb_rtab_end(&tb);
	if (in->hardware.power_limit_w > 0) {
		tb_rtab_str(&tb, "Power limit");
		o = tb_rtab_begin(&tb);
		tb_buf_printf(o, "%.0f W of the %.0f W TDP (hardware.power_limit: slower compute, "
		                 "the energy at the limit)", in->hardware.power_limit_w, gpu->tdp_w);
		tb_rtab_end(&tb);
	}
	tb_rtab_str(&tb, "Price per GPU-hour");
	o = tb_rtab_begin(&tb);
	tb_rfmt(o, TB_RF_MONEY, in->hardware.price_per_gpu_hour, tb_rcurrency(r));
	tb_buf_puts(o, " per GPU-hour");
	if (r->sc->price_assumed)
		tb_buf_puts(o, " (assumed: not in the scenario)");
	tb_rtab_end(&tb);
	tb_rtab_str(&tb, "Runtime overhead per GPU (CUDA context, allocator)");
	o = tb_rtab_begin(&tb);
	tb_rfmt(o, TB_RF_BYTES, in->hardware.overhead_bytes, NULL);
	S_adapted(r, o, "hardware.overhead");
	tb_rtab_end(&tb);
}

static void S_table_warnings(tb_report *r, tb_table *t)
{
	const tb_budget *b = r->b;
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, NULL, "l", "Warning", NULL);
	int n = b->n_warnings < TB_WARNINGS_MAX ? b->n_warnings : TB_WARNINGS_MAX;
	for (int i = 0; i < n; i++) {
		char w[sizeof b->warnings[0] + 1];
		tb_rcopy(w, sizeof w, b->warnings[i]);
		tb_rtab_str(&tb, w);
	}
}

/* What the inputs SHA-256 covers, one row each, then the digest itself:
 * a reader can check every file with sha256sum. */
static void S_table_inputs(tb_report *r, tb_table *t)
{
	static const char *const what[TB_INPUT_KINDS] = {
		"Scenario", "Model config (model.hf_config)", "Template (--template)",
		"Training log (measured.log)", "Pilot scenario (--calibrate)",
		"Profiler trace (measured.trace)",
	};
	const tb_signoff *so = &r->signoff;
	tb_rtab tb;
	tb_rtab_init(&tb, t, r, "What the inputs SHA-256 covers", "lll",
	             "Input", "File or value", "SHA-256", NULL);
	for (size_t i = 0; i < so->nfiles; i++) {
		tb_rtab_str(&tb, what[so->files[i].kind]);
		tb_rtab_str(&tb, so->files[i].path);
		tb_rtab_str(&tb, so->files[i].sha256);
	}
	for (int k = 0; k < 2; k++) {
		char *const *v = k ? so->sweeps : so->sets;
		for (size_t i = 0; i < (k ? so->nsweeps : so->nsets); i++) {
			char hex[65];
			tb_sha256_hex(v[i], strlen(v[i]), hex);
			tb_rtab_str(&tb, k ? "Sweep (--sweep)" : strchr(v[i], '=') ? "Override (--set)"
			                                       : "Override (--unset)");
			tb_rtab_str(&tb, v[i]);
			tb_rtab_str(&tb, hex);
		}
	}
	tb_rtab_str(&tb, "Tool (tables, presets, built-in template)");
	tb_rtab_str(&tb, "trainbudget " TB_VERSION);
	tb_rtab_str(&tb, "by its version");
	tb_rtab_str(&tb, "Inputs SHA-256 (all of the above)");
	tb_rtab_str(&tb, "");
	tb_rtab_str(&tb, so->digest);
}

static const tb_rtable_def S_tables[] = {
	{ "verdict", S_table_verdict },
	{ "key_figures", S_table_key },
	{ "assumptions", S_table_assumptions },
	{ "warnings", S_table_warnings },
	{ "inputs", S_table_inputs },
};

const tb_rsection tb_rsection_summary = {
	S_tables, sizeof S_tables / sizeof S_tables[0], NULL, 0,
};

/* ---- meta: verdict and key figures ------------------------------------ */

static void S_verdict(tb_report *r)
{
	const tb_budget *b = r->b;
	const tb_inputs *in = &r->sc->inputs;
	size_t n = 0;
	tb_buf o;
	tb_buf_init(&o);
	tb_outcome oc;

	/* the layout priced, before anything priced on it (answer.h) */
	const tb_answer *a = &b->answer;
	char ans[600];
	if (tb_answer_text(a, ans, sizeof ans)) {
		oc = !a->runs ? TB_OUTCOME_BAD : a->source == TB_LAYOUT_REPLACED ? TB_OUTCOME_WARN
		     : TB_OUTCOME_GOOD;
		tb_buf_puts(&o, "Layout: ");
		tb_buf_puts(&o, ans);
		r->verdict[n].outcome = oc;
		r->verdict[n++].text = tb_buf_detach(&o, NULL);
	}
	bool staged = b->n_stages > 0;
	bool cannot = staged ? !b->stages_all_run : a->decided && !a->runs;

	/* memory */
	const tb_memory *m = &b->memory;
	if (staged) {
		/* each stage's own check, the largest named */
		const tb_stage_row *big = &b->stages[b->stage_memory_max];
		bool all = true, known = true;
		for (int i = 0; i < b->n_stages; i++) {
			all = all && b->stages[i].fits;
			known = known && b->stages[i].fits_known;
		}
		oc = !known ? TB_OUTCOME_WARN : all ? TB_OUTCOME_GOOD : TB_OUTCOME_BAD;
		tb_buf_puts(&o, !known ? "Memory unknown for some stage" : all ? "Every stage fits in memory"
		                : "Not every stage fits in memory");
		tb_buf_printf(&o, ": the most, stage '%s', needs ", big->name);
		tb_rfmt(&o, TB_RF_BYTES, big->memory_per_gpu_bytes, NULL);
		tb_buf_puts(&o, " per GPU of ");
		tb_rfmt(&o, TB_RF_BYTES, big->capacity_bytes, NULL);
		tb_buf_puts(&o, ".");
	} else if (!m->activations_known && tb_rmem_fit(b) == TB_RFIT_NO) {
		/* the states alone overflow the card: no activations make it fit */
		oc = TB_OUTCOME_BAD;
		tb_buf_puts(&o, "Does not fit in memory: model states and overhead alone need ");
		tb_rfmt(&o, TB_RF_BYTES, m->per_gpu.total, NULL);
		tb_buf_puts(&o, " per GPU, but the card holds ");
		tb_rfmt(&o, TB_RF_BYTES, m->capacity_bytes, NULL);
		tb_buf_puts(&o, "; activations (unknown for a model given only by its parameter count) come on top.");
	} else if (!m->activations_known) {
		oc = TB_OUTCOME_WARN;
		tb_buf_puts(&o, "Memory: model states and overhead need ");
		tb_rfmt(&o, TB_RF_BYTES, m->per_gpu.total, NULL);
		tb_buf_puts(&o, " per GPU of ");
		tb_rfmt(&o, TB_RF_BYTES, m->capacity_bytes, NULL);
		tb_buf_puts(&o, "; activations are unknown for a model given only by its parameter count.");
	} else if (m->fits) {
		oc = TB_OUTCOME_GOOD;
		tb_buf_puts(&o, "Fits in memory: ");
		tb_rfmt(&o, TB_RF_BYTES, m->per_gpu.total, NULL);
		tb_buf_puts(&o, " per GPU of ");
		tb_rfmt(&o, TB_RF_BYTES, m->capacity_bytes, NULL);
		tb_buf_puts(&o, ", leaving ");
		tb_rfmt(&o, TB_RF_BYTES, m->headroom_bytes > 0 ? m->headroom_bytes : 0, NULL);
		tb_buf_puts(&o, " headroom.");
	} else {
		oc = TB_OUTCOME_BAD;
		tb_buf_puts(&o, "Does not fit in memory: needs ");
		tb_rfmt(&o, TB_RF_BYTES, m->per_gpu.total, NULL);
		tb_buf_puts(&o, " per GPU, but the card holds ");
		tb_rfmt(&o, TB_RF_BYTES, m->capacity_bytes, NULL);
		tb_buf_puts(&o, ".");
	}
	r->verdict[n].outcome = oc;
	r->verdict[n++].text = tb_buf_detach(&o, NULL);

	/* time: the verdicts count failures and checkpoints (b->losses), and
	 * give the chance of meeting each limit when the confidence figures
	 * are there.  Met at the most likely MFU but with less than a 90% chance
	 * is a warning; without the chance, missing at the low MFU is. */
	const tb_time *tm = &b->time;
	const tb_losses *l = &b->losses;
	const tb_risk *rk = &b->risk;
	if (cannot) {
		oc = in->plan.has_deadline ? TB_OUTCOME_BAD : TB_OUTCOME_NONE;
		tb_buf_puts(&o, in->plan.has_deadline ? "Misses the deadline: it cannot run on these GPUs."
		                                      : "No time: it cannot run on these GPUs.");
	} else if (!tm->known) {
		/* no time (no peak for the precision, an overflow): no verdict */
		oc = in->plan.has_deadline ? TB_OUTCOME_WARN : TB_OUTCOME_NONE;
		tb_buf_puts(&o, in->plan.has_deadline ? "Whether it meets the deadline of "
		                                      : "No deadline set; the training time");
		if (in->plan.has_deadline) {
			tb_rfmt(&o, TB_RF_DAYS, in->plan.deadline_s, NULL);
			tb_buf_puts(&o, " is");
		} else {
			tb_buf_puts(&o, " is");
		}
		tb_buf_puts(&o, " unknown: there is no time estimate (see the warnings).");
	} else if (!l->known) {
		oc = tm->has_deadline ? TB_OUTCOME_BAD : TB_OUTCOME_NONE;
		tb_buf_puts(&o, tm->has_deadline ? "Misses the deadline of " : "No deadline set");
		if (tm->has_deadline)
			tb_rfmt(&o, TB_RF_DAYS, tm->deadline_s, NULL);
		tb_buf_puts(&o, ": failures come faster than the run can restart and redo its work, "
		                "so it never finishes (see the warnings).");
	} else if (tm->has_deadline) {
		tb_verdict v = tb_budget_verdict(b, true);
		oc = v == TB_VERDICT_NO ? TB_OUTCOME_BAD : v == TB_VERDICT_AT_RISK ? TB_OUTCOME_WARN
		                                                                   : TB_OUTCOME_GOOD;
		tb_buf_puts(&o, v != TB_VERDICT_NO ? "Meets the deadline of " : "Misses the deadline of ");
		tb_rfmt(&o, TB_RF_DAYS, tm->deadline_s, NULL);
		if (rk->known) {
			tb_buf_puts(&o, v != TB_VERDICT_NO ? " with " : " (meets it with ");
			tb_fmt_prob(&o, rk->p_meets_deadline);
			tb_buf_puts(&o, v != TB_VERDICT_NO ? " probability" : " probability)");
		}
		tb_buf_puts(&o, ": training takes ");
		tb_rfmt(&o, TB_RF_DAYS, tb_budget_expected(b).seconds, NULL);
		char basis[96];
		tb_budget_expected_basis(b, basis, sizeof basis);
		tb_buf_printf(&o, " %s with failures and checkpoints", basis);
		if (!staged) {
			tb_buf_puts(&o, " (");
			tb_rfmt(&o, TB_RF_DAYS, tm->seconds[1], NULL);
			tb_buf_puts(&o, " of compute at ");
			tb_rfmt(&o, TB_RF_PCT, tm->mfu[1], NULL);
			tb_buf_puts(&o, " MFU)");
		}
		if (rk->known) {
			tb_buf_puts(&o, "; P90 ");
			tb_rfmt(&o, TB_RF_DAYS, rk->days_p90 * 86400, NULL);
		} else if (v == TB_VERDICT_AT_RISK && !staged) {
			tb_buf_puts(&o, ", but ");
			tb_rfmt(&o, TB_RF_DAYS, l->seconds[0], NULL);
			tb_buf_puts(&o, " at the low end of the range (");
			tb_rfmt(&o, TB_RF_PCT, tm->mfu[0], NULL);
			tb_buf_puts(&o, " MFU), which misses it");
		}
		if (!tm->meets_deadline && !staged && tm->gpus_for_deadline_compute > 0) {
			tb_buf_puts(&o, "; on compute alone, meeting it takes ");
			tb_rfmt(&o, TB_RF_GROUPED, tm->gpus_for_deadline_compute, NULL);
			tb_buf_puts(&o, " GPUs");
			if (tm->gpus_for_deadline != tm->gpus_for_deadline_compute) {
				/* the count the scenario can run: its global batch whole */
				tb_buf_puts(&o, ", ");
				tb_rfmt(&o, TB_RF_GROUPED, tm->gpus_for_deadline, NULL);
				tb_buf_puts(&o, " with the global batch of ");
				tb_rfmt(&o, TB_RF_GROUPED, (double)in->training.global_batch, NULL);
				tb_buf_puts(&o, " (each replica a whole number of micro-batches");
				if (b->perf.known)
					tb_buf_puts(&o, ", timed by the step-time model");
				tb_buf_puts(&o, ")");
				if (tm->global_batch_for_compute > 0) {
					tb_buf_puts(&o, "; or set training.global_batch to ");
					tb_rfmt(&o, TB_RF_GROUPED, tm->global_batch_for_compute, NULL);
					tb_buf_puts(&o, " to run on ");
					tb_rfmt(&o, TB_RF_GROUPED, tm->gpus_for_deadline_compute, NULL);
				}
			}
		}
		tb_buf_puts(&o, ".");
	} else {
		oc = TB_OUTCOME_NONE;
		tb_buf_puts(&o, "No deadline set: training takes ");
		tb_rfmt(&o, TB_RF_DAYS, tb_budget_expected(b).seconds, NULL);
		char basis[96];
		tb_budget_expected_basis(b, basis, sizeof basis);
		tb_buf_printf(&o, " %s", basis);
		tb_buf_puts(&o, " on ");
		tb_rfmt(&o, TB_RF_GROUPED, (double)in->hardware.count, NULL);
		tb_buf_puts(&o, " GPUs with failures and checkpoints");
		if (rk->known) {
			tb_buf_puts(&o, " (P90 ");
			tb_rfmt(&o, TB_RF_DAYS, rk->days_p90 * 86400, NULL);
			tb_buf_puts(&o, ")");
		}
		tb_buf_puts(&o, ".");
	}
	r->verdict[n].outcome = oc;
	r->verdict[n++].text = tb_buf_detach(&o, NULL);

	/* cost, with losses: seconds[0] is the low MFU, so cost[2] is the
	 * cheapest */
	if (cannot) {
		oc = in->plan.has_budget ? TB_OUTCOME_BAD : TB_OUTCOME_NONE;
		tb_buf_puts(&o, "No cost is priced: it cannot run on these GPUs.");
	} else if (!tm->known) {
		oc = in->plan.has_budget ? TB_OUTCOME_WARN : TB_OUTCOME_NONE;
		tb_buf_puts(&o, "The cost is unknown: there is no time estimate (see the warnings)");
		if (in->plan.has_budget) {
			tb_buf_puts(&o, ", so whether it stays within the budget of ");
			tb_rmoney(&o, r, in->plan.budget);
			tb_buf_puts(&o, " is too");
		}
		tb_buf_puts(&o, ".");
	} else if (!l->known) {
		oc = tm->has_budget ? TB_OUTCOME_BAD : TB_OUTCOME_NONE;
		tb_buf_puts(&o, "The cost is unbounded: the run never finishes.");
	} else {
		char *lo = tb_rmoneys(r, l->cost[2]);
		char *hi = tb_rmoneys(r, l->cost[0]);
		/* expected: the mean of the simulated runs (issue 19) */
		char *ex = tb_rmoneys(r, tb_budget_expected(b).cost);
		/* a single MFU, a bill or stages: the expected figure alone */
		if (strcmp(lo, hi) == 0 || staged || tb_bill_any(&b->bill_in))
			tb_buf_printf(&o, "Costs %s", ex);
		else
			tb_buf_printf(&o, "Costs %s to %s (%s expected)", lo, hi, ex);
		free(lo);
		free(hi);
		free(ex);
		tb_buf_puts(&o, " with failures and checkpoints");
		if (rk->known) {
			tb_buf_puts(&o, "; P50 cost ");
			tb_rmoney(&o, r, rk->cost_p50);
			tb_buf_puts(&o, ", P90 ");
			tb_rmoney(&o, r, rk->cost_p90);
		}
		if (tm->has_budget) {
			tb_verdict v = tb_budget_verdict(b, false);
			oc = v == TB_VERDICT_NO ? TB_OUTCOME_BAD : v == TB_VERDICT_AT_RISK ? TB_OUTCOME_WARN
			                                                                   : TB_OUTCOME_GOOD;
			tb_buf_puts(&o, v != TB_VERDICT_NO ? ", within the budget of " : ", over the budget of ");
			tb_rmoney(&o, r, tm->budget);
			if (rk->known) {
				tb_buf_puts(&o, v != TB_VERDICT_NO ? " with " : " (within it with ");
				tb_fmt_prob(&o, rk->p_within_budget);
				tb_buf_puts(&o, v != TB_VERDICT_NO ? " probability" : " probability)");
			} else if (v == TB_VERDICT_AT_RISK && !staged) {
				tb_buf_puts(&o, " at the most likely MFU but over it at the low end (");
				tb_rfmt(&o, TB_RF_PCT, tm->mfu[0], NULL);
				tb_buf_puts(&o, " MFU)");
			}
		} else {
			oc = TB_OUTCOME_NONE;   /* nothing to judge the cost against */
			tb_buf_puts(&o, "; no budget set");
		}
		tb_buf_puts(&o, ".");
	}
	r->verdict[n].outcome = oc;
	r->verdict[n++].text = tb_buf_detach(&o, NULL);
	r->meta.nverdict = n;
	r->meta.verdict = r->verdict;
}

static void S_key(tb_report *r, const char *label, char *value)
{
	size_t n = r->meta.nkey;
	if (n >= TB_REPORT_KEY_MAX) {
		free(value);
		return;
	}
	r->key_labels[n] = tb_xstrdup(label);
	r->key_values[n] = value;
	r->meta.nkey = n + 1;
}

static void S_key_figures(tb_report *r)
{
	const tb_budget *b = r->b;
	S_key(r, "Parameters", tb_rfmts(TB_RF_COUNT, b->params.total, NULL));
	S_key(r, "Training tokens", tb_rfmts(TB_RF_COUNT, r->sc->inputs.training.tokens, NULL));
	tb_buf o;
	tb_buf_init(&o);
	tb_rfmt(&o, TB_RF_SCI, b->flops.total_model, NULL);
	tb_buf_puts(&o, " FLOP");
	S_key(r, "Training compute (model FLOPs)", tb_buf_detach(&o, NULL));
	if (b->n_stages > 0) {
		/* the whole run: its stages added up (stages.h) */
		const tb_expected *x = &b->staged_total;
		S_key(r, "Memory per GPU (the most of any stage)",
		      tb_rfmts(TB_RF_BYTES, b->stages[b->stage_memory_max].memory_per_gpu_bytes, NULL));
		if (!x->known) {
			S_key(r, "Wall clock, cost and energy", tb_rstrf(!b->stages_all_run
			      ? "none: a stage cannot run on these GPUs" : "unknown (see the warnings)"));
		} else {
			char lab[64];
			snprintf(lab, sizeof lab, "Wall clock, %d stages with failures", b->n_stages);
			S_key(r, lab, tb_rfmts(TB_RF_DAYS, x->seconds, NULL));
			S_key(r, "GPU-hours, every stage", tb_rfmts(TB_RF_GROUPED, x->gpu_hours, NULL));
			S_key(r, "Cost, every stage", tb_rmoneys(r, x->cost));
			if (b->time.energy_known) {
				tb_rfmt(&o, TB_RF_GROUPED, x->energy_kwh, NULL);
				tb_buf_puts(&o, " kWh");
				S_key(r, "Energy, every stage", tb_buf_detach(&o, NULL));
			}
		}
	} else if (b->memory.activations_known)
		S_key(r, "Memory per GPU", tb_rfmts(TB_RF_BYTES, b->memory.per_gpu.total, NULL));
	else
		S_key(r, "Memory per GPU without activations",
		      tb_rfmts(TB_RF_BYTES, b->memory.per_gpu.total, NULL));
	if (b->n_stages > 0) {
		/* said above */
	} else if (!b->time.known) {
		/* nothing priced: no time, cost or energy (a layout that cannot
		 * run, no peak for the precision, an overflow) */
		S_key(r, "Wall clock, cost and energy", tb_rstrf(b->answer.decided && !b->answer.runs
		      ? "none: it cannot run on these GPUs" : "unknown (see the warnings)"));
	} else {
		S_key(r, "Wall clock (most likely MFU)", tb_rfmts(TB_RF_DAYS, b->time.seconds[1], NULL));
		S_key(r, "With failures and checkpoints", b->losses.known
		      ? tb_rfmts(TB_RF_DAYS, b->losses.seconds[1], NULL) : tb_rstrf("never finishes"));
		S_key(r, "GPU-hours (most likely MFU)", tb_rfmts(TB_RF_GROUPED, b->time.gpu_hours[1], NULL));
		S_key(r, "Cost (most likely MFU)", tb_rmoneys(r, b->time.cost[1]));
		if (b->losses.known)
			S_key(r, "Cost with failures and checkpoints", tb_rmoneys(r, b->losses.cost[1]));
		tb_rfmt(&o, TB_RF_GROUPED, b->time.energy_kwh[1], NULL);
		tb_buf_puts(&o, " kWh");
		/* the GPUs at their TDP (x PUE): about half a DGX H100 node's draw
		 * (NVIDIA DGX H100 datasheet: 10.2 kW for 8 x 700 W GPUs) */
		const tb_hardware *hw = &r->sc->inputs.hardware;
		S_key(r, hw->node_power_w > 0 ? "Node energy at the wall (most likely MFU)"
		         : tb_hardware_gpu_watts(hw) < hw->gpu.tdp_w ? "GPU energy at the power limit (most likely MFU)"
		         : "GPU energy at TDP (most likely MFU)",
		      tb_buf_detach(&o, NULL));
		if (tb_bill_any(&b->bill_in))
			S_key(r, "Billed (booked, ablations, storage)", tb_rmoneys(r, tb_budget_expected(b).cost));
	}
	r->meta.key_labels = (const char *const *)r->key_labels;
	r->meta.key_values = (const char *const *)r->key_values;
}

void tb_rsummary_meta(tb_report *r)
{
	S_verdict(r);
	S_key_figures(r);
}

/* ---- title and verdict blocks ------------------------------------------ */

/* Inline content built as nodes, never parsed: a title holding Markdown
 * comes out literally.  One line: newlines become spaces. */
static void S_add_text(cmark_node *parent, cmark_node_type wrap, const char *s)
{
	tb_buf t;
	tb_buf_init(&t);
	tb_template_put_utf8(&t, s ? s : "", s ? strlen(s) : 0);
	for (size_t i = 0; i < t.len; i++)
		if (t.ptr[i] == '\n' || t.ptr[i] == '\r')
			t.ptr[i] = ' ';
	cmark_node *n = cmark_node_new(wrap == CMARK_NODE_CODE ? CMARK_NODE_CODE : CMARK_NODE_TEXT);
	cmark_node_set_literal(n, t.ptr);
	tb_buf_release(&t);
	if (wrap == CMARK_NODE_STRONG) {
		cmark_node *w = cmark_node_new(CMARK_NODE_STRONG);
		cmark_node_append_child(w, n);
		n = w;
	}
	cmark_node_append_child(parent, n);
}

/* The title heading and its byline, as the default template wrote them
 * before {{title_block}} existed: Markdown and HTML are unchanged. */
void tb_rsummary_title_block(tb_report *r, cmark_node *into)
{
	const tb_scenario *sc = r->sc;
	tb_rblock_new(r, TB_BLOCK_TITLE, into);
	cmark_node *node = cmark_node_last_child(into);
	cmark_node *h = cmark_node_new(CMARK_NODE_HEADING);
	cmark_node_set_heading_level(h, 1);
	S_add_text(h, CMARK_NODE_TEXT, r->meta.title && *r->meta.title ? r->meta.title : "n/a");
	cmark_node_append_child(node, h);
	if (sc->author && *sc->author) {
		cmark_node *p = cmark_node_new(CMARK_NODE_PARAGRAPH);
		S_add_text(p, CMARK_NODE_STRONG, "Author:");
		S_add_text(p, CMARK_NODE_TEXT, " ");
		S_add_text(p, CMARK_NODE_TEXT, sc->author);
		cmark_node_append_child(node, p);
	}
	cmark_node *p = cmark_node_new(CMARK_NODE_PARAGRAPH);
	S_add_text(p, CMARK_NODE_STRONG, "Date:");
	S_add_text(p, CMARK_NODE_TEXT, " ");
	S_add_text(p, CMARK_NODE_TEXT, r->date);
	S_add_text(p, CMARK_NODE_TEXT, " \xC2\xB7 ");
	S_add_text(p, CMARK_NODE_STRONG, "Tool:");
	S_add_text(p, CMARK_NODE_TEXT, " trainbudget " TB_VERSION " \xC2\xB7 ");
	S_add_text(p, CMARK_NODE_STRONG, "Scenario:");
	S_add_text(p, CMARK_NODE_TEXT, " ");
	S_add_text(p, CMARK_NODE_CODE, sc->name && *sc->name ? sc->name : "n/a");
	S_add_text(p, CMARK_NODE_TEXT, ", inputs SHA-256 ");
	S_add_text(p, CMARK_NODE_CODE, r->signoff.digest[0] ? r->signoff.digest : "n/a");
	cmark_node_append_child(node, p);
	/* The file as written says nothing of --set, which changed what was
	 * priced: say it next to the hash that covers it.  Outside the title
	 * block, so the PDF (which draws its own title block from the meta)
	 * shows it on the first page too. */
	tb_rsummary_overrides(sc, "after the file was read; the inputs SHA-256 covers them", into);
}

void tb_rsummary_overrides(const tb_scenario *sc, const char *why, cmark_node *into)
{
	if (sc->nsets == 0)
		return;
	cmark_node *q = cmark_node_new(CMARK_NODE_PARAGRAPH);
	S_add_text(q, CMARK_NODE_STRONG, "Overrides:");
	for (size_t i = 0; i < sc->nsets; i++) {
		S_add_text(q, CMARK_NODE_TEXT, i ? ", " : " ");
		tb_buf o;
		tb_buf_init(&o);
		const char *set = sc->sets[i] ? sc->sets[i] : "";
		if (!strchr(set, '='))
			tb_buf_puts(&o, "--unset ");
		tb_scenario_public_override(&o, set);
		S_add_text(q, CMARK_NODE_CODE, o.ptr);
		tb_buf_release(&o);
	}
	tb_buf w;
	tb_buf_init(&w);
	tb_buf_printf(&w, " (applied with --set and --unset %s)", why);
	S_add_text(q, CMARK_NODE_TEXT, w.ptr);
	tb_buf_release(&w);
	cmark_node_append_child(into, q);
}

/* The verdict and key-figure tables, inside one block the PDF draws as its
 * coloured verdict box. */
void tb_rsummary_verdict_block(tb_report *r, cmark_node *into)
{
	tb_rblock_new(r, TB_BLOCK_VERDICT, into);
	cmark_node *node = cmark_node_last_child(into);
	tb_block *t1 = tb_rblock_new(r, TB_BLOCK_TABLE, node);
	S_table_verdict(r, &t1->table);
	tb_block *t2 = tb_rblock_new(r, TB_BLOCK_TABLE, node);
	S_table_key(r, &t2->table);
}
