/* test_memory.c: per-GPU memory against ZeRO (Rajbhandari et al. 2020,
 * Fig. 1, Table 1, Sec. 3.1) and Korthikanti et al. 2022 (Table 2 under
 * their assumptions for the four Table 3 models, Sec. 5 savings, App. B),
 * figures from ../shared/reference/published.yaml. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "calc.h"
#include "memory_fixtures.h"
#include "trainbudget/presets.h"
#include "trainbudget/gpus.h"

#define GIB 1073741824.0

static double rel(double got, double want)
{
	return fabs(got - want) / fabs(want);
}

static tb_budget B;

static void base(tb_inputs *in)
{
	memset(in, 0, sizeof *in);
	in->training.precision = TB_PREC_BF16_MIXED;
	/* 16-bit gradients, as the ZeRO paper counts (2 + 2 + 12 B/param) */
	in->training.grad_dtype = TB_GRAD_BF16;
	in->training.optimizer = TB_OPT_ADAMW;
	in->training.micro_batch = 1;
	in->training.global_batch = 1;
	in->training.seq_len = 2048;
	in->training.tokens = 1e9;
	in->training.dropout = true;
	in->parallelism.tensor = in->parallelism.pipeline = 1;
	in->parallelism.expert = in->parallelism.data = 1;
	in->hardware.count = 1;
	in->hardware.gpu.memory_bytes = 80e9;
}

static void count_only(tb_inputs *in, double n)
{
	in->model.has_shape = false;
	in->model.params_count = n;
}

static void run(const tb_inputs *in)
{
	memset(&B, 0, sizeof B);
	tb_params_compute(in, &B);
	tb_flops_compute(in, &B);
	tb_memory_compute(in, &B);
}

static double states(const tb_mem_items *m)
{
	return m->weights + m->gradients + m->master_weights + m->optimizer;
}

Test(memory, zero_figure_1)
{
	tb_inputs in;
	base(&in);
	count_only(&in, 7.5e9);
	in.parallelism.data = 64;
	in.hardware.count = 64;
	run(&in);
	const double want[4] = { 120, 31.4, 16.6, 1.9 };
	for (int z = 0; z < 4; z++)
		cr_expect(fabs(states(&B.memory.zero[z].bytes) / 1e9 - want[z]) <= 0.05,
		          "stage %d: %.4f GB, paper %.1f", z, states(&B.memory.zero[z].bytes) / 1e9, want[z]);
	/* K = 12: master weights + two moments */
	cr_expect(B.memory.bytes_per_param.master_weights + B.memory.bytes_per_param.optimizer == 12);
}

Test(memory, zero_table_1)
{
	const double nd[] = { 1, 4, 16, 64, 256, 1024 };
	const double os[] = { 120, 52.5, 35.625, 31.4062, 30.3516, 30.0879 };
	const double osg[] = { 120, 41.25, 21.5625, 16.6406, 15.4102, 15.1025 };
	const double osgp[] = { 120, 30, 7.5, 1.875, 0.4688, 0.1172 };
	for (int i = 0; i < 6; i++) {
		tb_inputs in;
		base(&in);
		count_only(&in, 7.5e9);
		in.parallelism.data = (int64_t)nd[i];
		run(&in);
		cr_expect(rel(states(&B.memory.zero[1].bytes) / 1e9, os[i]) < 0.01, "Nd %g P_os", nd[i]);
		cr_expect(rel(states(&B.memory.zero[2].bytes) / 1e9, osg[i]) < 0.01, "Nd %g P_os+g", nd[i]);
		cr_expect(rel(states(&B.memory.zero[3].bytes) / 1e9, osgp[i]) < 0.01, "Nd %g P_os+g+p", nd[i]);
	}
}

Test(memory, zero_gpt2_1_5b_and_70b)
{
	tb_inputs in;
	base(&in);
	count_only(&in, 1.5e9);
	run(&in);
	cr_expect(B.memory.model_states_bytes == 24e9);      /* "at least 24 GB" */
	cr_expect(B.memory.per_gpu.weights == 3e9);          /* "the meager 3 GB" */
	count_only(&in, 70e9);
	run(&in);
	cr_expect(B.memory.model_states_bytes == 1.12e12);   /* 1.12 TB */
}

/* Each ZeRO stage divides exactly one more group by N_d and leaves the
 * rest; under FSDP, ZeRO-3 adds its working set, a part of its own, and
 * keeps no 16-bit shard beside the fp32 one (w16: 0). */
static void S_each_stage_removes_its_component(const tb_inputs *in, double w16)
{
	run(in);
	const tb_mem_items *z = &B.memory.zero[0].bytes;
	for (int s = 1; s < 4; s++) {
		const tb_mem_items *p = &B.memory.zero[s - 1].bytes, *c = &B.memory.zero[s].bytes;
		if (s == 1) {
			cr_expect(rel(c->optimizer, z->optimizer / 8) < 1e-12);
			cr_expect(rel(c->master_weights, z->master_weights / 8) < 1e-12);
			cr_expect(c->gradients == p->gradients && c->weights == p->weights);
		} else if (s == 2) {
			cr_expect(rel(c->gradients, z->gradients / 8) < 1e-12);
			cr_expect(c->optimizer == p->optimizer && c->weights == p->weights);
		} else {
			cr_expect(fabs(c->weights - c->gathered_weights - w16 * z->weights / 8) <= 1e-12 * z->weights);
			cr_expect(c->optimizer == p->optimizer &&
			          c->gradients - c->gathered_gradients == p->gradients);
		}
		cr_expect(c->activations == p->activations && c->other == p->other);
		cr_expect(s == 3 || (c->gathered_weights == 0 && c->gathered_gradients == 0));
	}
}

Test(memory, each_zero_stage_removes_its_component)
{
	tb_inputs in;
	base(&in);
	S_gpt_shape(&in, 24, 2048, 16, 50257);
	in.parallelism.data = 8;
	S_each_stage_removes_its_component(&in, 1);
	cr_expect(B.memory.zero[3].bytes.gathered_weights == 0);
	in.parallelism.framework = TB_FW_FSDP;
	S_each_stage_removes_its_component(&in, 0);
	cr_expect(B.memory.zero[3].bytes.gathered_weights > 0);
}

Test(memory, bytes_per_param_by_precision_and_optimizer)
{
	/* g: the default gradient dtype (DEFAULT) or the one set */
	struct { tb_precision p; tb_grad_dtype gd; tb_optimizer o; double w, g, m, opt; } t[] = {
		{ TB_PREC_BF16_MIXED, TB_GRAD_DEFAULT, TB_OPT_ADAMW, 2, 4, 4, 8 },
		{ TB_PREC_BF16_MIXED, TB_GRAD_BF16, TB_OPT_ADAMW, 2, 2, 4, 8 },
		{ TB_PREC_BF16_MIXED, TB_GRAD_FP32, TB_OPT_ADAMW, 2, 4, 4, 8 },
		{ TB_PREC_FP16_MIXED, TB_GRAD_DEFAULT, TB_OPT_ADAMW, 2, 2, 4, 8 },
		{ TB_PREC_FP16_MIXED, TB_GRAD_FP32, TB_OPT_ADAMW, 2, 4, 4, 8 },
		{ TB_PREC_FP32, TB_GRAD_DEFAULT, TB_OPT_ADAMW, 4, 4, 0, 8 },
		{ TB_PREC_BF16, TB_GRAD_DEFAULT, TB_OPT_ADAMW, 2, 2, 0, 4 },
		{ TB_PREC_BF16, TB_GRAD_FP32, TB_OPT_ADAMW, 2, 4, 0, 4 },
		{ TB_PREC_FP8_MIXED, TB_GRAD_DEFAULT, TB_OPT_ADAMW, 2, 4, 4, 8 },
		{ TB_PREC_BF16_MIXED, TB_GRAD_BF16, TB_OPT_ADAMW_8BIT, 2, 2, 4, 2 },
		{ TB_PREC_BF16_MIXED, TB_GRAD_BF16, TB_OPT_SGD, 2, 2, 4, 0 },
		{ TB_PREC_BF16_MIXED, TB_GRAD_BF16, TB_OPT_SGD_MOMENTUM, 2, 2, 4, 4 },
		{ TB_PREC_BF16_MIXED, TB_GRAD_BF16, TB_OPT_LION, 2, 2, 4, 4 },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		tb_inputs in;
		base(&in);
		count_only(&in, 1e9);
		in.training.precision = t[i].p;
		in.training.grad_dtype = t[i].gd;
		in.training.optimizer = t[i].o;
		run(&in);
		const tb_bytes_per_param *b = &B.memory.bytes_per_param;
		cr_expect(b->weights == t[i].w && b->gradients == t[i].g &&
		          b->master_weights == t[i].m && b->optimizer == t[i].opt,
		          "case %zu: %g %g %g %g", i, b->weights, b->gradients,
		          b->master_weights, b->optimizer);
		cr_expect(b->total == t[i].w + t[i].g + t[i].m + t[i].opt);
	}
}

