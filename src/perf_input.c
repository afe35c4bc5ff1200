/* perf_input.c: a step-time input (perf.h) from a checked scenario: the
 * model's shape, the batch, the layout, the bytes each precision moves,
 * the card's peaks and its node's links (gpus.c where the scenario does
 * not say). */
#include "trainbudget/perf.h"

#include <math.h>
#include <string.h>

#include "trainbudget/gpus.h"

static int64_t S_at_least_1(int64_t v)
{
	return v > 1 ? v : 1;
}

/* Optimizer-state bytes per parameter in fp32 (adamw: m and v). */
static double S_state_bytes(tb_optimizer o)
{
	switch (o) {
	case TB_OPT_ADAMW: return 8;
	case TB_OPT_ADAMW_8BIT: return 2;
	case TB_OPT_ADAFACTOR: return 0;   /* factored: rows + columns, not per parameter */
	case TB_OPT_SGD: return 0;
	case TB_OPT_SGD_MOMENTUM: return 4;
	case TB_OPT_LION: return 4;
	}
	return 8;
}

/* The training method's fields: the adapted modules' shapes summed by
 * kind, the adapters per layer, the quantized weights' bytes. */
static void S_method(const tb_inputs *in, tb_perf_input *out)
{
	const tb_training *tr = &in->training;
	out->method = tr->method;
	if (tr->quantization != TB_QUANT_NONE && tr->method != TB_METHOD_FULL) {
		double stored = tb_quant_bytes_per_param(tr->quantization, tr->double_quant,
		                                         (double)in->model.hidden);
		/* FSDP and DeepSpeed gather the weights as stored; fp8 weights
		 * go to the fp8 GEMMs as they are, nothing dequantized */
		out->param_bytes = stored;
		if (tr->quantization != TB_QUANT_FP8)
			out->quant_bytes = stored;
	}
	tb_lora_count lc;
	const char *why;
	if (!tb_method_adapters(tr->method) || !in->model.has_shape ||
	    !tb_lora_count_compute(&in->model, &tr->lora, &lc, &why))
		return;
	out->lora_rank = tr->lora.rank;
	out->lora_dropout = tr->lora.dropout > 0;
	for (int i = 0; i < lc.n_dense; i++) {
		const tb_lora_module *x = &lc.dense_mods[i];
		out->lora_io[0][x->row_parallel ? 2 : 0] += x->in;
		out->lora_io[0][x->row_parallel ? 3 : 1] += x->out;
	}
	for (int i = 0; i < lc.n_moe; i++) {
		const tb_lora_module *x = &lc.moe_mods[i];
		double *io = out->lora_io[x->expert ? 2 : 1];
		io[x->row_parallel ? 2 : 0] += x->in;
		io[x->row_parallel ? 3 : 1] += x->out;
	}
	double L = (double)in->model.layers;
	out->adapters_dense_per_layer = L > 0 ? lc.dense / L : 0;
	out->adapters_expert_per_layer = L > 0 ? lc.expert / L : 0;
}

/* fp8's scaling casts, in HBM bytes an element: a linear's input is cast
 * forward and its output gradient backward, each read in 16 bits (ab) and
 * written in fp8 in the two layouts its GEMMs read.  Transformer Engine
 * writes both in one pass (cast_transpose: ab + 1 + 1, the amax taken on
 * the way under delayed scaling, in a pass of its own before it under
 * current scaling; MXFP8's and the block recipes' scales 1 B a 32 or 4 B a
 * 128 elements) and casts a weight once a step (is_first_microbatch).
 * torchao counts as its roofline does (torchao/testing/training/
 * roofline_utils.py, with its fusion modelling: the first read fused into
 * the op before, as torch.compile does for a norm or an activation before
 * a linear; every published torchao run compiles): per tensor one pass
 * writing both layouts (ab + 1 + 1); per row the fp8 rows and a 16-bit
 * transpose (1 + ab), then the transpose cast (ab + 1); MX and blocks one
 * layout (1), then the other (ab + 1); and it casts each weight every
 * micro-batch, which it reads unfused (per tensor amax, then each layout,
 * ab + (ab + 1) + (ab + 1); per row (ab + 1) + 2ab + (ab + 1); MX and
 * blocks 2 (ab + 1)), except that per tensor (under FSDP, the only place
 * torchao's per-tensor recipe is priced) it casts this rank's shard before
 * gathering it in fp8, 1/n of the weight, left out; FSDP's NO_SHARD, with
 * no gather, would cast the whole weight (8 B) and is priced so too, since
 * a layer's time reads no ZeRO stage. */
