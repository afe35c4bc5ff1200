/* test_memory_states.c: the model states one GPU holds (memory_states.c)
 * where a framework departs from ZeRO's even shares: FSDP's ZeRO-3
 * working set, worked by hand from what FSDP2 gathers and frees. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "calc.h"
#include "memory_fixtures.h"
#include "trainbudget/gpus.h"
#include "trainbudget/presets.h"

static tb_budget B;

static void base(tb_inputs *in)
{
	memset(in, 0, sizeof *in);
	in->training.precision = TB_PREC_BF16_MIXED;
	in->training.optimizer = TB_OPT_ADAMW;
	in->training.micro_batch = 1;
	in->training.global_batch = 8;
	in->training.seq_len = 2048;
	in->training.tokens = 1e9;
	in->parallelism.tensor = in->parallelism.pipeline = 1;
	in->parallelism.expert = in->parallelism.context = 1;
	in->parallelism.data = 8;
	in->parallelism.zero = 3;
	in->hardware.count = 8;
	in->hardware.gpu.memory_bytes = 80e9;
}

static void preset(tb_inputs *in, const char *name)
{
	const tb_preset *pr = tb_presets_find(name);
	cr_assert_not_null(pr);
	in->model = pr->model;
}

/* Llama 3 8B (Meta's config.json) under FSDP, ZeRO-3 over 8 GPUs */
static void fsdp_8b(tb_inputs *in)
{
	base(in);
	preset(in, "llama-3-8b");
	in->parallelism.framework = TB_FW_FSDP;
}

static void run(const tb_inputs *in)
{
	memset(&B, 0, sizeof B);
	tb_params_compute(in, &B);
	tb_flops_compute(in, &B);
	tb_memory_compute(in, &B);
}

static double rel(double a, double b) { return fabs(a - b) / fabs(b); }

/* FSDP's ZeRO-3 working set by hand, GPT-2 XL-like (24 layers of 2,048,
 * an untied head of 50,257 words, linear layers without biases): the
 * largest unit is the head with the final LayerNorm, 50,257 x 2,048 +
 * 2 x 2,048 = 102,930,432 parameters, twice a layer's 12h^2 + 4h (two
 * LayerNorms) = 50,339,840.  FSDP2 holds it gathered and
 * the next layer prefetched (2 B a parameter each), and the unit's
 * gradients in the parameters' dtype and in the reduce-scatter's input
 * (here both 16-bit); another framework's is not priced. */
Test(memory, zero3_working_set_by_hand)
{
	tb_inputs in;
	base(&in);
	in.training.grad_dtype = TB_GRAD_BF16;
	S_gpt_shape(&in, 24, 2048, 16, 50257);
	run(&in);
	const double head = 102930432, layer = 50339840;
	const tb_mem_items *m = &B.memory.per_gpu;
	cr_expect(m->gathered_weights == 0 && m->gathered_gradients == 0);
	in.parallelism.framework = TB_FW_FSDP;
	run(&in);
	cr_expect(m->gathered_weights == 2 * head + 2 * layer, "%.17g", m->gathered_weights);
	cr_expect(m->gathered_gradients == (2 + 2) * head, "%.17g", m->gathered_gradients);
	/* in the per-GPU total and the ZeRO-3 row alike, nothing of it below */
	cr_expect(m->total == m->weights + m->gradients + m->master_weights + m->optimizer +
	                      m->activations + m->other);
	cr_expect(B.memory.zero[3].bytes.gathered_weights == m->gathered_weights);
	cr_expect(B.memory.zero[2].bytes.gathered_weights == 0);
	in.parallelism.zero = 2;
	run(&in);
	cr_expect(m->gathered_weights == 0 && m->gathered_gradients == 0);
}

/* Llama 3.1 8B as torchtitan shards it (bf16 weights, fp32 reduction):
 * the head with the final norm, 128,256 x 4,096 + 4,096 = 525,340,672
 * parameters, outweighs a layer, 4,096 x (4,096 + 2 x 1,024) + 4,096^2 +
 * 3 x 4,096 x 14,336 + 2 x 4,096 = 218,112,000: 2 x (head + layer) of
 * weights and head x (2 + 4) of gradients, 4,638,949,376 B. */
