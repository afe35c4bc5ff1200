/* test_perf.c: the step-time model (perf.c).
 *
 * The monotonic facts; the selective policies; and published runs held
 * out of the fit (docs/validation.md), each with its tolerance.  The
 * building blocks (collectives, bubble, clocks) are test_perf_blocks.c's. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "trainbudget/gpus.h"
#include "trainbudget/perf.h"
#include "trainbudget/presets.h"

static double rel(double got, double want)
{
	return fabs(got - want) / fabs(want);
}

/* ---- whole predictions -------------------------------------------------- */

static void S_gpt(tb_perf_input *in, const char *gpu, int64_t h, int64_t L, int64_t heads,
                  int64_t seq, int64_t gbs, int64_t mbs, int64_t t, int64_t p, int64_t v,
                  int64_t d, tb_checkpointing ck, bool sp)
{
	tb_inputs x;
	memset(&x, 0, sizeof x);
	x.model.has_shape = true;
	x.model.layers = L;
	x.model.hidden = h;
	x.model.heads = heads;
	x.model.kv_heads = heads;
	x.model.head_dim = h / heads;
	x.model.ffn_hidden = 4 * h;
	x.model.vocab = 51200;
	x.model.mlp = TB_MLP_PLAIN;
	x.training.seq_len = seq;
	x.training.global_batch = gbs;
	x.training.micro_batch = mbs;
	x.training.precision = TB_PREC_FP16_MIXED;
	x.training.optimizer = TB_OPT_ADAMW;
	x.training.checkpointing = ck;
	x.training.dropout = true;
	x.parallelism.tensor = t;
	x.parallelism.pipeline = p;
	x.parallelism.virtual_pipeline = v;
	x.parallelism.data = d;
	x.parallelism.sequence_parallel = sp;
	x.hardware.gpu = *tb_gpus_find(gpu);
	x.hardware.count = t * p * d;
	tb_perf_input_from(&x, in);
	in->overlap_dp = false;   /* Megatron-LM 2021/2022 */
}

/* Korthikanti et al. 2022 Table 5, held out of the fit (docs/validation.md):
 * iteration time with sequence parallelism and selective recomputation,
 * and the MFU the paper prints for it. */
Test(perf, korthikanti_table5_held_out)
{
	struct { int64_t h, L, heads, gbs, t, p, v; double step_s, mfu; } rows[] = {
		{ 6144, 48, 64, 4, 8, 1, 1, 1.10, 0.415 },        /* 22B, mb 4 */
		{ 12288, 96, 96, 64, 8, 8, 3, 13.75, 0.514 },     /* 175B */
		{ 20480, 105, 128, 280, 8, 35, 3, 37.83, 0.560 }, /* 530B */
		{ 25600, 128, 160, 512, 8, 64, 1, 71.49, 0.563 }, /* 1T */
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		tb_perf_input in;
		int64_t mb = i == 0 ? 4 : 1;
		S_gpt(&in, "a100-80gb", rows[i].h, rows[i].L, rows[i].heads, 2048, rows[i].gbs, mb,
		      rows[i].t, rows[i].p, rows[i].v, 1, TB_CKPT_SELECTIVE, true);
		tb_perf_result r;
		tb_perf_predict(&in, NULL, &r);
		cr_assert(r.ok, "%s", r.why);
		/* tolerance: the held-out worst of this group, 7.4%, rounded up */
		cr_expect(rel(r.step_s, rows[i].step_s) < 0.10, "row %zu: %g s, published %g s", i,
		          r.step_s, rows[i].step_s);
		/* the paper's MFU (72 B s l h^2 (1 + s/6h + V/12lh), the full
		 * attention square) is the model's FLOP count over the printed
		 * step: equal up to the step's rounding to 3 figures (0.5%) */
		in.causal_attention_flops = false;
		tb_perf_predict(&in, NULL, &r);
		cr_expect(fabs(r.mfu * r.step_s / rows[i].step_s - rows[i].mfu) < 0.002,
		          "row %zu: mfu %g", i, r.mfu * r.step_s / rows[i].step_s);
	}
}

/* Narayanan et al. 2021 Table 1, held out: 1T on 3,072 GPUs, 163 TFLOP/s
 * per GPU by Eq. (3) = 96 B s l h^2 (1 + s/6h + V/16lh). */
Test(perf, megatron_1t_held_out)
{
	tb_perf_input in;
	S_gpt(&in, "a100-80gb", 25600, 128, 160, 2048, 3072, 1, 8, 64, 1, 6, TB_CKPT_FULL, false);
	tb_perf_result r;
	tb_perf_predict(&in, NULL, &r);
	cr_assert(r.ok, "%s", r.why);
	double B = 3072, s = 2048, l = 128, h = 25600, V = 51200;
	double eq3 = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
	double published = eq3 / (3072 * 163e12);
	cr_expect(rel(r.step_s, published) < 0.05, "%g s, published %g s", r.step_s, published);
}

/* BLOOM's batch ramp (ml-engineering training/hparams.md): 8, 73 and 150
 * TFLOP/s per GPU at global batch 16, 192 and 2048 on one layout.  The
 * model misses the small-batch figures (docs/validation.md), but not
 * their order: more micro-batches, a smaller bubble share. */
Test(perf, bloom_ramp_order)
{
	double tflops[3];
	int64_t gbs[3] = { 16, 192, 2048 }, mb[3] = { 1, 1, 2 };
	for (int i = 0; i < 3; i++) {
		tb_perf_input in;
		S_gpt(&in, "a100-80gb", 14336, 70, 112, 2048, gbs[i], mb[i], 4, 12, 1, 8,
		      TB_CKPT_FULL, false);
		in.vocab = 250880;
		tb_perf_result r;
		tb_perf_predict(&in, NULL, &r);
		cr_assert(r.ok);
		tflops[i] = r.tflops_per_gpu;
	}
	cr_expect(tflops[0] < tflops[1] && tflops[1] < tflops[2], "%g %g %g", tflops[0], tflops[1],
	          tflops[2]);
}

Test(perf, breakdown_adds_up_and_flops_agree)
{
	tb_perf_input in;
	S_gpt(&in, "h100-sxm", 8192, 80, 64, 4096, 1024, 1, 8, 8, 2, 16, TB_CKPT_SELECTIVE, true);
	tb_perf_result r;
	tb_perf_predict(&in, NULL, &r);
	cr_assert(r.ok, "%s", r.why);
	double sum = 0;
	for (int i = 0; i < TB_PERF_TERMS; i++) {
		cr_expect(r.breakdown_s[i] >= 0 && isfinite(r.breakdown_s[i]));
		sum += r.breakdown_s[i];
	}
	cr_expect(rel(sum, r.step_s) < 1e-12);
	cr_expect(r.mfu > 0 && r.mfu <= r.hfu && r.hfu < 1);
	cr_expect_eq(r.gpus, 8 * 8 * 16);
	cr_expect_eq(r.microbatches, 1024 / 16);
	cr_expect(rel(r.tokens_per_s_per_gpu, 1024.0 * 4096 / r.step_s / 1024) < 1e-12);
	cr_expect(rel(r.tflops_per_gpu, r.hfu * in.hw.peak_flops / 1e12) < 1e-12);
	cr_expect(rel(r.bubble_fraction, 7.0 / (2 * 64)) < 1e-12);
	cr_expect(r.breakdown_s[TB_PERF_TP_COMM] > 0 && r.breakdown_s[TB_PERF_PP_COMM] > 0);
	cr_expect_eq(r.breakdown_s[TB_PERF_CP_COMM], 0);
	cr_expect_eq(r.breakdown_s[TB_PERF_EP_COMM], 0);
	cr_expect_str_eq(tb_perf_term_name(TB_PERF_DP_COMM), "dp_comm");
	cr_expect_str_eq(tb_perf_term_name(TB_PERF_TERMS), "?");
}

/* The floor a layout search prunes with: the per-micro-batch terms of the
 * busiest stage (compute, recomputation, exposed tensor, context and expert
 * communication, the per-layer overhead), never above the step, whatever
 * the ZeRO stage, the virtual stages and the pipeline. */
Test(perf, step_floor_is_the_stage_terms)
{
	static const int64_t pipes[] = { 1, 2, 5, 8 };
	for (size_t pi = 0; pi < sizeof pipes / sizeof pipes[0]; pi++)
		for (int z = 0; z < 4; z++)
			for (int64_t v = 1; v <= 2; v++) {
				int64_t p = pipes[pi];
				tb_perf_input in;
				S_gpt(&in, "a100-80gb", 4096, 40, 32, 2048, 512, 2, 2, p, p > 1 ? v : 1, 8,
				      z % 2 ? TB_CKPT_FULL : TB_CKPT_NONE, z > 1);
				in.zero = p > 1 && z == 3 ? 1 : z;
				in.overlap_dp = z % 2 == 0;
				tb_perf_layer L;
				cr_assert(tb_perf_layer_time(&in, NULL, &L, NULL));
				tb_perf_result r;
				tb_perf_assemble(&in, NULL, &L, &r);
				cr_assert(r.ok, "%s", r.why);
				double floor = tb_perf_step_floor_s(&in, NULL, &L);
				double stage = r.breakdown_s[TB_PERF_COMPUTE] + r.breakdown_s[TB_PERF_RECOMPUTE] +
				               r.breakdown_s[TB_PERF_TP_COMM] + r.breakdown_s[TB_PERF_CP_COMM] +
				               r.breakdown_s[TB_PERF_EP_COMM] + r.breakdown_s[TB_PERF_OTHER] +
				               r.breakdown_s[TB_PERF_BUBBLE];
				cr_expect(rel(floor, stage) < 1e-12, "p%lld z%d v%lld: floor %.17g, terms %.17g",
				          (long long)p, z, (long long)v, floor, stage);
				cr_expect(floor <= r.step_s * (1 + 1e-12));
				if (p > 1 || in.zero > 0)
					cr_expect(floor < r.step_s, "the sends or collectives add to it");
				/* fewer virtual stages: a larger bubble, the floor below it */
				if (p > 1 && v > 1) {
					tb_perf_input one = in;
					one.virtual_pipeline = 1;
					tb_perf_result r1;
					tb_perf_assemble(&one, NULL, &L, &r1);
					cr_expect(floor <= r1.step_s * (1 + 1e-12));
					cr_expect(r1.breakdown_s[TB_PERF_BUBBLE] > r.breakdown_s[TB_PERF_BUBBLE]);
				}
			}
	tb_perf_input bad;
	memset(&bad, 0, sizeof bad);
	tb_perf_layer L;
	memset(&L, 0, sizeof L);
	cr_expect_eq(tb_perf_step_floor_s(&bad, NULL, &L), 0);
}

