/* inputs.c: the names the scenario file uses for each enum, and the format
 * and peak each precision multiplies at. */
#include "trainbudget/inputs.h"
#include "trainbudget/tuning.h"

#include <math.h>
#include <stdio.h>

const char *tb_precision_name(tb_precision p)
{
	switch (p) {
	case TB_PREC_FP32: return "fp32";
	case TB_PREC_BF16_MIXED: return "bf16-mixed";
	case TB_PREC_FP16_MIXED: return "fp16-mixed";
	case TB_PREC_BF16: return "bf16";
	case TB_PREC_FP8_MIXED: return "fp8-mixed";
	case TB_PREC_FP4_MIXED: return "fp4-mixed";
	}
	return "?";
}

const char *tb_optimizer_name(tb_optimizer o)
{
	switch (o) {
	case TB_OPT_ADAMW: return "adamw";
	case TB_OPT_ADAMW_8BIT: return "adamw-8bit";
	case TB_OPT_ADAFACTOR: return "adafactor";
	case TB_OPT_SGD: return "sgd";
	case TB_OPT_SGD_MOMENTUM: return "sgd-momentum";
	case TB_OPT_LION: return "lion";
	}
	return "?";
}

const char *tb_framework_name(tb_framework f)
{
	switch (f) {
	case TB_FW_ANY: return "any";
	case TB_FW_MEGATRON: return "megatron";
	case TB_FW_DEEPSPEED: return "deepspeed";
	case TB_FW_FSDP: return "fsdp";
	}
	return "?";
}

const char *tb_dispatcher_name(tb_dispatcher d)
{
	return d == TB_DISPATCH_DEEPEP ? "deepep" : "alltoall";
}

const char *tb_cuda_graph_name(tb_cuda_graph g)
{
	return g == TB_CUDA_GRAPH_FULL_ITERATION ? "full_iteration" : g == TB_CUDA_GRAPH_LAYERS ? "layers" : "none";
}

const char *tb_moe_routing_name(tb_moe_routing r)
{
	return r == TB_MOE_BALANCED ? "balanced" : "dropless";
}

const char *tb_cp_comm_name(tb_cp_comm c)
{
	return c == TB_CP_A2A ? "a2a" : c == TB_CP_ALLGATHER ? "allgather" : "p2p";
}

const char *tb_attention_flops_name(tb_attention_flops a)
{
	return a == TB_ATTN_FLOPS_CAUSAL ? "causal" : "full";
}

const char *tb_checkpointing_name(tb_checkpointing c)
{
	switch (c) {
	case TB_CKPT_NONE: return "none";
	case TB_CKPT_SELECTIVE: return "selective";
	case TB_CKPT_FULL: return "full";
	}
	return "?";
}

const char *tb_selective_name(tb_selective s)
{
	return s == TB_SELECTIVE_OP ? "op" : s == TB_SELECTIVE_DEEPSEEK ? "deepseek"
	       : s == TB_SELECTIVE_MOE ? "moe" : "attention";
}

const char *tb_attn_kernel_name(tb_attn_kernel k)
{
	return k == TB_ATTN_KERNEL_FLASH2 ? "flash2" : k == TB_ATTN_KERNEL_CUDNN ? "cudnn" : "auto";
}

const char *tb_fp8_attn_name(tb_fp8_attn a)
{
	static const char *const S[] = { "false", "true", "delayed", "current", "mxfp8" };
	return (unsigned)a < sizeof S / sizeof S[0] ? S[a] : "false";
}

const char *tb_fp8_recipe_name(tb_fp8_recipe r)
{
	switch (r) {
	case TB_FP8_DELAYED: return "delayed";
	case TB_FP8_TENSORWISE: return "tensorwise";
	case TB_FP8_ROWWISE: return "rowwise";
	case TB_FP8_BLOCKWISE: return "blockwise";
	case TB_FP8_MXFP8: return "mxfp8";
	case TB_FP8_DEEPSEEK: return "deepseek";
	case TB_FP8_AUTO: default: return "auto";
	}
}

bool tb_overlap_tp_qkv(const tb_parallelism *p)
{
	return p->overlap_tp && !p->no_overlap_tp_qkv;
}

bool tb_overlap_tp_dgrad(const tb_parallelism *p)
{
	return p->overlap_tp && !p->no_overlap_tp_dgrad;
}

const char *const tb_ub_gemm_names[TB_UB_COUNT] = {
	"qkv_fprop", "proj_fprop", "fc1_fprop", "fc2_fprop", "qkv_dgrad",
	"proj_dgrad", "fc1_dgrad", "fc2_dgrad", "qkv_wgrad", "fc1_wgrad",
};

