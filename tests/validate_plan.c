/* validate_plan.c: the layout search (plan.h) against the published
 * layouts, the section of validation.md validate_perf writes after the
 * step-time one (validate_plan.h).
 *
 * Experts tuned the published layouts, so a sound search should find them
 * near its best; each run is searched from the same case the step-time
 * section scores (validate_runs.h), so that a gap is the layout's and not
 * a difference in the inputs. */
#include "validate_plan.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "trainbudget/inputs.h"
#include "trainbudget/plan.h"

#include "validate_perf.h"
#include "validate_runs.h"

/* ---- the layout search against the published layouts ------------------- */

static void S_plan_layout(const tb_plan_layout *l, char *dst, size_t cap)
{
	char v[24] = "", cp[24] = "", z[24] = "";
	if (l->virtual_pipeline > 1)
		snprintf(v, sizeof v, "x%lld", (long long)l->virtual_pipeline);
	if (l->context > 1)
		snprintf(cp, sizeof cp, " CP%lld", (long long)l->context);
	if (l->zero)
		snprintf(z, sizeof z, " ZeRO-%d", l->zero);
	snprintf(dst, cap, "TP%lld%s PP%lld%s%s DP%lld, mb %lld%s, %s recompute",
	         (long long)l->tensor, l->sequence_parallel ? "+SP" : "", (long long)l->pipeline, v,
	         cp, (long long)l->data, (long long)l->micro_batch, z, tb_checkpointing_name(l->checkpointing));
}

/* What each group's framework offered in its year: the search is held to
 * it, so that a gap measures the layout chosen, not the techniques that
 * came later.  A second search with today's techniques says what they add. */
typedef struct S_era {
	const char *group, *label;
	unsigned zero, ckpt;            /* bit sets; 0 = all */
	bool no_sp, no_cp;
	int64_t max_t, max_p, max_v;
} S_era;

#define S_CK(m) (1u << (m))
static const S_era S_eras[] = {
	{ "Narayanan 2021 Table 1", "Megatron-LM 2021: TP, PP with interleaving, DP; full or no recomputation",
	  1u, S_CK(TB_CKPT_NONE) | S_CK(TB_CKPT_FULL), true, true, 0, 0, 0 },
	{ "Narayanan 2021 Table 2, PTD-P", "Megatron-LM 2021 (as above)",
	  1u, S_CK(TB_CKPT_NONE) | S_CK(TB_CKPT_FULL), true, true, 0, 0, 0 },
	{ "Korthikanti 2022 Table 5", "Megatron-LM 2022: adds sequence parallelism, selective recomputation, the distributed optimizer (ZeRO-1)",
	  3u, 0, false, true, 0, 0, 0 },
	{ "Narayanan 2021 Table 2, ZeRO-3", "DeepSpeed ZeRO-3 without model parallelism (the paper's comparison); full or no recomputation",
	  8u, S_CK(TB_CKPT_NONE) | S_CK(TB_CKPT_FULL), true, true, 1, 1, 1 },
	{ "MosaicML llm-foundry FSDP", "llm-foundry 2023: FSDP only (NO_SHARD, SHARD_GRAD_OP, FULL_SHARD); full or no recomputation",
	  1u | 4u | 8u, S_CK(TB_CKPT_NONE) | S_CK(TB_CKPT_FULL), true, true, 1, 1, 1 },
	{ "BLOOM-176B batch ramp", "Megatron-DeepSpeed 2022: TP, PP without interleaving, ZeRO-1; full or no recomputation",
	  3u, S_CK(TB_CKPT_NONE) | S_CK(TB_CKPT_FULL), true, true, 0, 0, 1 },
};

static const S_era *S_era_of(const char *group)
{
	for (size_t i = 0; i < sizeof S_eras / sizeof S_eras[0]; i++)
		if (strcmp(S_eras[i].group, group) == 0)
			return &S_eras[i];
	return NULL;
}

static void S_era_space(const S_era *e, tb_plan_space *sp)
{
	if (!e)
		return;
	sp->zero_stages = e->zero;
	sp->checkpointing_modes = e->ckpt;
	sp->no_sequence_parallel = e->no_sp;
	sp->no_context_parallel = e->no_cp;
	sp->max_tensor = e->max_t;
	sp->max_pipeline = e->max_p;
	sp->max_virtual = e->max_v;
}

/* Why the search's claims are (or are not) to be believed, group by group:
 * written from the sentences below and the published figures. */
