/* validate_memory.c: the memory model against the peak memory a GPU the
 * sources print beside their speed (`mem_gib` in tests/fixtures/runs.yaml:
 * torchtitan's logs, the caching allocator's reserved peak).  A section of
 * docs/validation.md; nothing in it is fitted. */
#include "validate_perf.h"
#include "validate_runs.h"

#include "trainbudget/budget.h"

#include <math.h>
#include <string.h>

#define GIB 1073741824.0

static bool S_has_mem(const tb_vruns_case *c)
{
	return c->mem_gib > 0;
}

/* The row's peak a GPU in GiB, and that of the same row with its loss
 * fused, which is what the model held for every loss before 2026-12-07. */
static void S_predict(const tb_vruns_case *c, double *gib, double *fused_gib, double *loss_gib)
{
	static tb_budget b;
	tb_budget_compute(&c->inputs, &b);
	*gib = b.memory.per_gpu.total / GIB;
	*loss_gib = b.memory.logits_bytes / GIB;
	tb_inputs in = c->inputs;
	in.training.cross_entropy = TB_CE_FUSED;
	tb_budget_compute(&in, &b);
	*fused_gib = b.memory.per_gpu.total / GIB;
}

void tb_vperf_write_memory(FILE *f)
{
	/* each row priced once: the summary's errors and the table's rows */
	static double g[TB_VRUNS_ROWS_MAX], gf[TB_VRUNS_ROWS_MAX], lg[TB_VRUNS_ROWS_MAX];
	double e[TB_VRUNS_ROWS_MAX], ef[TB_VRUNS_ROWS_MAX];
	int n = 0, in10 = 0, in20 = 0, in10f = 0;
	for (int i = 0; i < tb_vruns_nmodern; i++) {
		const tb_vruns_case *c = &tb_vruns_modern[i];
		if (!S_has_mem(c))
			continue;
		S_predict(c, &g[i], &gf[i], &lg[i]);
		e[n] = fabs(g[i] / c->mem_gib - 1);
		ef[n] = fabs(gf[i] / c->mem_gib - 1);
		in10 += e[n] <= 0.10;
		in20 += e[n] <= 0.20;
		in10f += ef[n] <= 0.10;
		n++;
	}
	fprintf(f, "\n## Peak memory against published runs\n\n"
	           "Written by `make validate` (tests/validate_memory.c): the rows of "
	           "`tests/fixtures/runs.yaml` whose source prints the peak memory a GPU beside its speed "
	           "(`mem_gib`), each priced by the memory model as `estimate` prices it (the busiest "
	           "pipeline stage, the in-flight micro-batches, `hardware.overhead` included). The "
	           "published figure is torchtitan's log line, the caching allocator's peak reserved "
	           "bytes: above what is allocated by its fragmentation, below the card's use by the "
	           "CUDA context. Nothing here is fitted. Error = (predicted - published) / published; "
	           "\"fused loss\" prices the same row with `training.cross_entropy: fused`, as every "
	           "loss was priced before 2026-12-07.\n\n");
	fprintf(f, "Over the %d rows: median |error| %.1f%% (%.1f%% with every loss fused), %d within "
	           "10%% (%d with every loss fused), %d within 20%%.\n\n",
	        n, 100 * tb_vperf_median(e, n), 100 * tb_vperf_median(ef, n), in10, in10f, in20);
	fprintf(f, "| Run | Layout | Loss | Published | Predicted | Error | Fused loss | Error | Loss buffers |\n"
	           "|---|---|---|---:|---:|---:|---:|---:|---:|\n");
	for (int i = 0; i < tb_vruns_nmodern; i++) {
		const tb_vruns_case *c = &tb_vruns_modern[i];
		if (!S_has_mem(c))
			continue;
		const tb_parallelism *p = &c->inputs.parallelism;
		const tb_training *t = &c->inputs.training;
		fprintf(f, "| %s | %s TP%lld PP%lld CP%lld EP%lld ZeRO-%d, %lld x %lld tokens, %s | %s | "
		           "%.1f GiB | %.1f GiB | %+.1f%% | %.1f GiB | %+.1f%% | %.1f GiB |\n",
		        c->id, c->inputs.hardware.gpu.name, (long long)p->tensor, (long long)p->pipeline,
		        (long long)(p->context > 0 ? p->context : 1), (long long)(p->expert > 0 ? p->expert : 1),
		        p->zero, (long long)t->micro_batch, (long long)t->seq_len,
		        tb_checkpointing_name(t->checkpointing),
		        tb_cross_entropy_name(tb_cross_entropy_eager(&c->inputs)), c->mem_gib, g[i],
		        100 * (g[i] / c->mem_gib - 1), gf[i], 100 * (gf[i] / c->mem_gib - 1), lg[i]);
	}
	fprintf(f, "\n### Where the memory model misses\n\n"
	           "- **The loss** (entered 2026-12-07). torchtitan's loss at the 2024-12 benchmark's "
	           "commit (9dec370, train.py) is `F.cross_entropy(pred.flatten(0, 1).float(), labels)`, "
	           "uncompiled, and the step frees `pred` before the backward: at the backward's start "
	           "the saved log-softmax, the gradient NLL's backward writes and the one LogSoftmax's "
	           "backward writes from them are three fp32 buffers of the logits' size, 12 bytes a "
	           "logit, where Megatron-LM's vocab-parallel cross-entropy writes the gradient over "
	           "its one (4 bytes, Korthikanti et al. 2022, what the model held for every loss). "
	           "At 8,192 tokens and 128,256 words that is 12.6 GB a sequence where 4.2 GB was "
	           "priced; the 8B FSDP rows went from 25-37%% under to 5-14%%, the context-parallel "
	           "ones (32,768 tokens a GPU) from 44%% to 7%%, the 70B ones from 43-46%% to 20-25%%. torchtitan compiles the loss from "
	           "d1f62be7 (2025-02-20) when `training.compile` is on, so its later compiled rows "
	           "(Trainy's, torchao's of 2025-08, Lambda's compiled gpt-oss) keep the fused figure, "
	           "and the default follows: eager under `parallelism.framework: fsdp` with "
	           "`training.kernels: eager`, fused otherwise.\n"
	           "- **torchtitan's pipeline stages keep FSDP's weights gathered and its gradients "
	           "unsharded through the step** (entered 2026-12-07). torch.distributed.pipelining "
	           "turns FSDP's gradient sync and reshard-after-backward off for every micro-batch "
	           "and reduces once after the last (stage.py: backward_maybe_with_nosync, "
	           "perform_reduce_grad), and torchtitan shards with reshard_after_forward off under "
	           "PP (parallelize_llama.py at 9dec370). For the 405B rows (TP 8, PP 8) that is a "
	           "stage's 6.3B weights (12.7 GB in bf16, 6.3 GB in the fp8 these runs gather: below) and "
	           "their gradients accumulated in the fp32 "
	           "they are reduced in (25.3 GB), which the model had sharded eight ways. Priced "
	           "(`tb_fsdp_holds_stage`: framework fsdp, ZeRO 2 or 3, more than one stage; the "
	           "step's reduction and the layout search read the same decision), the six 405B rows "
	           "went from -54..-62%% to -11..-26%% (-19..-33%% once the fp8 gather is counted, below), the median |error| over the 33 rows from 13.5%% "
	           "to 13.0%%, 24 to 28 within 20%%. What they still miss grows with the context-"
	           "parallel degree (75.3 to 84.9 GiB published from CP 1 to 8 at the same 32,768 "
	           "tokens a GPU, one figure priced: the ring's send and receive buffers are not "
	           "counted) and is larger under 1F1B than interleaved (82.5 against 72.7 GiB "
	           "published, 62.6 against 64.5 priced).\n");
	fprintf(f, "- **FSDP's working set** (entered 2026-12-07): the unit gathered, the next "
	           "prefetched and the unit's gradients before their reduce-scatter, once as autograd "
	           "writes them and once in the reduce-scatter's fp32 input (FSDP2's foreach_reduce); "
	           "the largest unit is the head with the final norm, which torchtitan keeps gathered "
	           "from the forward's end through its backward, where it outweighs a layer "
	           "(`tb_memory_gathered_bytes`, docs/formulas.md). Llama 3.1 8B holds 4.64 GB of it. "
	           "The torchtitan 2024-12 and Trainy 8B rows went from 4.5-14.0%% under to between "
	           "7.6%% under and 3.0%% over, torchao's H100 rows from -19.9%% to -10.8%%; the median "
	           "|error| over the 33 rows from 13.0%% to 10.8%%, 14 to 15 within 10%%, but 28 to 23 "
	           "within 20%%: torchao's B200 rows, which print 14 GiB less than its H100 rows for the "
	           "same configuration (the last bullet), went from +13-15%% to +26-28%%, and Lambda's "
	           "gpt-oss-120b with the experts gathered (EP 1) from +4.9%% to +24.7%%. Lambda's EP 1 "
	           "and EP 8 rows now differ by 25.5 GiB priced against 24.6 published (by nothing "
	           "before): the working set is what sets them apart; what made both 25-29%% over "
	           "was the next bullet. DeepSpeed's ZeRO-3 (a module at a time under a cap of live "
	           "parameters) and Megatron-FSDP are not priced.\n");
	fprintf(f, "- **FSDP's gradients as its shards hold them** (entered 2026-12-07): FSDP2 "
	           "reduce-scatters in its reduce_dtype and casts the output back to the sharded "
	           "parameters' dtype (foreach_reduce), so under pure bf16 with fp32 reduction, as "
	           "Lambda's gpt-oss-120b ran, the shards are 2 bytes a gradient where the model held "
	           "the 4 it reduces in: 29 GB a GPU over 116.8B parameters on 8. Gradients kept whole "
	           "(no_sync, a pipeline) still accumulate in the reduce dtype, and the working set's "
	           "reduce-scatter input is in it. Lambda's three rows went from +24.7%%, +28.7%% and "
	           "+30.5%% to +6.7%%, +7.3%% and +14.8%%; the median |error| over the 33 rows from "
	           "10.8%% to 9.0%%, 15 to 17 within 10%%, 23 to 26 within 20%%. Mixed-precision runs "
	           "(fp32 shards) are unchanged by it. Under mixed precision FSDP shards one copy of "
	           "a weight, the fp32 one, and casts each shard to bf16 for the all-gather "
	           "(MixedPrecisionPolicy): the model had kept a bf16 shard beside the fp32 master "
	           "shard, ZeRO's count and DeepSpeed's. Without it (2 bytes a weight over the "
	           "data-parallel group; entered 2026-12-07) the median went from 9.0%% to 8.0%%: "
	           "torchtitan's 8-GPU 8B rows 2.3-2.5 points lower and its 128-GPU ones 0.2 (all now "
	           "-8.0..+0.0%%), torchao's MI300X rows from "
	           "+8-9%% to +4%%, its B200 ones from +26-28%% to +20-22%% and its H100 ones from "
	           "-11%% to -15%% (the three cards' one configuration). Under torchao's float8 "
	           "all-gather (per-tensor fp8 under FSDP, which torchtitan's 405B config turns on) "
	           "the gathered linear weights are fp8, a byte apiece, held whole under the pipeline "
	           "and in the working set, as the step's gathers already priced them: the 405B rows "
	           "went from -11..-26%% to -19..-33%%, 26 to 23 within 20%%, the median stays 8.0%%. "
	           "So the 405B rows miss 14-28 GiB that no mechanism here names (it grows with the "
	           "context-parallel degree and is larger under 1F1B than interleaved: the bullet "
	           "above).\n");
	fprintf(f, "- **DTensor's tensor parallelism keeps the gathered inputs** (entered "
	           "2026-12-07): torchtitan gathers the attention's and the MLP's inputs in "
	           "PrepareModuleInput, before the column-parallel linears, which save the gathered "
	           "copy; Megatron-LM's sequence parallelism saves its shard and gathers again "
	           "(Korthikanti et al. 2022 Sec. 4.2.2), as the model had priced every run. Under "
	           "`framework: fsdp` the two inputs are now whole (docs/formulas.md, Activations). "
	           "Under full recomputation it is the one layer rebuilt: the 70B rows (TP 8, 16 "
	           "sequences of 8,192) went from -23.7%% and -18.8%% to -18.8%% and -13.7%%, the 405B "
	           "ones 2.1-2.4 points closer; 23 to 24 within 20%%.\n");
	fprintf(f, "- **torchtitan's per-op checkpointing on a mixture** saves the attention, the "
	           "router and the all-to-all but recomputes the grouped GEMMs; the model's op policy "
	           "is dense-only and the compiled gpt-oss row is priced with the attention policy "
	           "(+28%%).\n"
	           "- **One configuration, three figures.** torchao's Llama 3 8B at one sequence of "
	           "8,192 tokens under FSDP on 8 GPUs with per-op checkpointing printed 47.7 GiB on "
	           "H100 (torchtitan of early 2025), 39.1 on MI300X and 33.7 on B200 (2025-08): the "
	           "states and activations are the same bytes on the three cards, so the 14 GiB "
	           "between them is the software (the allocator's caching and what each version "
	           "compiled); the model gives one figure, 38.3 GiB.\n");
}