const char *tb_ub_gemm_name(tb_ub_gemm g)
{
	return (unsigned)g < TB_UB_COUNT ? tb_ub_gemm_names[g] : "?";
}

/* Transformer Engine's get_default_config (pytorch/module/base.py):
 * pipeline (proj_fprop, fc2_fprop) and bulk (qkv_dgrad, qkv_wgrad,
 * fc1_dgrad, fc1_wgrad) take num_sm 16 with set_sm_margin, the ring
 * exchanges 1 without it; under rs_dgrad the data-gradient GEMMs carry
 * the reduce-scatter, a pipeline's 16 */
int64_t tb_overlap_tp_sms(const tb_parallelism *p, tb_ub_gemm g)
{
	/* userbuffers overlap only under sequence parallelism (Megatron-LM
	 * asserts it; every ub flag of Transformer Engine's layers needs it) */
	if (!p->overlap_tp || !p->sequence_parallel || (unsigned)g >= TB_UB_COUNT)
		return 0;
	bool qkv = g == TB_UB_QKV_FPROP || g == TB_UB_QKV_DGRAD || g == TB_UB_QKV_WGRAD;
	if (qkv && p->no_overlap_tp_qkv)
		return 0;
	if (p->overlap_tp_sms_set & (1u << g))
		return p->overlap_tp_sms[g];
	if (p->framework != TB_FW_MEGATRON)
		return 0;
	switch (g) {
	case TB_UB_PROJ_FPROP: case TB_UB_FC2_FPROP: case TB_UB_QKV_DGRAD: case TB_UB_FC1_DGRAD:
		return 16;
	case TB_UB_QKV_WGRAD: case TB_UB_FC1_WGRAD:
		/* the weight-gradient GEMMs overlap the input gradient's
		 * reduce-scatter only in bulk mode; under rs_dgrad that rides
		 * the data-gradient GEMM (ub_bulk_wgrad = ... and not
		 * ub_overlap_rs_dgrad, layernorm_linear.py) */
		return tb_overlap_tp_dgrad(p) ? 0 : 16;
	default:
		return 0;
	}
}

bool tb_overlap_tp_holds_sms(const tb_parallelism *p)
{
	for (int g = 0; g < TB_UB_COUNT; g++)
		if (tb_overlap_tp_sms(p, (tb_ub_gemm)g) > 0)
			return true;
	return false;
}

void tb_overlap_tp_sms_text(const tb_parallelism *p, char *dst, size_t cap)
{
	size_t at = 0;
	if (!cap)
		return;
	dst[0] = '\0';
	for (int g = 0; g < TB_UB_COUNT && at < cap; g++) {
		int64_t n = tb_overlap_tp_sms(p, (tb_ub_gemm)g);
		if (n > 0) {
			int k = snprintf(dst + at, cap - at, "%s%s %lld", at ? ", " : "",
			                 tb_ub_gemm_name((tb_ub_gemm)g), (long long)n);
			at = k > 0 ? at + (size_t)k : cap;
		}
	}
	if (!tb_overlap_tp_holds_sms(p))
		snprintf(dst, cap, "none");
}

bool tb_lora_eager(const tb_training *t)
{
	return t->lora.kernels == TB_LORA_KERNELS_EAGER ||
	       (t->lora.kernels == TB_LORA_KERNELS_AS_LAYER && t->eager_kernels);
}

bool tb_cross_entropy_eager(const tb_inputs *in)
{
	const tb_training *t = &in->training;
	if (t->cross_entropy != TB_CE_AUTO)
		return t->cross_entropy == TB_CE_EAGER;
	return in->parallelism.framework == TB_FW_FSDP && t->eager_kernels;
}

bool tb_fsdp_holds_stage(tb_framework fw, int zero, int64_t pipeline)
{
	return fw == TB_FW_FSDP && zero >= 2 && pipeline > 1;
}

double tb_cross_entropy_bytes_per_logit(bool eager)
{
	return eager ? 12 : 4;
}

const char *tb_cross_entropy_name(bool eager)
{
	return eager ? "eager" : "fused";
}

const char *tb_kernels_name(bool eager)
{
	return eager ? "eager" : "fused";
}

bool tb_selective_is_none(const tb_training *t)
{
	return t->flash_attention && t->selective_policy == TB_SELECTIVE_ATTENTION;
}

const char *tb_selective_none_warning(const tb_inputs *in)
{
	return in->parallelism.framework == TB_FW_FSDP
		? "training.checkpointing selective under flash attention recomputes nothing more "
		  "(flash attention never stores the scores it drops): memory and time are those of "
		  "none; PyTorch's selective checkpointing (torchtitan's) is training.selective_policy: op"
		: "training.checkpointing selective under flash attention recomputes nothing more "
		  "(flash attention never stores the scores it drops): memory and time are those of none";
}