/* Llama 3 405B put 126 layers on 16 stages, one fewer on the first and
 * the last (Dubey et al. 2024, Sec. 3.3.2): 7 + 14 x 8 + 7. */
Test(perf, uneven_split)
{
	tb_perf_input in;
	S_gpt(&in, "h100-sxm", 16384, 126, 128, 8192, 2048, 1, 8, 16, 1, 8, TB_CKPT_NONE, true);
	tb_perf_result r;
	tb_perf_predict(&in, NULL, &r);
	cr_assert(r.ok, "%s", r.why);
	cr_expect_eq(r.stage_layers[0], 7);
	cr_expect_eq(r.stage_layers[1], 8);
	cr_expect_eq(r.stage_layers[2], 7);
	/* an even split: every stage the same */
	in.layers = 128;
	tb_perf_predict(&in, NULL, &r);
	cr_expect(r.stage_layers[0] == 8 && r.stage_layers[1] == 8 && r.stage_layers[2] == 8);
}

Test(perf, monotonic_layouts)
{
	tb_perf_input in;
	tb_perf_result a, b;
	S_gpt(&in, "a100-80gb", 12288, 96, 96, 2048, 1536, 1, 8, 8, 1, 24, TB_CKPT_FULL, false);
	tb_perf_predict(&in, NULL, &a);
	/* interleaving shrinks the bubble */
	in.virtual_pipeline = 3;
	tb_perf_predict(&in, NULL, &b);
	cr_expect(b.breakdown_s[TB_PERF_BUBBLE] < a.breakdown_s[TB_PERF_BUBBLE]);
	/* a faster network never slows a step */
	in.virtual_pipeline = 1;
	in.hw.network_bytes_per_s *= 2;
	tb_perf_predict(&in, NULL, &b);
	cr_expect(b.step_s <= a.step_s);
	/* overlapping the reduction never slows a step */
	in.hw.network_bytes_per_s /= 2;
	in.overlap_dp = true;
	tb_perf_predict(&in, NULL, &b);
	cr_expect(b.step_s <= a.step_s);
	/* recomputation costs time: none < selective < full */
	tb_perf_result n, s, f;
	in.checkpointing = TB_CKPT_NONE;
	tb_perf_predict(&in, NULL, &n);
	in.checkpointing = TB_CKPT_SELECTIVE;
	tb_perf_predict(&in, NULL, &s);
	in.checkpointing = TB_CKPT_FULL;
	tb_perf_predict(&in, NULL, &f);
	cr_expect(n.step_s < s.step_s && s.step_s < f.step_s);
	cr_expect_eq(n.breakdown_s[TB_PERF_RECOMPUTE], 0);
	cr_expect(n.mfu > f.mfu);
}

Test(perf, moe_and_context)
{
	tb_inputs x;
	memset(&x, 0, sizeof x);
	x.model.has_shape = true;
	x.model.layers = 32;
	x.model.hidden = 4096;
	x.model.heads = 32;
	x.model.kv_heads = 8;
	x.model.head_dim = 128;
	x.model.ffn_hidden = 14336;
	x.model.vocab = 32000;
	x.model.experts = 8;
	x.model.experts_per_token = 2;
	x.model.mlp = TB_MLP_GATED;
	x.training.seq_len = 32768;
	x.training.global_batch = 256;
	x.training.micro_batch = 1;
	x.training.precision = TB_PREC_BF16_MIXED;
	x.training.flash_attention = true;
	x.training.checkpointing = TB_CKPT_SELECTIVE;
	x.parallelism.tensor = 2;
	x.parallelism.pipeline = 1;
	x.parallelism.context = 4;
	x.parallelism.expert = 8;
	x.parallelism.data = 32;
	x.hardware.gpu = *tb_gpus_find("h100-sxm");
	x.hardware.count = 256;
	tb_perf_input in;
	tb_perf_input_from(&x, &in);
	tb_perf_result r;
	tb_perf_predict(&in, NULL, &r);
	cr_assert(r.ok, "%s", r.why);
	cr_expect(r.breakdown_s[TB_PERF_EP_COMM] > 0);
	cr_expect(r.ep_bytes > 0 && r.cp_bytes > 0);
	cr_expect_eq(r.gpus, 256);
	cr_expect(r.mfu > 0.05 && r.mfu < 0.8, "%g", r.mfu);
	/* more expert-parallel ranks than experts: refused */
	in.expert = 16;
	tb_perf_predict(&in, NULL, &r);
	cr_expect(!r.ok && strstr(r.why, "expert"));
}

Test(perf, refusals_never_nan)
{
	tb_inputs x;
	memset(&x, 0, sizeof x);
	x.model.params_count = 7e9;        /* count only */
	x.training.seq_len = 4096;
	x.training.global_batch = 512;
	x.hardware.gpu = *tb_gpus_find("h100-sxm");
	x.hardware.count = 64;
	tb_perf_input in;
	tb_perf_input_from(&x, &in);
	tb_perf_result r;
	tb_perf_predict(&in, NULL, &r);
	cr_expect(!r.ok);
	cr_expect(strstr(r.why, "shape") != NULL, "%s", r.why);
	cr_expect_eq(r.step_s, 0);
	cr_expect_eq(r.mfu, 0);

	/* more stages than layers */
	S_gpt(&in, "a100-80gb", 4096, 4, 32, 2048, 64, 1, 1, 8, 1, 8, TB_CKPT_NONE, false);
	tb_perf_predict(&in, NULL, &r);
	cr_expect(!r.ok && strstr(r.why, "stages"));

	/* absurd sizes: finite, never NaN or inf */
	S_gpt(&in, "a100-80gb", 1 << 20, 1000, 1024, 1 << 20, (int64_t)1 << 40, 1 << 10, 1, 1, 1,
	      1, TB_CKPT_FULL, false);
	tb_perf_predict(&in, NULL, &r);
	cr_expect(!r.ok || (isfinite(r.step_s) && isfinite(r.mfu) && r.step_s > 0));

	/* no usable peak (a card with no bf16 and no fp16) */
	S_gpt(&in, "a100-80gb", 4096, 32, 32, 2048, 64, 1, 1, 1, 1, 64, TB_CKPT_NONE, false);
	in.hw.peak_flops = 0;
	tb_perf_predict(&in, NULL, &r);
	cr_expect(!r.ok && strstr(r.why, "peak"));
}

Test(perf, node_table)
{
	/* every card has its row; A100 nodes 200 Gb/s per GPU, H100 400 Gb/s
	 * (the figures, interconnect.yaml) */
	for (size_t i = 0; i < tb_gpus_count(); i++) {
		const tb_gpu *g = tb_gpus_at(i);
		const tb_gpu_node *n = tb_gpus_node(g->name);
		cr_expect_str_eq(n->name, g->name);
		cr_expect(n->gpus >= 1 && n->nvlink_bytes_per_s > 0 && n->network_bytes_per_s > 0);
		cr_expect(n->matmul_ceiling > 0 && n->matmul_ceiling <= 1);
		cr_expect(n->source[0] != '\0');
	}
	cr_expect_eq(tb_gpus_node("a100-80gb")->network_bytes_per_s, 200e9 / 8);
	cr_expect_eq(tb_gpus_node("h100-sxm")->network_bytes_per_s, 400e9 / 8);
	cr_expect_eq(tb_gpus_node("h100-sxm")->nvlink_bytes_per_s, 450e9);
	/* MAMF over the dense peak: 271.2/312 and 794.5/989 */
	cr_expect(fabs(tb_gpus_node("a100-80gb")->matmul_ceiling - 271.2 / 312) < 0.001);
	cr_expect(fabs(tb_gpus_node("h100-sxm")->matmul_ceiling - 794.5 / 989) < 0.001);
	cr_expect_str_eq(tb_gpus_node("no-such-card")->name, "generic");
	cr_expect_str_eq(tb_gpus_node(NULL)->name, "generic");

	/* the scenario's node wins over the table; fp8 takes its own ceiling */
	tb_inputs x;
	memset(&x, 0, sizeof x);
	x.hardware.gpu = *tb_gpus_find("h100-sxm");
	x.hardware.node.network_bytes_per_s = 100e9;
	x.training.precision = TB_PREC_FP8_MIXED;
	tb_perf_input in;
	tb_perf_input_from(&x, &in);
	cr_expect_eq(in.hw.network_bytes_per_s, 100e9);
	cr_expect_eq(in.hw.nvlink_bytes_per_s, 450e9);
	cr_expect_eq(in.hw.gpus_per_node, 8);
	cr_expect(fabs(in.hw.matmul_ceiling - 1402.6 / 1979) < 0.001);
	cr_expect_eq(in.hw.peak_flops, 1978.9e12);
	cr_expect_eq(in.hw.attention_peak_flops, 989.4e12);
	cr_expect_eq(in.matmul_bytes, 1);
}

/* ---- inside a budget (perf_budget.c, timecost.c) ------------------------ */

#include "trainbudget/budget.h"

static void S_budget_inputs(tb_inputs *x)
{
	memset(x, 0, sizeof *x);
	x->model.has_shape = true;
	x->model.layers = 96;
	x->model.hidden = 12288;
	x->model.heads = 96;
	x->model.kv_heads = 96;
	x->model.head_dim = 128;
	x->model.ffn_hidden = 4 * 12288;
	x->model.vocab = 51200;
	x->model.mlp = TB_MLP_PLAIN;
	x->training.tokens = 300e9;
	x->training.seq_len = 2048;
	x->training.global_batch = 1536;
	x->training.micro_batch = 1;
	x->training.precision = TB_PREC_BF16_MIXED;
	x->training.optimizer = TB_OPT_ADAMW;
	x->training.checkpointing = TB_CKPT_SELECTIVE;
	x->parallelism.tensor = 8;
	x->parallelism.pipeline = 8;
	x->parallelism.expert = 1;
	x->parallelism.data = 16;
	x->parallelism.sequence_parallel = true;
	x->hardware.gpu = *tb_gpus_find("h100-sxm");
	x->hardware.count = 1024;
	x->hardware.mfu[0] = 0.25;
	x->hardware.mfu[1] = 0.35;
	x->hardware.mfu[2] = 0.45;
	x->hardware.mfu_predicted = true;
	x->hardware.price_per_gpu_hour = 2;
	x->hardware.pue = 1;
	strcpy(x->hardware.currency, "USD");
}

