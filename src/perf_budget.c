/* perf_budget.c: the step-time model (perf.c) inside a budget.
 *
 * Predicts the scenario's step, decides which MFU the time uses (the
 * prediction unless hardware.mfu gives one), records the derivations and
 * the warnings, and predicts the layouts the levers change (GPUs x2,
 * GPUs /2, precision fp8 and fp4), which timecost.c prices through the model.
 * Pure: no I/O, no allocation. */
#include "calc.h"
#include "perf_int.h"
#include "trainbudget/ceiling.h"
#include "trainbudget/gpus.h"
#include "trainbudget/record.h"
#include "trainbudget/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char S_src[] =
	"trainbudget step-time model (src/perf.c, docs/formulas.md), constants fitted on "
	"published runs (docs/validation.md)";

static const char S_why_count_only[] =
	"the model has only a parameter count: the step-time model needs its shape "
	"(layers, hidden size, heads, MLP width)";

bool tb_perf_budget_at(const tb_inputs *in, const tb_budget *b, int64_t gpus,
                       tb_perf_result *out)
{
	memset(out, 0, sizeof *out);
	if (!b->perf.known || !tb_calc_count_ok(in, gpus))
		return false;
	tb_perf_input pi = b->perf.in;
	pi.layout = in->parallelism.layout.pipeline > 0 ? &in->parallelism.layout : NULL;
	int64_t g = tb_calc_replica_gpus(in);
	pi.data = gpus / g;
	tb_perf_predict(&pi, NULL, out);
	return out->ok;
}

static void S_variant(tb_perf_budget *pb, const char *label, const tb_perf_result *r)
{
	if (pb->n_variants >= TB_PERF_VARIANTS || !r->ok)
		return;
	tb_perf_variant *v = &pb->variants[pb->n_variants++];
	v->label = label;
	v->gpus = r->gpus;
	v->step_s = r->step_s;
	v->mfu = r->mfu;
	memcpy(v->breakdown_s, r->breakdown_s, sizeof v->breakdown_s);
}

/* The scenario's layout with its linear layers in precision p; frozen
 * weights stored in fp8 for fp8 GEMMs are read in 16 bits elsewhere. */
static void S_precision_variant(const tb_inputs *in, tb_perf_budget *pb, tb_precision p,
                                const char *label)
{
	tb_inputs x = *in;
	x.training.precision = p;
	if (p != TB_PREC_FP8_MIXED && x.training.quantization == TB_QUANT_FP8)
		x.training.quantization = TB_QUANT_NONE;
	tb_perf_input pi;
	tb_perf_input_from(&x, &pi);
	pi.model_flops_per_token = pb->in.model_flops_per_token;
	pi.overlap_dp = pb->in.overlap_dp;
	pi.dp_buckets_unhidden = pb->in.dp_buckets_unhidden;
	pi.overlap_tp = pb->in.overlap_tp;
	tb_perf_result r;
	tb_perf_predict(&pi, NULL, &r);
	S_variant(pb, label, &r);
}

static void S_variants(const tb_inputs *in, tb_budget *b)
{
	tb_perf_budget *pb = &b->perf;
	tb_perf_result r;
	S_variant(pb, "this layout", &pb->r);
	int64_t n = in->hardware.count;
	if (tb_perf_budget_at(in, b, 2 * n, &r))
		S_variant(pb, "GPUs x2", &r);
	if (n % 2 == 0 && tb_perf_budget_at(in, b, n / 2, &r))
		S_variant(pb, "GPUs /2", &r);
	/* the same layout in a narrower format where the card multiplies it
	 * faster: fp8, and fp4 (NVFP4, MXFP4) from 8 or 16 bits (timecost.c
	 * offers the levers on the same variants) */
	const tb_gpu *g = &in->hardware.gpu;
	tb_precision pr = in->training.precision;
	tb_dtype dt = tb_precision_compute_dtype(pr);
	if (dt != TB_DTYPE_FP8 && g->peak_flops[TB_DTYPE_FP8] > g->peak_flops[dt] &&
	    g->peak_flops[dt] > 0)
		S_precision_variant(in, pb, TB_PREC_FP8_MIXED, "precision fp8");
	if ((pr == TB_PREC_BF16_MIXED || pr == TB_PREC_FP8_MIXED) &&
	    g->peak_flops[TB_DTYPE_FP4] > g->peak_flops[dt] && g->peak_flops[dt] > 0)
		S_precision_variant(in, pb, TB_PREC_FP4_MIXED, "precision fp4");
	/* full recomputation of only the layers the card needs (memory.c's
	 * fewest; timecost.c offers the lever on the same condition) */
	if (b->memory.fewest_recompute_layers > 0) {
		tb_perf_input pi = pb->in;
		pi.recompute_layers = b->memory.fewest_recompute_layers;
		tb_perf_predict(&pi, NULL, &r);
		S_variant(pb, TB_LEVER_FEWEST_RECOMPUTED, &r);
	}
	/* the layout that unloads a head-heavy last rank (S_balanced) */
	if (pb->balanced_layout[0])
		S_variant(pb, TB_LEVER_BALANCED_SPLIT, &pb->balanced);
}