Test(memory, zero3_working_set_llama3_8b)
{
	tb_inputs in;
	fsdp_8b(&in);
	run(&in);
	const double head = 525340672, layer = 218112000;
	const tb_mem_items *m = &B.memory.per_gpu;
	cr_expect(rel(m->gathered_weights, 2 * (head + layer)) < 1e-12, "%.17g", m->gathered_weights);
	cr_expect(rel(m->gathered_gradients, 6 * head) < 1e-12, "%.17g", m->gathered_gradients);
	cr_expect(rel(m->gathered_weights + m->gathered_gradients, 4638949376.0) < 1e-12);
}

/* A mixture's routed experts are gathered only where their data-parallel
 * group shards them: Mixtral 8x7B on 8 GPUs at EP 1 gathers a whole layer
 * (its eight experts outweigh the head), at EP 8 each GPU owns its expert
 * whole and gathers the head and a layer's dense part only. */
Test(memory, zero3_working_set_experts_where_sharded)
{
	tb_inputs in;
	base(&in);
	preset(&in, "mixtral-8x7b");
	in.parallelism.framework = TB_FW_FSDP;
	run(&in);
	tb_mem_model mm;
	tb_memory_model(&in, &B.params, &mm);
	double dense = mm.train.dense, experts = mm.train.expert;
	double head = mm.output + mm.final_norm;
	cr_assert(experts > head && head > dense);
	const tb_mem_items *m = &B.memory.per_gpu;
	cr_expect(rel(m->gathered_weights, 4 * (dense + experts)) < 1e-12, "%.17g", m->gathered_weights);
	cr_expect(rel(m->gathered_gradients, 6 * (dense + experts)) < 1e-12);
	in.parallelism.expert = 8;
	run(&in);
	cr_expect(rel(m->gathered_weights, 2 * (head + dense)) < 1e-12, "%.17g", m->gathered_weights);
	cr_expect(rel(m->gathered_gradients, 6 * head) < 1e-12);
}

/* Under a pipeline FSDP holds the stage whole: nothing is gathered a unit
 * at a time on top (tb_fsdp_holds_stage). */
Test(memory, zero3_working_set_none_when_held)
{
	tb_inputs in;
	fsdp_8b(&in);
	in.parallelism.pipeline = 2;
	in.parallelism.data = 4;
	run(&in);
	cr_expect(B.memory.weights_whole);
	cr_expect(B.memory.per_gpu.gathered_weights == 0 && B.memory.per_gpu.gathered_gradients == 0);
}

/* DPO's reference is a model of its own, run forward alone, never gathered
 * beside the policy: the working set is the larger of the two models',
 * here the policy's (it has gradients), the same as full training's. */
Test(memory, zero3_working_set_dpo_reference_apart)
{
	tb_inputs in;
	fsdp_8b(&in);
	run(&in);
	double w = B.memory.per_gpu.gathered_weights, g = B.memory.per_gpu.gathered_gradients;
	in.training.method = TB_METHOD_DPO;
	run(&in);
	cr_expect(B.memory.per_gpu.gathered_weights == w, "%.17g vs %.17g", B.memory.per_gpu.gathered_weights, w);
	cr_expect(B.memory.per_gpu.gathered_gradients == g);
	cr_expect(B.memory.per_gpu.frozen_weights > 0, "the reference is counted among the weights");
}

/* Nothing is gathered where nothing is sharded: ZeRO-3 over a data-
 * parallel group of one GPU (TP 8 on 8 GPUs) holds the same as ZeRO-2. */
Test(memory, zero3_working_set_none_without_replicas)
{
	tb_inputs in;
	fsdp_8b(&in);
	in.parallelism.tensor = 8;
	in.parallelism.data = 1;
	run(&in);
	cr_expect(B.memory.per_gpu.gathered_weights == 0 && B.memory.per_gpu.gathered_gradients == 0);
	cr_expect(B.memory.zero[3].bytes.total == B.memory.zero[2].bytes.total);
}