/* Megatron-LM's distributed-optimizer table (docs/user-guide/features/
 * dist_optimizer.md): bytes per parameter without and with the
 * distributed optimizer (ZeRO-1: master weights and moments sharded over
 * d), "bf16 parameters, fp32 gradients: 18, 6 + 12/d" (its default for
 * bf16) and "fp32 parameters, fp32 gradients: 16, 8 + 8/d".  Its fp16 row
 * (20, 4 + 16/d) also keeps an fp32 copy of the gradients with the
 * optimizer, which trainbudget does not count (docs/formulas.md). */
Test(memory, megatron_distributed_optimizer_table)
{
	const double d = 64, n = 1e9;
	struct { tb_precision p; double plain, shared, sharded; } t[] = {
		{ TB_PREC_BF16_MIXED, 18, 6, 12 },
		{ TB_PREC_FP32, 16, 8, 8 },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		tb_inputs in;
		base(&in);
		count_only(&in, n);
		in.training.precision = t[i].p;
		in.training.grad_dtype = TB_GRAD_DEFAULT;
		in.parallelism.data = (int64_t)d;
		in.hardware.count = (int64_t)d;
		run(&in);
		cr_expect(B.memory.bytes_per_param.total == t[i].plain, "%zu: %g", i,
		          B.memory.bytes_per_param.total);
		cr_expect(rel(states(&B.memory.zero[0].bytes), n * t[i].plain) < 1e-12);
		cr_expect(rel(states(&B.memory.zero[1].bytes), n * (t[i].shared + t[i].sharded / d)) < 1e-12,
		          "%zu: %g", i, states(&B.memory.zero[1].bytes));
	}
	/* the same run with bf16 gradients is the textbook 16 B, 4 + 12/d */
	tb_inputs in;
	base(&in);
	count_only(&in, n);
	in.parallelism.data = (int64_t)d;
	in.hardware.count = (int64_t)d;
	run(&in);
	cr_expect(B.memory.bytes_per_param.total == 16);
	cr_expect(rel(states(&B.memory.zero[1].bytes), n * (4 + 12 / d)) < 1e-12);
}

/* A hand-sized model: L=1, h=4, one head of 4, f=8, V=10, RMSNorm, untied.
 * Params: emb 40 + attn 64 + mlp 64 + norms 8 + final 4 + head 40 = 220.
 * Adafactor rows+cols: emb 14 + q,k,v,o 4*8 + up,down 2*12 + norms 12 +
 * head 14 = 96 fp32 values. */
Test(memory, adafactor_factored_state)
{
	tb_inputs in;
	base(&in);
	in.model.has_shape = true;
	in.model.layers = 1; in.model.hidden = 4; in.model.heads = 1; in.model.kv_heads = 1;
	in.model.head_dim = 4; in.model.ffn_hidden = 8; in.model.vocab = 10;
	in.model.mlp = TB_MLP_PLAIN; in.model.norm = TB_NORM_RMSNORM;
	in.training.optimizer = TB_OPT_ADAFACTOR;
	run(&in);
	cr_assert(B.params.total == 220);
	cr_expect(rel(B.memory.bytes_per_param.optimizer, 96.0 * 4 / 220) < 1e-12,
	          "%g", B.memory.bytes_per_param.optimizer);
}

/* Korthikanti Table 3 models under every Table 2 row (GiB per layer). */
typedef struct {
	char name[8];
	int64_t b, h, a, L;
	double none, tp, tpsp, tp_sel, tpsp_sel, full;
} kcase;

static const kcase K[] = {
	{ "22B", 4, 6144, 64, 48, 6.59375, 1.234375, 0.82421875, 0.609375, 0.19921875, 0.09375 },
	{ "175B", 1, 12288, 96, 96, 2.671875, 0.5390625, 0.333984375, 0.3046875, 0.099609375, 0.046875 },
	{ "530B", 1, 20480, 128, 105, 3.828125, 0.8203125, 0.478515625, 0.5078125, 0.166015625, 0.078125 },
	{ "1T", 1, 25600, 160, 128, 4.78515625, 1.025390625, 0.59814453125, 0.634765625, 0.20751953125, 0.09765625 },
};

static double act_layer(const kcase *k, int64_t t, bool sp, tb_checkpointing ck)
{
	tb_inputs in;
	base(&in);
	S_gpt_shape(&in, k->L, k->h, k->a, 51200);
	in.training.micro_batch = k->b;
	in.training.global_batch = k->b;
	in.training.checkpointing = ck;
	in.parallelism.tensor = t;
	in.parallelism.sequence_parallel = sp;
	run(&in);
	return B.memory.activations_per_layer_bytes / GIB;
}

Test(memory, korthikanti_table_2)
{
	for (size_t i = 0; i < sizeof K / sizeof K[0]; i++) {
		const kcase *k = &K[i];
		double got;
		got = act_layer(k, 1, false, TB_CKPT_NONE);
		cr_expect(rel(got, k->none) < 1e-6, "%s none: %.9g vs %.9g", k->name, got, k->none);
		got = act_layer(k, 8, false, TB_CKPT_NONE);
		cr_expect(rel(got, k->tp) < 1e-6, "%s tp: %.9g vs %.9g", k->name, got, k->tp);
		got = act_layer(k, 8, true, TB_CKPT_NONE);
		cr_expect(rel(got, k->tpsp) < 1e-6, "%s tp+sp: %.9g vs %.9g", k->name, got, k->tpsp);
		got = act_layer(k, 8, false, TB_CKPT_SELECTIVE);
		cr_expect(rel(got, k->tp_sel) < 1e-6, "%s tp sel: %.9g vs %.9g", k->name, got, k->tp_sel);
		got = act_layer(k, 8, true, TB_CKPT_SELECTIVE);
		cr_expect(rel(got, k->tpsp_sel) < 1e-6, "%s tp+sp sel: %.9g vs %.9g", k->name, got, k->tpsp_sel);
		got = act_layer(k, 8, false, TB_CKPT_FULL);
		cr_expect(rel(got, k->full) < 1e-6, "%s full: %.9g vs %.9g", k->name, got, k->full);
		/* under sequence parallelism the checkpointed input is the
		 * rank's sequence shard (memory_act.c): Table 2's figure / t */
		got = act_layer(k, 8, true, TB_CKPT_FULL);
		cr_expect(rel(got, k->full / 8) < 1e-6, "%s full+sp: %.9g vs %.9g", k->name, got, k->full / 8);
	}
}