static void S_derivs(const tb_inputs *in, tb_budget *b)
{
	const tb_perf_budget *pb = &b->perf;
	const tb_perf_result *r = &pb->r;
	const tb_perf_input *pi = &pb->in;
	const double *br = r->breakdown_s;
	double m = (double)r->microbatches;
	double ns = (double)r->stage_layers[r->busiest_stage];
	double gpus = (double)r->gpus;
	double tokens = (double)in->training.global_batch * (double)in->training.seq_len;
	tb_deriv *d;

	d = tb_budget_add_deriv(b, "perf.step_s", "Predicted time of one optimizer step", "t_step",
	                        "C + R + X_tp + X_cp + X_ep + X_pp + Q + X_dp + O + Z", S_src,
	                        r->step_s, "s");
	static const char *const syms[TB_PERF_TERMS] = {
		"C", "R", "X_tp", "X_cp", "X_ep", "X_pp", "Q", "X_dp", "O", "Z",
	};
	static const char *const means[TB_PERF_TERMS] = {
		"compute, busiest pipeline stage", "recomputation",
		"exposed tensor-parallel communication", "exposed context-parallel communication",
		"expert all-to-all", "pipeline sends", "pipeline bubble",
		"exposed data-parallel communication", "optimizer step", "fixed overheads",
	};
	for (int i = 0; i < TB_PERF_TERMS; i++)
		tb_deriv_add_var(d, syms[i], means[i], br[i], "s");

	d = tb_budget_add_deriv(b, "perf.layer_fwd",
	                        "Forward time of one layer, one micro-batch, one GPU", "t_f",
	                        "F_l / (P * u_l)",
	                        "per-operator: GEMMs at a shape-dependent fraction of the card's matmul "
	                        "ceiling, attention, memory-bound kernels at HBM speed (docs/formulas.md)",
	                        r->layer_fwd_s, "s");
	tb_deriv_add_var(d, "F_l", "forward FLOPs of the layer as executed", r->layer_fwd_flops, "FLOP");
	tb_deriv_add_var(d, "P", "dense peak of the matmul dtype", pi->hw.peak_flops, "FLOP/s");
	tb_deriv_add_var(d, "u_l", "achieved fraction of the peak, whole layer",
	                 r->layer_fwd_s > 0 ? r->layer_fwd_flops / (r->layer_fwd_s * pi->hw.peak_flops) : 0, "");
	if (pi->flash_attention) {
		tb_deriv_add_var(d, "u_a",
		                 tb_perf_attention_kernel_text(in->parallelism.framework,
		                                               in->training.attention_kernel,
		                                               pi->hw.attention_kernel, true),
		                 pi->hw.attention_fraction, "");
		if (pi->cudnn_table > 0) {
			tb_deriv_add_var(d, "v_a", "within it, cuDNN's attention forward at the release "
			                 "priced (hardware.cudnn, named beside flash attention in the summary) "
			                 "over 9.13.1's, the fraction's (cudnn-frontend's timings, gpus.c)",
			                 pi->cudnn_fwd_scale, "");
			tb_deriv_add_var(d, "v_b", "within it, the same for the attention backward",
			                 pi->cudnn_bwd_scale, "");
		}
		if (pi->hw.attention_fp8_fwd_ratio > 0) {
			tb_deriv_add_var(d, "r_a8", "within it, cuDNN's fp8 attention forward over its bf16 "
			                 "one (training.fp8_attention; cudnn-frontend's timings, gpus.c)",
			                 pi->hw.attention_fp8_fwd_ratio, "");
			tb_deriv_add_var(d, "r_b8", "within it, the same for the attention backward",
			                 pi->hw.attention_fp8_bwd_ratio, "");
		}
		double share = tb_perf_key_share(pi, (double)pi->seq_len, true);
		if (share < 1)
			tb_deriv_add_var(d, "sigma_w", "within it, the attention cores' keys over every "
			                 "layer's being global: the local layers see their window or "
			                 "chunk (docs/formulas.md)", share, "");
	}
	if (pi->matmul_bytes == 1)
		tb_deriv_add_var(d, "c_8", "within it, HBM bytes of each fp8 cast of a linear's input or "
		                 "output gradient, as the recipe casts (training.fp8_recipe; the "
		                 "assumptions name it)", pi->fp8_cast_bytes, "B");
	else if (pi->matmul_bytes < 1)
		tb_deriv_add_var(d, "c_4", "within it, HBM bytes of each fp4 cast of a linear's input or "
		                 "output gradient, as the card's fp4 recipe casts (the assumptions name "
		                 "it)", pi->fp8_cast_bytes, "B");
	if (pi->matmul_bytes <= 1 && pi->fp8_cast_bytes > 0)
		tb_deriv_add_var(d, "eta_c", pi->te_casts
		                 ? "within it, the fraction of the HBM bandwidth those casts reach "
		                   "(Transformer Engine's quantization, measured in its GEMM profiling "
		                   "guide; perf.h)"
		                 : "within it, the fraction of the HBM bandwidth those casts reach "
		                   "(torchao's compiled casts, as the memory-bound kernels: fitted)",
		                 tb_perf_cast_bw_fraction(pi, NULL), "");

	double extra = r->stage_extra_s;
	d = tb_budget_add_deriv(b, "perf.compute", "Compute of the busiest stage, one step", "C",
	                        "m * (n_s * (t_f + t_b) + t_x)",
	                        "backward = 2 x the forward's matmuls (Narayanan et al. 2021 Sec. 3.5)",
	                        br[TB_PERF_COMPUTE], "s");
	tb_deriv_add_var(d, "m", "micro-batches per step", m, "");
	tb_deriv_add_var(d, "n_s", "layers on the busiest stage", ns, "");
	tb_deriv_add_var(d, "t_f", "forward of one layer", r->layer_fwd_s, "s");
	tb_deriv_add_var(d, "t_b", "backward of one layer", r->layer_bwd_s, "s");
	tb_deriv_add_var(d, "t_x", "embedding and logits on that stage", extra > 0 ? extra : 0, "s");

	if (br[TB_PERF_RECOMPUTE] > 0) {
		bool part = r->recomputed_share > 0 && r->recomputed_share < 1;
		d = tb_budget_add_deriv(b, "perf.recompute", "Recomputation, one step", "R",
		                        part ? "m * n_r * t_r" : "m * n_s * t_r",
		                        part ? "Korthikanti et al. 2022 Sec. 5; Megatron-LM --recompute-method "
		                               "block (the first N layers of each chunk)"
		                             : "Korthikanti et al. 2022 Sec. 5",
		                        br[TB_PERF_RECOMPUTE], "s");
		tb_deriv_add_var(d, "m", "micro-batches per step", m, "");
		if (part)
			tb_deriv_add_var(d, "n_r", "layers of the busiest stage recomputed (training.recompute_layers per chunk)",
			                 r->recomputed_share * ns, "");
		else
			tb_deriv_add_var(d, "n_s", "layers on the busiest stage", ns, "");
		tb_deriv_add_var(d, "t_r", "forward work redone per layer", r->layer_recompute_s, "s");
	}

	if (pi->tensor > 1 && r->tp_s > 0) {
		double k = 4;   /* two forward, two backward per layer */
		if (pi->checkpointing == TB_CKPT_FULL)
			k += 2 * (r->recomputed_share > 0 ? r->recomputed_share : 1); /* the recomputed layers' forward again */
		double x = r->stage_extra_tp_s / r->tp_s;   /* the embedding's and logits' */
		bool fp8_ag = r->tp_gather_bytes < r->tp_bytes;
		d = tb_budget_add_deriv(b, "perf.tp_comm", "Tensor-parallel communication, one step",
		                        "X_tp", pi->overlap_tp ? "m * (n_s * k + x) * T_tp - H"
		                                               : "m * (n_s * k + x) * T_tp",
		                        fp8_ag
		                        ? "reduce-scatter + all-gather per all-reduce (Korthikanti et al. 2022); fp8 linears "
		                          "gather in fp8 (Transformer Engine since v0.10; torchao float8 tensor parallel); "
		                          "ring factor (nccl-tests PERFORMANCE.md)"
		                        : pi->sequence_parallel
		                        ? "reduce-scatter + all-gather per all-reduce (Korthikanti et al. 2022); ring factor (nccl-tests PERFORMANCE.md)"
		                        : "two all-reduces forward, two backward per layer (Shoeybi et al. 2019); ring factor (nccl-tests PERFORMANCE.md)",
		                        br[TB_PERF_TP_COMM], "s");
		tb_deriv_add_var(d, "m", "micro-batches per step", m, "");
		tb_deriv_add_var(d, "n_s", "layers on the busiest stage", ns, "");
		tb_deriv_add_var(d, "k", "collectives per layer", k, "");
		tb_deriv_add_var(d, "x", "collectives of the embedding/logits", x > 0.001 ? x : 0, "");
		tb_deriv_add_var(d, "T_tp", fp8_ag ? "one reduce-scatter + all-gather of a layer (latency + bytes x "
		                                     "ring factor / link), the fp8 linears' all-gathers in fp8; "
		                                     "the mean over the stage's layers"
		                                   : "one collective (latency + bytes x ring factor / link)",
		                 r->tp_s, "s");
		tb_deriv_add_var(d, "S", fp8_ag ? "bytes per 16-bit collective" : "bytes per collective",
		                 r->tp_bytes, "B");
		if (fp8_ag)
			tb_deriv_add_var(d, "S_ag", "bytes per all-gather of an fp8 linear", r->tp_gather_bytes, "B");
		if (pi->overlap_tp)
			tb_deriv_add_var(d, "H", "hidden, each collective behind the GEMM next to it",
			                 m * ns * k * r->tp_s - br[TB_PERF_TP_COMM] > 0
			                 ? m * ns * k * r->tp_s - br[TB_PERF_TP_COMM] : 0, "s");
	}

	if (pi->pipeline > 1) {
		d = tb_budget_add_deriv(b, "perf.bubble", "Pipeline bubble, one step", "Q",
		                        "(p - 1) / (v * m) * m * t_mb",
		                        "1F1B and interleaved 1F1B schedules, Narayanan et al. 2021 Sec. 2.2",
		                        br[TB_PERF_BUBBLE], "s");
		tb_deriv_add_var(d, "p", "pipeline stages", (double)pi->pipeline, "");
		tb_deriv_add_var(d, "v", "virtual stages per rank", (double)(pi->virtual_pipeline > 1 ? pi->virtual_pipeline : 1), "");
		tb_deriv_add_var(d, "m", "micro-batches per step", m, "");
		tb_deriv_add_var(d, "t_mb", "one micro-batch through the busiest stage", r->stage_microbatch_s, "s");

		d = tb_budget_add_deriv(b, "perf.pp_comm", "Pipeline sends, one step", "X_pp",
		                        "m * v * 2 * T_pp",
		                        "one send forward and one backward per micro-batch and virtual stage",
		                        br[TB_PERF_PP_COMM], "s");
		tb_deriv_add_var(d, "m", "micro-batches per step", m, "");
		tb_deriv_add_var(d, "v", "virtual stages per rank", (double)(pi->virtual_pipeline > 1 ? pi->virtual_pipeline : 1), "");
		tb_deriv_add_var(d, "T_pp", "one send", r->pp_s, "s");
		tb_deriv_add_var(d, "S", "bytes per send", r->pp_bytes, "B");
	}

	if (r->dp_total_s > 0) {
		bool held = tb_fsdp_holds_stage(pi->framework, pi->zero, pi->pipeline);
		d = tb_budget_add_deriv(b, "perf.dp_comm", "Exposed data-parallel communication, one step",
		                        "X_dp", "T_dp - H_dp",
		                        held
		                        ? "FSDP under a pipeline: one gather behind the stage's first forward, one reduce-scatter after its last backward, exposed (torch.distributed.pipelining); overlap rule of docs/formulas.md"
		                        : pi->zero >= 3
		                        ? "ZeRO-3: gather, gather, reduce-scatter every micro-batch (Rajbhandari et al. 2020); overlap rule of docs/formulas.md"
		                        : "gradient reduction (ZeRO 1-2: reduce-scatter + all-gather, Rajbhandari et al. 2020); overlap rule of docs/formulas.md, under which the input embedding's part never hides",
		                        br[TB_PERF_DP_COMM], "s");
		tb_deriv_add_var(d, "T_dp", "every data-parallel collective of the step", r->dp_total_s, "s");
		tb_deriv_add_var(d, "H_dp",
		                 "saved by the overlap rule: what hides behind compute, less the share of it "
		                 "the compute still pays (fsdp_overlap_cost; DeepSpeed's ZeRO-3 zero3_overlap_cost)",
		                 r->dp_total_s - br[TB_PERF_DP_COMM] > 0 ? r->dp_total_s - br[TB_PERF_DP_COMM] : 0, "s");
		tb_deriv_add_var(d, "S", held || pi->zero < 3
		                 ? "bytes each GPU sends per step" : "bytes each GPU sends per micro-batch (ZeRO-3)",
		                 r->dp_bytes, "B");
	}

	bool wcast = r->weight_cast_s > 0;
	d = tb_budget_add_deriv(b, "perf.optimizer",
	                        wcast ? "Optimizer step, and the linear weights' cast for the next"
	                              : "Optimizer step", "O",
	                        wcast ? "N_u * beta / (W * eta) + C_w" : "N_u * beta / (W * eta)",
	                        wcast ? "memory-bound: every updated parameter's bytes read and written "
	                                "once; then Transformer Engine casts each trained linear weight "
	                                "on the step's first micro-batch (linear.py, is_first_microbatch)"
	                              : "memory-bound: every updated parameter's bytes read and written once",
	                        br[TB_PERF_OPTIMIZER], "s");
	tb_deriv_add_var(d, "N_u", "parameters this GPU updates", r->optimizer_params, "");
	tb_deriv_add_var(d, "beta", "bytes moved per parameter", pi->optimizer_bytes_per_param, "B");
	tb_deriv_add_var(d, "W", "HBM bandwidth", pi->hw.hbm_bytes_per_s, "B/s");
	const char *eta = tb_perf_mem_measured(&pi->hw)
	                  ? "achieved fraction of it (measured on the card: cuDNN's RMSNorm)"
	                  : "achieved fraction of it (fitted)";
	tb_deriv_add_var(d, "eta", eta, tb_perf_mem_fraction(&pi->hw, NULL), "");
	if (wcast)
		tb_deriv_add_var(d, "C_w", "the busiest stage's trained linear weights cast to fp8 or fp4 "
		                 "once a step, each read in 16 bits and written at the casts' bytes and "
		                 "bandwidth (docs/formulas.md, fp8 casts)", r->weight_cast_s, "s");

	d = tb_budget_add_deriv(b, "perf.mfu", "Predicted MFU", "MFU", "F * B * s / (t_step * n * P)",
	                        "definition of MFU: Chowdhery et al. 2022 (PaLM), App. B", r->mfu, "");
	tb_deriv_add_var(d, "F", "model FLOPs per token", r->model_flops_per_step / tokens, "FLOP");
	tb_deriv_add_var(d, "B", "global batch", (double)in->training.global_batch, "sequences");
	tb_deriv_add_var(d, "s", "sequence length", (double)in->training.seq_len, "tokens");
	tb_deriv_add_var(d, "t_step", "predicted step time", r->step_s, "s");
	tb_deriv_add_var(d, "n", "GPUs", gpus, "");
	tb_deriv_add_var(d, "P", "dense peak per GPU", pi->hw.peak_flops, "FLOP/s");

	d = tb_budget_add_deriv(b, "perf.hfu", "Predicted HFU (recomputation counted)", "HFU",
	                        "F_hw * B * s / (t_step * n * P)",
	                        "Chowdhery et al. 2022 (PaLM), App. B", r->hfu, "");
	tb_deriv_add_var(d, "F_hw", "hardware FLOPs per token", r->hardware_flops_per_step / tokens, "FLOP");
	tb_deriv_add_var(d, "B", "global batch", (double)in->training.global_batch, "sequences");
	tb_deriv_add_var(d, "s", "sequence length", (double)in->training.seq_len, "tokens");
	tb_deriv_add_var(d, "t_step", "predicted step time", r->step_s, "s");
	tb_deriv_add_var(d, "n", "GPUs", gpus, "");
	tb_deriv_add_var(d, "P", "dense peak per GPU", pi->hw.peak_flops, "FLOP/s");

	d = tb_budget_add_deriv(b, "perf.tokens_per_s_per_gpu", "Predicted tokens per second per GPU",
	                        "r", "B * s / (t_step * n)", "definition", r->tokens_per_s_per_gpu,
	                        "tokens/s");
	tb_deriv_add_var(d, "B", "global batch", (double)in->training.global_batch, "sequences");
	tb_deriv_add_var(d, "s", "sequence length", (double)in->training.seq_len, "tokens");
	tb_deriv_add_var(d, "t_step", "predicted step time", r->step_s, "s");
	tb_deriv_add_var(d, "n", "GPUs", gpus, "");
}