static const struct { const char *group, *why; } S_plan_why[] = {
	{ "Narayanan 2021 Table 1",
	  "Most of the claim is recomputation: every run of the table recomputed every layer "
	  "(Eq. 3 counts it), and the memory model finds that without it the activations of "
	  "micro-batch 1-3 still fit, the best layouts filling most of the card (column \"Its memory\"). The size of the "
	  "saving is the one the same team measured a year later (Korthikanti et al. 2022 Table 5: "
	  "18.13 s with full recomputation, 13.75 s without most of it, for 175B); whether the "
	  "memory would have fit at that fill is the memory model's to answer, with 2 GiB counted "
	  "for the CUDA context, NCCL and the allocator. The rest is tensor parallelism: the table "
	  "set TP = min(8, model-parallel size) by rule, where the search prefers 2-4 and "
	  "interleaving for the 7.5B-39B models." },
	{ "Narayanan 2021 Table 2, PTD-P",
	  "As for Table 1: no recomputation where the activations fit (the 175B layouts fill "
	  "most of the card) is the whole claim for 175B; the 530B rows come within about 10%." },
	{ "Korthikanti 2022 Table 5",
	  "The full-recomputation rows are the paper's own baseline, run without its sequence "
	  "parallelism and selective recomputation on purpose: the gap is the paper's point. The "
	  "tuned rows (seqsel) come within 5-12%, the rest being interleaving the search would "
	  "deepen (5 instead of 3 virtual stages, p = 7 instead of 35)." },
	{ "MosaicML llm-foundry FSDP",
	  "The claim is FSDP's other sharding: SHARD_GRAD_OP (ZeRO-2), whose gradient "
	  "reduce-scatter hides behind the backward, instead of FULL_SHARD (ZeRO-3), whose "
	  "gathers sit on every layer's critical path and which the model charges in full "
	  "(zero3_overlap_cost, fitted on these rows). Where the weights fit unsharded (7B and "
	  "13B on 80 GB) that is the step's whole communication; the published runs did not "
	  "measure SHARD_GRAD_OP, so the saving is the model's, and the ZeRO-2 overlap it assumes "
	  "is the one no published row measures. The 30B and 70B rows come within 10%: there "
	  "FULL_SHARD is what fits." },
	{ "BLOOM-176B batch ramp",
	  "At global batch 16 and 192 the run kept the layout of its full batch (2,048) through "
	  "the ramp, where a pipeline twice as deep with half the micro-batches per stage would "
	  "bubble less; at the full batch the claim is recomputation again. The model also misses "
	  "a fixed cost of about 12 s per step in these runs (the table above), so the ramp's "
	  "predicted steps are too short to rank precisely." },
};

/* Each run's GPU count, card and global batch searched over every layout
 * with the run's own node and framework settings (the perf input above),
 * twice: within what its framework offered then, and with everything the
 * search knows; the published layout's predicted step against the best. */