Test(memory, korthikanti_selective_savings)
{
	/* GPT-3 70%, MT-NLG 65% of activation memory saved (Sec. 5) */
	double g_none = act_layer(&K[1], 1, false, TB_CKPT_NONE);
	double g_sel = act_layer(&K[1], 1, false, TB_CKPT_SELECTIVE);
	double m_none = act_layer(&K[2], 1, false, TB_CKPT_NONE);
	double m_sel = act_layer(&K[2], 1, false, TB_CKPT_SELECTIVE);
	cr_expect(fabs(100 * (1 - g_sel / g_none) - 70) <= 0.5, "%.2f", 100 * (1 - g_sel / g_none));
	cr_expect(fabs(100 * (1 - m_sel / m_none) - 65) <= 0.5, "%.2f", 100 * (1 - m_sel / m_none));
}

/* Korthikanti et al. 2022, Sec. 4.3: "the dropout in the embedding layer
 * is also parallelized along the sequence dimension ... it will need a
 * storage of sbhp/t", the factor p for the micro-batches in flight; the
 * embedding's output is the first layer's input, already in Eq. (5).
 * 530B (Table 3), p = 35, t = 8, selective recomputation, 280 micro-batches
 * of 1: sbhp/t = 2048 x 20480 x 35 / 8 = 183,500,800 B.  The first stage
 * holds ceil(105/35) = 3 layers for 35 micro-batches, Eq. (6) 34sbh/t per
 * layer, so its activations are (sbhL/t)(34 + p/L) = 5,242,880 x (34 x 105
 * + 35) = 18,900,582,400 B exactly.  (Appendix B's sbhp = 2.73 GiB is what
 * Megatron saves by freeing each stage's output tensor, which is why no
 * such tensor is counted.) */
Test(memory, korthikanti_sec_4_3_embedding_sbhp_over_t)
{
	tb_inputs in;
	base(&in);
	S_gpt_shape(&in, 105, 20480, 128, 51200);
	in.training.global_batch = 280;
	in.parallelism.tensor = 8;
	in.parallelism.pipeline = 35;
	in.parallelism.sequence_parallel = true;
	in.training.checkpointing = TB_CKPT_SELECTIVE;
	in.hardware.count = 280;
	in.hardware.gpu.memory_bytes = 80e9;
	run(&in);
	cr_expect(B.memory.inflight_microbatches == 35);
	cr_expect(B.memory.layers_on_busiest_stage == 3);
	cr_expect(B.memory.embedding_dropout_bytes == 183500800.0, "%.0f",
	          B.memory.embedding_dropout_bytes);
	cr_expect(B.memory.activations_bytes == 18900582400.0, "%.0f", B.memory.activations_bytes);
}

/* The case: GPT-3 175B (Table 3 shape), t = 8 with sequence
 * parallelism, p = 16, dropout, micro-batch 1, 64 micro-batches: 16 in
 * flight.  Korthikanti Sec. 4.3: sbhp/t = 2048 x 12288 x 16 / 8 =
 * 50,331,648 B.  Counted before as a separate 2sbh output per micro-batch
 * not split by t, 2 x 2048 x 12288 x 16 = 805,306,368 B: 754,974,720 B
 * (about 750 MB) too much.  Without sequence parallelism the mask is whole
 * on every tensor-parallel rank, sbhp = 402,653,184 B; without dropout the
 * embedding adds nothing. */
Test(memory, gpt3_175b_tp8_pp16_embedding_as_megatron)
{
	tb_inputs in;
	base(&in);
	S_gpt_shape(&in, 96, 12288, 96, 51200);
	in.training.global_batch = 64;
	in.parallelism.tensor = 8;
	in.parallelism.pipeline = 16;
	in.parallelism.sequence_parallel = true;
	in.hardware.count = 128;
	run(&in);
	cr_assert_eq(B.memory.inflight_microbatches, 16);
	cr_expect(B.memory.embedding_dropout_bytes == 50331648.0, "%.0f",
	          B.memory.embedding_dropout_bytes);
	in.parallelism.sequence_parallel = false;
	run(&in);
	cr_expect(B.memory.embedding_dropout_bytes == 402653184.0, "%.0f",
	          B.memory.embedding_dropout_bytes);
	in.training.dropout = false;
	run(&in);
	cr_expect(B.memory.embedding_dropout_bytes == 0, "%.0f", B.memory.embedding_dropout_bytes);
}

Test(memory, flash_gqa_gated_no_dropout)
{
	tb_inputs in;
	base(&in);
	S_gpt_shape(&in, 32, 4096, 32, 32000);
	in.model.kv_heads = 8;
	in.model.mlp = TB_MLP_GATED;
	in.model.ffn_hidden = 14336;
	in.training.dropout = false;
	in.training.flash_attention = true;
	run(&in);
	/* by hand: s b = 2048; norms 2*2h + qkv in 2h + Q,K 2(h + h/4) + V 2(h/4)
	 * + out in 2h + mlp in 2h + 3 * 2f, in bytes per token; + 4 a bytes stats */
	double h = 4096, f = 14336, s = 2048, a = 32;
	double want = s * (4 * h + 2 * h + 2 * (h + h / 4) + 2 * (h / 4) + 2 * h + 2 * h + 6 * f)
	              + 4 * a * s;
	cr_expect(B.memory.activations_per_layer_bytes == want, "%.0f vs %.0f",
	          B.memory.activations_per_layer_bytes, want);
	double sum = 0;
	for (int i = 0; i < B.memory.n_act_items; i++)
		sum += B.memory.act_items[i].bytes;
	cr_expect(sum == want);
}

Test(memory, llama_kv_cache)
{
	tb_inputs in;
	base(&in);
	S_gpt_shape(&in, 32, 4096, 32, 32000);
	run(&in);
	cr_expect(B.memory.kv_cache_known);
	cr_expect(B.memory.kv_cache_bytes_per_token == 524288);   /* Llama-2-7B: 0.5 MiB */
	in.model.kv_heads = 8;
	run(&in);
	cr_expect(B.memory.kv_cache_bytes_per_token == 131072);   /* Llama-3-8B: 128 KiB */
	cr_expect(B.memory.kv_cache_bytes_per_sequence == 131072.0 * 2048);
}

Test(memory, inverse_question_8_h100)
{
	tb_inputs in;
	base(&in);
	count_only(&in, 7e9);
	in.hardware.count = 8;
	in.parallelism.data = 8;
	run(&in);
	cr_expect(B.memory.max_params_fully_sharded == 40e9, "%g", B.memory.max_params_fully_sharded);
	cr_expect(B.memory.max_params_one_gpu == 5e9, "%g", B.memory.max_params_one_gpu);
	/* plain data parallelism, no ZeRO: every card holds the whole model */
	cr_expect(B.memory.max_params_this_layout == 5e9, "%g", B.memory.max_params_this_layout);
	in.parallelism.zero = 3;
	run(&in);
	cr_expect(B.memory.max_params_this_layout == 40e9);
	in.hardware.overhead_bytes = 5e9;
	run(&in);
	cr_expect(B.memory.max_params_fully_sharded == 37.5e9);
}

/* The planning question as the issue asks it, on 64 cards: with the old
 * table's 80e9-byte H100, 2 GiB of overhead and 16 B/param (16-bit
 * gradients), 64 x (80e9 - 2^31) / 16 = 311.4B with ZeRO-3 and
 * (80e9 - 2^31) / 16 = 4.87B without sharding ("311B ... 4.9B"); on the
 * 81,559 MiB an H100 exposes with fp32 gradients (18 B), 296.4B and 4.63B. */