/* The band a prediction (step, MFU u) carries: u (1 + lo) to u (1 + hi),
 * at most 1, at least a hundredth of u; and the same as step times, the
 * shortest first. */
static void S_band(double step, double u, double lo, double hi, double mfu[2], double steps[2])
{
	mfu[0] = u * (1 + lo);
	mfu[1] = fmin(1, u * (1 + hi));
	if (mfu[0] <= 0)
		mfu[0] = u * 0.01;
	steps[0] = mfu[1] > 0 ? step * u / mfu[1] : 0;
	steps[1] = mfu[0] > 0 ? step * u / mfu[0] : 0;
}

const char *tb_perf_source(const tb_perf_budget *pb)
{
	if (!pb->known || !pb->source_predicted)
		return "assumed";
	return pb->calibrated ? "calibrated" : "predicted";
}

double tb_perf_balanced_saving(const tb_perf_budget *pb)
{
	return pb->balanced_layout[0] && pb->r.step_s > 0 ? 1 - pb->balanced.step_s / pb->r.step_s : 0;
}

/* The even split's last stage, slowest for the head it carries, given
 * fewer layers: each count below its own, written as Megatron-LM's layout
 * (the other layers spread as evenly), predicted, and the fastest whose
 * memory fits the card kept where it beats the even split by over 1%.
 * Interleaved splits are left alone: their last rank's layers are spread
 * over its virtual stages. */