/* fp4: the 4-bit element and its block's share of a scale (perf.h
 * matmul_bytes).  NVIDIA's recipe is Transformer Engine's NVFP4 (E2M1, an
 * E4M3 scale per 16 elements and one fp32 scale a tensor from its amax:
 * a pass to find the amax, then one that writes both layouts the three
 * GEMMs read, 2 ab + 2 (0.5 + 1/16) bytes an element; the weights once a
 * step); AMD's is MXFP4 (an E8M0 scale per 32, no tensor amax: ab + 2 (0.5
 * + 1/32)), as MXFP8 is cast (Transformer Engine's NVFP4BlockScaling
 * recipe; the OCP MX specification v1.0). */
#define S_NVFP4_BYTES (0.5 + 1.0 / 16)
#define S_MXFP4_BYTES (0.5 + 1.0 / 32)

/* Several query heads to a key-value head (grouped-query attention);
 * MLA's heads each have their own key and value. */
static bool S_grouped(const tb_inputs *in)
{
	const tb_model *m = &in->model;
	return m->kv_lora_rank <= 0 && m->kv_heads > 0 && m->kv_heads < m->heads;
}

/* hardware.cudnn: cuDNN's attention at the release the run ships, over
 * the release its fraction was measured at (the backward's ratio to the
 * forward carries the backward's factor). */
static void S_cudnn(const tb_inputs *in, const tb_gpu_node *node, tb_perf_input *out)
{
	tb_perf_hw *hw = &out->hw;
	double f, b;
	int table;
	out->cudnn_table = 0;
	out->cudnn_fwd_scale = out->cudnn_bwd_scale = 1;
	if (hw->attention_kernel != TB_ATTN_KERNEL_CUDNN ||
	    !tb_gpus_cudnn_attention(node, in->hardware.cudnn_version, &f, &b, &table))
		return;
	hw->attention_fraction *= f;
	if (hw->attention_backward_ratio > 0)
		hw->attention_backward_ratio *= b / f;
	out->cudnn_table = table;
	out->cudnn_fwd_scale = f, out->cudnn_bwd_scale = b;
}

/* training.fp8_attention: the recipe of its casts (inputs.c decides it)
 * and cuDNN's fp8 rate over its bf16 one on the card; 16 bits where the
 * card has no figure (perf_budget.c says so) or the attention is not
 * cuDNN's. */
static void S_fp8_attention(const tb_inputs *in, const tb_gpu_node *node, tb_perf_input *out)
{
	tb_perf_hw *hw = &out->hw;
	hw->attention_fp8_fwd_ratio = hw->attention_fp8_bwd_ratio = 0;
	out->fp8_attention_recipe = TB_FP8_AUTO;
	out->fp8_attention_copied = false;
	out->fp8_attention_table = 0;
	tb_fp8_recipe r = tb_fp8_attention_recipe(in);
	if (r == TB_FP8_AUTO || !(out->matmul_bytes <= 1) || hw->attention_kernel != TB_ATTN_KERNEL_CUDNN)
		return;
	double f, b;
	bool measured;
	int table;
	if (!tb_gpus_fp8_attention(node, S_grouped(in), r == TB_FP8_MXFP8, in->hardware.cudnn_version,
	                           &f, &b, &measured, &table))
		return;
	hw->attention_fp8_fwd_ratio = f, hw->attention_fp8_bwd_ratio = b;
	out->fp8_attention_recipe = r;
	out->fp8_attention_copied = !measured;
	out->fp8_attention_table = table;
}