Test(memory, largest_model_on_64_gpus)
{
	tb_inputs in;
	base(&in);
	count_only(&in, 7e9);
	in.hardware.count = 64;
	in.parallelism.data = 64;
	in.hardware.overhead_bytes = 2147483648.0;
	run(&in);
	cr_expect(rel(B.memory.max_params_fully_sharded, 64 * (80e9 - 2147483648.0) / 16) < 1e-12);
	cr_expect(fabs(B.memory.max_params_fully_sharded / 1e9 - 311.41) < 0.005, "%g",
	          B.memory.max_params_fully_sharded);
	cr_expect(fabs(B.memory.max_params_one_gpu / 1e9 - 4.866) < 0.0005, "%g",
	          B.memory.max_params_one_gpu);
	in.hardware.gpu.memory_bytes = 81559 * 1048576.0;
	in.training.grad_dtype = TB_GRAD_DEFAULT;
	run(&in);
	cr_expect(B.memory.bytes_per_param.total == 18);
	cr_expect(fabs(B.memory.max_params_fully_sharded / 1e9 - 296.44) < 0.005, "%g",
	          B.memory.max_params_fully_sharded);
	cr_expect(fabs(B.memory.max_params_one_gpu / 1e9 - 4.632) < 0.0005, "%g",
	          B.memory.max_params_one_gpu);
	cr_expect(tb_budget_deriv(&B, "memory.max_params_one_gpu") != NULL);
	cr_expect(tb_budget_deriv(&B, "memory.max_params_this_layout") != NULL);
}

Test(memory, count_only_is_unknown_not_nan)
{
	tb_inputs in;
	base(&in);
	count_only(&in, 7e9);
	run(&in);
	cr_expect(!B.memory.activations_known);
	cr_expect(!B.memory.kv_cache_known);
	cr_expect(B.memory.activations_bytes == 0);
	cr_expect(B.n_warnings >= 1);
	bool said = false;
	for (int i = 0; i < B.n_warnings; i++)
		said |= strstr(B.warnings[i], "Activations") != NULL;
	cr_expect(said);
	cr_expect(isfinite(B.memory.per_gpu.total) && B.memory.per_gpu.total > 0);
}

/* Without activations "fits" is an answer only when the known items alone
 * overflow the card: 7B at 16 B/param is 112 GB of states on an 80 GB card,
 * a definite no; 1B (16 GB) could go either way. */
Test(memory, count_only_fits_only_when_known)
{
	tb_inputs in;
	base(&in);
	in.hardware.gpu.memory_bytes = 80e9;
	count_only(&in, 7e9);
	run(&in);
	cr_expect(!B.memory.fits && B.memory.fits_known);
	cr_expect(!B.memory.zero[0].fits && B.memory.zero[0].fits_known);
	count_only(&in, 1e9);
	run(&in);
	cr_expect(!B.memory.fits_known, "16 GB of states plus unknown activations");
	cr_expect(!B.memory.checkpointing[0].fits_known);
}

Test(memory, max_micro_batch_is_the_edge)
{
	tb_inputs in;
	base(&in);
	S_gpt_shape(&in, 24, 2048, 16, 50257);
	in.training.global_batch = 512;
	in.hardware.gpu.memory_bytes = 40e9;
	in.hardware.overhead_bytes = 2e9;
	run(&in);
	int64_t mb = B.memory.max_micro_batch;
	cr_assert(mb >= 1 && mb < 512, "%lld", (long long)mb);
	in.training.micro_batch = mb;
	run(&in);
	cr_expect(B.memory.fits);
	in.training.micro_batch = mb + 1;
	run(&in);
	cr_expect(!B.memory.fits);
	cr_expect(B.memory.headroom_bytes < 0);
	cr_expect(B.memory.per_gpu.other == 2e9);
}

Test(memory, pipeline_busiest_stage_and_inflight)
{
	tb_inputs in;
	base(&in);
	S_gpt_shape(&in, 30, 4096, 32, 128000);
	in.parallelism.pipeline = 4;
	in.training.global_batch = 2;
	run(&in);
	/* 30 layers split 7, 8, 8, 7; the first stage's 7 with the 128,000 x
	 * 4,096 embedding (524M parameters, 2.6 layers' worth) outweigh the
	 * second's 8, each holding min(p - rank, 2 micro-batches) = 2 */
	cr_expect(B.memory.layers_on_busiest_stage == 7, "%lld", (long long)B.memory.layers_on_busiest_stage);
	cr_expect(B.memory.inflight_microbatches == 2);
	/* the full-recompute row keeps 2sbh per layer */
	cr_expect(B.memory.checkpointing[2].activations_bytes < B.memory.checkpointing[0].activations_bytes);
	cr_expect(B.memory.checkpointing[2].extra_flops_fraction > 0.25);
	cr_expect(B.memory.checkpointing[0].extra_flops_fraction == 0);
}

/* Llama 3.1 405B as the Llama 3 paper trained it (arXiv:2407.21783, Table 4
 * and Sec. 3.3.2): TP 8 with sequence parallelism, PP 16, DP 128, s = 8192,
 * micro-batch 1, 16 sequences per data-parallel rank, no activation
 * checkpointing, flash attention, no dropout.  Derived by hand from the
 * inventory (Korthikanti Sec. 4.1 items sized for GQA and SwiGLU), in
 * units of sbh/t = 8192 x 16384 / 8 = 16,777,216 bytes:
 *   two norm inputs 2 + 2, QKV input 2, MLP input 2, output-projection
 *   input 2, Q and K 2(a + k_h)d/h = 2 x 136 x 128 / 16384 = 2.125,
 *   V 2 k_h d / h = 0.125, SwiGLU gate and up 4f/h = 13, their product
 *   2f/h = 6.5: 31.75 x 16,777,216 = 532,676,608 B, plus the fp32
 *   softmax statistics 4as/t = 524,288 B: 533,200,896 B per layer.
 * The stages split 126 layers as 7, 8 x 14, 7 (Meta's first and last one
 * layer lighter; the step-time model's split).  Stage 0 holds its 7 layers
 * for min(p, m) = 16 micro-batches (Korthikanti Eq. 5), 112 layer passes;
 * stage 1 its 8 for 15, 120, the most: 120 x 533,200,896 =
 * 63,984,107,520 B.
 * No dropout: the embedding's output is the first layer's input, already
 * in the inventory, so it adds nothing (Korthikanti Sec. 4.3 counts only
 * its dropout mask). */
Test(memory, llama_405b_as_meta_trained_it)
{
	tb_inputs in;
	base(&in);
	in.model.has_shape = true;
	in.model.layers = 126; in.model.hidden = 16384; in.model.heads = 128;
	in.model.kv_heads = 8; in.model.head_dim = 128; in.model.ffn_hidden = 53248;
	in.model.vocab = 128256; in.model.mlp = TB_MLP_GATED;
	in.model.norm = TB_NORM_RMSNORM; in.model.positions = TB_POS_ROPE;
	in.training.seq_len = 8192;
	in.training.global_batch = 2048;
	in.training.dropout = false;
	in.training.flash_attention = true;
	in.training.checkpointing = TB_CKPT_NONE;
	in.hardware.count = 16384;
	in.parallelism.tensor = 8; in.parallelism.pipeline = 16;
	in.parallelism.data = 128; in.parallelism.sequence_parallel = true;
	in.parallelism.zero = 2;
	run(&in);
	cr_expect_eq(B.memory.layers_on_busiest_stage, 8);
	cr_expect_eq(B.memory.inflight_microbatches, 15);
	cr_expect(rel(B.memory.activations_per_layer_bytes, 533200896.0) < 1e-12,
	          "%.0f", B.memory.activations_per_layer_bytes);
	cr_expect(B.memory.embedding_dropout_bytes == 0);
	cr_expect(rel(B.memory.activations_bytes, 63984107520.0) < 1e-12,
	          "%.0f", B.memory.activations_bytes);
}

/* ---- MLA, local layers, layer kinds ------------------------------------ */