/* The largest model at this layout shards each state as the budget does:
 * under FSDP in a pipeline the weights and the gradients are whole, so
 * B_z = w + g + (m + o)/N_d (2 + 4 + 12/4 = 9 B at DP 4). */
Test(memory, max_params_this_layout_held_whole)
{
	tb_inputs in;
	fsdp_8b(&in);
	in.parallelism.pipeline = 2;
	in.parallelism.data = 4;
	run(&in);
	double usable = in.hardware.gpu.memory_bytes - in.hardware.overhead_bytes;
	cr_expect(rel(B.memory.max_params_this_layout, usable * 2 / 9.0) < 1e-12, "%.17g",
	          B.memory.max_params_this_layout);
	/* and its derivation says so: N_w = N_g = 1, the formula over them */
	const tb_deriv *d = tb_budget_deriv(&B, "memory.max_params_this_layout");
	cr_assert_not_null(d);
	cr_expect(strstr(d->source, "w/N_w + g/N_g") != NULL, "%s", d->source);
	int held = 0;
	for (int i = 0; i < d->nvars; i++)
		held += (!strcmp(d->vars[i].sym, "N_w") || !strcmp(d->vars[i].sym, "N_g")) &&
		        d->vars[i].value == 1;
	cr_expect_eq(held, 2);
	in.parallelism.framework = TB_FW_ANY;
	run(&in);
	cr_expect(rel(B.memory.max_params_this_layout, usable * 2 / (18 / 4.0)) < 1e-12);
}

/* FSDP holds its sharded gradients in the sharded parameters' dtype and
 * reduces them in reduce_dtype (FSDP2 casts the reduce-scatter's output
 * back): pure bf16 with fp32 reduction holds 2 B a gradient sharded, 4 B
 * where no_sync keeps them whole, and its reduce-scatter input is fp32.
 * Megatron-LM's main gradients are held as reduced. Llama 3 8B over 8. */
Test(memory, fsdp_gradients_held_in_the_parameters_dtype)
{
	tb_inputs in;
	base(&in);
	preset(&in, "llama-3-8b");
	in.training.precision = TB_PREC_BF16;
	in.training.grad_dtype = TB_GRAD_FP32;
	in.parallelism.framework = TB_FW_FSDP;
	run(&in);
	const double N = B.params.total, head = 525340672;
	cr_expect_eq(B.memory.bytes_per_param.gradients, 2);
	const tb_mem_items *m = &B.memory.per_gpu;
	cr_expect(rel(m->gradients - m->gathered_gradients, 2 * N / 8) < 1e-12, "%.17g", m->gradients);
	cr_expect(rel(m->gathered_gradients, (2 + 4) * head) < 1e-12, "%.17g", m->gathered_gradients);
	in.parallelism.no_sync = true;
	run(&in);
	cr_expect(rel(m->gradients - m->gathered_gradients, 4 * N) < 1e-12, "%.17g", m->gradients);
	in.parallelism.no_sync = false;
	in.parallelism.framework = TB_FW_MEGATRON;
	in.parallelism.zero = 1;
	run(&in);
	cr_expect_eq(B.memory.bytes_per_param.gradients, 4);
}

/* FSDP shards one copy of each trained weight: under mixed precision the
 * fp32 one, which is the master copy, so no 16-bit shard stays beside it
 * (FSDP2 casts each shard for the all-gather); under pure bf16 the bf16
 * one.  Llama 3 8B over 8 GPUs at ZeRO-3. */