static double S_fp4_bytes(const tb_inputs *in)
{
	return tb_gpus_nvfp4(in->hardware.gpu.name) ? S_NVFP4_BYTES : S_MXFP4_BYTES;
}

/* The format is the element's size, set once from the card (S_fp4_bytes):
 * NVFP4's amax pass reads the 16-bit tensor once more than MXFP4's cast. */
static void S_fp4(tb_perf_input *out)
{
	double ab = out->act_bytes, e = out->matmul_bytes;
	out->fp8_recipe = TB_FP8_AUTO;
	out->fp8_cast_bytes = (e == S_NVFP4_BYTES ? 2 * ab : ab) + 2 * e;
}

static void S_fp8(const tb_inputs *in, tb_perf_input *out)
{
	const tb_training *tr = &in->training;
	tb_framework fw = in->parallelism.framework;
	tb_fp8_recipe r = tr->fp8_recipe;
	if (r == TB_FP8_AUTO)
		r = fw == TB_FW_FSDP ? TB_FP8_TENSORWISE : TB_FP8_DELAYED;
	out->fp8_recipe = r;
	out->fp8_cast_bytes = out->fp8_weight_cast_f_bytes = out->fp8_weight_cast_b_bytes = 0;
	out->fp8_gather = false;
	out->te_casts = false;
	if (out->matmul_bytes < 1) {
		S_fp4(out);
		out->te_casts = true;
		return;
	}
	if (out->matmul_bytes != 1)
		return;
	bool torchao = r != TB_FP8_DELAYED && r != TB_FP8_DEEPSEEK && (fw == TB_FW_FSDP || r == TB_FP8_ROWWISE);
	double ab = out->act_bytes, scale = 0, cast = ab + 2, wf = 0, wb = 0;
	switch (r) {
	case TB_FP8_TENSORWISE:
		if (torchao)
			out->fp8_gather = tb_fsdp_fp8_gather(in);
		else
			cast = ab + (ab + 2);
		break;
	case TB_FP8_ROWWISE:
		cast = (1 + ab) + (ab + 1);
		wf = ab + 1, wb = 2 * ab + (ab + 1);
		break;
	case TB_FP8_BLOCKWISE:
	case TB_FP8_DEEPSEEK:
	case TB_FP8_MXFP8:
		scale = r == TB_FP8_MXFP8 ? 1.0 / 32 : 4.0 / 128;
		cast = torchao ? (1 + scale) + (ab + 1 + scale) : ab + 2 * (1 + scale);
		if (torchao)
			wf = wb = ab + 1 + scale;
		break;
	case TB_FP8_DELAYED:
	case TB_FP8_AUTO:
	default:
		break;
	}
	out->fp8_cast_bytes = cast;
	out->fp8_weight_cast_f_bytes = wf;
	out->fp8_weight_cast_b_bytes = wb;
	out->te_casts = !torchao;
	/* Megatron-LM's fp8 parameters: the distributed optimizer gathers
	 * the linear layers' weights as they are stored, in fp8; MXFP8 ones
	 * it gathers in bf16 and casts after the gather (its param buffer
	 * stays 16-bit: distrib_optimizer._copy_main_params_to_param_buffer) */
	if (tb_fp8_params(in) && r != TB_FP8_MXFP8)
		out->fp8_gather = true;
}

double tb_perf_cast_bw_fraction(const tb_perf_input *in, const tb_perf_consts *k)
{
	if (!k)
		k = &tb_perf_fitted;
	return in->te_casts ? TB_PERF_CAST_BW_FRACTION : tb_perf_mem_fraction(&in->hw, k);
}

double tb_perf_weight_cast_s(const tb_perf_input *in, const tb_perf_consts *k, double elems)
{
	if (!in->te_casts || !(in->matmul_bytes <= 1) || !(in->fp8_cast_bytes > 0) || in->fp8_gather ||
	    (in->method != TB_METHOD_FULL && in->method != TB_METHOD_DPO) || in->zero >= 3 || !(elems > 0))
		return 0;
	return elems * in->fp8_cast_bytes / (in->hw.hbm_bytes_per_s * tb_perf_cast_bw_fraction(in, k));
}