static void deepseek_v2(tb_inputs *in)
{
	base(in);
	in->model.has_shape = true;
	in->model.layers = 60; in->model.hidden = 5120; in->model.heads = 128;
	in->model.kv_heads = 128; in->model.head_dim = 192; in->model.ffn_hidden = 12288;
	in->model.vocab = 102400; in->model.mlp = TB_MLP_GATED;
	in->model.q_lora_rank = 1536; in->model.kv_lora_rank = 512;
	in->model.qk_nope_dim = 128; in->model.qk_rope_dim = 64; in->model.v_head_dim = 128;
	in->model.experts = 160; in->model.experts_per_token = 6;
	in->model.expert_ffn_hidden = 1536; in->model.shared_ffn_hidden = 3072;
	in->model.dense_layers = 1;
	in->training.dropout = false;
	in->hardware.gpu.memory_bytes = 1e15;
}

Test(memory, mla_kv_cache_deepseek_v2_table_1)
{
	/* DeepSeek-V2, arXiv:2405.04434, Table 1: MLA caches (d_c + d_h^R) l
	 * = (9/2) d_h l elements per token, "equal to GQA with only 2.25
	 * groups"; d_c = 4 d_h = 512, d_h^R = d_h / 2 = 64, l = 60 */
	tb_inputs in;
	deepseek_v2(&in);
	run(&in);
	double dh = 128, l = 60;
	cr_expect(B.memory.kv_cache_bytes_per_token == 2 * 4.5 * dh * l);
	cr_expect(B.memory.kv_cache_bytes_per_token == 2 * l * 2.25 * dh * 2);
	cr_expect(B.memory.kv_cache_bytes_per_sequence == B.memory.kv_cache_bytes_per_token * 2048);
	/* MHA over the same 128 heads would cache 2 n_h d_h l: 56.9 times more */
	cr_expect(rel(2.0 * 128 * dh * l * 2 / B.memory.kv_cache_bytes_per_token, 256 / 4.5) < 1e-12);
}

Test(memory, mla_latents_are_not_split_by_tensor_parallelism)
{
	tb_inputs in;
	deepseek_v2(&in);
	in.training.flash_attention = true;
	in.parallelism.tensor = 8;
	run(&in);
	double s = 2048, t = 8, a = 128;
	double kv_latent = -1, qk = -1, sum = 0;
	for (int i = 0; i < B.memory.n_act_items; i++) {
		const tb_act_item *it = &B.memory.act_items[i];
		sum += it->bytes;
		if (strcmp(it->name, "MLA: key/value latent, up-projection input") == 0)
			kv_latent = it->bytes;
		if (strcmp(it->name, "attention: Q and K") == 0)
			qk = it->bytes;
	}
	cr_expect(kv_latent == 2 * s * 512);            /* replicated down-projection */
	cr_expect(qk == 4 * s * a * 192 / t);
	cr_expect(sum == B.memory.activations_per_layer_bytes);
	/* the MLP items are the mean over 1 dense and 59 MoE layers */
	double h = 5120, wm = 59.0 / 60, wd = 1.0 / 60;
	double mlp = 2 * s * h * wd + 6 * s * 12288 / t * wd            /* dense */
	           + 2 * s * h * wm + 6 * s * 3072 / t * wm             /* router and shared */
	           + 2 * s * h * 6 * wm + 6 * s * 1536 / t * 6 * wm     /* routed copies */
	           + 4 * s * 160 * wm;                                  /* router logits */
	double attn = 2 * 2 * s * h + 2 * 2 * s * 1536 + 2 * 2 * s * 512
	            + 4 * s * a * 192 / t + 2 * s * a * 128 / t + 4 * a * s / t
	            + 2 * s * a * 128 / t;
	double want = attn + 2 * s * h + mlp;
	cr_expect(rel(B.memory.activations_per_layer_bytes, want) < 1e-12, "%.0f vs %.0f",
	          B.memory.activations_per_layer_bytes, want);
}

Test(memory, local_layers_cap_kv_cache_and_scores)
{
	/* Gemma-2-9B at 8,192 tokens: 21 local layers keep 4,096 tokens */
	tb_inputs in;
	base(&in);
	in.model.has_shape = true;
	in.model.layers = 42; in.model.hidden = 3584; in.model.heads = 16;
	in.model.kv_heads = 8; in.model.head_dim = 256; in.model.ffn_hidden = 14336;
	in.model.vocab = 256000; in.model.mlp = TB_MLP_GATED; in.model.tied_embeddings = true;
	in.model.norms_per_layer = 4; in.model.window = 4096; in.model.window_layers = 21;
	in.training.seq_len = 8192;
	in.training.dropout = false;
	run(&in);
	double per_layer = 2 * 8 * 256 * 2.0;
	cr_expect(B.memory.kv_cache_bytes_per_token == 42 * per_layer);
	cr_expect(B.memory.kv_cache_bytes_per_sequence == per_layer * (21 * 8192.0 + 21 * 4096.0));
	/* no flash: the scores kept are the band's, a mean of 6,144 keys */
	double scores = -1, post = 0;
	for (int i = 0; i < B.memory.n_act_items; i++) {
		if (strcmp(B.memory.act_items[i].name, "attention: softmax output") == 0)
			scores = B.memory.act_items[i].bytes;
		if (strstr(B.memory.act_items[i].name, "post-") == B.memory.act_items[i].name)
			post += B.memory.act_items[i].bytes;
	}
	cr_expect(scores == 2 * 16 * 8192.0 * 6144);
	/* Gemma's post-attention and post-MLP norms keep their inputs too */
	cr_expect(post == 2 * 2 * 8192.0 * 3584);
}

Test(memory, no_routed_items_without_moe_layers)
{
	/* --set model.layers=1 on DeepSeek-V2 leaves only its dense layer */
	tb_inputs in;
	deepseek_v2(&in);
	in.model.layers = 1;
	in.training.flash_attention = true;
	run(&in);
	double s = 2048, h = 5120;
	for (int i = 0; i < B.memory.n_act_items; i++) {
		const tb_act_item *it = &B.memory.act_items[i];
		cr_expect(strstr(it->name, "router") == NULL, "%s", it->name);
		if (strcmp(it->name, "MLP: first linear input") == 0)
			cr_expect(it->bytes == 2 * s * h, "%s: %.0f", it->name, it->bytes);
	}
	cr_expect(B.params.active == B.params.total);
}

/* The interleaved schedule: stage 0 holds (v+1)p - 1 chunk passes of L_s/v
 * layers once the step has enough micro-batches (the warm-up of
 * Megatron-LM's interleaved 1F1B), which is Korthikanti et al. 2022
 * Sec. 4.2.3's factor 1 + (p-1)/(pv) on the layers' activations; chunk 0
 * holds 2p - 1 embedding outputs.  GPT-3 175B as Korthikanti ran it (p 8,
 * v 3), with 64 micro-batches per step. */
Test(memory, interleaved_inflight)
{
	tb_inputs in;
	base(&in);
	S_gpt_shape(&in, 96, 12288, 96, 51200);
	in.training.global_batch = 64;
	in.training.checkpointing = TB_CKPT_SELECTIVE;
	in.parallelism.tensor = 8;
	in.parallelism.pipeline = 8;
	in.parallelism.sequence_parallel = true;
	in.hardware.count = 64;
	run(&in);
	double plain_layers = B.memory.activations_bytes - B.memory.embedding_dropout_bytes;
	cr_expect_eq(B.memory.inflight_microbatches, 8);
	cr_expect_eq(B.memory.inflight_chunks, 8);
	in.parallelism.virtual_pipeline = 3;
	run(&in);
	double inter_layers = B.memory.activations_bytes - B.memory.embedding_dropout_bytes;
	cr_expect_eq(B.memory.inflight_chunks, 4 * 8 - 1);
	cr_expect_eq(B.memory.inflight_microbatches, 2 * 8 - 1);
	double factor = 1 + (8.0 - 1) / (8.0 * 3);
	cr_expect(rel(inter_layers / plain_layers, factor) < 1e-12, "%.6f vs %.6f",
	          inter_layers / plain_layers, factor);
	/* few micro-batches: never more than the step has */
	in.training.global_batch = 2;
	run(&in);
	cr_expect_eq(B.memory.inflight_chunks, 2 * 3);
	cr_expect_eq(B.memory.inflight_microbatches, 2);
}