Test(memory, fsdp_keeps_one_sharded_copy)
{
	tb_inputs in;
	fsdp_8b(&in);
	run(&in);
	const double N = B.params.total;
	const tb_mem_items *m = &B.memory.per_gpu;
	cr_expect(m->weights - m->gathered_weights == 0, "%.17g", m->weights - m->gathered_weights);
	cr_expect(rel(m->master_weights, 4 * N / 8) < 1e-12);
	in.training.precision = TB_PREC_BF16;
	run(&in);
	cr_expect(rel(m->weights - m->gathered_weights, 2 * N / 8) < 1e-12);
	cr_expect(m->master_weights == 0);
	/* DeepSpeed's ZeRO-3 keeps its 16-bit shard beside the fp32 one */
	in.training.precision = TB_PREC_BF16_MIXED;
	in.parallelism.framework = TB_FW_DEEPSPEED;
	run(&in);
	cr_expect(rel(m->weights, 2 * N / 8) < 1e-12);
}

/* torchao's float8 all-gather (per-tensor fp8 under FSDP): the blocks'
 * linear weights are gathered, and held, as fp8, a byte apiece; the head
 * stays 16-bit.  Llama 3 8B: a layer's linear weights 4,096 x 6,144 +
 * 4,096^2 + 3 x 4,096 x 14,336 = 218,103,808 of its 218,112,000, so the
 * working set's weights are 2 x 525,340,672 (the head) + 218,103,808 +
 * 2 x 8,192 = 1,268,801,536 B; under a pipeline of 2 each stage holds its
 * 16 layers' linear weights at 1 B where bf16 holds 2. */
Test(memory, fsdp_fp8_gather_bytes)
{
	tb_inputs in;
	base(&in);
	preset(&in, "llama-3-8b");
	in.hardware.gpu = *tb_gpus_find("h100-sxm");
	in.parallelism.framework = TB_FW_FSDP;
	in.training.precision = TB_PREC_FP8_MIXED;
	cr_assert(tb_fsdp_fp8_gather(&in));
	run(&in);
	cr_expect(rel(B.memory.per_gpu.gathered_weights, 1268801536.0) < 1e-12, "%.17g",
	          B.memory.per_gpu.gathered_weights);
	in.parallelism.pipeline = 2;
	in.parallelism.data = 4;
	run(&in);
	double fp8 = B.memory.per_gpu.weights;
	in.training.fp8_recipe = TB_FP8_ROWWISE;
	cr_assert(!tb_fsdp_fp8_gather(&in));
	run(&in);
	cr_expect(rel(B.memory.per_gpu.weights - fp8, 16 * 218103808.0) < 1e-12, "%.17g",
	          B.memory.per_gpu.weights - fp8);
}

/* The one-copy rule per part: routed experts a GPU owns whole (their
 * group of one: Mixtral 8x7B at EP 8 on 8 GPUs) are neither sharded nor
 * gathered, so their 16-bit weights stay, 2 B apiece over 32 layers of
 * one expert each; the dense part keeps no 16-bit shard. */
Test(memory, fsdp_one_copy_per_part)
{
	tb_inputs in;
	base(&in);
	preset(&in, "mixtral-8x7b");
	in.parallelism.framework = TB_FW_FSDP;
	in.parallelism.expert = 8;
	run(&in);
	tb_mem_model mm;
	tb_memory_model(&in, &B.params, &mm);
	const tb_mem_items *m = &B.memory.per_gpu;
	double kept = m->weights - m->gathered_weights - m->frozen_weights;
	cr_expect(rel(kept, 2 * 32 * mm.train.expert / 8) < 1e-12, "%.17g vs %.17g", kept,
	          2 * 32 * mm.train.expert / 8);
}

/* Held whole under ZeRO-2 (SHARD_GRAD_OP keeps the gathered weights to the
 * backward) the linear weights FSDP gathers in fp8 are a byte apiece:
 * Llama 3 8B's 32 x 218,103,808 fewer bytes than per-row scaling's bf16
 * gather; a LoRA's frozen base is not converted, so nothing is fp8. */