const char *tb_perf_fp4_format(const tb_perf_input *in)
{
	if (!(in->matmul_bytes < 1))
		return NULL;
	return in->matmul_bytes == S_NVFP4_BYTES ? "nvfp4" : "mxfp4";
}

const char *tb_perf_fp8_text(const tb_perf_input *in)
{
	const char *f4 = tb_perf_fp4_format(in);
	if (f4)
		return strcmp(f4, "nvfp4") == 0
		       ? "nvfp4: E2M1 in blocks of 16 with E4M3 scales and one scale a tensor from its "
		         "amax, a pass before each cast; the weights cast once a step (Transformer Engine)"
		       : "mxfp4: E2M1 in blocks of 32 with power-of-two scales; the weights cast once a "
		         "step";
	bool torchao = !in->te_casts;
	switch (in->fp8_recipe) {
	case TB_FP8_TENSORWISE:
		return torchao && in->fp8_gather ? "tensorwise: one scale a tensor; the weights cast on each rank's "
		                        "shard and gathered in fp8 (torchao's float8 all-gather)"
		                      : "tensorwise: one scale a tensor from its own amax, a pass before "
		                        "each cast (Transformer Engine's current scaling)";
	case TB_FP8_ROWWISE:
		return "rowwise: one scale a row, a 16-bit transpose cast again, the weights cast every "
		       "micro-batch and gathered in 16 bits (torchao)";
	case TB_FP8_BLOCKWISE:
		return torchao ? "blockwise: 1x128 and 128x128 tiles, the weights cast every micro-batch "
		                 "(torchao)"
		               : "blockwise: 1x128 and 128x128 tiles (DeepSeek-V3's; Transformer Engine's "
		                 "block scaling)";
	case TB_FP8_MXFP8:
		return torchao ? "mxfp8: 1x32 blocks with power-of-two scales, the weights cast every "
		                 "micro-batch (torchao)"
		               : "mxfp8: 1x32 blocks with power-of-two scales (Transformer Engine)";
	case TB_FP8_DEEPSEEK:
		return "deepseek: 1x128 and 128x128 tiles on DeepSeek's own GEMM kernels (DeepGEMM), at "
		       "the per-tensor ceiling";
	case TB_FP8_DELAYED:
	case TB_FP8_AUTO:
	default:
		return "delayed: each scale from the amax history, the weights cast once a step "
		       "(Transformer Engine)";
	}
}

tb_attn_kernel tb_perf_attention_kernel(const tb_inputs *in, const char *card)
{
	/* Megatron-LM's layers are Transformer Engine's, which since v1.2
	 * (2023-12, cuDNN frontend v1) picks cuDNN's fused attention over
	 * FlashAttention on Hopper and later ("FusedAttention preference on
	 * Hopper+ for performance reasons", attention/dot_product_attention/
	 * utils.py).  PyTorch's SDPA puts cuDNN's first on sm90 and sm100 from
	 * 2.9 (pytorch/pytorch#162073, 2025-09; 2.10 held it back below cuDNN
	 * 9.15.1, which 2.11's wheels bundle), and torchtitan asks for it first
	 * itself (models/attention.py: on Blackwell since 2025-05, #1196; on
	 * every card since 2025-10, #1776): FSDP runs of today get it, older
	 * ones name flash2.  DeepSpeed's stacks run FlashAttention-2. */
	if (!in->training.flash_attention)
		return TB_ATTN_KERNEL_AUTO;
	tb_attn_kernel ak = in->training.attention_kernel;
	if (ak == TB_ATTN_KERNEL_AUTO)
		ak = in->parallelism.framework == TB_FW_MEGATRON || in->parallelism.framework == TB_FW_FSDP
		     ? TB_ATTN_KERNEL_CUDNN : TB_ATTN_KERNEL_FLASH2;
	/* a card without cuDNN's figure prices FlashAttention-2's (a written
	 * cudnn is warned of, perf_budget.c) */
	if (!(tb_gpus_node(card)->attention_fraction_cudnn > 0))
		ak = TB_ATTN_KERNEL_FLASH2;
	return ak;
}