static bool S_has_warning(const tb_budget *b, const char *needle)
{
	for (int i = 0; i < b->n_warnings; i++)
		if (strstr(b->warnings[i], needle))
			return true;
	return false;
}

static const tb_lever *S_lever(const tb_budget *b, const char *label)
{
	for (int i = 0; i < b->n_levers; i++)
		if (strcmp(b->levers[i].label, label) == 0)
			return &b->levers[i];
	return NULL;
}

Test(perf, budget_uses_the_prediction)
{
	tb_inputs x;
	S_budget_inputs(&x);
	static tb_budget b;
	tb_budget_compute(&x, &b);
	cr_assert(b.perf.known, "%s", b.perf.why);
	cr_expect(b.perf.source_predicted);
	/* the time's MFU is the prediction, its range the measured band */
	cr_expect_eq(b.time.mfu[1], b.perf.r.mfu);
	cr_expect(rel(b.time.mfu[0], b.perf.r.mfu * (1 + TB_PERF_ERR_LOW)) < 1e-12);
	cr_expect(rel(b.time.mfu[2], b.perf.r.mfu * (1 + TB_PERF_ERR_HIGH)) < 1e-12);
	/* and the wall clock is the predicted step times the steps */
	double steps = x.training.tokens / (1536.0 * 2048);
	cr_expect(rel(b.time.seconds[1], steps * b.perf.r.step_s) < 1e-9,
	          "%g vs %g", b.time.seconds[1], steps * b.perf.r.step_s);
	cr_expect_not_null(tb_budget_deriv(&b, "perf.step_s"));
	cr_expect_not_null(tb_budget_deriv(&b, "perf.mfu"));
	cr_expect_not_null(tb_budget_deriv(&b, "perf.bubble"));
	const tb_deriv *d = tb_budget_deriv(&b, "perf.step_s");
	double sum = 0;
	for (int i = 0; i < d->nvars; i++)
		sum += d->vars[i].value;
	cr_expect(rel(sum, d->result) < 1e-12);
}

/* The levers go through the model: twice the GPUs is less than twice as
 * fast (the bubble grows as the micro-batches per replica fall), so it
 * costs more; half the GPUs costs less. */
Test(perf, levers_show_scaling_losses)
{
	tb_inputs x;
	S_budget_inputs(&x);
	static tb_budget b;
	tb_budget_compute(&x, &b);
	const tb_lever *up = S_lever(&b, "GPUs x2"), *down = S_lever(&b, "GPUs /2");
	cr_assert_not_null(up);
	cr_assert_not_null(down);
	cr_expect(up->delta_seconds_frac > -0.5, "%g", up->delta_seconds_frac);
	cr_expect(up->delta_cost_frac > 0, "%g", up->delta_cost_frac);
	cr_expect(down->delta_seconds_frac < 1.0, "%g", down->delta_seconds_frac);
	cr_expect(down->delta_cost_frac < 0, "%g", down->delta_cost_frac);
	const tb_lever *fp8 = S_lever(&b, "precision fp8");
	cr_assert_not_null(fp8);
	/* fp8 doubles the matmul peak but not attention or communication */
	cr_expect(fp8->delta_seconds_frac > -0.5 && fp8->delta_seconds_frac < 0,
	          "%g", fp8->delta_seconds_frac);
	/* the scan's costs change with the count too */
	cr_assert(b.time.n_gpu_scan >= 2);
	cr_expect(b.time.gpu_scan[0].cost[1] != b.time.gpu_scan[b.time.n_gpu_scan - 1].cost[1]);
}

Test(perf, assumed_mfu_wins_and_is_checked)
{
	tb_inputs x;
	S_budget_inputs(&x);
	x.hardware.mfu_predicted = false;
	x.hardware.mfu[0] = x.hardware.mfu[1] = x.hardware.mfu[2] = 0.9;
	static tb_budget b;
	tb_budget_compute(&x, &b);
	cr_assert(b.perf.known);
	cr_expect(!b.perf.source_predicted);
	cr_expect_eq(b.time.mfu[1], 0.9);
	cr_expect(b.perf.assumption_above);
	cr_expect(S_has_warning(&b, "above the"), "no warning");
	x.hardware.mfu[0] = x.hardware.mfu[1] = x.hardware.mfu[2] = 0.05;
	tb_budget_compute(&x, &b);
	cr_expect(!b.perf.assumption_above);
	cr_expect(!S_has_warning(&b, "above the"));
}

Test(perf, count_only_budget)
{
	tb_inputs x;
	S_budget_inputs(&x);
	memset(&x.model, 0, sizeof x.model);
	x.model.params_count = 175e9;
	static tb_budget b;
	tb_budget_compute(&x, &b);
	cr_expect(!b.perf.known);
	cr_expect(strstr(b.perf.why, "parameter count") != NULL);
	cr_expect_eq(b.time.mfu[1], 0.35);
	cr_expect(S_has_warning(&b, "No MFU prediction"));
	cr_expect(b.time.known);
	/* perfect scaling without the model */
	const tb_lever *up = S_lever(&b, "GPUs x2");
	cr_assert_not_null(up);
	cr_expect(fabs(up->delta_seconds_frac + 0.5) < 1e-12);
}

/* ---- interleaving, frameworks and Llama 3 ------------------------------- */

/* Megatron-LM's split with the embedding and the loss counted as layers:
 * 126 layers on 16 ranks are 128 = 16 x 8 slots, so 2 and 4 virtual
 * stages split them (8 would leave a virtual stage empty), 3 does not. */
Test(perf, interleaving_as_megatron_splits)
{
	cr_expect(tb_perf_virtual_ok(126, 16, 1));
	cr_expect(tb_perf_virtual_ok(126, 16, 2));
	cr_expect(tb_perf_virtual_ok(126, 16, 4));
	cr_expect(!tb_perf_virtual_ok(126, 16, 3));
	cr_expect(!tb_perf_virtual_ok(126, 16, 8));     /* 128 chunks, 126 layers */
	cr_expect(tb_perf_virtual_ok(96, 8, 3));        /* GPT-3 175B, Korthikanti Table 5 */
	cr_expect(tb_perf_virtual_ok(105, 35, 3));      /* 530B */
	cr_expect(tb_perf_virtual_ok(127, 16, 4));      /* the loss alone counted: 128 = 16 x 4 x 2 */
	cr_expect(!tb_perf_virtual_ok(125, 16, 8));     /* three short */
	cr_expect(!tb_perf_virtual_ok(INT64_MAX, 16, INT64_MAX));
}

Test(perf, framework_zero_stages)
{
	const char *why;
	cr_expect(!tb_perf_framework_zero_ok(TB_FW_MEGATRON, 2, 1, &why));
	cr_expect(strstr(why, "ZeRO-1") != NULL, "%s", why);
	cr_expect(tb_perf_framework_zero_ok(TB_FW_MEGATRON, 1, 16, NULL));
	cr_expect(!tb_perf_framework_zero_ok(TB_FW_FSDP, 1, 1, NULL));
	cr_expect(tb_perf_framework_zero_ok(TB_FW_FSDP, 2, 1, NULL));
	cr_expect(tb_perf_framework_zero_ok(TB_FW_DEEPSPEED, 2, 1, NULL));
	cr_expect(!tb_perf_framework_zero_ok(TB_FW_DEEPSPEED, 2, 4, NULL));
	cr_expect(tb_perf_framework_zero_ok(TB_FW_DEEPSPEED, 1, 4, NULL));
	for (int z = 0; z < 4; z++)
		cr_expect(tb_perf_framework_zero_ok(TB_FW_ANY, z, 16, NULL));
}

/* How many reductions a step makes, by framework (docs/formulas.md): the
 * distributed optimizer (ZeRO-1) reduces and gathers once a step; ZeRO-2
 * reduce-scatters every micro-batch and gathers once (DeepSpeed), or every
 * micro-batch too (FSDP's SHARD_GRAD_OP); ZeRO-3 gathers twice and reduces
 * once every micro-batch. */
Test(perf, reductions_per_step_by_framework)
{
	tb_perf_input in;
	S_gpt(&in, "h100-sxm", 4096, 32, 32, 2048, 512, 2, 1, 1, 1, 64, TB_CKPT_NONE, false);
	tb_perf_result r;
	double m = 512.0 / (2 * 64);                /* 4 micro-batches */
	in.zero = 1;
	tb_perf_predict(&in, NULL, &r);
	cr_assert(r.ok && r.microbatches == 4);
	cr_expect(rel(r.dp_total_s, r.dp_s) < 1e-12);
	in.zero = 3;
	tb_perf_predict(&in, NULL, &r);
	cr_expect(rel(r.dp_total_s, m * r.dp_s) < 1e-12);
	in.zero = 2;
	in.framework = TB_FW_FSDP;
	tb_perf_predict(&in, NULL, &r);
	cr_expect(rel(r.dp_total_s, m * r.dp_s) < 1e-12);
	double fsdp = r.dp_total_s;
	in.framework = TB_FW_DEEPSPEED;
	tb_perf_predict(&in, NULL, &r);
	cr_expect(r.dp_total_s < fsdp && r.dp_total_s > r.dp_s * 1.5);
}

/* Llama 3 (Grattafiori et al. 2024, arXiv:2407.21783) Table 4: 405B on
 * H100 at BF16 MFU 43% (8,192 GPUs), 41% (16,384) and 38% (16,384 at
 * 131,072 tokens with CP 16), TP 8, PP 16, each with an interleaved
 * schedule (Sec. 3.3.2: the first and last stages one layer short),
 * FSDP's per-micro-batch reduce-scatter in fp32 (Sec. 3.3.4), no
 * activation checkpointing.  Assumed: 4 virtual stages (the most that
 * splits 126 layers on 16 ranks; the paper does not print v), micro-batch
 * 1; the MFU on 6N plus the causal half of attention (the paper does not
 * print its convention; the full square would put the 131K row at 49%).
 * Tolerance: 10%, the bar for these rows. */