static void S_balanced(const tb_inputs *in, tb_budget *b)
{
	tb_perf_budget *pb = &b->perf;
	const tb_perf_input *pi = &pb->in;
	const tb_model *m = &in->model;
	if (pi->pipeline < 2 || pi->virtual_pipeline > 1 || pi->layout ||
	    pb->r.busiest_stage != 2 || !m->has_shape)
		return;
	int64_t dense = tb_perf_dense_count(pi);
	double best = 0.99 * pb->r.step_s;
	tb_pipe_layout *lay = tb_xmalloc(sizeof *lay);
	tb_inputs *x = NULL;
	tb_budget *scratch = NULL;
	char text[TB_PIPE_TEXT_MAX], why[200];
	long at;
	for (int64_t last = pb->r.stage_layers[2] - 1; last >= 0; last--) {
		if (!tb_pipe_layout_write(m->layers, pi->pipeline, last, m->mtp_modules, text,
		                          sizeof text) ||
		    tb_pipe_layout_parse(text, pi->pipeline, m->layers, dense, m->mtp_modules, lay, why,
		                         sizeof why, &at))
			continue;
		tb_perf_input q = *pi;
		q.layout = lay;
		tb_perf_result r;
		tb_perf_predict(&q, NULL, &r);
		if (!r.ok || !(r.step_s < best))
			continue;
		/* the other ranks hold more: the memory model says whether it fits */
		if (!x) {
			x = tb_xmalloc(sizeof *x);
			scratch = tb_xmalloc(sizeof *scratch);
		}
		*x = *in;
		x->parallelism.layout = *lay;
		tb_budget_clear(scratch);
		tb_params_compute(x, scratch);
		tb_memory_compute(x, scratch);
		if (scratch->memory.fits_known && !scratch->memory.fits)
			continue;
		best = r.step_s;
		memcpy(pb->balanced_layout, text, sizeof text);
		pb->balanced = r;
	}
	free(scratch);
	free(x);
	free(lay);
}