Test(memory, fsdp_fp8_gather_zero2_and_lora)
{
	tb_inputs in;
	base(&in);
	preset(&in, "llama-3-8b");
	in.hardware.gpu = *tb_gpus_find("h100-sxm");
	in.parallelism.framework = TB_FW_FSDP;
	in.parallelism.zero = 2;
	in.training.precision = TB_PREC_FP8_MIXED;
	run(&in);
	double fp8 = B.memory.per_gpu.weights;
	in.training.fp8_recipe = TB_FP8_ROWWISE;
	run(&in);
	cr_expect(rel(B.memory.per_gpu.weights - fp8, 32 * 218103808.0) < 1e-12, "%.17g",
	          B.memory.per_gpu.weights - fp8);
	in.training.fp8_recipe = TB_FP8_AUTO;
	in.training.method = TB_METHOD_LORA;
	cr_expect(!tb_fsdp_fp8_gather(&in));
}

/* The largest models shard as the states do under FSDP's mixed precision:
 * no 16-bit shard, so B_z = 4/8 + 12/8 = 2 B at ZeRO-3 over 8 (Llama 3 8B's
 * defaults: fp32 gradients) and 16 B a parameter fully sharded. */
Test(memory, max_params_fsdp_one_copy)
{
	tb_inputs in;
	fsdp_8b(&in);
	run(&in);
	double usable = in.hardware.gpu.memory_bytes - in.hardware.overhead_bytes;
	cr_expect(rel(B.memory.max_params_this_layout, usable / 2.0) < 1e-12, "%.17g",
	          B.memory.max_params_this_layout);
	cr_expect(rel(B.memory.max_params_fully_sharded, 8 * usable / 16.0) < 1e-12, "%.17g",
	          B.memory.max_params_fully_sharded);
}

/* A checkpoint saves what a GPU keeps: under FSDP's mixed precision the
 * fp32 weights and the two moments, 4 + 8 = 12 B a parameter (no 16-bit
 * copy exists to save), where Megatron-LM's distributed checkpoint saves
 * its bf16 weights beside them, 14 B.  Llama 3 8B. */
Test(memory, checkpoint_saves_one_copy_under_fsdp)
{
	tb_inputs in;
	base(&in);
	preset(&in, "llama-3-8b");
	in.hardware.gpu = *tb_gpus_find("h100-sxm");
	in.hardware.checkpoint_bytes_per_s = 1e9;
	in.parallelism.framework = TB_FW_FSDP;
	static tb_budget b;
	tb_budget_compute(&in, &b);
	const double N = b.params.trainable;
	cr_expect(rel(b.goodput.checkpoint_bytes, 12 * N) < 1e-12, "%.17g", b.goodput.checkpoint_bytes / N);
	in.parallelism.framework = TB_FW_MEGATRON;
	in.parallelism.zero = 1;
	tb_budget_compute(&in, &b);
	cr_expect(rel(b.goodput.checkpoint_bytes, 14 * N) < 1e-12, "%.17g", b.goodput.checkpoint_bytes / N);
}

/* Tensor parallelism as DTensor runs it (torchtitan, framework fsdp): the
 * attention's and the MLP's inputs are gathered before the linears, which
 * save the gathered copy, where Megatron-LM's sequence parallelism saves
 * its shard and gathers again.  Llama 3 8B at TP 2 with sequence
 * parallelism, 2,048 tokens, no recomputation: 2 x 2 B x 2,048 x 4,096 x
 * (1 - 1/2) = 16,777,216 B more a layer. */
Test(memory, dtensor_tp_saves_the_gathered_inputs)
{
	tb_inputs in;
	base(&in);
	preset(&in, "llama-3-8b");
	in.training.checkpointing = TB_CKPT_NONE;
	in.training.flash_attention = true;
	in.parallelism.tensor = 2;
	in.parallelism.sequence_parallel = true;
	in.parallelism.data = 4;
	in.parallelism.zero = 0;
	in.parallelism.framework = TB_FW_MEGATRON;
	run(&in);
	double megatron = B.memory.activations_per_layer_bytes;
	in.parallelism.framework = TB_FW_FSDP;
	run(&in);
	cr_expect(B.memory.activations_per_layer_bytes - megatron == 16777216.0, "%.17g",
	          B.memory.activations_per_layer_bytes - megatron);
}