Test(perf, llama3_table4)
{
	const tb_preset *pr = tb_presets_find("llama-3.1-405b");
	cr_assert_not_null(pr);
	struct { int64_t gpus, cp, dp, seq, per_dp; double mfu; } rows[] = {
		{ 8192, 1, 64, 8192, 32, 0.43 },
		{ 16384, 1, 128, 8192, 16, 0.41 },
		{ 16384, 16, 8, 131072, 16, 0.38 },
	};
	for (size_t i = 0; i < 3; i++) {
		tb_inputs x;
		memset(&x, 0, sizeof x);
		x.model = pr->model;
		x.training.seq_len = rows[i].seq;
		x.training.global_batch = rows[i].dp * rows[i].per_dp;
		x.training.micro_batch = 1;
		x.training.precision = TB_PREC_BF16_MIXED;
		x.training.grad_dtype = TB_GRAD_FP32;
		x.training.optimizer = TB_OPT_ADAMW;
		x.training.checkpointing = TB_CKPT_NONE;
		x.training.flash_attention = true;
		x.training.attention_flops = TB_ATTN_FLOPS_CAUSAL;
		x.parallelism.tensor = 8;
		x.parallelism.pipeline = 16;
		x.parallelism.virtual_pipeline = 4;
		x.parallelism.context = rows[i].cp;
		x.parallelism.data = rows[i].dp;
		x.parallelism.sequence_parallel = true;
		x.parallelism.zero = 2;
		x.hardware.gpu = *tb_gpus_find("h100-sxm");
		x.hardware.count = rows[i].gpus;
		tb_perf_input in;
		tb_perf_input_from(&x, &in);
		tb_perf_result r;
		tb_perf_predict(&in, NULL, &r);
		cr_assert(r.ok, "%s", r.why);
		cr_expect(rel(r.mfu, rows[i].mfu) < 0.10, "row %zu: MFU %.3f, published %.2f", i,
		          r.mfu, rows[i].mfu);
	}
}

/* A card whose efficiencies nobody measured (B200: H100's matmul and
 * attention fractions, gpus.c) is flagged where the prediction uses them;
 * a measured card (H100: MAMF 794.5 of 989 TFLOP/s) is not. */
Test(perf, assumed_card_efficiencies_are_said)
{
	tb_inputs x;
	S_budget_inputs(&x);
	static tb_budget b;
	tb_budget_compute(&x, &b);
	cr_expect(!S_has_warning(&b, "not measured on that card"));
	x.hardware.gpu = *tb_gpus_find("b200");
	tb_budget_compute(&x, &b);
	cr_expect(S_has_warning(&b, "efficiencies for b200 are not measured"));
	x.hardware.mfu_predicted = false;     /* an assumed MFU uses none of them */
	tb_budget_compute(&x, &b);
	cr_expect(!S_has_warning(&b, "not measured on that card"));
}

/* DeepSeek-V3 as DeepSeek trained it (arXiv:2412.19437 Sec. 3.2): the
 * preset's shape, 4K sequences, PP 16, EP 64 over 8 nodes, ZeRO-1, fp8. */
static void S_deepseek_v3(tb_inputs *x)
{
	const tb_preset *pr = tb_presets_find("deepseek-v3");
	cr_assert_not_null(pr);
	memset(x, 0, sizeof *x);
	x->model = pr->model;
	x->training.tokens = 14.8e12;
	x->training.seq_len = 4096;
	x->training.global_batch = 15360;
	x->training.micro_batch = 1;
	x->training.precision = TB_PREC_FP8_MIXED;
	x->training.optimizer = TB_OPT_ADAMW;
	x->training.checkpointing = TB_CKPT_SELECTIVE;
	x->training.flash_attention = true;
	x->training.attention_flops = TB_ATTN_FLOPS_CAUSAL;
	x->parallelism.tensor = 1;
	x->parallelism.pipeline = 16;
	x->parallelism.expert = 64;
	x->parallelism.data = 128;
	x->parallelism.zero = 1;
	x->hardware.gpu = *tb_gpus_find("h800");
	x->hardware.count = 2048;
}

/* The step-time model counts a mixture's FLOPs from the shapes it times:
 * routed experts at their own width, the shared expert, the leading dense
 * layers and MLA's low-rank projections.  Its count must be flops.c's
 * (within what each leaves out: norms, the router's bias) and DeepSeek's
 * own: 37B activated parameters (arXiv:2412.19437 Sec. 1), six FLOPs each
 * per token.  Before the shapes were read, the model timed DeepSeek-V3's
 * experts at the dense width, 9 times theirs (5.3 times flops.c's count). */
Test(perf, moe_shapes_count_like_flops)
{
	static const char *const names[] = {
		"mixtral-8x7b", "qwen1.5-moe-a2.7b", "deepseek-v2-lite", "deepseek-v3",
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		tb_inputs x;
		S_deepseek_v3(&x);
		x.model = tb_presets_find(names[i])->model;
		x.parallelism.expert = 8;
		x.parallelism.pipeline = 4;
		x.parallelism.data = 512;
		x.parallelism.zero = 1;
		static tb_budget b;
		tb_budget_compute(&x, &b);
		tb_perf_input in;
		tb_perf_input_from(&x, &in);
		in.model_flops_per_token = 0;
		tb_perf_result r;
		tb_perf_predict(&in, NULL, &r);
		cr_assert(r.ok, "%s: %s", names[i], r.why);
		double per_token = r.model_flops_per_step / (15360.0 * 4096);
		cr_expect(rel(per_token, b.flops.per_token_model) < 0.01, "%s: %.4g vs flops.c %.4g",
		          names[i], per_token, b.flops.per_token_model);
	}
	tb_inputs x;
	S_deepseek_v3(&x);
	x.training.seq_len = 1;     /* the attention core vanishes */
	x.training.global_batch = 15360 * 4096;
	tb_perf_input in;
	tb_perf_input_from(&x, &in);
	in.model_flops_per_token = 0;
	tb_perf_result r;
	tb_perf_predict(&in, NULL, &r);
	cr_assert(r.ok, "%s", r.why);
	double n_active = r.model_flops_per_step / (15360.0 * 4096) / 6;
	cr_expect(rel(n_active, 37e9) < 0.03, "%.4g activated parameters", n_active);
}

/* A mixture's dense layers do not read the expert-parallel size, so a
 * search times them once per shape (tb_perf_layer_time_reuse): a layer
 * made at one expert size, its dense fields taken from a layer made at
 * another, is the layer made whole, to the last bit, under every
 * checkpointing, with and without sequence parallelism and tensor 4. */
Test(perf, dense_layers_reused_across_expert_sizes)
{
	static const int64_t es[] = { 1, 2, 8, 64, 256 };
	for (int ck = 0; ck < 3; ck++)
		for (int t = 1; t <= 4; t *= 4) {
			tb_inputs x;
			S_deepseek_v3(&x);
			x.training.checkpointing = (tb_checkpointing)ck;
			x.parallelism.tensor = t;
			x.parallelism.sequence_parallel = t > 1;
			tb_perf_input in;
			tb_perf_input_from(&x, &in);
			in.data = 256;      /* every expert size divides the ranks */
			in.expert = 8;
			tb_perf_layer first;
			cr_assert(tb_perf_layer_time(&in, NULL, &first, NULL));
			cr_assert(first.dense_fwd > 0 && first.dense_fwd != first.fwd);
			for (size_t i = 0; i < sizeof es / sizeof es[0]; i++) {
				in.expert = es[i];
				tb_perf_layer whole, reused;
				memset(&whole, 0, sizeof whole);
				memset(&reused, 0, sizeof reused);
				cr_assert(tb_perf_layer_time(&in, NULL, &whole, NULL));
				cr_assert(tb_perf_layer_time_reuse(&in, NULL, &first, &reused, NULL));
				cr_expect(memcmp(&whole, &reused, sizeof whole) == 0,
				          "ck %d, t %d, e %lld: reused dense fields differ", ck, t,
				          (long long)es[i]);
				cr_expect(whole.fwd != first.fwd || es[i] == 8,
				          "the expert layer does read the expert size");
			}
		}
}

/* The three dense layers lead DeepSeek-V3's 61: on 16 stages (3, 4 x 14,
 * 3 layers) they are the first stage's, the busiest is a middle stage of 4
 * expert layers; on 2 (31 and 30) the first holds 3 dense and 28 expert
 * layers with the embedding, the last 30 expert layers and the logits. */
Test(perf, moe_dense_layers_by_stage)
{
	tb_inputs x;
	S_deepseek_v3(&x);
	tb_perf_input in;
	tb_perf_input_from(&x, &in);
	in.mtp_modules = 0;     /* the MTP module apart: mtp_module_on_the_last_stage */
	tb_perf_layer L;
	cr_assert(tb_perf_layer_time(&in, NULL, &L, NULL));
	cr_expect(L.dense_fwd > 0 && L.dense_bwd > 0 && L.dense_fwd != L.fwd);
	tb_perf_result r;
	tb_perf_predict(&in, NULL, &r);
	cr_assert(r.ok, "%s", r.why);
	cr_expect_eq(r.stage_layers[0], 3);
	cr_expect_eq(r.stage_layers[1], 4);
	cr_expect_eq(r.stage_layers[2], 3);
	cr_expect_eq(r.busiest_stage, 1);
	double m = (double)r.microbatches;
	cr_expect(rel(r.breakdown_s[TB_PERF_COMPUTE], m * 4 * (L.fwd + L.bwd)) < 1e-12);

	in.pipeline = 2;
	in.data = 1024;
	tb_perf_predict(&in, NULL, &r);
	cr_assert(r.ok, "%s", r.why);
	cr_expect_eq(r.stage_layers[0], 31);
	cr_expect_eq(r.stage_layers[2], 30);
	/* a dense layer is quicker than an expert layer with its all-to-all,
	 * so the last stage's 30 expert layers and the logits are the busier */
	cr_assert_eq(r.busiest_stage, 2);
	m = (double)r.microbatches;
	double over = tb_perf_fitted.layer_overhead_s;
	double lt = L.fwd + L.bwd + L.recompute + L.ep + over;
	double ld = L.dense_fwd + L.dense_bwd + L.dense_recompute + over;
	double first = 3 * ld + 28 * lt + L.embed_s, last = 30 * lt + L.logits_s;
	cr_expect(first < last && ld < lt);
	cr_expect(rel(r.stage_microbatch_s, last) < 1e-12, "%g vs %g", r.stage_microbatch_s, last);
	cr_expect(rel(r.breakdown_s[TB_PERF_COMPUTE], m * (30 * (L.fwd + L.bwd) + L.logits_s)) < 1e-12);
}

