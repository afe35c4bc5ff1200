/* test_perf_budget.c: the step-time model inside a budget (perf_budget.c):
 * the prediction priced, its levers, an assumed MFU against it, what the
 * budget says of assumed efficiencies, recomputed layers and a heavy last
 * stage. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "trainbudget/budget.h"
#include "trainbudget/gpus.h"
#include "trainbudget/perf.h"
#include "trainbudget/presets.h"
#include "perf_fixtures.h"

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

/* On a card with an fp4 peak the levers price the same layout with its
 * linear layers in fp4 (B200: 9 PF against 4.5 in fp8), through the
 * model: faster, never twice as fast (attention, the head and the
 * communication keep their formats); no such lever where the card has
 * no fp4 (H100), nor for a run already in fp4. */
Test(perf, fp4_lever_where_the_card_has_fp4)
{
	tb_inputs x;
	S_budget_inputs(&x);
	x.hardware.gpu = *tb_gpus_find("b200");
	x.training.precision = TB_PREC_FP8_MIXED;
	static tb_budget b;
	tb_budget_compute(&x, &b);
	const tb_lever *fp4 = S_lever(&b, "precision fp4");
	cr_assert_not_null(fp4);
	cr_expect(fp4->delta_seconds_frac > -0.5 && fp4->delta_seconds_frac < 0, "%g",
	          fp4->delta_seconds_frac);
	x.training.precision = TB_PREC_FP4_MIXED;
	tb_budget_compute(&x, &b);
	cr_expect_null(S_lever(&b, "precision fp4"));
	S_budget_inputs(&x);
	tb_budget_compute(&x, &b);
	cr_expect_null(S_lever(&b, "precision fp4"));
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

/* A card whose efficiencies nobody measured is flagged where the
 * prediction uses them, saying which (B200: its own MAMF, H100's attention
 * fraction; GB300: GB200's matmul, its own attention, gpus.c); a measured card (H100:
 * MAMF 794.5 of 989 TFLOP/s) is not. */
Test(perf, assumed_card_efficiencies_are_said)
{
	tb_inputs x;
	S_budget_inputs(&x);
	static tb_budget b;
	tb_budget_compute(&x, &b);
	cr_expect(!S_has_warning(&b, "assumed from another card"));
	/* B200: its matmuls and FlashAttention-2 measured, cuDNN's attention
	 * (Transformer Engine's choice, and today's PyTorch's) copied from
	 * H100's; GB300 the other way round: its cuDNN attention measured,
	 * its matmuls GB200's */
	x.training.flash_attention = true;
	x.hardware.gpu = *tb_gpus_find("b200");
	x.training.attention_kernel = TB_ATTN_KERNEL_FLASH2;
	tb_budget_compute(&x, &b);
	cr_assert(b.perf.known);
	cr_expect(!S_has_warning(&b, "assumed from another card"));
	x.training.attention_kernel = TB_ATTN_KERNEL_AUTO;
	x.parallelism.framework = TB_FW_MEGATRON;
	tb_budget_compute(&x, &b);
	cr_expect(S_has_warning(&b, "model's attention efficiency for b200: assumed from another card"));
	x.hardware.gpu = *tb_gpus_find("gb300");
	tb_budget_compute(&x, &b);
	cr_expect(S_has_warning(&b, "model's matmul efficiency for gb300: assumed from another card"));
	cr_expect(!S_has_warning(&b, "attention efficienc"));
	x.training.attention_kernel = TB_ATTN_KERNEL_FLASH2;
	tb_budget_compute(&x, &b);
	cr_expect(S_has_warning(&b, "model's matmul efficiency for gb300: assumed from another card"));
	/* without flash attention no attention fraction is priced: only the
	 * matmul's copy is said (GB300's), none on B200 */
	x.training.attention_kernel = TB_ATTN_KERNEL_AUTO;
	x.training.flash_attention = false;
	tb_budget_compute(&x, &b);
	cr_expect(S_has_warning(&b, "model's matmul efficiency for gb300: assumed from another card"));
	x.hardware.gpu = *tb_gpus_find("b200");
	tb_budget_compute(&x, &b);
	cr_expect(b.perf.known && !S_has_warning(&b, "assumed from another card"));
	x.hardware.mfu_predicted = false;     /* an assumed MFU uses none of them */
	tb_budget_compute(&x, &b);
	cr_expect(!S_has_warning(&b, "assumed from another card"));
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

/* The head and DeepSeek-V3's MTP module on the last of 16 stages make it
 * the slowest by more than a tenth (3 layers, the module's and two heads'
 * work against 4 layers): the budget says so, with what would balance it:
 * the layout with fewer layers on the last rank that fits and is fastest,
 * its step the one the layout itself is priced at (one computation), and
 * faster than every other count of last layers that fits.  GPT-3 175B's
 * head on the last of 8 stages (12 layers and a 51,200-word head) is
 * within the tenth, and nothing is said. */
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
	cr_expect(S_has_warning(&b, "The last pipeline stage holds the output head and the MTP module"));
	const tb_perf_budget *pb = &b.perf;
	cr_assert(pb->balanced_layout[0]);
	cr_expect(pb->balanced.stage_layers[2] < 3);
	cr_expect(pb->balanced.step_s < 0.99 * pb->r.step_s);
	cr_expect(S_has_warning(&b, pb->balanced_layout));
	/* priced as a written layout, the same step */
	static tb_budget bl;
	tb_inputs y = x;
	char why[200];
	long at;
	cr_assert_null(tb_pipe_layout_parse(pb->balanced_layout, 16, 61, 3, 1, &y.parallelism.layout,
	                                    why, sizeof why, &at));
	tb_budget_compute(&y, &bl);
	cr_assert(bl.perf.known);
	cr_expect(bl.perf.r.step_s == pb->balanced.step_s, "%.17g vs %.17g", bl.perf.r.step_s,
	          pb->balanced.step_s);
	cr_expect(bl.memory.fits);
	cr_expect(!S_has_warning(&bl, "The last pipeline stage holds"));
	/* and no other count of last layers is faster */
	for (int64_t last = 0; last <= 3; last++) {
		char text[TB_PIPE_TEXT_MAX];
		cr_assert(tb_pipe_layout_write(61, 16, last, 1, text, sizeof text));
		tb_perf_input q = pb->in;
		tb_pipe_layout lay;
		cr_assert_null(tb_pipe_layout_parse(text, 16, 61, 3, 1, &lay, why, sizeof why, &at));
		q.layout = &lay;
		tb_perf_result r;
		tb_perf_predict(&q, NULL, &r);
		cr_assert(r.ok);
		cr_expect(r.step_s >= pb->balanced.step_s, "%lld layers on the last: %g < %g",
		          (long long)last, r.step_s, pb->balanced.step_s);
	}
	S_budget_inputs(&x);
	tb_budget_compute(&x, &b);
	cr_assert(b.perf.known);
	cr_expect(!S_has_warning(&b, "The last pipeline stage holds"));
}