/* torchtitan's per-op policy (training.selective_policy: op), worked by
 * hand from the policy's rule (torchtitan's activation_checkpoint.py: keep
 * every matmul's and the attention's output except every second matmul of
 * the layer): Llama 3.1 8B's shape, one sequence of 2,048.  The layer keeps
 * its input, q (matmul 1), v (matmul 3), the attention's output and
 * statistics, the gate output (matmul 5) and the down output (matmul 7);
 * k, o and up are recomputed.  Under TP 2 with sequence parallelism the
 * input is split, the column-parallel outputs are split, the down output is
 * the whole sequence's partial sum, and the two reduce-scatters' outputs
 * are kept. */
Test(memory, op_policy_by_hand)
{
	tb_inputs in;
	base(&in);
	S_gpt_shape(&in, 32, 4096, 32, 128256);
	in.model.kv_heads = 8;
	in.model.mlp = TB_MLP_GATED;
	in.model.ffn_hidden = 14336;
	in.training.dropout = false;
	in.training.flash_attention = true;
	in.training.checkpointing = TB_CKPT_SELECTIVE;
	in.training.selective_policy = TB_SELECTIVE_OP;
	run(&in);
	double h = 4096, f = 14336, s = 2048, a = 32, kv = 1024;
	double want = s * (2 * h + 2 * h + 2 * kv + 2 * h + 2 * f + 2 * h) + 4 * a * s;
	cr_expect(B.memory.activations_per_layer_bytes == want, "%.0f vs %.0f",
	          B.memory.activations_per_layer_bytes, want);
	/* more than full recomputation keeps, less than the attention policy
	 * (= none under flash attention) */
	cr_expect(B.memory.checkpointing[TB_CKPT_SELECTIVE].activations_bytes <
	          B.memory.checkpointing[TB_CKPT_NONE].activations_bytes);
	cr_expect(B.memory.checkpointing[TB_CKPT_SELECTIVE].activations_bytes >
	          B.memory.checkpointing[TB_CKPT_FULL].activations_bytes);

	in.parallelism.tensor = 2;
	in.parallelism.sequence_parallel = true;
	in.hardware.count = 2;
	run(&in);
	double t = 2;
	want = s * (2 * h / t + 2 * h / t + 2 * kv / t + 2 * h / t + 2 * f / t + 2 * h + 4 * h / t) +
	       4 * a * s / t;
	cr_expect(B.memory.activations_per_layer_bytes == want, "%.0f vs %.0f",
	          B.memory.activations_per_layer_bytes, want);
}

/* DeepSeek-V3's multi-token prediction module rides with the head on the
 * last pipeline stage (the step-time model's placing): that stage holds one
 * more layer's parameters and activations and a second fp32 logits buffer;
 * the first and middle stages do not change. */
Test(memory, mtp_module_on_the_last_stage)
{
	tb_inputs in;
	base(&in);
	in.model = tb_presets_find("deepseek-v3")->model;
	cr_assert_eq(in.model.mtp_modules, 1);
	in.training.seq_len = 4096;
	in.training.dropout = false;
	in.training.flash_attention = true;
	in.parallelism.pipeline = 16;
	in.parallelism.expert = 64;
	in.parallelism.data = 128;
	in.hardware.count = 2048;
	tb_params_compute(&in, &B);
	tb_mem_model with, without;
	tb_memory_model(&in, &B.params, &with);
	without = with;
	without.mtp = 0;
	cr_expect_eq(with.mtp, 1);
	tb_mem_share sw[3], so[3];
	int64_t lw[3], lo[3];
	double mw[3], mo[3];
	tb_memory_shares(&with, NULL, 1, 1, 16, 64, sw, lw, mw);
	tb_memory_shares(&without, NULL, 1, 1, 16, 64, so, lo, mo);
	cr_expect(mw[0] == 0 && mw[1] == 0 && mw[2] == 1 && mo[2] == 0, "the module with the head");
	for (int i = 0; i < 3; i++)
		cr_expect_eq(lw[i], lo[i], "the perf split is the model's layers");
	for (int i = 0; i < 2; i++)
		cr_expect(sw[i].train.dense == so[i].train.dense && sw[i].train.expert == so[i].train.expert);
	/* one more layer: the last stage's share at layers + 1 over layers */
	double per_layer_w = (sw[2].train.dense + sw[2].train.expert) - (so[2].train.dense + so[2].train.expert);
	cr_expect(per_layer_w > 0);
	tb_mem_fit c = { .layers = { 3, 4, 3 }, .act_layer_b1 = 1e9, .logits_b1 = 2e9,
	                 .p = 16, .v = 1, .d = 128, .gb = 15360, .mtp = { 0, 0, 1 } };
	double aw[3], ao[3];
	tb_memory_stage_act(&c, 1, aw);
	c.mtp[2] = 0;
	tb_memory_stage_act(&c, 1, ao);
	cr_expect(aw[0] == ao[0] && aw[1] == ao[1]);
	/* the last rank has one micro-batch in flight: one layer, one logits */
	cr_expect(aw[2] - ao[2] == 1e9 + 2e9, "%g", aw[2] - ao[2]);

	/* Megatron-LM's "Et*3|(tt|)*29,m|L" (pipelayout.h) puts the module on
	 * rank 14, a middle one: the middle class holds it with the most
	 * layers a middle rank has (4), the last rank 2 layers and the head */
	tb_pipe_layout pl;
	char why[200];
	long at;
	cr_assert_null(tb_pipe_layout_parse("Et*3|(tt|)*29,m|L", 16, 61, 3, 1, &pl, why, sizeof why, &at));
	tb_memory_shares(&with, &pl, 1, 1, 16, 64, sw, lw, mw);
	cr_expect(lw[0] == 5 && lw[1] == 4 && lw[2] == 2, "%lld %lld %lld", (long long)lw[0],
	          (long long)lw[1], (long long)lw[2]);
	cr_expect(mw[0] == 0 && mw[1] == 1 && mw[2] == 0);
	/* the middle class: 4 layers and the module, at the last class's
	 * weight per layer */
	tb_memory_shares(&without, NULL, 1, 1, 16, 64, so, lo, mo);
	double w4 = sw[1].train.dense + sw[1].train.expert, o4 = so[1].train.dense + so[1].train.expert;
	cr_expect(fabs(w4 - o4 * 5 / 4) < 1e-6 * o4, "%g vs %g", w4, o4 * 5 / 4);
	/* another pipeline size: the even split */
	tb_memory_shares(&with, &pl, 1, 1, 8, 64, sw, lw, mw);
	cr_expect(lw[0] == 7 && lw[2] == 7 && mw[2] == 1);
	/* its activations: a middle rank with the module holds its logits */
	tb_mem_fit cl = { .layers = { 5, 4, 2 }, .act_layer_b1 = 1e9, .logits_b1 = 2e9,
	                  .p = 16, .v = 1, .d = 128, .gb = 15360, .mtp = { 0, 1, 0 } };
	double al[3];
	tb_memory_stage_act(&cl, 1, al);
	tb_mem_fit cn = cl;
	cn.mtp[1] = 0;
	double an[3];
	tb_memory_stage_act(&cn, 1, an);
	/* rank 1 has 15 micro-batches in flight: 15 more layers, one logits each */
	cr_expect(al[1] - an[1] == 15 * (1e9 + 2e9), "%g", al[1] - an[1]);
	cr_expect(al[2] == an[2] && al[0] == an[0]);
}