/* The expert all-to-all by hand: each GPU sends every routed copy of its
 * tokens' hidden states, 4,096 tokens x 8 experts x 7,168 x 2 bytes =
 * 469,762,048 bytes, dispatched and combined, forward and backward (4);
 * 56 of EP 64's ranks are in other nodes.  Overlapped with another
 * micro-batch's compute, what the compute cannot hide is exposed, and the
 * compute it hides behind runs on 112 of 132 SMs (DeepSeek-V3 Sec. 3.2.2). */
Test(perf, expert_all_to_all_hand_worked)
{
	tb_inputs x;
	S_deepseek_v3(&x);
	tb_perf_input in;
	tb_perf_input_from(&x, &in);
	tb_perf_result r;
	tb_perf_predict(&in, NULL, &r);
	cr_assert(r.ok, "%s", r.why);
	cr_expect_eq(r.ep_bytes, 469762048.0);
	tb_perf_layer L;
	cr_assert(tb_perf_layer_time(&in, NULL, &L, NULL));
	double one = tb_perf_collective_s(TB_COLL_ALL_TO_ALL, 469762048.0, 64, 8, &in.hw, NULL);
	cr_expect(rel(L.ep, 4 * one) < 1e-12, "%g vs %g", L.ep, 4 * one);
	/* the 56/64 that leave the node dominate: 0.875 x 470 MB at 50 GB/s */
	cr_expect(one > 0.875 * 469762048.0 / 50e9);

	in.overlap_ep = true;
	tb_perf_layer O;
	cr_assert(tb_perf_layer_time(&in, NULL, &O, NULL));
	double hide = O.fwd + O.bwd + O.recompute, total = 4 * one;
	double share = 20.0 / 132.0;
	double want = fmax(total - hide, 0) + fmin(total, hide) * share / (1 - share);
	cr_expect(rel(O.ep, want) < 1e-12, "%g vs %g", O.ep, want);
	cr_expect(O.ep < L.ep);
	cr_expect_eq(O.fwd, L.fwd);
}

/* Expert tensor parallelism below the tensor size folds the expert group
 * over the tensor ranks (MoE Parallel Folding, arXiv:2504.14960): Qwen3-
 * 235B's TP 2 with expert_tensor 1 and EP 32 on DP 16.  Each rank sends
 * its own half of the sequence-parallel tokens, 4,096 / 2 x 8 x 4,096 x
 * 2 bytes = 134,217,728, to 31 others of which 7 share its node (the group
 * is consecutive ranks); each holds 4 of the 128 experts whole. */
Test(perf, expert_tensor_folds_over_tensor_ranks)
{
	tb_perf_input in;
	memset(&in, 0, sizeof in);
	in.layers = 94, in.hidden = 4096, in.heads = 64, in.kv_heads = 4, in.head_dim = 128;
	in.ffn_hidden = 12288, in.vocab = 151936, in.experts = 128, in.experts_per_token = 8;
	in.expert_ffn_hidden = 1536, in.gated_mlp = true;
	in.seq_len = 4096, in.global_batch = 2048, in.micro_batch = 1;
	in.tensor = 2, in.pipeline = 8, in.virtual_pipeline = 4, in.context = 1;
	in.expert = 32, in.data = 16, in.zero = 1, in.sequence_parallel = true;
	in.checkpointing = TB_CKPT_SELECTIVE, in.flash_attention = true, in.overlap_dp = true;
	in.matmul_bytes = 2, in.act_bytes = 2, in.param_bytes = 2, in.grad_bytes = 4;
	in.optimizer_bytes_per_param = 34;
	tb_inputs x;
	memset(&x, 0, sizeof x);
	x.hardware.gpu = *tb_gpus_find("h100-sxm");
	x.training.precision = TB_PREC_BF16_MIXED;
	tb_perf_input hw;
	tb_perf_input_from(&x, &hw);
	in.hw = hw.hw;

	/* expert tensor 2 (the default, the tensor size): 32 x 2 ranks are
	 * more than the 32 there are */
	tb_perf_result r;
	tb_perf_predict(&in, NULL, &r);
	cr_expect(!r.ok && strstr(r.why, "expert"), "%s", r.why);

	in.expert_tensor = 1;
	tb_perf_predict(&in, NULL, &r);
	cr_assert(r.ok, "%s", r.why);
	cr_expect_eq(r.ep_bytes, 134217728.0);
	tb_perf_layer L;
	cr_assert(tb_perf_layer_time(&in, NULL, &L, NULL));
	double one = tb_perf_collective_s(TB_COLL_ALL_TO_ALL, 134217728.0, 32, 8, &in.hw, NULL);
	cr_expect(rel(L.ep, 4 * one) < 1e-12, "%g vs %g", L.ep, 4 * one);
	cr_expect_eq(tb_perf_expert_tensor(0, 4), 4);
	cr_expect_eq(tb_perf_expert_tensor(1, 4), 1);
}

/* DeepEP by hand (DeepSeek-V3 Sec. 3.2.2): EP 64 spans 8 nodes; routing
 * allows 4 of the 8 groups, one a node, so a token's 8 experts fall on
 * D = 4 (1 - (3/4)^8) = 3.5995 nodes on average, 7/8 of them remote.  It
 * crosses the network once per such node, 4,096 x 7,168 bytes a token
 * row in fp8 for the dispatch (2 bytes for the combine), and NVLink
 * forwards each of its 8 copies to the other 7 GPUs of the node. */
Test(perf, deepep_sends_once_per_node)
{
	tb_inputs x;
	S_deepseek_v3(&x);
	x.parallelism.dispatcher = TB_DISPATCH_DEEPEP;
	tb_perf_input in;
	tb_perf_input_from(&x, &in);
	cr_expect_eq(in.route_groups, 8);
	tb_perf_layer L;
	cr_assert(tb_perf_layer_time(&in, NULL, &L, NULL));
	double D = 4 * (1 - pow(0.75, 8));
	cr_expect(fabs(D - 3.5995) < 1e-4);
	double row = 4096.0 * 7168;
	double send = tb_perf_collective_s(TB_COLL_P2P, row * 1 * D * 7 / 8, 2, 1, &in.hw, NULL) +
	              tb_perf_collective_s(TB_COLL_P2P, row * 1 * 8 * 7 / 8, 2, 2, &in.hw, NULL);
	double back = tb_perf_collective_s(TB_COLL_P2P, row * 2 * D * 7 / 8, 2, 1, &in.hw, NULL) +
	              tb_perf_collective_s(TB_COLL_P2P, row * 2 * 8 * 7 / 8, 2, 2, &in.hw, NULL);
	cr_expect(rel(L.ep, 2 * (send + back)) < 1e-12, "%g vs %g", L.ep, 2 * (send + back));
	/* against every routed copy in bf16 through Megatron-LM's all-to-all:
	 * about half the time (the network carries 3.15 rows a token in place
	 * of 7, at 1.5 bytes an element in place of 2; NVLink carries more) */
	in.dispatcher = TB_DISPATCH_ALLTOALL;
	tb_perf_layer A;
	cr_assert(tb_perf_layer_time(&in, NULL, &A, NULL));
	cr_expect(L.ep < 0.55 * A.ep, "%g vs %g", L.ep, A.ep);
	/* without the group limit a token reaches 8 (1 - (7/8)^8) = 5.25 nodes */
	in.dispatcher = TB_DISPATCH_DEEPEP;
	in.route_groups = 0;
	tb_perf_layer U;
	cr_assert(tb_perf_layer_time(&in, NULL, &U, NULL));
	cr_expect(U.ep > L.ep);
}

/* The published MFUs the ceiling holds count attention over the causal
 * half; a scenario on PaLM's full square is put on that count before it
 * is compared: Llama 2 7B at 4K, 6N plus 12 L h s per token (full) against
 * 6N plus 6 L h s (causal). */
Test(perf, causal_mfu_scale)
{
	tb_inputs x;
	memset(&x, 0, sizeof x);
	x.model = tb_presets_find("llama-2-7b")->model;
	x.training.seq_len = 4096;
	x.training.global_batch = 1024;
	x.training.micro_batch = 1;
	x.training.precision = TB_PREC_BF16_MIXED;
	x.training.flash_attention = true;
	x.training.attention_flops = TB_ATTN_FLOPS_FULL;
	x.parallelism.data = 64;
	x.hardware.gpu = *tb_gpus_find("h100-sxm");
	x.hardware.count = 64;
	tb_perf_input in;
	tb_perf_input_from(&x, &in);
	tb_perf_result full, causal;
	tb_perf_predict(&in, NULL, &full);
	in.causal_attention_flops = true;
	tb_perf_predict(&in, NULL, &causal);
	cr_assert(full.ok && causal.ok);
	cr_expect_eq(tb_perf_causal_mfu_scale(&in), 1);
	in.causal_attention_flops = false;
	double k = tb_perf_causal_mfu_scale(&in);
	cr_expect(k < 1 && rel(full.mfu * k, causal.mfu) < 1e-12, "%g", k);
	/* by hand: 32 layers, h 4096, s 4096, V 32000 */
	double N = 32 * (4.0 * 4096 * 4096 + 3.0 * 4096 * 11008) + 32000.0 * 4096;
	double want = (6 * N + 6.0 * 32 * 4096 * 4096) / (6 * N + 12.0 * 32 * 4096 * 4096);
	cr_expect(rel(k, want) < 1e-12, "%.6f vs %.6f", k, want);
	/* a caller's own count (flops.c's) is what the scale starts from */
	in.model_flops_per_token = 2 * full.model_flops_per_step / (1024.0 * 4096);
	cr_expect(rel(tb_perf_causal_mfu_scale(&in), k / 2) < 1e-12);
	/* an input that cannot be timed scales by 1 */
	in.layers = 0;
	cr_expect_eq(tb_perf_causal_mfu_scale(&in), 1);
}

/* HSDP by hand (FSDP's HYBRID_SHARD): ZeRO-3 over 64 ranks in shard groups
 * of 8 (one node each): every micro-batch gathers the weights twice and
 * reduce-scatters the gradients inside the node, then all-reduces the
 * 1/8 gradient shard across the 8 nodes, one rank a node; each rank
 * updates 1/8 of the weights, and holds 8 times the sharded states of
 * ZeRO-3 over all 64. */