void tb_perf_budget_compute(const tb_inputs *in, tb_budget *b)
{
	tb_perf_budget *pb = &b->perf;
	memset(pb, 0, sizeof *pb);
	pb->why = "";
	tb_perf_input_from(in, &pb->in);
	pb->in.model_flops_per_token = b->flops.per_token_model;
	/* an inline card has no table entry: its links are assumed, and said */
	const tb_node *nd = &in->hardware.node;
	if (strncmp(in->hardware.gpu.source, "inline", 6) == 0 &&
	    (!(nd->nvlink_bytes_per_s > 0) || !(nd->network_bytes_per_s > 0) || nd->gpus <= 0))
		tb_budget_warn(b, "The inline GPU has no full hardware.node: the step-time model assumes "
		               "%lld GPUs a node, %.3g GB/s NVLink and %.3g GB/s network per GPU (set "
		               "gpus, nvlink, network)",
		               (long long)pb->in.hw.gpus_per_node, pb->in.hw.nvlink_bytes_per_s / 1e9,
		               pb->in.hw.network_bytes_per_s / 1e9);
	/* a card whose fractions nobody has measured: the prediction (and a
	 * search that ranks it) rests on another card's, and says so where
	 * it is used */
	const tb_gpu_node *gn = tb_gpus_node(in->hardware.gpu.name);
	const char *copied = tb_gpus_assumed(gn, tb_precision_scaled(in->training.precision),
	                                     pb->in.hw.attention_kernel);
	if (in->hardware.mfu_predicted && in->model.has_shape && copied &&
	    strcmp(gn->name, in->hardware.gpu.name) == 0)
		tb_budget_warn(b, "The step-time model's %s for %s: assumed from another card, not "
		               "measured on it (gpus.c says which), so its predicted MFU is less "
		               "certain than on a validated card",
		               copied, gn->name);
	/* fp4: one card's fp4 kernel has been measured (B300's); the others
	 * copy it or take their fp8 fraction, and say so */
	pb->fp4_basis = NULL;
	if (tb_perf_fp4_format(&pb->in))
		tb_gpus_fp4_ceiling(gn, &pb->fp4_basis);
	if (in->hardware.mfu_predicted && in->model.has_shape && pb->fp4_basis) {
		bool bounded = tb_ceiling_for(&in->hardware.gpu, TB_PREC_FP4_MIXED) != NULL;
		if (!gn->matmul_fp4_measured || !bounded)
			tb_budget_warn(b, "fp4-mixed: the step-time model prices the fp4 matmuls on %s at "
			               "%.0f%% of the fp4 peak (%s)%s",
			               in->hardware.gpu.name, 100 * pb->in.hw.matmul_ceiling, pb->fp4_basis,
			               bounded ? "" : ", and no published fp4 run on it bounds its MFU");
	}
	/* cuDNN's attention asked for on a card without its figure */
	if (in->hardware.mfu_predicted && in->model.has_shape && in->training.flash_attention &&
	    in->training.attention_kernel == TB_ATTN_KERNEL_CUDNN &&
	    pb->in.hw.attention_kernel != TB_ATTN_KERNEL_CUDNN)
		tb_budget_warn(b, "training.attention_kernel cudnn: no published speed of cuDNN's fused "
		               "attention on %s, so its attention is priced at FlashAttention-2's "
		               "(%.0f%% of the 16-bit peak)",
		               in->hardware.gpu.name, 100 * pb->in.hw.attention_fraction);
	/* fp8 attention asked for where no timing of it stands for the card,
	 * or stands for it from another card */
	if (in->hardware.mfu_predicted && in->model.has_shape &&
	    tb_fp8_attention_recipe(in) != TB_FP8_AUTO) {
		if (!(pb->in.hw.attention_fp8_fwd_ratio > 0))
			tb_budget_warn(b, "training.fp8_attention %s: no timing of cuDNN's fp8 attention on %s "
			               "for this model's heads%s, so the attention's time is priced in 16 bits "
			               "(its memory keeps the fp8 tensors)",
			               tb_fp8_attn_name(in->training.fp8_attention), in->hardware.gpu.name,
			               pb->in.hw.attention_kernel == TB_ATTN_KERNEL_CUDNN ? ""
			               : " (nor cuDNN's bf16 attention)");
		else if (pb->in.fp8_attention_copied)
			tb_budget_warn(b, "training.fp8_attention: cuDNN's fp8 attention on %s is priced at "
			               "%.2fx its bf16 forward and %.2fx its backward, timed on the same die "
			               "in another part (gpus.c), not on %s",
			               in->hardware.gpu.name, pb->in.hw.attention_fp8_fwd_ratio,
			               pb->in.hw.attention_fp8_bwd_ratio, in->hardware.gpu.name);
	}
	/* a fitted constant prices the clocks a power limit leaves */
	if (in->hardware.mfu_predicted && in->model.has_shape && pb->in.hw.power_fraction < 1)
		tb_budget_warn(b, "hardware.power_limit: %.0f W of a %.0f W TDP runs the matmuls and "
		               "attention at %.0f%% of their speed ((limit/TDP)^%.3g, fitted on H100s "
		               "at 500 W: docs/validation.md)",
		               in->hardware.power_limit_w, in->hardware.gpu.tdp_w,
		               100 * tb_perf_clock_fraction(&pb->in.hw, NULL), tb_perf_fitted.power_exponent);
	tb_perf_predict(&pb->in, NULL, &pb->r);
	if (!pb->r.ok) {
		pb->why = in->model.has_shape ? pb->r.why : S_why_count_only;
		if (in->hardware.mfu_predicted)
			tb_budget_warn(b, "No MFU prediction: %s; the time uses the default MFU range "
			               "25%%-45%%", pb->why);
		return;
	}
	pb->known = true;
	double u = pb->r.mfu;
	/* calibrated on pilots of this card: the band is the calibrated
	 * one, and the uncalibrated step is kept beside it */
	pb->calibrated = in->calib.known && strcmp(in->calib.card, in->hardware.gpu.name) == 0;
	double lo = TB_PERF_ERR_LOW, hi = TB_PERF_ERR_HIGH;
	if (pb->calibrated) {
		tb_perf_input raw;
		tb_inputs x = *in;
		x.calib.known = false;
		tb_perf_input_from(&x, &raw);
		raw.model_flops_per_token = pb->in.model_flops_per_token;
		tb_perf_result r0;
		tb_perf_predict(&raw, NULL, &r0);
		pb->step_uncalibrated_s = r0.ok ? r0.step_s : 0;
		pb->mfu_uncalibrated = r0.ok ? r0.mfu : 0;
		S_band(pb->step_uncalibrated_s, pb->mfu_uncalibrated, lo, hi,
		       pb->mfu_band_uncalibrated, pb->step_band_uncalibrated);
		lo = TB_PERF_CAL_ERR_LOW;
		hi = TB_PERF_CAL_ERR_HIGH;
	}
	S_band(pb->r.step_s, u, lo, hi, pb->mfu_band, pb->step_band);
	pb->source_predicted = in->hardware.mfu_predicted;
	pb->mfu_causal_scale = tb_perf_causal_mfu_scale(&pb->in);
	double uc = u * pb->mfu_causal_scale;
	const tb_ceiling *best = tb_ceiling_above(&in->hardware.gpu, in->training.precision, uc);
	if (pb->source_predicted && best)
		tb_budget_warn(b, "Predicted MFU %.1f%% (%.1f%% on causal attention) is above the best "
		               "published on %s in %s, %.1f%% (%s): read it as a bound",
		               100 * u, 100 * uc, best->card, tb_ceiling_format(best),
		               100 * best->mfu, best->source);
	/* how the model has fared on this card in this format, where beyond
	 * its bar: said, never corrected (the runs are its test) */
	pb->record = tb_record_for(&in->hardware.gpu, in->training.precision);
	pb->record_said = pb->source_predicted && tb_record_said(in, &in->hardware.gpu);
	if (pb->record_said) {
		tb_buf say;
		tb_buf_init(&say);
		tb_record_say(pb->record, &say);
		tb_budget_warn(b, "Held-out record: %s", say.ptr);
		tb_buf_release(&say);
	}
	/* the head (and MTP modules) on the last of 1F1B's stages, which the
	 * step waits for: said where it makes that stage the slowest by more
	 * than a tenth, since the search tries no uneven split and DualPipe is
	 * not priced */
	const tb_perf_result *pr = &pb->r;
	int other = pr->stage_layers[1] > 0 ? 1 : 0;
	if (pb->in.pipeline > 1 && pr->busiest_stage == 2 && pr->stage_s[other] > 0 &&
	    pr->stage_s[2] > 1.1 * pr->stage_s[other]) {
		S_balanced(in, b);
		const char *what = pb->in.mtp_modules > 1 ? " and the MTP modules"
		                   : pb->in.mtp_modules == 1 ? " and the MTP module" : "";
		double slower = 100 * (pr->stage_s[2] / pr->stage_s[other] - 1);
		if (pb->balanced_layout[0])
			tb_budget_warn(b, "The last pipeline stage holds the output head%s and is %.0f%% "
			               "slower than %s one: parallelism.pipeline_layout \"%s\" (Megatron-"
			               "LM's, %lld on the last rank) fits and takes %.3g s a step, %.0f%% "
			               "less; the layout search tries no uneven split",
			               what, slower, other ? "a middle" : "the first", pb->balanced_layout,
			               (long long)pb->balanced.stage_layers[2], pb->balanced.step_s,
			               100 * tb_perf_balanced_saving(pb));
		else
			tb_budget_warn(b, "The last pipeline stage holds the output head%s and is %.0f%% "
			               "slower than %s one, and the step waits for it; an uneven split "
			               "(parallelism.pipeline_layout) or DeepSeek's DualPipe would balance "
			               "it: the layout search tries neither, so layouts with fewer stages "
			               "gain partly from that", what, slower, other ? "a middle" : "the first");
	}
	if (!pb->source_predicted && in->hardware.mfu[1] > u) {
		pb->assumption_above = true;
		tb_budget_warn(b, "hardware.mfu assumes %.1f%%, above the %.1f%% the step-time model "
		               "predicts for this layout (measured band %.1f%%-%.1f%%)",
		               100 * in->hardware.mfu[1], 100 * u, 100 * pb->mfu_band[0],
		               100 * pb->mfu_band[1]);
	}
	S_variants(in, b);
	S_derivs(in, b);
}