const char *tb_perf_attention_kernel_text(tb_framework fw, tb_attn_kernel written,
                                          tb_attn_kernel priced, bool fraction)
{
	/* each phrase alone, and as the step derivation's variable names its
	 * fraction (derivations keep static strings) */
#define S_KERNEL(text) { text, "within it, the attention core's fraction of the 16-bit peak: " text }
	static const char *const S[5][2] = {
		S_KERNEL("cuDNN's fused attention (training.attention_kernel)"),
		S_KERNEL("cuDNN's fused attention (Transformer Engine's choice on Hopper and later)"),
		S_KERNEL("cuDNN's fused attention (PyTorch's SDPA's first choice on Hopper and Blackwell "
		         "from 2.9, and torchtitan's)"),
		S_KERNEL("FlashAttention-2 (training.attention_kernel)"),
		S_KERNEL("FlashAttention-2 (the default outside Megatron-LM and FSDP, and on a card "
		         "without cuDNN's figure)"),
	};
#undef S_KERNEL
	int i = priced == TB_ATTN_KERNEL_CUDNN
	        ? (written == TB_ATTN_KERNEL_CUDNN ? 0 : fw == TB_FW_MEGATRON ? 1 : 2)
	        : written == TB_ATTN_KERNEL_FLASH2 ? 3 : 4;
	if (priced == TB_ATTN_KERNEL_AUTO)
		return fraction ? "within it, no fused attention" : "no fused attention";
	return S[i][fraction ? 1 : 0];
}

void tb_perf_hw_links(const tb_gpu_node *n, tb_perf_hw *hw)
{
	hw->gpus_per_node = n->gpus;
	hw->nvlink_bytes_per_s = n->nvlink_bytes_per_s;
	hw->network_bytes_per_s = n->network_bytes_per_s;
	hw->nvlink_fraction = n->nvlink_fraction;
	hw->a2a_fraction = n->a2a_fraction;
	hw->network_fraction = n->network_fraction;
	hw->mesh = n->mesh;
}