double tb_hardware_gpu_watts(const tb_hardware *hw)
{
	double cap = hw->power_limit_w, tdp = hw->gpu.tdp_w;
	return cap > 0 && tdp > 0 && cap < tdp ? cap : tdp;
}

const char *tb_mlp_name(tb_mlp m)
{
	switch (m) {
	case TB_MLP_GATED: return "gated";
	case TB_MLP_PLAIN: return "plain";
	}
	return "?";
}

const char *tb_norm_name(tb_norm n)
{
	switch (n) {
	case TB_NORM_RMSNORM: return "rmsnorm";
	case TB_NORM_LAYERNORM: return "layernorm";
	}
	return "?";
}

const char *tb_positions_name(tb_positions p)
{
	switch (p) {
	case TB_POS_ROPE: return "rope";
	case TB_POS_LEARNED: return "learned";
	case TB_POS_ALIBI: return "alibi";
	case TB_POS_NONE: return "none";
	}
	return "?";
}

const char *tb_dtype_name(tb_dtype d)
{
	switch (d) {
	case TB_DTYPE_FP32: return "fp32";
	case TB_DTYPE_TF32: return "tf32";
	case TB_DTYPE_BF16: return "bf16";
	case TB_DTYPE_FP16: return "fp16";
	case TB_DTYPE_FP8: return "fp8";
	case TB_DTYPE_FP4: return "fp4";
	case TB_DTYPE_COUNT: break;
	}
	return "?";
}

tb_dtype tb_precision_compute_dtype(tb_precision p)
{
	switch (p) {
	/* fp32 training runs its matmuls on the tensor cores in TF32 (the
	 * PyTorch/cuDNN default on Ampere and later): that peak bounds it. */
	case TB_PREC_FP32: return TB_DTYPE_TF32;
	case TB_PREC_BF16_MIXED: return TB_DTYPE_BF16;
	case TB_PREC_BF16: return TB_DTYPE_BF16;
	case TB_PREC_FP16_MIXED: return TB_DTYPE_FP16;
	case TB_PREC_FP8_MIXED: return TB_DTYPE_FP8;
	case TB_PREC_FP4_MIXED: return TB_DTYPE_FP4;
	}
	return TB_DTYPE_BF16;
}

tb_dtype tb_matmul_dtype(tb_precision p, const tb_gpu *g)
{
	if (p == TB_PREC_FP4_MIXED && !(g->peak_flops[TB_DTYPE_FP4] > 0))
		return g->peak_flops[TB_DTYPE_FP8] > 0 ? TB_DTYPE_FP8 : TB_DTYPE_BF16;
	return tb_precision_compute_dtype(p);
}

double tb_gpu_peak_flops(const tb_gpu *g, tb_dtype want, tb_dtype *used)
{
	static const tb_dtype order[TB_DTYPE_COUNT][3] = {
		[TB_DTYPE_FP32] = { TB_DTYPE_FP32, TB_DTYPE_FP32, TB_DTYPE_FP32 },
		[TB_DTYPE_TF32] = { TB_DTYPE_TF32, TB_DTYPE_FP32, TB_DTYPE_FP32 },
		[TB_DTYPE_BF16] = { TB_DTYPE_BF16, TB_DTYPE_FP16, TB_DTYPE_FP16 },
		[TB_DTYPE_FP16] = { TB_DTYPE_FP16, TB_DTYPE_BF16, TB_DTYPE_BF16 },
		[TB_DTYPE_FP8]  = { TB_DTYPE_FP8, TB_DTYPE_BF16, TB_DTYPE_FP16 },
		[TB_DTYPE_FP4]  = { TB_DTYPE_FP4, TB_DTYPE_FP8, TB_DTYPE_BF16 },
	};
	if ((unsigned)want >= TB_DTYPE_COUNT)
		want = TB_DTYPE_BF16;
	for (int i = 0; g && i < 3; i++) {
		double v = g->peak_flops[order[want][i]];
		if (v > 0 && isfinite(v)) {
			if (used)
				*used = order[want][i];
			return v;
		}
	}
	if (used)
		*used = want;
	return 0;
}

bool tb_precision_scaled(tb_precision p)
{
	return p == TB_PREC_FP8_MIXED || p == TB_PREC_FP4_MIXED;
}