Test(perf, hsdp_shards_within_a_group)
{
	tb_inputs x;
	S_budget_inputs(&x);
	x.parallelism.tensor = 1;
	x.parallelism.pipeline = 1;
	x.parallelism.data = 64;
	x.parallelism.zero = 3;
	x.hardware.count = 64;
	static tb_budget whole, hsdp;
	tb_budget_compute(&x, &whole);
	x.parallelism.shard_group = 8;
	tb_budget_compute(&x, &hsdp);
	cr_assert(whole.perf.known && hsdp.perf.known, "%s %s", whole.perf.why, hsdp.perf.why);
	const tb_perf_input *in = &hsdp.perf.in;
	cr_expect_eq(in->shard_group, 8);
	const tb_perf_result *r = &hsdp.perf.r;
	double dense = r->dp_bytes / (2 * in->param_bytes + in->grad_bytes);
	double ag = tb_perf_collective_s(TB_COLL_ALL_GATHER, dense * in->param_bytes, 8, 8, &in->hw, NULL);
	double rs = tb_perf_collective_s(TB_COLL_REDUCE_SCATTER, dense * in->grad_bytes, 8, 8, &in->hw, NULL) +
	            tb_perf_collective_s(TB_COLL_ALL_REDUCE, dense * in->grad_bytes / 8, 8, 1, &in->hw, NULL);
	cr_expect(rel(r->dp_s, 2 * ag + rs) < 1e-12, "%g vs %g", r->dp_s, 2 * ag + rs);
	cr_expect(rel(r->optimizer_params, dense / 8) < 1e-12);
	cr_expect(rel(whole.perf.r.optimizer_params, dense / 64) < 1e-12);
	/* the sharded states: 8x ZeRO-3's over 64 */
	cr_expect(rel(hsdp.memory.per_gpu.optimizer, 8 * whole.memory.per_gpu.optimizer) < 1e-9,
	          "%g vs %g", hsdp.memory.per_gpu.optimizer, whole.memory.per_gpu.optimizer);
	/* a group that does not divide the replicas is refused */
	tb_perf_input bad = *in;
	bad.shard_group = 7;
	tb_perf_result rb;
	tb_perf_predict(&bad, NULL, &rb);
	cr_expect(!rb.ok && strstr(rb.why, "shard"));
}

/* FSDP's no_sync: ZeRO-3 still gathers the weights twice every micro-batch
 * but reduce-scatters once a step, after the last backward, keeping the
 * whole gradient until then: (m - 1) reduce-scatters fewer, the gradients
 * unsharded in memory (d times ZeRO-3's share). */
Test(perf, fsdp_no_sync)
{
	tb_inputs x;
	S_budget_inputs(&x);
	x.parallelism.tensor = 1;
	x.parallelism.pipeline = 1;
	x.parallelism.data = 64;
	x.parallelism.zero = 3;
	x.parallelism.framework = TB_FW_FSDP;
	x.hardware.count = 64;
	static tb_budget each, once;
	tb_budget_compute(&x, &each);
	x.parallelism.no_sync = true;
	tb_budget_compute(&x, &once);
	cr_assert(each.perf.known && once.perf.known);
	const tb_perf_result *a = &each.perf.r, *b = &once.perf.r;
	cr_assert_gt(a->microbatches, 1);
	const tb_perf_input *in = &once.perf.in;
	double dense = b->dp_bytes / (2 * in->param_bytes + in->grad_bytes);
	double rs = tb_perf_collective_s(TB_COLL_REDUCE_SCATTER, dense * in->grad_bytes, 64, 8,
	                                 &in->hw, NULL);
	cr_expect(rel(a->dp_total_s - b->dp_total_s, (double)(a->microbatches - 1) * rs) < 1e-9,
	          "%g vs %g", a->dp_total_s - b->dp_total_s, (double)(a->microbatches - 1) * rs);
	cr_expect(b->breakdown_s[TB_PERF_DP_COMM] <= a->breakdown_s[TB_PERF_DP_COMM]);
	cr_expect(rel(once.memory.per_gpu.gradients, 64 * each.memory.per_gpu.gradients) < 1e-9,
	          "%g vs %g", once.memory.per_gpu.gradients, each.memory.per_gpu.gradients);
	cr_expect_eq(once.memory.per_gpu.weights, each.memory.per_gpu.weights);
}

/* Llama 3.1 8B as torchtitan's 2024-12 benchmark ran it (Table 1: FSDP on 8
 * H100 96GB HBM2e at the default 500 W, 2.4 TB/s, local batch 2 of 8,192,
 * selective per-op checkpointing, bf16).  */
static void S_torchtitan_8b(tb_inputs *x, tb_selective policy, double limit_w)
{
	memset(x, 0, sizeof *x);
	x->model.has_shape = true;
	x->model.layers = 32;
	x->model.hidden = 4096;
	x->model.heads = 32;
	x->model.kv_heads = 8;
	x->model.head_dim = 128;
	x->model.ffn_hidden = 14336;
	x->model.vocab = 128256;
	x->model.mlp = TB_MLP_GATED;
	x->training.seq_len = 8192;
	x->training.global_batch = 16;
	x->training.micro_batch = 2;
	x->training.precision = TB_PREC_BF16_MIXED;
	x->training.optimizer = TB_OPT_ADAMW;
	x->training.checkpointing = TB_CKPT_SELECTIVE;
	x->training.selective_policy = policy;
	x->training.flash_attention = true;
	x->training.attention_flops = TB_ATTN_FLOPS_CAUSAL;
	x->parallelism.tensor = x->parallelism.pipeline = x->parallelism.virtual_pipeline = 1;
	x->parallelism.context = x->parallelism.expert = 1;
	x->parallelism.data = 8;
	x->parallelism.zero = 3;
	x->parallelism.framework = TB_FW_FSDP;
	x->hardware.gpu = *tb_gpus_find("h100-sxm");
	x->hardware.gpu.bandwidth_bytes_per_s = 2.4e12;
	x->hardware.power_limit_w = limit_w;
	x->hardware.count = 8;
}

/* The op policy redoes k, o and up (the layer's second, fourth and sixth
 * matmuls) and every memory-bound op, and never the attention; the
 * attention policy under flash attention redoes nothing. */
Test(perf, op_policy_recomputes_its_matmuls)
{
	tb_inputs x;
	tb_perf_input in;
	tb_perf_layer L;
	S_torchtitan_8b(&x, TB_SELECTIVE_OP, 0);
	tb_perf_input_from(&x, &in);
	cr_assert(tb_perf_layer_time(&in, NULL, &L, NULL));
	double tok = 2 * 8192.0;
	double want = tb_perf_matmul_s(tok, 1024, 4096, 2, &in.hw, NULL) +
	              tb_perf_matmul_s(tok, 4096, 4096, 2, &in.hw, NULL) +
	              tb_perf_matmul_s(tok, 14336, 4096, 2, &in.hw, NULL) + L.mem_f;
	cr_expect(rel(L.recompute, want) < 1e-12, "%g vs %g", L.recompute, want);
	S_torchtitan_8b(&x, TB_SELECTIVE_ATTENTION, 0);
	tb_perf_input_from(&x, &in);
	cr_assert(tb_perf_layer_time(&in, NULL, &L, NULL));
	cr_expect_eq(L.recompute, 0);
}

/* Held out of power_exponent's fit (docs/validation.md): torchtitan
 * 2024-12 Table 1, FSDP + torch.compile, 6,667 tokens/s per GPU, so a step
 * of 16 x 8,192 / (8 x 6,667) = 2.457 s; within 10% at 500 W, and 27%
 * fast at the card's TDP (what the model said before the limit). */
Test(perf, torchtitan_table1_at_500w_held_out)
{
	tb_inputs x;
	tb_perf_input in;
	tb_perf_result r;
	double published = 16 * 8192.0 / (8 * 6667.0);
	S_torchtitan_8b(&x, TB_SELECTIVE_OP, 500);
	tb_perf_input_from(&x, &in);
	tb_perf_predict(&in, NULL, &r);
	cr_assert(r.ok, "%s", r.why);
	cr_expect(rel(r.step_s, published) < 0.10, "%g s vs %g s", r.step_s, published);
	S_torchtitan_8b(&x, TB_SELECTIVE_OP, 0);
	tb_perf_input_from(&x, &in);
	tb_perf_predict(&in, NULL, &r);
	cr_expect(r.step_s < 0.8 * published, "%g s", r.step_s);
}

/* Multi-token prediction (DeepSeek-V3 Sec. 2.2, depth 1) on the last
 * pipeline stage, with the output head (Sec. 3.2.1): one more layer of the
 * model's kind, the projection of [h; embedding] (tok x 2h by 2h x h) forward
 * and back, and the head once more.  The last stage's time grows by exactly
 * that; every other stage's stays; the breakdown still adds up. */
Test(perf, mtp_module_on_the_last_stage)
{
	tb_inputs x;
	tb_perf_input in;
	tb_perf_layer L;
	tb_perf_result r0, r1;
	S_deepseek_v3(&x);
	cr_assert_eq(x.model.mtp_modules, 1);
	tb_perf_input_from(&x, &in);
	cr_assert(tb_perf_layer_time(&in, NULL, &L, NULL));
	double proj = 3 * tb_perf_matmul_s(4096, 7168, 2 * 7168, 1, &in.hw, NULL);
	cr_expect(rel(L.mtp_proj_s, proj) < 1e-12, "%g vs %g", L.mtp_proj_s, proj);
	tb_perf_predict(&in, NULL, &r1);
	in.mtp_modules = 0;
	tb_perf_predict(&in, NULL, &r0);
	cr_assert(r0.ok && r1.ok);
	double lt = L.fwd + L.bwd + L.recompute + L.tp + L.cp + L.ep + tb_perf_fitted.layer_overhead_s;
	double per_mb = lt + L.logits_s + L.logits_tp + L.mtp_proj_s;
	double m = 15360.0 / 128;
	/* the last stage was not the busiest without the module; with it,
	 * its micro-batches and bubble share grow */
	cr_expect(r1.step_s > r0.step_s);
	double sum = 0;
	for (int i = 0; i < TB_PERF_TERMS; i++)
		sum += r1.breakdown_s[i];
	cr_expect(rel(sum, r1.step_s) < 1e-12);
	cr_expect(r1.breakdown_s[TB_PERF_COMPUTE] + r1.breakdown_s[TB_PERF_RECOMPUTE] +
	          r1.breakdown_s[TB_PERF_EP_COMM] + r1.breakdown_s[TB_PERF_OTHER] >=
	          m * per_mb, "the module's own share of the busiest stage");
}

