/* test_memory_loss.c: the loss's buffers in the memory model
 * (memory.c S_ce_bytes, inputs.c tb_cross_entropy_eager) against bytes
 * worked by hand from what each loss keeps: Megatron-LM's vocab-parallel
 * cross-entropy one fp32 buffer a logit, PyTorch's eager F.cross_entropy
 * over logits.float() three at the backward's start (the saved
 * log-softmax, NLL's gradient, LogSoftmax's gradient). */
#include <criterion/criterion.h>
#include <string.h>

#include "calc.h"
#include "trainbudget/presets.h"

static tb_budget B;

/* Llama 3 8B (the preset: Meta's config.json) at one sequence of 8,192
 * tokens, sharded over 8 GPUs */
static void llama3_8b(tb_inputs *in)
{
	memset(in, 0, sizeof *in);
	const tb_preset *pr = tb_presets_find("llama-3-8b");
	cr_assert_not_null(pr);
	in->model = pr->model;
	cr_assert_eq(in->model.vocab, 128256);
	in->training.precision = TB_PREC_BF16_MIXED;
	in->training.optimizer = TB_OPT_ADAMW;
	in->training.micro_batch = 1;
	in->training.global_batch = 8;
	in->training.seq_len = 8192;
	in->training.tokens = 1e9;
	in->training.flash_attention = true;
	in->parallelism.tensor = in->parallelism.pipeline = 1;
	in->parallelism.expert = in->parallelism.context = 1;
	in->parallelism.data = 8;
	in->parallelism.zero = 3;
	in->parallelism.framework = TB_FW_FSDP;
	in->hardware.count = 8;
	in->hardware.gpu.memory_bytes = 80e9;
}

static void run(const tb_inputs *in)
{
	memset(&B, 0, sizeof B);
	tb_params_compute(in, &B);
	tb_flops_compute(in, &B);
	tb_memory_compute(in, &B);
}

Test(memory_loss, eager_holds_three_fp32_buffers_a_logit)
{
	tb_inputs in;
	llama3_8b(&in);
	in.training.cross_entropy = TB_CE_FUSED;
	run(&in);
	/* 8,192 x 128,256 logits: 1,050,673,152 of them */
	cr_expect_eq(B.memory.logits_bytes, 4.0 * 1050673152, "%.0f", B.memory.logits_bytes);
	double fused_total = B.memory.per_gpu.total;

	in.training.cross_entropy = TB_CE_EAGER;
	run(&in);
	cr_expect_eq(B.memory.logits_bytes, 12.0 * 1050673152, "%.0f", B.memory.logits_bytes);
	/* 8 bytes a logit more, 8.4 GB, and nothing else moves */
	cr_expect_eq(B.memory.per_gpu.total - fused_total, 8.0 * 1050673152);

	/* vocabulary-parallel over t, the sequence split over c: a quarter */
	in.parallelism.tensor = 2;
	in.parallelism.context = 2;
	in.parallelism.data = 2;
	run(&in);
	cr_expect_eq(B.memory.logits_bytes, 3.0 * 1050673152, "%.0f", B.memory.logits_bytes);
}

Test(memory_loss, default_follows_the_framework_and_its_kernels)
{
	tb_inputs in;
	llama3_8b(&in);
	/* torchtitan without compile: eager */
	in.training.eager_kernels = true;
	cr_expect(tb_cross_entropy_eager(&in));
	/* compiled (torchtitan compiles its loss with the model since 2025-02) */
	in.training.eager_kernels = false;
	cr_expect(!tb_cross_entropy_eager(&in));
	/* Megatron-LM's loss is fused whatever its layers run */
	in.training.eager_kernels = true;
	in.parallelism.framework = TB_FW_MEGATRON;
	cr_expect(!tb_cross_entropy_eager(&in));
	/* the scenario's word stands over both */
	in.training.cross_entropy = TB_CE_EAGER;
	cr_expect(tb_cross_entropy_eager(&in));
	in.parallelism.framework = TB_FW_FSDP;
	in.training.cross_entropy = TB_CE_FUSED;
	cr_expect(!tb_cross_entropy_eager(&in));
	cr_expect_str_eq(tb_cross_entropy_name(true), "eager");
	cr_expect_str_eq(tb_cross_entropy_name(false), "fused");
}

Test(memory_loss, derivation_states_the_bytes)
{
	tb_inputs in;
	llama3_8b(&in);
	in.training.cross_entropy = TB_CE_EAGER;
	run(&in);
	const tb_deriv *d = NULL;
	for (int i = 0; i < B.n_derivs; i++)
		if (strcmp(B.derivs[i].key, "memory.logits") == 0)
			d = &B.derivs[i];
	cr_assert_not_null(d);
	cr_expect_eq(d->result, 12.0 * 1050673152);
	bool e = false;
	for (int i = 0; i < d->nvars; i++)
		if (strcmp(d->vars[i].sym, "e") == 0)
			e = d->vars[i].value == 12;
	cr_expect(e, "the derivation names e = 12 B");
}
