/* render_json_inputs.c: `inputs`, the scenario as the calculators read
 * it (docs/json.md), in the budget's own document (render_json.c).  Kept
 * apart because it echoes every key the loader knows, and grows with it. */
#include "json_write.h"
#include "trainbudget/gpus.h"
#include "trainbudget/tuning.h"

/* The checked scenario echoed back, defaults filled in: its layout is the
 * answer's, so a reader sees what was priced, not what was written. */
void tb_render_json_inputs(tb_jw *j, const tb_scenario *sc)
{
	const tb_inputs *in = &sc->inputs;
	const tb_model *m = &in->model;
	tb_jw_obj(j, "inputs");
	tb_jw_obj(j, "model");
	tb_jw_bool(j, "has_shape", m->has_shape);
	tb_jw_str(j, "preset", m->preset[0] ? m->preset : NULL);
	if (!m->has_shape) {
		tb_jw_num(j, "params", m->params_count);
	} else {
		tb_jw_num(j, "layers", (double)m->layers);
		tb_jw_num(j, "hidden", (double)m->hidden);
		tb_jw_num(j, "heads", (double)m->heads);
		tb_jw_num(j, "kv_heads", (double)m->kv_heads);
		tb_jw_num(j, "head_dim", (double)m->head_dim);
		tb_jw_num(j, "ffn_hidden", (double)m->ffn_hidden);
		tb_jw_num(j, "vocab", (double)m->vocab);
		tb_jw_num(j, "max_positions", (double)m->max_positions);
		tb_jw_num(j, "experts", (double)m->experts);
		tb_jw_num(j, "experts_per_token", (double)m->experts_per_token);
		tb_jw_str(j, "mlp", tb_mlp_name(m->mlp));
		tb_jw_str(j, "norm", tb_norm_name(m->norm));
		tb_jw_str(j, "positions", tb_positions_name(m->positions));
		tb_jw_bool(j, "tied_embeddings", m->tied_embeddings);
		tb_jw_bool(j, "bias", m->bias);
		tb_jw_bool(j, "qkv_bias", m->qkv_bias);
		/* the architecture details of inputs.h; 0 / null where unused */
		static const char *const qkn[] = { "none", "head", "full" };
		tb_jw_str(j, "qk_norm", (unsigned)m->qk_norm < 3 ? qkn[m->qk_norm] : "none");
		tb_jw_num(j, "norms_per_layer", (double)(m->norms_per_layer > 0 ? m->norms_per_layer : 2));
		tb_jw_num(j, "window", (double)m->window);
		tb_jw_num(j, "window_layers", (double)m->window_layers);
		if (m->window > 0)
			tb_jw_str(j, "local_attention", m->local_attn == TB_LOCAL_CHUNKED ? "chunked" : "sliding");
		else
			tb_jw_null(j, "local_attention");
		tb_jw_bool(j, "mla", m->kv_lora_rank > 0);
		tb_jw_num(j, "q_lora_rank", (double)m->q_lora_rank);
		tb_jw_num(j, "kv_lora_rank", (double)m->kv_lora_rank);
		tb_jw_num(j, "qk_nope_dim", (double)m->qk_nope_dim);
		tb_jw_num(j, "qk_rope_dim", (double)m->qk_rope_dim);
		tb_jw_num(j, "v_head_dim", (double)m->v_head_dim);
		tb_jw_num(j, "expert_ffn_hidden", (double)m->expert_ffn_hidden);
		tb_jw_num(j, "dense_layers", (double)m->dense_layers);
		tb_jw_num(j, "shared_ffn_hidden", (double)m->shared_ffn_hidden);
		tb_jw_num(j, "mtp_modules", (double)m->mtp_modules);
	}
	tb_jw_obj_end(j);

	const tb_training *t = &in->training;
	tb_jw_obj(j, "training");
	tb_jw_num(j, "tokens", t->tokens);
	tb_jw_num(j, "seq_len", (double)t->seq_len);
	tb_jw_num(j, "global_batch", (double)t->global_batch);
	tb_jw_num(j, "global_batch_tokens", (double)t->global_batch * (double)t->seq_len);
	tb_jw_num(j, "micro_batch", (double)t->micro_batch);
	tb_jw_str(j, "precision", tb_precision_name(t->precision));
	tb_jw_str(j, "grad_dtype", tb_grad_dtype_name(tb_grad_dtype_of(t)));
	tb_jw_str(j, "optimizer", tb_optimizer_name(t->optimizer));
	tb_jw_str(j, "checkpointing", tb_checkpointing_name(t->checkpointing));
	tb_jw_str(j, "selective_policy", tb_selective_name(t->selective_policy));
	tb_jw_numk(j, "recompute_layers", (double)t->recompute_layers,
	       t->checkpointing == TB_CKPT_FULL && t->recompute_layers > 0);
	tb_jw_str(j, "attention_flops", tb_attention_flops_name(t->attention_flops));
	tb_jw_bool(j, "flash_attention", t->flash_attention);
	tb_jw_str(j, "attention_kernel", tb_attn_kernel_name(t->attention_kernel));
	tb_jw_str(j, "fp8_recipe", tb_fp8_recipe_name(t->fp8_recipe));
	tb_jw_bool(j, "grad_accumulation_fusion", !t->no_grad_accum_fusion);
	tb_jw_str(j, "kernels", tb_kernels_name(t->eager_kernels));
	tb_jw_str(j, "cross_entropy", tb_cross_entropy_name(tb_cross_entropy_eager(in)));
	tb_jw_bool(j, "activation_func_fp8_input_store", t->act_fp8_store);
	tb_jw_bool(j, "fp8_param_gather", t->fp8_param_gather);
	tb_jw_str(j, "fp8_attention", tb_fp8_attn_name(t->fp8_attention));
	tb_jw_bool(j, "fp8_head", t->fp8_head);
	tb_jw_bool(j, "dropout", t->dropout);
	tb_jw_numk(j, "checkpoint_interval_s", t->checkpoint_interval_s, t->checkpoint_interval_s > 0);
	tb_jw_str(j, "method", tb_method_name(t->method));
	if (tb_method_adapters(t->method)) {
		tb_jw_obj(j, "lora");
		tb_jw_num(j, "rank", (double)t->lora.rank);
		tb_jw_num(j, "alpha", t->lora.alpha);
		tb_jw_arr_inline(j, "targets");
		if (t->lora.all_linear)
			tb_jw_str(j, NULL, "all-linear");
		for (int b = 0; b < TB_LORA_TARGETS; b++)
			if (!t->lora.all_linear && (t->lora.targets & (1u << b)))
				tb_jw_str(j, NULL, tb_lora_target_name(b));
		tb_jw_arr_end(j);
		tb_jw_num(j, "dropout", t->lora.dropout);
		tb_jw_str(j, "kernels", tb_kernels_name(tb_lora_eager(t)));
		tb_jw_obj_end(j);
	} else {
		tb_jw_null(j, "lora");
	}
	tb_jw_str(j, "moe_routing", tb_moe_routing_name(t->moe_routing));
	tb_jw_numk(j, "moe_load_factor", t->moe_load_factor, t->moe_load_factor > 0);
	tb_jw_bool(j, "packing", t->packing);
	tb_jw_numk(j, "avg_seq_len", t->avg_seq_len, t->avg_seq_len > 0);
	tb_jw_num(j, "data_tokens", t->data_tokens);
	tb_jw_num(j, "padding_fraction", t->padding_fraction);
	tb_jw_str(j, "quantization", tb_quant_name(t->quantization));
	tb_jw_bool(j, "double_quant", (t->quantization == TB_QUANT_NF4 || t->quantization == TB_QUANT_FP4) &&
	                          t->double_quant);
	tb_jw_obj_end(j);

	const tb_hardware *h = &in->hardware;
	tb_jw_obj(j, "hardware");
	tb_jw_obj(j, "gpu");
	tb_jw_str(j, "name", h->gpu.name);
	tb_jw_str(j, "label", h->gpu.label);
	tb_jw_obj(j, "peak_flops");
	for (int d = 0; d < TB_DTYPE_COUNT; d++)
		tb_jw_numk(j, tb_dtype_name((tb_dtype)d), h->gpu.peak_flops[d], h->gpu.peak_flops[d] > 0);
	tb_jw_obj_end(j);
	tb_jw_num(j, "memory_bytes", h->gpu.memory_bytes);
	tb_jw_num(j, "bandwidth_bytes_per_s", h->gpu.bandwidth_bytes_per_s);
	tb_jw_numk(j, "tdp_w", h->gpu.tdp_w, h->gpu.tdp_w > 0);
	tb_jw_numk(j, "sms", (double)tb_gpu_sms(&h->gpu), tb_gpu_sms(&h->gpu) > 0);
	tb_jw_str(j, "source", h->gpu.source);
	tb_jw_str(j, "memory_source", h->gpu.memory_source);
	tb_jw_obj_end(j);
	tb_jw_num(j, "count", (double)h->count);
	tb_jw_numk(j, "power_limit_w", h->power_limit_w, h->power_limit_w > 0);
	if (h->cudnn_version > 0) {
		char b[16];
		tb_jw_str(j, "cudnn", tb_gpus_cudnn_name(h->cudnn_version, b));
	} else {
		tb_jw_null(j, "cudnn");
	}
	/* the scenario's range only when it is the basis: a default range the
	 * figures never used is not an input (issue 19) */
	if (h->mfu_predicted)
		tb_jw_null(j, "mfu");
	else
		tb_jw_nums3(j, "mfu", h->mfu, true);
	tb_jw_str(j, "mfu_source", h->mfu_predicted ? "predicted" : "assumed");
	tb_jw_obj(j, "node");
	tb_jw_numk(j, "gpus", (double)h->node.gpus, h->node.gpus > 0);
	tb_jw_numk(j, "nvlink_bytes_per_s", h->node.nvlink_bytes_per_s, h->node.nvlink_bytes_per_s > 0);
	tb_jw_numk(j, "network_bytes_per_s", h->node.network_bytes_per_s, h->node.network_bytes_per_s > 0);
	tb_jw_obj_end(j);
	tb_jw_num(j, "price_per_gpu_hour", h->price_per_gpu_hour);
	tb_jw_str(j, "currency", h->currency);
	tb_jw_num(j, "pue", h->pue);
	tb_jw_num(j, "overhead_bytes", h->overhead_bytes);
	tb_jw_num(j, "failures_per_node_day", h->failures_per_node_day);
	tb_jw_num(j, "checkpoint_bytes_per_s", h->checkpoint_bytes_per_s);
	tb_jw_num(j, "restart_s", h->restart_s);
	tb_jw_obj_end(j);

	const tb_parallelism *p = &in->parallelism;
	tb_jw_obj(j, "parallelism");
	tb_jw_num(j, "tensor", (double)p->tensor);
	tb_jw_num(j, "pipeline", (double)p->pipeline);
	tb_jw_num(j, "virtual_pipeline", (double)(p->virtual_pipeline > 1 ? p->virtual_pipeline : 1));
	tb_jw_str(j, "pipeline_layout", p->layout.pipeline > 0 ? p->layout.text : NULL);
	tb_jw_num(j, "context", (double)(p->context > 1 ? p->context : 1));
	tb_jw_num(j, "expert", (double)p->expert);
	tb_jw_num(j, "expert_tensor", (double)tb_perf_expert_tensor(p->expert_tensor, p->tensor));
	tb_jw_num(j, "data", (double)p->data);
	tb_jw_bool(j, "sequence_parallel", p->sequence_parallel);
	tb_jw_num(j, "zero", p->zero);
	tb_jw_numk(j, "shard_group", (double)p->shard_group, p->shard_group > 0);
	tb_jw_numk(j, "bucket_size", (double)p->bucket_size, p->bucket_size > 0);
	tb_jw_bool(j, "no_sync", p->no_sync);
	tb_jw_str(j, "framework", p->framework != TB_FW_ANY ? tb_framework_name(p->framework) : NULL);
	tb_jw_bool(j, "overlap_dp", !p->no_overlap_dp);
	tb_jw_str(j, "cuda_graph", tb_cuda_graph_name(p->cuda_graph));
	tb_jw_bool(j, "overlap_ep", p->overlap_ep);
	tb_jw_bool(j, "overlap_tp", p->overlap_tp);
	tb_jw_bool(j, "overlap_tp_qkv", tb_overlap_tp_qkv(p));
	tb_jw_bool(j, "overlap_tp_dgrad", tb_overlap_tp_dgrad(p));
	/* the SMs each overlapped GEMM gives up, as configured (0 without
	 * the overlap or sequence parallelism); priced where the card's
	 * count is known, hardware.gpu.sms */
	tb_jw_obj(j, "overlap_tp_sms");
	for (int g = 0; g < TB_UB_COUNT; g++)
		tb_jw_num(j, tb_ub_gemm_name((tb_ub_gemm)g), (double)tb_overlap_tp_sms(p, (tb_ub_gemm)g));
	tb_jw_obj_end(j);
	tb_jw_str(j, "dispatcher", tb_dispatcher_name(p->dispatcher));
	tb_jw_str(j, "cp_comm_type", tb_cp_comm_name(p->cp_comm));
	tb_jw_obj_end(j);

	const tb_plan *pl = &in->plan;
	tb_jw_obj(j, "plan");
	tb_jw_numk(j, "deadline_s", pl->deadline_s, pl->has_deadline);
	tb_jw_numk(j, "budget", pl->budget, pl->has_budget);
	tb_jw_arr_inline(j, "overtrain");
	for (int i = 0; i < pl->n_overtrain && i < TB_OVERTRAIN_MAX; i++)
		tb_jw_num(j, NULL, pl->overtrain[i]);
	tb_jw_arr_end(j);
	tb_jw_numk(j, "inference_tokens", pl->inference_tokens, pl->has_inference);
	tb_jw_obj_end(j);

	const tb_measured *me = &in->measured;
	tb_jw_obj(j, "measured");
	tb_jw_numk(j, "step_time_s", me->step_time_s, me->has_step_time);
	tb_jw_numk(j, "peak_memory_bytes", me->peak_memory_bytes, me->has_peak_memory);
	tb_jw_obj_end(j);

	/* Defaults changed to fit the rest of the scenario: values as the
	 * keys above hold them, in the scenario's spelling. */
	tb_jw_arr(j, "adapted");
	for (size_t i = 0; i < sc->nadapted; i++) {
		const tb_scenario_adapted *a = &sc->adapted[i];
		tb_jw_obj(j, NULL);
		tb_jw_str(j, "key", a->key);
		tb_jw_str(j, "value", a->value);
		tb_jw_str(j, "default", a->deflt);
		tb_jw_str(j, "why", a->why);
		tb_jw_obj_end(j);
	}
	tb_jw_arr_end(j);
	tb_jw_obj_end(j);
}