/* Held out (docs/validation.md): torchtitan's June 2025 async-TP benchmark,
 * Llama 3.1 70B on 256 of Meta's 500 W H100s (FSDP 32 x TP 8, local batch
 * 16 of 8,192, full checkpointing, bf16): 652.4 tokens/s per GPU with async
 * TP, a step of 512 x 8,192 / (256 x 652.4) = 25.11 s.  parallelism.
 * overlap_tp hides the tensor-parallel collectives behind the matmuls:
 * within 10% with it; without it the model exposes them and is slow. */
Test(perf, torchtitan_70b_async_tp_held_out)
{
	tb_inputs x;
	S_torchtitan_8b(&x, TB_SELECTIVE_ATTENTION, 500);
	x.model.layers = 80;
	x.model.hidden = 8192;
	x.model.heads = 64;
	x.model.ffn_hidden = 28672;
	x.training.global_batch = 512;
	x.training.micro_batch = 16;
	x.training.checkpointing = TB_CKPT_FULL;
	x.parallelism.tensor = 8;
	x.parallelism.data = 32;
	x.parallelism.sequence_parallel = true;
	x.parallelism.overlap_tp = true;
	x.hardware.count = 256;
	tb_perf_input in;
	tb_perf_result on, off;
	tb_perf_input_from(&x, &in);
	cr_assert(in.overlap_tp);
	tb_perf_predict(&in, NULL, &on);
	cr_assert(on.ok, "%s", on.why);
	double published = 512 * 8192.0 / (256 * 652.4);
	cr_expect(rel(on.step_s, published) < 0.10, "%g s vs %g s", on.step_s, published);
	in.overlap_tp = false;
	tb_perf_predict(&in, NULL, &off);
	cr_expect(off.breakdown_s[TB_PERF_TP_COMM] > on.breakdown_s[TB_PERF_TP_COMM]);
	cr_expect(off.step_s > 1.10 * published, "%g s", off.step_s);
}

/* parallelism.overlap_dp: false, Megatron-LM as MegaScale's baseline ran it
 * (commit 285068c8, January 2023; --overlap-grad-reduce arrived in August
 * 2023): the distributed optimizer's reduce-scatter and gather wait for the
 * backward, so the whole of the data-parallel communication is in the step;
 * with the overlap, what one micro-batch's pass covers hides.  MegaScale Table 2's 175B layout at
 * 12,288 GPUs (TP 8, PP 8, 6 virtual stages, DP 192, batch 6,144). */
Test(perf, overlap_dp_false_exposes_the_whole_reduction)
{
	tb_inputs x;
	memset(&x, 0, sizeof x);
	x.model.has_shape = true;
	x.model.layers = 96;
	x.model.hidden = 12288;
	x.model.heads = 96;
	x.model.kv_heads = 96;
	x.model.head_dim = 128;
	x.model.ffn_hidden = 4 * 12288;
	x.model.vocab = 64000;
	x.training.seq_len = 2048;
	x.training.global_batch = 6144;
	x.training.micro_batch = 1;
	x.training.precision = TB_PREC_BF16_MIXED;
	x.training.optimizer = TB_OPT_ADAMW;
	x.training.flash_attention = true;
	x.parallelism.tensor = 8;
	x.parallelism.pipeline = 8;
	x.parallelism.virtual_pipeline = 6;
	x.parallelism.data = 192;
	x.parallelism.zero = 1;
	x.parallelism.sequence_parallel = true;
	x.parallelism.framework = TB_FW_MEGATRON;
	x.hardware.gpu = *tb_gpus_find("a100-80gb");
	x.hardware.count = 12288;
	tb_perf_input in;
	tb_perf_result on, off;
	tb_perf_input_from(&x, &in);
	cr_assert(in.overlap_dp, "the default overlaps");
	tb_perf_predict(&in, NULL, &on);
	cr_assert(on.ok, "%s", on.why);
	x.parallelism.no_overlap_dp = true;
	tb_perf_input_from(&x, &in);
	cr_assert(!in.overlap_dp);
	tb_perf_predict(&in, NULL, &off);
	cr_assert(off.ok, "%s", off.why);
	cr_expect(rel(off.breakdown_s[TB_PERF_DP_COMM], off.dp_total_s) < 1e-12, "%g of %g s",
	          off.breakdown_s[TB_PERF_DP_COMM], off.dp_total_s);
	/* overlapped, the last micro-batch's backward and the first one's
	 * forward hide what they can */
	cr_expect(on.breakdown_s[TB_PERF_DP_COMM] < off.breakdown_s[TB_PERF_DP_COMM], "%g of %g s",
	          on.breakdown_s[TB_PERF_DP_COMM], on.dp_total_s);
	cr_expect(rel(on.dp_total_s, off.dp_total_s) < 1e-12);
	cr_expect(off.step_s > on.step_s);
}

/* Llama 3.1 405B as torchtitan's docs ran it (docs/performance.md, commit
 * 4d88a8a): 128 H100 of 95 GB HBM2e at a lower TDP (taken as 500 W), FSDP
 * 16 x TP 8, local batch 2 of 8,192, full recomputation, fp8 linears: 177
 * tokens/s per GPU. */
static void S_torchtitan_405b(tb_inputs *x, tb_framework fw)
{
	S_torchtitan_8b(x, TB_SELECTIVE_ATTENTION, 500);
	x->model.layers = 126;
	x->model.hidden = 16384;
	x->model.heads = 128;
	x->model.ffn_hidden = 53248;
	x->training.global_batch = 32;
	x->training.checkpointing = TB_CKPT_FULL;
	x->training.precision = TB_PREC_FP8_MIXED;
	x->parallelism.tensor = 8;
	x->parallelism.data = 16;
	x->parallelism.sequence_parallel = true;
	x->parallelism.framework = fw;
	x->hardware.count = 128;
}

/* ZeRO-3's hidden collectives cost zero3_overlap_cost of their time under
 * DeepSpeed (and a framework not named), fsdp_overlap_cost under FSDP and
 * Megatron-FSDP: dp = E + k (T - E), E what the overlap rule exposes and T
 * the collectives' whole time.  At 405B the gathers are about half the
 * step; FSDP hides them, as torchtitan's published figure shows. */
Test(perf, fsdp_pays_its_own_overlap_cost)
{
	tb_inputs x;
	tb_perf_input in;
	tb_perf_result r[3];
	tb_perf_consts k = tb_perf_fitted;
	S_torchtitan_405b(&x, TB_FW_FSDP);
	tb_perf_input_from(&x, &in);
	double cost[3] = { 0, 0.5, 1 };
	for (int i = 0; i < 3; i++) {
		k.fsdp_overlap_cost = cost[i];
		tb_perf_predict(&in, &k, &r[i]);
		cr_assert(r[i].ok, "%s", r[i].why);
	}
	double e = r[0].breakdown_s[TB_PERF_DP_COMM], t = r[2].breakdown_s[TB_PERF_DP_COMM];
	cr_expect(e < 0.2 * t, "exposed %g of %g s", e, t);
	cr_expect(rel(t, r[2].dp_total_s) < 1e-9, "%g vs %g s", t, r[2].dp_total_s);
	cr_expect(rel(r[1].breakdown_s[TB_PERF_DP_COMM], (e + t) / 2) < 1e-9);

	/* DeepSpeed's constant is the other one: fsdp_overlap_cost moves nothing */
	tb_perf_result ds, ds0;
	S_torchtitan_405b(&x, TB_FW_DEEPSPEED);
	tb_perf_input_from(&x, &in);
	k = tb_perf_fitted;
	tb_perf_predict(&in, &k, &ds);
	k.fsdp_overlap_cost = 0;
	tb_perf_predict(&in, &k, &ds0);
	cr_assert(ds.ok && ds0.ok);
	cr_expect(ds.step_s == ds0.step_s);
	S_torchtitan_405b(&x, TB_FW_ANY);
	tb_perf_input_from(&x, &in);
	tb_perf_result any;
	tb_perf_predict(&in, NULL, &any);
	cr_expect(any.step_s == ds.step_s, "a framework not named is priced as DeepSpeed");
	/* the report's assumptions say the same rule */
	cr_expect(tb_perf_zero3_overlap_cost(TB_FW_ANY, NULL) == tb_perf_fitted.zero3_overlap_cost);
	cr_expect(tb_perf_zero3_overlap_cost(TB_FW_MEGATRON, NULL) == tb_perf_fitted.fsdp_overlap_cost);
	cr_expect(strstr(tb_perf_dp_rule(TB_FW_FSDP, 3, false), "fsdp_overlap_cost"));
	cr_expect(strstr(tb_perf_dp_rule(TB_FW_ANY, 3, false), "zero3_overlap_cost"));
	cr_expect(strstr(tb_perf_dp_rule(TB_FW_FSDP, 2, false), "every micro-batch"));
	cr_expect(strstr(tb_perf_dp_rule(TB_FW_ANY, 2, false), "gathered once a step"));

	/* the published step: 32 x 8,192 tokens at 177 tokens/s on each of 128 */
	double published = 32 * 8192.0 / (128 * 177.0);
	tb_perf_result fsdp;
	S_torchtitan_405b(&x, TB_FW_FSDP);
	tb_perf_input_from(&x, &in);
	tb_perf_predict(&in, NULL, &fsdp);
	cr_expect(rel(fsdp.step_s, published) < 0.15, "%g s vs %g s", fsdp.step_s, published);
	cr_expect(ds.step_s > 1.5 * published, "%g s", ds.step_s);
}

/* Megatron-LM's block method redoes the first N layers of each model
 * chunk.  Llama 3's 126 layers on 16 ranks split 7, 8 x 14, 7; in two
 * chunks a rank holds 4 + 3 (first and last) or 4 + 4 layers.  N = 3:
 * 3 + 3 everywhere, 96 in all; N = 4: 4 + 3 = 7 and 4 + 4 = 8, every
 * layer; one chunk, N = 4: 4 a rank, 64. */