const char *tb_grad_dtype_name(tb_grad_dtype g)
{
	switch (g) {
	case TB_GRAD_DEFAULT: return "default";
	case TB_GRAD_BF16: return "bf16";
	case TB_GRAD_FP16: return "fp16";
	case TB_GRAD_FP32: return "fp32";
	}
	return "?";
}

/* Megatron-LM accumulates and all-reduces bf16 runs' gradients in fp32
 * (arguments.py: "bfloat16 requires gradient accumulation and all-reduce
 * to be performed in fp32"), DeepSpeed's bf16 optimizer keeps fp32
 * gradients, FSDP reduces in fp32; fp8 recipes train bf16 weights the same
 * way.  fp16-mixed keeps fp16 gradients (Megatron-LM's default, the ZeRO
 * paper's 2 + 2 + 12 bytes). */
tb_grad_dtype tb_grad_dtype_of(const tb_training *t)
{
	if (t->grad_dtype != TB_GRAD_DEFAULT)
		return t->grad_dtype;
	switch (t->precision) {
	case TB_PREC_FP32: return TB_GRAD_FP32;
	case TB_PREC_BF16_MIXED: return TB_GRAD_FP32;
	case TB_PREC_FP8_MIXED: return TB_GRAD_FP32;
	case TB_PREC_FP4_MIXED: return TB_GRAD_FP32;
	case TB_PREC_FP16_MIXED: return TB_GRAD_FP16;
	case TB_PREC_BF16: return TB_GRAD_BF16;
	}
	return TB_GRAD_FP32;
}

double tb_grad_bytes(const tb_training *t)
{
	return tb_grad_dtype_of(t) == TB_GRAD_FP32 ? 4 : 2;
}

int64_t tb_parallelism_dp_cp(const tb_parallelism *p)
{
	return (p->data > 1 ? p->data : 1) * (p->context > 1 ? p->context : 1);
}

bool tb_fp8_params(const tb_inputs *in)
{
	const tb_training *t = &in->training;
	return t->fp8_param_gather && t->precision == TB_PREC_FP8_MIXED &&
	       in->parallelism.framework == TB_FW_MEGATRON && tb_method_trains_base(t->method);
}

tb_fp8_recipe tb_fp8_attention_recipe(const tb_inputs *in)
{
	const tb_training *t = &in->training;
	tb_dtype d = TB_DTYPE_BF16;
	tb_gpu_peak_flops(&in->hardware.gpu, tb_matmul_dtype(t->precision, &in->hardware.gpu), &d);
	if (t->fp8_attention == TB_FP8_ATTN_OFF || !t->flash_attention ||
	    (d != TB_DTYPE_FP8 && d != TB_DTYPE_FP4))
		return TB_FP8_AUTO;
	switch (t->fp8_attention) {
	case TB_FP8_ATTN_DELAYED: return TB_FP8_DELAYED;
	case TB_FP8_ATTN_CURRENT: return TB_FP8_TENSORWISE;
	case TB_FP8_ATTN_MXFP8: return TB_FP8_MXFP8;
	case TB_FP8_ATTN_ON:
	case TB_FP8_ATTN_OFF:
	default:
		break;
	}
	if (t->precision == TB_PREC_FP4_MIXED)
		return TB_FP8_TENSORWISE;
	tb_fp8_recipe r = t->fp8_recipe == TB_FP8_AUTO
	                  ? (in->parallelism.framework == TB_FW_FSDP ? TB_FP8_TENSORWISE : TB_FP8_DELAYED)
	                  : t->fp8_recipe;
	return r == TB_FP8_MXFP8 || r == TB_FP8_DELAYED ? r : TB_FP8_TENSORWISE;
}

bool tb_fsdp_one_copy(const tb_inputs *in)
{
	tb_precision pr = in->training.precision;
	bool master = pr == TB_PREC_BF16_MIXED || pr == TB_PREC_FP16_MIXED ||
	              pr == TB_PREC_FP8_MIXED || pr == TB_PREC_FP4_MIXED;
	return master && in->parallelism.framework == TB_FW_FSDP &&
	       tb_method_trains_base(in->training.method);
}

bool tb_fsdp_fp8_gather(const tb_inputs *in)
{
	const tb_training *t = &in->training;
	bool fp8 = tb_matmul_dtype(t->precision, &in->hardware.gpu) == TB_DTYPE_FP8;
	/* torchao converts the trained model's linear layers; a frozen base
	 * (LoRA, QLoRA, forward only) goes as stored */
	return fp8 && in->parallelism.framework == TB_FW_FSDP && tb_method_trains_base(t->method) &&
	       (t->fp8_recipe == TB_FP8_TENSORWISE || t->fp8_recipe == TB_FP8_AUTO);
}