void tb_perf_input_from(const tb_inputs *in, tb_perf_input *out)
{
	memset(out, 0, sizeof *out);
	const tb_model *m = &in->model;
	if (m->has_shape) {
		out->layers = m->layers;
		out->hidden = m->hidden;
		out->heads = m->heads;
		out->kv_heads = m->kv_heads;
		out->head_dim = m->head_dim;
		out->ffn_hidden = m->ffn_hidden;
		out->vocab = m->vocab;
		out->experts = m->experts;
		out->experts_per_token = m->experts_per_token;
		out->expert_ffn_hidden = m->expert_ffn_hidden;
		out->shared_ffn_hidden = m->shared_ffn_hidden;
		out->dense_layers = m->dense_layers;
		out->mtp_modules = m->mtp_modules;
		out->window = m->window;
		out->window_layers = m->window_layers;
		out->window_chunked = m->local_attn == TB_LOCAL_CHUNKED;
		out->q_lora_rank = m->q_lora_rank;
		out->kv_lora_rank = m->kv_lora_rank;
		out->qk_nope_dim = m->qk_nope_dim;
		out->qk_rope_dim = m->qk_rope_dim;
		out->v_head_dim = m->v_head_dim;
		out->route_groups = m->route_groups;
		out->route_groups_per_token = m->route_groups_per_token;
		out->gated_mlp = m->mlp == TB_MLP_GATED;
		out->rope = m->positions == TB_POS_ROPE;
		out->rmsnorm = m->norm == TB_NORM_RMSNORM;
	}
	const tb_training *tr = &in->training;
	out->dropout = tr->dropout;
	out->causal_attention_flops = tr->attention_flops == TB_ATTN_FLOPS_CAUSAL;
	out->seq_len = tr->seq_len;
	out->global_batch = tr->global_batch;
	out->micro_batch = tr->micro_batch > 0 ? tr->micro_batch : 1;
	out->checkpointing = tr->checkpointing;
	out->selective_policy = tr->selective_policy;
	out->recompute_layers = tr->recompute_layers;
	out->flash_attention = tr->flash_attention;

	const tb_parallelism *pa = &in->parallelism;
	out->tensor = S_at_least_1(pa->tensor);
	out->pipeline = S_at_least_1(pa->pipeline);
	out->virtual_pipeline = S_at_least_1(pa->virtual_pipeline);
	out->context = S_at_least_1(pa->context);
	out->expert = S_at_least_1(pa->expert);
	out->expert_tensor = pa->expert_tensor;
	out->layout = pa->layout.pipeline > 0 ? &pa->layout : NULL;
	int64_t group = out->tensor * out->pipeline * out->context;
	out->data = pa->data > 0 ? pa->data
	          : S_at_least_1(in->hardware.count / (group > 0 ? group : 1));
	out->zero = pa->zero;
	out->shard_group = pa->shard_group;
	out->bucket_size = pa->bucket_size;
	out->no_sync = pa->no_sync;
	out->sequence_parallel = pa->sequence_parallel;
	/* Today's frameworks overlap the gradient reduction and ZeRO-3's
	 * gathers (PyTorch DDP buckets, FSDP prefetch, Megatron-LM
	 * --overlap-grad-reduce), unless the scenario says otherwise;
	 * tensor-parallel overlap is opt-in. */
	out->framework = in->parallelism.framework;
	out->overlap_dp = tb_perf_dp_hidden(pa);
	out->dp_buckets_unhidden = !pa->no_overlap_dp && !out->overlap_dp;
	out->overlap_tp = pa->overlap_tp;
	out->no_overlap_tp_qkv = !tb_overlap_tp_qkv(pa);
	out->no_overlap_tp_dgrad = !tb_overlap_tp_dgrad(pa);
	/* a GEMM launched on the SMs its collective leaves runs that much
	 * longer (Transformer Engine's _math_sms = sm_count - num_sm) */
	int64_t sms = tb_gpu_sms(&in->hardware.gpu);
	out->ub_no_sms = false;
	/* as under sequence parallelism: the layout search turns it on and
	 * off on this input, and the layer holds the SMs only where it is on
	 * (tb_overlap_tp_sms's rule, perf_layer.c) */
	tb_parallelism with_sp = *pa;
	with_sp.sequence_parallel = true;
	for (int g = 0; g < TB_UB_COUNT; g++) {
		int64_t n = tb_overlap_tp_sms(&with_sp, (tb_ub_gemm)g);
		out->ub_extra[g] = sms > 0 && n > 0 && n < sms ? (double)n / (double)(sms - n) : 0;
		if (sms > 0 && n >= sms)
			out->ub_no_sms = true;
	}
	out->overlap_ep = pa->overlap_ep;
	out->dispatcher = pa->dispatcher;
	out->expert_load = tr->moe_routing == TB_MOE_BALANCED ? 1 : tr->moe_load_factor;
	out->cp_comm = pa->cp_comm;

	/* bytes: fp32 trains in fp32; mixed precision keeps fp32 master
	 * weights; pure bf16 keeps everything in bf16; fp8 multiplies fp8
	 * operands and keeps bf16 weights.  Gradients in training.grad_dtype,
	 * by default fp32 under bf16-mixed and fp8-mixed (Megatron-LM's
	 * main_grad, FSDP's fp32 reduce), 16-bit under fp16-mixed and bf16
	 * (inputs.h). */
	double master = 4, grad = tb_grad_bytes(tr), weight = 2, state_scale = 1;
	out->matmul_bytes = 2;
	out->act_bytes = 2;
	switch (tr->precision) {
	case TB_PREC_FP32:
		out->matmul_bytes = out->act_bytes = 4;
		weight = 4, master = 0;
		break;
	case TB_PREC_BF16:
		master = 0, state_scale = 0.5;
		break;
	case TB_PREC_FP8_MIXED:
	case TB_PREC_FP4_MIXED:
		switch (tb_matmul_dtype(tr->precision, &in->hardware.gpu)) {
		case TB_DTYPE_FP4: out->matmul_bytes = S_fp4_bytes(in); break;
		case TB_DTYPE_FP8: out->matmul_bytes = 1; break;
		default: break;
		}
		break;
	case TB_PREC_BF16_MIXED:
	default:
		break;
	}
	out->param_bytes = out->trained_bytes = weight;
	out->grad_bytes = grad;
	S_fp8(in, out);
	out->grad_accum_unfused = tr->no_grad_accum_fusion;
	out->eager_kernels = tr->eager_kernels;
	out->lora_eager = tb_lora_eager(tr);
	/* an update reads and writes the states and the master copy, reads
	 * the gradient twice (norm, then step) and writes the weights */
	double states = S_state_bytes(tr->optimizer) * state_scale;
	out->optimizer_bytes_per_param = master > 0
		? 2 * (master + states) + 2 * grad + weight
		: 2 * (weight + states) + 2 * grad;

	S_method(in, out);

	const tb_gpu *g = &in->hardware.gpu;
	const tb_gpu_node *node = tb_gpus_node(g->name);
	tb_dtype used;
	tb_perf_hw *hw = &out->hw;
	hw->peak_flops = tb_gpu_peak_flops(g, tb_precision_compute_dtype(tr->precision), &used);
	tb_dtype at_used;
	hw->attention_peak_flops = tb_gpu_peak_flops(g, tr->precision == TB_PREC_FP32
	                                     ? TB_DTYPE_TF32 : TB_DTYPE_BF16, &at_used);
	/* fp4 matmuls at the card's fp4 kernel fraction, measured or copied,
	 * else its fp8 (else 16-bit) one (gpus.c; perf_budget.c says which) */
	hw->matmul_ceiling = used == TB_DTYPE_FP4 ? tb_gpus_fp4_ceiling(node, NULL)
	                     : used == TB_DTYPE_FP8 && node->matmul_ceiling_fp8 > 0
	                     ? node->matmul_ceiling_fp8 : node->matmul_ceiling;
	/* a recipe whose GEMM kernels run slower than the per-tensor ones the
	 * ceiling was measured with: Transformer Engine's block scaling on
	 * Hopper (gpus.c); torchao's kernels are not in the guide */
	hw->recipe_gemm_ratio = tb_gpus_recipe_gemm(node, used, out->te_casts ? out->fp8_recipe : TB_FP8_AUTO);
	hw->matmul_ceiling /= hw->recipe_gemm_ratio;
	hw->head_matmul_ceiling = node->matmul_ceiling;
	hw->backward_gemm_ratio = tb_gpus_backward_gemm(node, used, out->fp8_recipe);
	tb_attn_kernel ak = tb_perf_attention_kernel(in, g->name);
	hw->attention_kernel = ak;
	hw->attention_fraction = ak == TB_ATTN_KERNEL_CUDNN ? node->attention_fraction_cudnn
	                                                     : node->attention_fraction;
	hw->attention_backward_ratio = node->attention_backward_ratio;
	S_cudnn(in, node, out);
	S_fp8_attention(in, node, out);
	out->fp8_head = in->training.fp8_head && out->matmul_bytes == 1;
	hw->hbm_bytes_per_s = g->bandwidth_bytes_per_s;
	hw->mem_fraction = node->mem_fraction;
	tb_perf_hw_links(node, hw);
	const tb_node *nd = &in->hardware.node;
	if (nd->gpus > 0)
		hw->gpus_per_node = nd->gpus;
	if (nd->nvlink_bytes_per_s > 0)
		hw->nvlink_bytes_per_s = nd->nvlink_bytes_per_s;
	if (nd->network_bytes_per_s > 0)
		hw->network_bytes_per_s = nd->network_bytes_per_s;
	hw->power_fraction = g->tdp_w > 0 ? tb_hardware_gpu_watts(&in->hardware) / g->tdp_w : 1;
	tb_calib_apply(&in->calib, g->name, hw);
}