Test(perf, block_recomputation_counts_chunks)
{
	cr_expect_eq(tb_perf_stage_recomputed(7, 2, 3), 6);
	cr_expect_eq(tb_perf_stage_recomputed(7, 2, 4), 7);
	cr_expect_eq(tb_perf_stage_recomputed(8, 2, 3), 6);
	cr_expect_eq(tb_perf_stage_recomputed(8, 1, 0), 8);
	cr_expect_eq(tb_perf_recomputed_layers(126, 16, 2, 3), 96);
	cr_expect_eq(tb_perf_recomputed_layers(126, 16, 2, 4), 126);
	cr_expect_eq(tb_perf_recomputed_layers(126, 16, 1, 4), 64);
	cr_expect_eq(tb_perf_recomputed_layers(32, 1, 1, 16), 16);
	cr_expect_eq(tb_perf_recomputed_layers(126, 16, 1, 0), 126);
}

/* GPT-3 175B at t 8, p 8 (12 layers a stage): recomputing 4 of them
 * costs a third of full recomputation's forward work, the tensor-parallel
 * collectives 4 + 2/3 a layer instead of 6, and the step lies between
 * none and full. */
Test(perf, block_recomputation_prices_its_share)
{
	tb_perf_input in;
	tb_perf_result none, full, part;
	S_gpt(&in, "a100-80gb", 12288, 96, 96, 2048, 64, 1, 8, 8, 1, 1, TB_CKPT_NONE, true);
	tb_perf_predict(&in, NULL, &none);
	in.checkpointing = TB_CKPT_FULL;
	tb_perf_predict(&in, NULL, &full);
	in.recompute_layers = 4;
	tb_perf_predict(&in, NULL, &part);
	cr_assert(none.ok && full.ok && part.ok);
	cr_expect(full.recomputed_share == 1 && part.recomputed_share == 4.0 / 12);
	cr_expect(rel(part.breakdown_s[TB_PERF_RECOMPUTE], full.breakdown_s[TB_PERF_RECOMPUTE] / 3) < 1e-12);
	double tp_none = none.breakdown_s[TB_PERF_TP_COMM], tp_full = full.breakdown_s[TB_PERF_TP_COMM];
	cr_expect(rel(part.breakdown_s[TB_PERF_TP_COMM], tp_none + (tp_full - tp_none) / 3) < 1e-9);
	cr_expect(none.step_s < part.step_s && part.step_s < full.step_s, "%g %g %g", none.step_s,
	          part.step_s, full.step_s);
	cr_expect(rel(part.hardware_flops_per_step - part.model_flops_per_step,
	              (full.hardware_flops_per_step - full.model_flops_per_step) / 3) < 1e-12);
	/* every layer of the stage: full's bits */
	in.recompute_layers = 12;
	tb_perf_predict(&in, NULL, &part);
	cr_expect(part.step_s == full.step_s);
}

/* DeepSeek-V3's recomputation (arXiv:2412.19437 Sec. 3.2.3, 3.3.2) in an
 * expert layer, micro-batch 1 of 4,096 tokens at t = 1: the up-projections
 * of MLA's query latent (1,536 to 128 heads x 192) and key/value latent
 * (512 to 128 x (128 + 128)) again, as GEMMs at the fp8 matmul rate; the
 * two norms over the residual (4,096 x 7,168, read and written in 16
 * bits), the latents' norms, and the SwiGLU's output from its two inputs
 * for the 8 routed and the shared expert's rows (4,096 x 2,048 each), at
 * the HBM rate.  The recomputed FLOPs are the up-projections' alone. */
Test(perf, deepseek_recipe_recomputes_norms_up_projections_swiglu)
{
	tb_inputs x;
	S_deepseek_v3(&x);
	x.training.selective_policy = TB_SELECTIVE_DEEPSEEK;
	tb_perf_input in;
	tb_perf_input_from(&x, &in);
	tb_perf_result r;
	tb_perf_predict(&in, NULL, &r);
	cr_assert(r.ok, "%s", r.why);
	double s = 4096, h = 7168, ab = in.act_bytes;
	double gemm = tb_perf_matmul_s(s, 128 * 192, 1536, in.matmul_bytes, &in.hw, NULL) +
	              tb_perf_matmul_s(s, 128 * 256, 512, in.matmul_bytes, &in.hw, NULL);
	double bytes = 4 * s * h * ab + 2 * s * (1536 + 512) * ab + 3 * s * 2048 * (8 + 1) * ab;
	double want = gemm + bytes / (in.hw.hbm_bytes_per_s * tb_perf_fitted.mem_fraction);
	cr_expect(rel(r.layer_recompute_s, want) < 1e-12, "%.9g vs %.9g", r.layer_recompute_s, want);
	double per_token = 2 * 61 * 128 * (1536 * 192 + 512 * 256.0);
	double tokens = 15360 * 4096.0;            /* one step */
	cr_expect(rel(r.hardware_flops_per_step - r.model_flops_per_step, per_token * tokens) < 1e-9,
	          "%.6g vs %.6g", r.hardware_flops_per_step - r.model_flops_per_step, per_token * tokens);
}

/* Where full recomputation redoes more layers than the card needs, the
 * budget offers the fewest that fit (memory.c) as a lever priced through
 * the model: the step of that layout over this one, below 1, and the same
 * step as the prediction with recompute_layers set to it. */
Test(perf, fewest_recomputed_layers_lever)
{
	static tb_budget b;
	tb_inputs x;
	S_budget_inputs(&x);
	x.training.checkpointing = TB_CKPT_FULL;
	x.training.micro_batch = 2;
	/* a card halfway between what full and no recomputation need */
	tb_budget_compute(&x, &b);
	x.hardware.gpu.memory_bytes = (b.memory.checkpointing[TB_CKPT_NONE].total_bytes +
	                               b.memory.checkpointing[TB_CKPT_FULL].total_bytes) / 2;
	tb_budget_compute(&x, &b);
	int64_t n = b.memory.fewest_recompute_layers;
	cr_assert(n > 0 && n < 12, "fewest %lld of 12", (long long)n);
	const tb_lever *l = S_lever(&b, TB_LEVER_FEWEST_RECOMPUTED);
	cr_assert_not_null(l);
	tb_perf_input pi = b.perf.in;
	pi.recompute_layers = n;
	tb_perf_result r;
	tb_perf_predict(&pi, NULL, &r);
	cr_expect(r.step_s < b.perf.r.step_s);
	cr_expect(rel(l->seconds / b.time.seconds[1], r.step_s / b.perf.r.step_s) < 1e-12);
	/* no lever where every layer must be recomputed */
	x.training.recompute_layers = n;
	tb_budget_compute(&x, &b);
	cr_expect_eq(b.memory.fewest_recompute_layers, 0);
	cr_expect_null(S_lever(&b, TB_LEVER_FEWEST_RECOMPUTED));
}

/* A layer timed under one checkpointing mode and set to another by
 * tb_perf_layer_mode is, to the last bit, the layer timed under the other:
 * dense and MoE (with leading dense layers, DeepEP and the all-to-all
 * overlapped), context and tensor parallelism with the overlap, DPO's
 * second forward, part of the layers recomputed and each selective
 * policy. */
Test(perf, layer_mode_is_the_layer_timed_in_that_mode)
{
	tb_inputs xs[4];
	S_deepseek_v3(&xs[0]);
	xs[0].parallelism.dispatcher = TB_DISPATCH_DEEPEP;
	xs[0].parallelism.overlap_ep = true;
	xs[0].training.selective_policy = TB_SELECTIVE_DEEPSEEK;
	S_budget_inputs(&xs[1]);
	xs[1].parallelism.context = 2;
	xs[1].parallelism.data = 8;
	xs[1].parallelism.overlap_tp = true;
	xs[1].training.flash_attention = true;
	S_budget_inputs(&xs[2]);
	xs[2].training.method = TB_METHOD_DPO;
	xs[2].training.flash_attention = false;
	S_budget_inputs(&xs[3]);
	xs[3].training.selective_policy = TB_SELECTIVE_OP;
	xs[3].training.flash_attention = true;
	for (int i = 0; i < 4; i++) {
		for (int from = 0; from < 3; from++)
			for (int to = 0; to < 3; to++)
				for (int64_t part = 0; part <= 2; part += 2) {
					tb_perf_input a, b;
					tb_perf_input_from(&xs[i], &a);
					a.checkpointing = (tb_checkpointing)from;
					b = a;
					b.checkpointing = (tb_checkpointing)to;
					b.recompute_layers = to == TB_CKPT_FULL ? part : 0;
					tb_perf_layer la, lb;
					cr_assert(tb_perf_layer_time(&a, NULL, &la, NULL));
					cr_assert(tb_perf_layer_time(&b, NULL, &lb, NULL));
					tb_perf_layer_mode(&b, &la);
					cr_expect(memcmp(&la, &lb, sizeof la) == 0, "case %d: %d -> %d (part %lld)", i,
					          from, to, (long long)part);
				}
	}
}

/* The head and DeepSeek-V3's MTP module on the last of 16 stages make it
 * the slowest by more than a tenth (3 layers, the module's and two heads'
 * work against 4 layers): the budget says so, with what would balance it.
 * GPT-3 175B's head on the last of 8 stages (12 layers and a 51,200-word
 * head) is within the tenth, and nothing is said. */
Test(perf, a_heavy_last_stage_is_said)
{
	static tb_budget b;
	tb_inputs x;
	S_deepseek_v3(&x);
	x.training.selective_policy = TB_SELECTIVE_DEEPSEEK;
	x.hardware.mfu_predicted = true;
	x.hardware.mfu[0] = 0.2; x.hardware.mfu[1] = 0.3; x.hardware.mfu[2] = 0.4;
	x.hardware.pue = 1;
	tb_budget_compute(&x, &b);
	cr_assert(b.perf.known, "%s", b.perf.why);
	cr_expect_eq(b.perf.r.busiest_stage, 2);
	cr_expect(b.perf.r.stage_s[2] > 1.1 * b.perf.r.stage_s[1]);
	cr_expect(S_has_warning(&b, "The last pipeline stage holds the output head and the multi-token"));
	S_budget_inputs(&x);
	tb_budget_compute(&x, &b);
	cr_assert(b.perf.known);
	cr_expect(!S_has_warning(&b, "The last pipeline stage holds"));
}