void tb_vplan_write(FILE *f)
{
	fprintf(f, "## The layout search against the published layouts\n\n"
	           "Written by `make validate` (tests/validate_plan.c): for each run above, "
	           "`tb_plan_search` (src/plan.c, docs/plan.md) over every layout of the run's GPU "
	           "count and global batch on its card, with the run's node and framework settings "
	           "(the perf inputs of the table above), ranked by predicted step time. First within "
	           "what the run's framework offered at the time (**then**: the groups below), so that "
	           "the gap measures the layout the experts chose, not techniques published after it; "
	           "then with everything the search knows (**today**: sequence parallelism, selective "
	           "recomputation, ZeRO stages, context parallelism, up to 8 virtual stages). **Gap** "
	           "= predicted step of the published layout / the best predicted step - 1. Experts "
	           "tuned these layouts, so a sound search should find them within about 10%% of its "
	           "best; where it claims more, the sentence after the table says which terms of the "
	           "step it expects to save.\n\n");
	fprintf(f, "| Group | What the framework offered then |\n|---|---|\n");
	for (size_t i = 0; i < sizeof S_eras / sizeof S_eras[0]; i++)
		fprintf(f, "| %s | %s |\n", S_eras[i].group, S_eras[i].label);
	fprintf(f, "\n| # | Run | Published layout | Fits | Rank then | Published (predicted) | "
	           "Best then | Gap then | Best layout then | Its memory | Best today | Gap today |\n");
	fprintf(f, "|---:|---|---|---|---:|---:|---:|---:|---|---:|---:|---:|\n");
	static tb_plan_result r, now;
	double gaps[TB_VRUNS_ROWS_MAX], gaps_now[TB_VRUNS_ROWS_MAX];
	int ng = 0, within = 0, within_now = 0;
	static char why[TB_VRUNS_ROWS_MAX][1400];
	int whyrow[TB_VRUNS_ROWS_MAX], nwhy = 0;
	for (int i = 0; i < tb_vruns_ncases; i++) {
		const tb_vruns_case *c = &tb_vruns_cases[i];
		if (c->set == TB_VRUNS_NOT_SCORED)
			continue;
		tb_plan_space sp;
		memset(&sp, 0, sizeof sp);
		sp.top = 1;
		sp.perf_base = &c->in;
		tb_plan_search(&c->inputs, &sp, &now);
		S_era_space(S_era_of(c->group), &sp);
		tb_plan_search(&c->inputs, &sp, &r);
		char pub[96], best[96];
		S_plan_layout(&r.scenario, pub, sizeof pub);
		if (!r.known || r.n_layouts == 0 || !r.scenario_known || now.n_layouts == 0) {
			fprintf(f, "| %d | %s | %s | — | — | — | — | — | no feasible layout | — | — |\n",
			        i + 1, c->id, pub);
			continue;
		}
		const tb_plan_layout *b = &r.layouts[0], *p = &r.scenario, *t = &now.layouts[0];
		S_plan_layout(b, best, sizeof best);
		double gap = p->step_s / b->step_s - 1, gap_now = p->step_s / t->step_s - 1;
		gaps[ng] = gap;
		gaps_now[ng++] = gap_now;
		within += gap <= 0.10;
		within_now += gap_now <= 0.10;
		char fits[48], rank[32];
		if (r.scenario_fits)
			snprintf(fits, sizeof fits, "yes");
		else
			snprintf(fits, sizeof fits, "no (%.0f GB)", p->memory_per_gpu_bytes / 1e9);
		if (r.scenario_rank)
			snprintf(rank, sizeof rank, "%llu of %llu", (unsigned long long)r.scenario_rank,
			         (unsigned long long)r.feasible);
		else
			snprintf(rank, sizeof rank, "—");
		fprintf(f, "| %d | %s | %s | %s | %s | %.3g s | %.3g s | %s%+.1f%%%s | %s | %.0f%% | %.3g s | %+.1f%% |\n",
		        i + 1, c->id, pub, fits, rank, p->step_s, b->step_s,
		        gap > 0.10 ? "**" : "", 100 * gap, gap > 0.10 ? "**" : "", best,
		        100 * b->memory_per_gpu_bytes / b->capacity_bytes, t->step_s, 100 * gap_now);
		if (gap > 0.10 && nwhy < TB_VRUNS_ROWS_MAX) {
			tb_plan_explain(&r, b, "the best layout then", p, "the published one", why[nwhy],
			                sizeof why[nwhy]);
			whyrow[nwhy++] = i;
		}
	}
	double med = NAN, med_now = NAN;
	if (ng) {
		double v[TB_VRUNS_ROWS_MAX];
		memcpy(v, gaps, (size_t)ng * sizeof *v);
		med = tb_vperf_median(v, ng);
		memcpy(v, gaps_now, (size_t)ng * sizeof *v);
		med_now = tb_vperf_median(v, ng);
	}
	fprintf(f, "\nPublished layouts within 10%% of the search's best with their framework's "
	           "techniques: **%d of %d** (median gap %.1f%%; aim: within about 10%%). With "
	           "today's: %d of %d (median gap %.1f%%).\n\n", within, ng, 100 * med, within_now,
	        ng, 100 * med_now);
	if (nwhy) {
		fprintf(f, "### Where the search claims a much faster layout\n\n");
		for (size_t g = 0; g < sizeof S_plan_why / sizeof S_plan_why[0]; g++) {
			bool any = false;
			for (int k = 0; k < nwhy; k++)
				any = any || strcmp(tb_vruns_cases[whyrow[k]].group, S_plan_why[g].group) == 0;
			if (any)
				fprintf(f, "**%s.** %s\n\n", S_plan_why[g].group, S_plan_why[g].why);
		}
		fprintf(f, "Run by run, from the two breakdowns (src/plan_explain.c):\n\n");
		for (int k = 0; k < nwhy; k++) {
			const char *w = why[k];
			fprintf(f, "- **%s**: %c%s\n", tb_vruns_cases[whyrow[k]].id,
			        w[0] >= 'a' && w[0] <= 'z' ? w[0] - 'a' + 'A' : w[0], w + 1);
		}
		fprintf(f, "\n");
	}
}