/* GPT-3 175B at t = 8 with sequence parallelism on 8 stages of 12 layers,
 * 64 micro-batches of 1, full recomputation: the two tests below. */
static void gpt3_8x8_full(tb_inputs *in)
{
	base(in);
	S_gpt_shape(in, 96, 12288, 96, 51200);
	in->training.global_batch = 64;
	in->parallelism.tensor = 8;
	in->parallelism.pipeline = 8;
	in->parallelism.sequence_parallel = true;
	in->hardware.count = 64;
	in->training.checkpointing = TB_CKPT_FULL;
}

/* Full recomputation of part of the layers (Megatron-LM's
 * --recompute-method block --recompute-num-layers 4): GPT-3 175B at t = 8
 * with sequence parallelism, p = 8 (12 layers a stage), 64 micro-batches
 * of 1, 8 in flight on the first stage.  Its 4 recomputed layers hold
 * Korthikanti Table 2's full-recomputation figure (2sbh: 0.046875 GiB)
 * over t, the rank's sequence shard (2sbh/t),
 * and the other 8 the no-recomputation one (sbh(34/t + 5as/ht):
 * 0.333984375 GiB), for each micro-batch in flight; then one layer
 * rebuilt in backward (the latter again) and the embedding's dropout
 * mask, sbhp/t = 2048 x 12288 x 8 / 8 B (Sec. 4.3).  Recomputation then
 * costs a third of full's: 4 of every 12 layers. */
Test(memory, block_recomputation_mixes_table_2_rows)
{
	tb_inputs in;
	gpt3_8x8_full(&in);
	run(&in);
	double full_re = B.flops.recompute_per_token, full_act = B.memory.activations_bytes;
	in.training.recompute_layers = 4;
	run(&in);
	cr_assert_eq(B.memory.inflight_microbatches, 8);
	cr_assert_eq(B.memory.layers_on_busiest_stage, 12);
	double want = (8 * (4 * 0.046875 / 8 + 8 * 0.333984375) + 0.333984375) * GIB +
	              2048.0 * 12288 * 8 / 8;
	cr_expect(rel(B.memory.activations_bytes, want) < 1e-12, "%.0f vs %.0f",
	          B.memory.activations_bytes, want);
	cr_expect(rel(B.flops.recompute_per_token, full_re / 3) < 1e-12);
	/* the memory table's full row is this run's */
	cr_expect(B.memory.checkpointing[TB_CKPT_FULL].activations_bytes == B.memory.activations_bytes);
	/* 12 or more layers a chunk is every layer: full recomputation's bits */
	in.training.recompute_layers = 12;
	run(&in);
	cr_expect(B.memory.activations_bytes == full_act);
	cr_expect(B.flops.recompute_per_token == full_re);
}

/* DeepSeek-V3 as DeepSeek trained it (arXiv:2412.19437 Sec. 3.2: PP 16,
 * EP 64, ZeRO-1 over 128 replicas, micro-batch 1 of 4,096 tokens, on 80 GB
 * H800s) under its own recomputation (Sec. 3.2.3: every RMSNorm and MLA
 * up-projection rebuilt; Sec. 3.3.2: the linear layers' inputs cached in
 * FP8 with a 4 B scale per 1x128 tile, the MoE SwiGLU's inputs cached in
 * FP8 and its output rebuilt, the attention's output in E5M6, counted in
 * 16 bits).  A layer at micro-batch 1 keeps, item by item: the residual
 * before each norm, 2sbh twice; the query and key/value latents, 2s(r_q +
 * r_kv); the attention's fp32 statistics, 4as; its output, 2s a d_v; in the
 * 3 of 61 dense layers the SwiGLU's inputs (4sf) and its output as the
 * down projection's FP8 input ((1+1/32)sf); in the 58 MoE layers the
 * routed copies ((1+1/32)shk), the routed and shared SwiGLUs' FP8 inputs
 * (2(1+1/32)s f_e (k + 1)) and the fp32 router logits (4sE).  The run
 * fitted its card; keeping every activation (selective under flash
 * attention) it would not. */
Test(memory, deepseek_v3_recipe_fits_its_card)
{
	tb_inputs in;
	base(&in);
	in.model = tb_presets_find("deepseek-v3")->model;
	in.training.seq_len = 4096;
	in.training.global_batch = 15360;
	in.training.dropout = false;
	in.training.flash_attention = true;
	in.training.precision = TB_PREC_FP8_MIXED;
	in.training.checkpointing = TB_CKPT_SELECTIVE;
	in.training.selective_policy = TB_SELECTIVE_DEEPSEEK;
	in.parallelism.pipeline = 16;
	in.parallelism.expert = 64;
	in.parallelism.data = 128;
	in.parallelism.zero = 1;
	in.hardware.count = 2048;
	in.hardware.gpu = *tb_gpus_find("h800");
	run(&in);
	double s = 4096, h = 7168, c8 = 1 + 1.0 / 32, wd = 3.0 / 61, wm = 58.0 / 61;
	double want = 2 * 2 * s * h + 2 * s * (1536 + 512) + 4 * 128 * s + 2 * s * 128 * 128 +
	              wd * (4 * s * 18432 + c8 * s * 18432) +
	              wm * (c8 * s * h * 8 + 2 * c8 * s * 2048 * (8 + 1) + 4 * s * 256);
	cr_expect(rel(B.memory.activations_per_layer_bytes, want) < 1e-12, "%.0f vs %.0f",
	          B.memory.activations_per_layer_bytes, want);
	cr_expect(B.memory.fits, "%.1f GB of %.1f GB", B.memory.per_gpu.total / 1e9,
	          B.memory.capacity_bytes / 1e9);
	in.training.selective_policy = TB_SELECTIVE_ATTENTION;
	run(&in);
	cr_expect(!B.memory.fits, "%.1f GB keeping every activation", B.memory.per_gpu.total / 1e9);
}

/* The fewest layers full recomputation could redo and fit: GPT-3 175B as
 * in block_recomputation_mixes_table_2_rows, the card sized to the total
 * at 4 layers a stage; at one byte less it takes 5.  Where no
 * recomputation fits the rows say so and nothing is offered. */
Test(memory, fewest_recomputed_layers_that_fit)
{
	tb_inputs in;
	gpt3_8x8_full(&in);
	in.training.recompute_layers = 4;
	run(&in);
	double at4 = B.memory.per_gpu.total, act4 = B.memory.activations_bytes;
	in.training.recompute_layers = 0;
	in.hardware.gpu.memory_bytes = at4;
	run(&in);
	cr_expect_eq(B.memory.fewest_recompute_layers, 4);
	cr_expect(B.memory.fewest_recompute_bytes == at4 && B.memory.fewest_recompute_act_bytes == act4);
	cr_expect(rel(B.memory.fewest_recompute_flops_fraction,
	              B.memory.checkpointing[TB_CKPT_FULL].extra_flops_fraction / 3) < 1e-12);
	in.hardware.gpu.memory_bytes = at4 - 1;
	run(&in);
	cr_expect_eq(B.memory.fewest_recompute_layers, 5);
	in.hardware.gpu.memory_bytes = 1e15;
	run(&in);
	cr_expect(B.memory.checkpointing[TB_CKPT_NONE].fits);
	cr_expect_eq(B.memory.fewest_recompute_layers, 0);
}

/* The moe policy (Megatron-LM's --recompute-modules layernorm moe) keeps
 * of an expert layer only its input, the MLP norm's, and of every layer
 * no norm's output: DeepSeek-V2's shape of the test above, the same sums
 * less the QKV projection's input, the routed and shared experts' and the
 * router's tensors, and the dense layer's first linear input. */
