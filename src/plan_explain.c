/* plan_explain.c: why one layout beats another, in sentences, from the
 * two step-time breakdowns (plan.h, tb_plan_explain).
 *
 * Each difference of layout becomes a clause naming the terms of the step
 * it moves, with their shares before and after ("pipeline 8 instead of 16
 * halves the bubble, from 9% to 4.5% of the step"); a term that moved by
 * two points or more and that no clause named is listed after them, and a
 * term that did not move is never named.  Pure: writes into the caller's
 * buffer. */
#include "trainbudget/plan.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct S_out {
	char *dst;
	size_t cap, len;
	bool said[TB_PERF_TERMS];
	int clauses;
} S_out;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void S_put(S_out *o, const char *fmt, ...)
{
	if (!o->cap)
		return;
	size_t room = o->len < o->cap ? o->cap - o->len : 0;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(o->dst + (o->len < o->cap ? o->len : o->cap - 1), room ? room : 1, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
	if (o->len >= o->cap)
		o->len = o->cap - 1;
}

static const char *const S_term_words[TB_PERF_TERMS] = {
	"the compute", "the recomputation", "the tensor-parallel communication",
	"the context-parallel exchange", "the expert all-to-all", "the pipeline sends",
	"the bubble", "the data-parallel communication", "the optimizer step",
	"the fixed overheads",
};

static double S_share(const tb_plan_layout *l, int term)
{
	return l->step_s > 0 ? l->breakdown_s[term] / l->step_s : 0;
}

/* "9%", "4.5%", "0.3%" */
static void S_pct(char *b, size_t cap, double frac)
{
	double p = 100 * frac;
	if (p >= 9.95 || p == 0)
		snprintf(b, cap, "%.0f%%", p);
	else
		snprintf(b, cap, "%.1f%%", p);
}

/* How a share went from `was` (the other layout) to `now` (this one). */
static const char *S_verb(double now, double was)
{
	if (was <= 0 && now <= 0)
		return "keeps";
	if (was <= 0)
		return "adds";
	if (now <= 0)
		return "removes";
	double r = now / was;
	if (r >= 0.45 && r <= 0.55)
		return "halves";
	if (r >= 1.8 && r <= 2.2)
		return "doubles";
	if (r < 1)
		return "shrinks";
	return "grows";
}

static void S_sep(S_out *o)
{
	S_put(o, o->clauses++ ? "; " : "");
}

/* "1.2 s", "35 ms" */
static void S_secs(char *b, size_t cap, double s)
{
	if (s >= 0.995 || s == 0)
		snprintf(b, cap, "%.3g s", s);
	else
		snprintf(b, cap, "%.3g ms", 1e3 * s);
}

/* One term's move, by its seconds per step, with its share of each step:
 * "halves the bubble, from 1.2 s to 0.6 s per step (9% to 4.5% of it)". */
static void S_term(S_out *o, const tb_plan_layout *a, const tb_plan_layout *b, int term,
                   bool first)
{
	double now = a->breakdown_s[term], was = b->breakdown_s[term];
	char x[16], y[16], sx[24], sy[24];
	S_pct(x, sizeof x, S_share(b, term));
	S_pct(y, sizeof y, S_share(a, term));
	S_secs(sx, sizeof sx, was);
	S_secs(sy, sizeof sy, now);
	const char *verb = S_verb(now, was);
	o->said[term] = true;
	if (!first)
		S_put(o, " and ");
	if (strcmp(verb, "removes") == 0)
		S_put(o, "removes %s (%s per step, %s of it)", S_term_words[term], sx, x);
	else if (strcmp(verb, "adds") == 0)
		S_put(o, "adds %s (%s per step, %s of it)", S_term_words[term], sy, y);
	else
		S_put(o, "%s %s, from %s to %s per step (%s to %s of it)", verb, S_term_words[term],
		      sx, sy, x, y);
}

/* Whether a term's seconds differ by at least `frac` of the longer step. */
static bool S_moved(const tb_plan_layout *a, const tb_plan_layout *b, int term, double frac)
{
	double step = a->step_s > b->step_s ? a->step_s : b->step_s;
	return fabs(a->breakdown_s[term] - b->breakdown_s[term]) >= frac * step;
}

/* The terms a difference moves, those that moved at all (half a percent of the step). */
static void S_terms(S_out *o, const tb_plan_layout *a, const tb_plan_layout *b,
                    const int *terms, int n)
{
	bool first = true;
	for (int i = 0; i < n; i++) {
		int t = terms[i];
		if (o->said[t] || !S_moved(a, b, t, 0.005))
			continue;
		if (first)
			S_put(o, " ");
		S_term(o, a, b, t, first);
		first = false;
	}
	if (first)
		S_put(o, " changes little in the step");
}

static void S_gb(char *buf, size_t cap, double bytes)
{
	double gb = fabs(bytes) / 1e9;
	snprintf(buf, cap, gb >= 9.95 ? "%.0f GB" : "%.1f GB", gb);
}

const char *tb_plan_checkpointing_words(tb_checkpointing c)
{
	return c == TB_CKPT_FULL ? "full recomputation" : c == TB_CKPT_SELECTIVE
	       ? "selective recomputation" : "no recomputation";
}

#define S_ckpt_name tb_plan_checkpointing_words

size_t tb_plan_layout_text(const tb_plan_layout *l, char *dst, size_t cap)
{
	S_out o = { dst, cap, 0, { false }, 0 };
	if (cap)
		dst[0] = '\0';
	S_put(&o, "TP %lld", (long long)l->tensor);
	if (l->sequence_parallel)
		S_put(&o, " with SP");
	if (l->pipeline > 1) {
		S_put(&o, ", PP %lld", (long long)l->pipeline);
		if (l->virtual_pipeline > 1)
			S_put(&o, " (%lld virtual)", (long long)l->virtual_pipeline);
	}
	if (l->context > 1)
		S_put(&o, ", CP %lld", (long long)l->context);
	if (l->expert > 1)
		S_put(&o, ", EP %lld", (long long)l->expert);
	S_put(&o, ", DP %lld", (long long)l->data);
	if (l->zero)
		S_put(&o, ", ZeRO-%d", l->zero);
	S_put(&o, ", micro-batch %lld, %s", (long long)l->micro_batch,
	      tb_plan_checkpointing_words(l->checkpointing));
	if (l->checkpointing == TB_CKPT_FULL && l->recompute_layers > 0)
		S_put(&o, " of %lld layers a chunk", (long long)l->recompute_layers);
	else if (l->checkpointing == TB_CKPT_SELECTIVE && l->selective_policy == TB_SELECTIVE_OP)
		S_put(&o, " (the op policy)");
	else if (l->checkpointing == TB_CKPT_SELECTIVE && l->selective_policy == TB_SELECTIVE_DEEPSEEK)
		S_put(&o, " (DeepSeek-V3's recipe)");
	else if (l->checkpointing == TB_CKPT_SELECTIVE && l->selective_policy == TB_SELECTIVE_MOE)
		S_put(&o, " (the norms and expert layers)");
	return o.len;
}

bool tb_plan_same_cost(const tb_plan_layout *a, const tb_plan_layout *b)
{
	return a->gpu == b->gpu && a->count == b->count && a->global_batch == b->global_batch &&
	       a->step_s == b->step_s && a->memory_per_gpu_bytes == b->memory_per_gpu_bytes;
}

int tb_plan_same_cost_run(const tb_plan_result *r, int i, int n, char *lab, size_t cap)
{
	int k = i + 1;
	while (k < n && tb_plan_same_cost(&r->layouts[i], &r->layouts[k]))
		k++;
	if (k - i > 1)
		snprintf(lab, cap, "%d-%d", i + 1, k);
	else
		snprintf(lab, cap, "%d", i + 1);
	return k;
}

size_t tb_plan_explain(const tb_plan_result *r, const tb_plan_layout *a, const char *a_name,
                       const tb_plan_layout *b, const char *b_name, char *dst, size_t cap)
{
	S_out o = { dst, cap, 0, { false }, 0 };
	if (cap)
		dst[0] = '\0';
	if (!(a->step_s > 0) || !(b->step_s > 0))
		return 0;
	bool cost = r->objective == TB_PLAN_BY_COST;
	double va = cost ? a->cost : a->seconds, vb = cost ? b->cost : b->seconds;
	double gain = va > 0 ? 100 * (vb / va - 1) : 0;
	if (gain >= 0.05)
		S_put(&o, gain >= 9.95 ? "%s %s %.0f%% %s than %s" : "%s %s %.1f%% %s than %s",
		      a_name, cost ? "costs" : "is", gain, cost ? "less" : "faster", b_name);
	else if (gain <= -0.05) {   /* never "level" for the slower one (issue 19) */
		double slow = vb > 0 ? 100 * (va / vb - 1) : 0;
		S_put(&o, slow >= 9.95 ? "%s %s %.0f%% %s than %s" : "%s %s %.1f%% %s than %s",
		      a_name, cost ? "costs" : "is", slow, cost ? "more" : "slower", b_name);
	}
	else
		S_put(&o, "%s and %s are level", a_name, b_name);
	S_put(&o, " (%.3g s per step instead of %.3g s, MFU %.0f%% instead of %.0f%%): ",
	      a->step_s, b->step_s, 100 * a->mfu, 100 * b->mfu);

	if (a->gpu != b->gpu || a->count != b->count) {
		const char *ga = a->gpu >= 0 && a->gpu < r->n_gpus ? r->gpus[a->gpu].gpu.name
		                 : r->scenario_gpu.gpu.name;
		const char *gb = b->gpu >= 0 && b->gpu < r->n_gpus ? r->gpus[b->gpu].gpu.name
		                 : r->scenario_gpu.gpu.name;
		S_sep(&o);
		S_put(&o, "%lld x %s instead of %lld x %s", (long long)a->count, ga,
		      (long long)b->count, gb);
	}
	if (a->global_batch != b->global_batch) {
		S_sep(&o);
		S_put(&o, "a global batch of %lld sequences instead of %lld (%s)",
		      (long long)a->global_batch, (long long)b->global_batch,
		      a->global_batch > b->global_batch ? "fewer steps, each longer"
		                                        : "more steps, each shorter");
	}
	if (a->pipeline != b->pipeline || a->virtual_pipeline != b->virtual_pipeline ||
	    (a->microbatches != b->microbatches && (a->pipeline > 1 || b->pipeline > 1))) {
		static const int t[] = { TB_PERF_BUBBLE, TB_PERF_PP_COMM };
		S_sep(&o);
		if (a->pipeline != b->pipeline)
			S_put(&o, "pipeline %lld instead of %lld", (long long)a->pipeline,
			      (long long)b->pipeline);
		else if (a->virtual_pipeline != b->virtual_pipeline)
			S_put(&o, "%lld virtual stages instead of %lld",
			      (long long)a->virtual_pipeline, (long long)b->virtual_pipeline);
		else
			S_put(&o, "%lld micro-batches per step instead of %lld",
			      (long long)a->microbatches, (long long)b->microbatches);
		if (a->pipeline != b->pipeline && a->virtual_pipeline != b->virtual_pipeline)
			S_put(&o, " (%lld virtual stages instead of %lld)",
			      (long long)a->virtual_pipeline, (long long)b->virtual_pipeline);
		S_terms(&o, a, b, t, 2);
	}
	if (a->tensor != b->tensor) {
		static const int t[] = { TB_PERF_TP_COMM, TB_PERF_COMPUTE };
		S_sep(&o);
		S_put(&o, "tensor parallel %lld instead of %lld", (long long)a->tensor,
		      (long long)b->tensor);
		S_terms(&o, a, b, t, 2);
	}
	if (a->context != b->context) {
		static const int t[] = { TB_PERF_CP_COMM };
		S_sep(&o);
		S_put(&o, "context parallel %lld instead of %lld", (long long)a->context,
		      (long long)b->context);
		S_terms(&o, a, b, t, 1);
	}
	if (a->expert != b->expert) {
		static const int t[] = { TB_PERF_EP_COMM };
		S_sep(&o);
		S_put(&o, "expert parallel %lld instead of %lld", (long long)a->expert,
		      (long long)b->expert);
		S_terms(&o, a, b, t, 1);
	}
	if (a->checkpointing != b->checkpointing) {
		static const int t[] = { TB_PERF_RECOMPUTE };
		S_sep(&o);
		S_put(&o, "%s instead of %s", S_ckpt_name(a->checkpointing),
		      S_ckpt_name(b->checkpointing));
		S_terms(&o, a, b, t, 1);
	}
	if (a->micro_batch != b->micro_batch) {
		static const int t[] = { TB_PERF_COMPUTE };
		S_sep(&o);
		S_put(&o, "micro-batch %lld instead of %lld", (long long)a->micro_batch,
		      (long long)b->micro_batch);
		S_terms(&o, a, b, t, 1);
	}
	if (a->zero != b->zero || a->data != b->data) {
		static const int t[] = { TB_PERF_DP_COMM, TB_PERF_OPTIMIZER };
		S_sep(&o);
		if (a->zero != b->zero && a->zero && b->zero)
			S_put(&o, "ZeRO-%d instead of ZeRO-%d", a->zero, b->zero);
		else if (a->zero != b->zero)
			S_put(&o, a->zero ? "ZeRO-%d instead of no sharding" : "no sharding instead of ZeRO-%d",
			      a->zero ? a->zero : b->zero);
		else
			S_put(&o, "%lld data-parallel replicas instead of %lld", (long long)a->data,
			      (long long)b->data);
		S_terms(&o, a, b, t, 2);
	}
	if (a->sequence_parallel != b->sequence_parallel) {
		S_sep(&o);
		S_put(&o, "sequence parallelism %s", a->sequence_parallel ? "on" : "off");
	}
	/* memory: what the winner frees or takes */
	double dm = b->memory_per_gpu_bytes - a->memory_per_gpu_bytes;
	if (fabs(dm) >= 1e9) {
		char g[24];
		S_gb(g, sizeof g, dm);
		S_sep(&o);
		if (dm > 0)
			S_put(&o, "it needs %s less per GPU", g);
		else
			S_put(&o, "it needs %s more per GPU (and still fits)", g);
		if (dm > 0 && a->micro_batch > b->micro_batch)
			S_put(&o, ", enough for micro-batch %lld", (long long)a->micro_batch);
	}
	/* what moved that no difference named */
	bool first = true;
	for (int term = 0; term < TB_PERF_TERMS; term++) {
		if (o.said[term] || !S_moved(a, b, term, 0.02))
			continue;
		if (first) {
			S_sep(&o);
			S_put(&o, "also");
		}
		S_put(&o, first ? " " : ", ");
		S_term(&o, a, b, term, true);
		first = false;
	}
	if (!o.clauses)
		S_put(&o, "the same layout");
	S_put(&o, ".");
	return o.len;
}

size_t tb_plan_better_text(const tb_plan_result *r, char *dst, size_t cap)
{
	S_out o = { dst, cap, 0, { false }, 0 };
	if (cap)
		dst[0] = '\0';
	double gain;
	if (!cap || !tb_plan_better(r, &gain))
		return 0;
	char lay[256];
	tb_plan_layout_text(&r->layouts[0], lay, sizeof lay);
	if (!r->scenario_known || !r->scenario_fits) {
		S_put(&o, "that fits: %s (trainbudget plan)", lay);
	} else {
		char pct[16];
		S_pct(pct, sizeof pct, gain);
		S_put(&o, "%s %s: %s (trainbudget plan)", pct,
		      r->objective == TB_PLAN_BY_COST ? "cheaper" : "faster", lay);
	}
	return o.len;
}

size_t tb_plan_explain_scenario(const tb_plan_result *r, char *dst, size_t cap)
{
	if (cap)
		dst[0] = '\0';
	const tb_plan_layout *best = tb_plan_rival(r);
	if (!best || !r->scenario_known || tb_plan_same_layout(best, &r->scenario))
		return 0;
	bool elsewhere = r->n_layouts > 0 && best != &r->layouts[0] &&
	                 !tb_plan_same_layout(best, &r->layouts[0]);
	return tb_plan_explain(r, best, elsewhere ? "The best layout on the same GPUs" : "The best layout",
	                       &r->scenario, "the scenario's layout", dst, cap);
}

size_t tb_plan_explain_runner_up(const tb_plan_result *r, char *dst, size_t cap)
{
	if (cap)
		dst[0] = '\0';
	if (!r->known || r->n_layouts < 2)
		return 0;
	return tb_plan_explain(r, &r->layouts[0], "The best layout", &r->layouts[1],
	                       "the runner-up", dst, cap);
}

const char *tb_plan_caveat(const tb_plan_result *r)
{
	if (!r->known || r->n_layouts < 1 || r->layouts[0].zero != 3)
		return NULL;
	return "ZeRO-3's gathers and reduce-scatters are charged in full, as the published FSDP "
	       "runs paid them; DeepSpeed's ZeRO-3 of 2021 ran slower still on hundreds of GPUs, "
	       "by the step-time model's worst misses (docs/validation.md).";
}