Test(memory, moe_policy_keeps_the_expert_layers_input)
{
	tb_inputs in;
	deepseek_v2(&in);
	in.training.flash_attention = true;
	in.parallelism.tensor = 8;
	in.training.checkpointing = TB_CKPT_SELECTIVE;
	in.training.selective_policy = TB_SELECTIVE_MOE;
	run(&in);
	double s = 2048, t = 8, a = 128, h = 5120, wd = 1.0 / 60;
	double attn = 2 * s * h + 2 * 2 * s * 1536 + 2 * 2 * s * 512
	            + 4 * s * a * 192 / t + 2 * s * a * 128 / t + 4 * a * s / t
	            + 2 * s * a * 128 / t;
	double want = attn + 2 * s * h + 6 * s * 12288 / t * wd;
	cr_expect(rel(B.memory.activations_per_layer_bytes, want) < 1e-12, "%.0f vs %.0f",
	          B.memory.activations_per_layer_bytes, want);
	for (int i = 0; i < B.memory.n_act_items; i++)
		cr_expect(strncmp(B.memory.act_items[i].name, "MoE:", 4) != 0, "%s kept",
		          B.memory.act_items[i].name);
}

/* Transformer Engine keeps a quantized copy of each trained linear layer's
 * weight between micro-batches under Megatron-LM (module/linear.py's
 * _fp8_workspaces, is_first_microbatch), with its transpose where the card's
 * fp8 GEMMs take only the TN layout (quantizer.cpp: Hopper, not Blackwell);
 * under --fp8-param-gather that copy is the weight, whose transpose is made
 * for the backward and not kept (the frozen fp8 bases of MLPerf's Hopper
 * LoRA runs fit only so).  Counted wherever the
 * step-time model prices Transformer Engine's once-a-step weight cast (every
 * framework but FSDP's torchao).  Llama 3.1 8B: 32
 * layers of q 4096 x 4096, k and v 1024 x 4096, o 4096 x 4096 and three
 * 4096 x 14336 MLP matrices, 6,979,321,856 linear weights of 8,030,261,248
 * parameters; ZeRO-1 over 8 GPUs, tensor and pipeline 1. */
static void llama8b_fp8(tb_inputs *in, const char *gpu)
{
	base(in);
	in->model.has_shape = true;
	in->model.layers = 32; in->model.hidden = 4096; in->model.heads = 32;
	in->model.kv_heads = 8; in->model.head_dim = 128; in->model.ffn_hidden = 14336;
	in->model.vocab = 128256; in->model.mlp = TB_MLP_GATED;
	in->model.norm = TB_NORM_RMSNORM; in->model.positions = TB_POS_ROPE;
	in->training.precision = TB_PREC_FP8_MIXED;
	in->training.flash_attention = true;
	in->training.dropout = false;
	in->hardware.gpu = *tb_gpus_find(gpu);
	in->hardware.count = 8;
	in->parallelism.data = 8;
	in->parallelism.zero = 1;
	in->parallelism.framework = TB_FW_MEGATRON;
}

Test(memory, te_fp8_weight_copies)
{
	const double N = 8030261248.0, M = 6979321856.0;
	static const struct {
		const char *gpu;
		tb_precision prec;
		tb_fp8_recipe recipe;
		tb_framework fw;
		int zero;
		bool params;
		double copy;            /* bytes a linear weight */
		double weights;         /* one GPU's weights */
	} c[] = {
		/* a copy beside the 16-bit weights: data and transpose on H100 */
		{ "h100-sxm", TB_PREC_FP8_MIXED, TB_FP8_AUTO, TB_FW_MEGATRON, 1, false, 2, 2 * N + 2 * M },
		{ "b200", TB_PREC_FP8_MIXED, TB_FP8_TENSORWISE, TB_FW_MEGATRON, 1, false, 1, 2 * N + M },
		/* wherever Transformer Engine's casts are priced once a step */
		{ "h100-sxm", TB_PREC_FP8_MIXED, TB_FP8_AUTO, TB_FW_ANY, 1, false, 2, 2 * N + 2 * M },
		{ "h100-sxm", TB_PREC_FP8_MIXED, TB_FP8_AUTO, TB_FW_DEEPSPEED, 1, false, 2, 2 * N + 2 * M },
		{ "b200", TB_PREC_FP8_MIXED, TB_FP8_MXFP8, TB_FW_MEGATRON, 1, false, 2 * (1 + 1.0 / 32),
		  2 * N + 2 * (1 + 1.0 / 32) * M },
		{ "b200", TB_PREC_FP4_MIXED, TB_FP8_AUTO, TB_FW_MEGATRON, 1, false, 2 * (0.5 + 1.0 / 16),
		  2 * N + 2 * (0.5 + 1.0 / 16) * M },
		/* the weights themselves in fp8: the 16-bit ones gone */
		{ "b200", TB_PREC_FP8_MIXED, TB_FP8_AUTO, TB_FW_MEGATRON, 1, true, 1, 2 * N - M },
		{ "h100-sxm", TB_PREC_FP8_MIXED, TB_FP8_AUTO, TB_FW_MEGATRON, 1, true, 1, 2 * N - M },
		{ "b200", TB_PREC_FP8_MIXED, TB_FP8_AUTO, TB_FW_MEGATRON, 3, true, 1, (2 * N - M) / 8 },
		/* none: Megatron-FSDP's gathered weights, torchao's casts, 16 bits */
		{ "b200", TB_PREC_FP8_MIXED, TB_FP8_AUTO, TB_FW_MEGATRON, 3, false, 0, 2 * N / 8 },
		{ "h100-sxm", TB_PREC_FP8_MIXED, TB_FP8_AUTO, TB_FW_FSDP, 1, false, 0, 2 * N },
		{ "h100-sxm", TB_PREC_BF16_MIXED, TB_FP8_AUTO, TB_FW_MEGATRON, 1, false, 0, 2 * N },
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		tb_inputs in;
		llama8b_fp8(&in, c[i].gpu);
		in.training.precision = c[i].prec;
		in.training.fp8_recipe = c[i].recipe;
		in.parallelism.framework = c[i].fw;
		in.parallelism.zero = c[i].zero;
		in.training.fp8_param_gather = c[i].params;
		run(&in);
		cr_assert(rel(B.params.total, N) < 1e-15, "%.0f", B.params.total);
		double copy = c[i].copy * M / (c[i].zero >= 3 ? 8 : 1);
		cr_expect(fabs(B.memory.per_gpu.fp8_weights - copy) <= 1e-9 * N, "%zu: %.0f against %.0f",
		          i, B.memory.per_gpu.fp8_weights, copy);
		/* what ZeRO-3 gathers at once is its own test's */
		double sharded = B.memory.per_gpu.weights - B.memory.per_gpu.gathered_weights;
		cr_expect(rel(sharded, c[i].weights) < 1e-12, "%zu: %.0f against %.0f", i, sharded,
		          c[i].weights);
		/* the whole model: the copies in, the 16-bit weights they
		 * replace out */
		double whole = N * B.memory.bytes_per_param.total + (c[i].zero >= 3 && !c[i].params ? 0 : c[i].copy * M) -
		               (c[i].params ? 2 * M : 0);
		cr_expect(rel(B.memory.model_states_bytes, whole) < 1e-12, "%zu: %.0f against %.0f", i,
		          B.memory.model_states_bytes, whole);
		/* the largest model on one card holds the same bytes a weight */
		if (c[i].zero <= 2) {
			double bp = B.memory.bytes_per_param.total + M * (c[i].copy - (c[i].params ? 2 : 0)) / N;
			double usable = in.hardware.gpu.memory_bytes - in.hardware.overhead_bytes;
			cr_expect(rel(B.memory.max_params_one_gpu, usable / bp) < 1e-12, "%zu: %.0f against %.0f",
			          i, B.memory.max_params_one_gpu, usable / bp);
		}
	}
}
