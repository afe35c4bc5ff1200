/* answer.c: the layout every document prices (answer.h).
 *
 * One search with the written keys held, then, only when that finds
 * nothing, one with just the written sizes held (the memory savers free),
 * then one with nothing held.  The first that finds a layout is the
 * answer: the fastest that fits, ties broken toward the simpler layout by
 * tb_plan_compare.  Nothing found on these GPUs: the search is repeated on
 * 2 to 64 times as many, to say what would run. */
#include "trainbudget/answer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/budget.h"
#include "deriv.h"
#include "trainbudget/fmt.h"
#include "trainbudget/xalloc.h"

#define S_SIZES (TB_LAYOUT_TENSOR | TB_LAYOUT_PIPELINE | TB_LAYOUT_VIRTUAL | TB_LAYOUT_CONTEXT | \
                 TB_LAYOUT_EXPERT | TB_LAYOUT_SEQUENCE_PARALLEL)

static const struct { unsigned bit; const char *name; } S_keys[TB_LAYOUT_KEYS] = {
	{ TB_LAYOUT_TENSOR, "tensor" }, { TB_LAYOUT_PIPELINE, "pipeline" },
	{ TB_LAYOUT_VIRTUAL, "virtual_pipeline" }, { TB_LAYOUT_CONTEXT, "context" },
	{ TB_LAYOUT_EXPERT, "expert" }, { TB_LAYOUT_ZERO, "zero" },
	{ TB_LAYOUT_SEQUENCE_PARALLEL, "sequence_parallel" },
	{ TB_LAYOUT_MICRO_BATCH, "micro_batch" }, { TB_LAYOUT_CHECKPOINTING, "checkpointing" },
};

const char *tb_layout_key_name(unsigned bit)
{
	for (int i = 0; i < TB_LAYOUT_KEYS; i++)
		if (S_keys[i].bit == bit)
			return S_keys[i].name;
	return NULL;
}

const char *tb_layout_source_name(tb_layout_source s)
{
	switch (s) {
	case TB_LAYOUT_WRITTEN: return "written";
	case TB_LAYOUT_COMPLETED: return "completed";
	case TB_LAYOUT_CHOSEN: return "chosen";
	case TB_LAYOUT_REPLACED: return "replaced";
	}
	return "written";
}

/* The search held at the written values of the keys in `fix`. */
static void S_space(const tb_inputs *in, unsigned fix, tb_plan_space *sp)
{
	const tb_parallelism *pa = &in->parallelism;
	memset(sp, 0, sizeof *sp);
	sp->top = 1;
	sp->fix = fix;
	sp->fix_tensor = pa->tensor;
	sp->fix_pipeline = pa->pipeline;
	sp->fix_virtual = pa->virtual_pipeline > 0 ? pa->virtual_pipeline : 1;
	sp->fix_context = pa->context > 0 ? pa->context : 1;
	sp->fix_expert = pa->expert > 0 ? pa->expert : 1;
	sp->fix_zero = pa->zero;
	sp->fix_sequence_parallel = pa->sequence_parallel;
	sp->fix_micro_batch = in->training.micro_batch;
	sp->fix_checkpointing = in->training.checkpointing;
	/* selective under flash attention is the same run as none (the
	 * search's rule, and the warning says so): held as none */
	if (sp->fix_checkpointing == TB_CKPT_SELECTIVE && tb_selective_is_none(&in->training))
		sp->fix_checkpointing = TB_CKPT_NONE;
}

/* The keys on which two layouts differ. */
static unsigned S_differ(const tb_plan_layout *a, const tb_plan_layout *b)
{
	unsigned d = 0;
	d |= a->tensor != b->tensor ? TB_LAYOUT_TENSOR : 0;
	d |= a->pipeline != b->pipeline ? TB_LAYOUT_PIPELINE : 0;
	d |= a->virtual_pipeline != b->virtual_pipeline ? TB_LAYOUT_VIRTUAL : 0;
	d |= a->context != b->context ? TB_LAYOUT_CONTEXT : 0;
	d |= a->expert != b->expert ? TB_LAYOUT_EXPERT : 0;
	d |= a->zero != b->zero ? TB_LAYOUT_ZERO : 0;
	d |= a->sequence_parallel != b->sequence_parallel ? TB_LAYOUT_SEQUENCE_PARALLEL : 0;
	d |= a->micro_batch != b->micro_batch ? TB_LAYOUT_MICRO_BATCH : 0;
	d |= a->checkpointing != b->checkpointing ? TB_LAYOUT_CHECKPOINTING : 0;
	return d;
}

static void S_apply(const tb_plan_layout *l, tb_inputs *out)
{
	tb_parallelism *pa = &out->parallelism;
	pa->tensor = l->tensor;
	pa->pipeline = l->pipeline;
	pa->virtual_pipeline = l->virtual_pipeline;
	pa->context = l->context;
	pa->expert = l->expert;
	pa->data = l->data;
	pa->zero = l->zero;
	pa->sequence_parallel = l->sequence_parallel;
	out->training.micro_batch = l->micro_batch;
	out->training.checkpointing = l->checkpointing;
}

/* Why the written layout does not run, in a clause. */
static void S_why_written(const tb_plan_result *r, char *dst, size_t cap)
{
	if (r->scenario_known && !r->scenario_fits) {
		tb_buf need, have;
		tb_buf_init(&need);
		tb_buf_init(&have);
		tb_fmt_bytes(&need, r->scenario.memory_per_gpu_bytes);
		tb_fmt_bytes(&have, r->scenario.capacity_bytes);
		snprintf(dst, cap, "%s of %s per GPU", need.ptr, have.ptr);
		tb_buf_release(&need);
		tb_buf_release(&have);
	} else if (!r->scenario_known) {
		snprintf(dst, cap, "the step-time model cannot time it%s%s", r->scenario_why ? ": " : "",
		         r->scenario_why ? r->scenario_why : "");
	} else {
		dst[0] = '\0';
	}
}

/* Nothing runs here: the smallest multiple of the count (up to 64) on
 * which something would, with the same card and batch. */
static void S_would_run(const tb_inputs *in, char *dst, size_t cap)
{
	tb_plan_space sp;
	S_space(in, 0, &sp);
	for (int k = 1; k <= 6; k++)
		sp.counts[sp.n_counts++] = in->hardware.count << k;
	static const char *const none =
		"no layout of the model fits on these GPUs, nor on up to 64 times as many with "
		"this global batch: more memory per GPU (another card), or a smaller model";
	tb_plan_result r;
	tb_plan_search(in, &sp, &r);
	int64_t best = 0;
	for (int i = 0; i < r.n_front; i++)
		if (!best || r.front[i].count < best)
			best = r.front[i].count;
	for (int i = 0; i < r.n_layouts; i++)
		if (!best || r.layouts[i].count < best)
			best = r.layouts[i].count;
	if (!best) {
		snprintf(dst, cap, "%s", none);
		return;
	}
	tb_buf n;
	tb_buf_init(&n);
	tb_fmt_grouped(&n, (double)best);
	snprintf(dst, cap, "no layout of the model fits on these GPUs; it would run on %s of them "
	         "(trainbudget plan --count)", n.ptr);
	tb_buf_release(&n);
}

/* One memory saver changed, every other key as written (the defaults for
 * those left out): the fastest that runs, and its step against the
 * written one's, as a clause into b. */
static void S_hint(const tb_inputs *in, unsigned key, double written_step, tb_buf *b)
{
	tb_plan_space sp;
	S_space(in, TB_LAYOUT_ALL & ~key, &sp);
	tb_plan_result r;
	tb_plan_search(in, &sp, &r);
	if (r.n_layouts == 0)
		return;
	const tb_plan_layout *l = &r.layouts[0];
	if (b->len)
		tb_buf_puts(b, "; ");
	if (key == TB_LAYOUT_ZERO)
		tb_buf_printf(b, "ZeRO-%d fits", l->zero);
	else if (key == TB_LAYOUT_CHECKPOINTING)
		tb_buf_printf(b, "%s fits", tb_plan_checkpointing_words(l->checkpointing));
	else
		tb_buf_printf(b, "micro-batch %lld fits", (long long)l->micro_batch);
	double d = written_step > 0 && l->step_s > 0 ? l->step_s / written_step - 1 : 0;
	if (written_step > 0 && fabs(d) < 0.005)
		tb_buf_puts(b, ", the same step");
	else if (written_step > 0)
		tb_buf_printf(b, ", %+.0f%% step", 100 * d);
}

/* keep (may be NULL): with nothing written, the search is the one
 * tb_budget_compute_plan makes by default (every key free, the top 10),
 * and its result is left there with *kept set, so that it is not made
 * twice; the answer is its first layout either way. */
static void S_decide(const tb_inputs *in, tb_answer *a, tb_inputs *priced,
                     tb_plan_result *keep, bool *kept)
{
	memset(a, 0, sizeof *a);
	*priced = *in;
	if (kept)
		*kept = false;
	if (!in->model.has_shape)
		return;
	a->decided = true;
	memcpy(a->pipeline_layout, in->parallelism.layout.text, sizeof a->pipeline_layout);
	unsigned w = in->parallelism.written & TB_LAYOUT_ALL;
	/* the keys with a choice: a dense model's expert size is 1 whatever
	 * is written, so it is neither chosen nor missing */
	unsigned keys = in->model.experts > 1 ? TB_LAYOUT_ALL : TB_LAYOUT_ALL & ~TB_LAYOUT_EXPERT;
	a->wrote = (w & keys) != 0;
	tb_plan_space sp;
	tb_plan_result local;
	tb_plan_result *r = keep && w == 0 ? keep : &local;
	S_space(in, w, &sp);
	if (r == keep)
		sp.top = 0;             /* the default search's ten */
	tb_plan_search(in, &sp, r);
	if (r == keep)
		*kept = r->known;
	if (!r->known) {          /* a space past the search's bound */
		a->decided = false;
		return;
	}
	a->written = r->scenario;
	a->written_runs = r->scenario_known && r->scenario_fits;
	S_why_written(r, a->written_why_not, sizeof a->written_why_not);
	/* the loader leaves the batch to the answer when the keys that split
	 * it are not all written: the written defaults may not split it */
	int64_t unit = a->written.data * a->written.micro_batch *
	               (a->written.virtual_pipeline > 1 ? a->written.pipeline : 1);
	if (unit <= 0 || in->training.global_batch % unit != 0) {
		a->written_runs = false;
		snprintf(a->written_why_not, sizeof a->written_why_not,
		         "the global batch of %lld does not split into whole micro-batches over %lld "
		         "replicas of micro-batch %lld", (long long)in->training.global_batch,
		         (long long)a->written.data, (long long)a->written.micro_batch);
	}

	if ((w & keys) == keys && a->written_runs) {
		a->source = TB_LAYOUT_WRITTEN;
		a->runs = true;
		a->layout = a->written;
		return;
	}
	if (r->n_layouts > 0) {
		a->source = w & keys ? TB_LAYOUT_COMPLETED : TB_LAYOUT_CHOSEN;
		a->chosen = ~w & keys;
	} else if (a->written_runs) {
		/* the search's rules exclude what was written, which runs: priced
		 * as written, the keys left out at the loader's defaults */
		a->source = TB_LAYOUT_WRITTEN;
		a->runs = true;
		a->layout = a->written;
		return;
	} else {
		/* the cheapest single changes that make what was written run */
		if (r->scenario_known) {
			tb_buf h;
			tb_buf_init(&h);
			static const unsigned savers[] = {
				TB_LAYOUT_ZERO, TB_LAYOUT_CHECKPOINTING, TB_LAYOUT_MICRO_BATCH,
			};
			for (size_t i = 0; i < sizeof savers / sizeof savers[0]; i++)
				S_hint(in, savers[i], r->scenario.step_s, &h);
			snprintf(a->hints, sizeof a->hints, "%s", h.len ? h.ptr : "");
			tb_buf_release(&h);
		}
		/* cannot run as written: free the memory savers, then everything */
		if (kept)
			*kept = false;
		S_space(in, w & S_SIZES, &sp);
		tb_plan_search(in, &sp, r);
		if (r->n_layouts == 0) {
			S_space(in, 0, &sp);
			tb_plan_search(in, &sp, r);
		}
		if (r->n_layouts == 0) {
			a->source = TB_LAYOUT_REPLACED;
			S_would_run(in, a->why_not, sizeof a->why_not);
			return;
		}
		a->source = TB_LAYOUT_REPLACED;
		a->chosen = (~w & keys) | (S_differ(&r->layouts[0], &a->written) & w);
	}
	a->runs = true;
	a->layout = r->layouts[0];
	S_apply(&a->layout, priced);
}

void tb_answer_decide(const tb_inputs *in, tb_answer *a, tb_inputs *priced)
{
	S_decide(in, a, priced, NULL, NULL);
}

size_t tb_answer_chosen_keys(const tb_answer *a, char *dst, size_t cap)
{
	if (!dst || cap == 0)
		return 0;
	size_t len = 0;
	dst[0] = '\0';
	for (int i = 0; i < TB_LAYOUT_KEYS && len < cap; i++)
		if (a->chosen & S_keys[i].bit)
			len += (size_t)snprintf(dst + len, cap - len, "%s%s", len ? ", " : "", S_keys[i].name);
	return len < cap ? len : cap - 1;
}

size_t tb_answer_text(const tb_answer *a, char *dst, size_t cap)
{
	if (!cap)
		return 0;
	dst[0] = '\0';
	if (!a->decided)
		return 0;
	char lay[200 + TB_PIPE_TEXT_MAX];
	size_t n_lay = tb_plan_layout_text(&a->layout, lay, 200);
	if (a->pipeline_layout[0] && n_lay < 200)
		snprintf(lay + n_lay, sizeof lay - n_lay, ", pipeline layout %s", a->pipeline_layout);
	bool wrote = a->wrote;
	tb_buf b;
	tb_buf_init(&b);
	if (!a->runs) {
		if (a->written_why_not[0])
			tb_buf_printf(&b, "cannot run%s (%s); %s.", wrote ? " as written" : "",
			              a->written_why_not, a->why_not);
		else
			tb_buf_printf(&b, "cannot run: %s.", a->why_not);
	} else {
		switch (a->source) {
		case TB_LAYOUT_WRITTEN:
			tb_buf_printf(&b, "%s, as written.", lay);
			break;
		case TB_LAYOUT_CHOSEN:
			tb_buf_printf(&b, "%s, chosen by the layout search as the fastest that fits (the "
			              "scenario writes no layout).", lay);
			break;
		case TB_LAYOUT_COMPLETED:
		case TB_LAYOUT_REPLACED:
			if (a->source == TB_LAYOUT_REPLACED && a->hints[0])
				tb_buf_printf(&b, "cannot run as written (%s; %s); priced on the fastest "
				              "layout that runs, %s, which changes or chooses ",
				              a->written_why_not, a->hints, lay);
			else if (a->source == TB_LAYOUT_REPLACED)
				tb_buf_printf(&b, "cannot run as written (%s); priced on the fastest layout "
				              "that runs, %s, which changes or chooses ", a->written_why_not, lay);
			else
				tb_buf_printf(&b, "%s; the layout search chose ", lay);
			char keys[160];
			tb_answer_chosen_keys(a, keys, sizeof keys);
			tb_buf_puts(&b, keys);
			tb_buf_puts(&b, a->source == TB_LAYOUT_REPLACED ? "."
			            : " as the fastest that fits, the rest as written.");
			break;
		}
	}
	size_t n = b.len < cap - 1 ? b.len : cap - 1;
	memcpy(dst, b.ptr, n);
	dst[n] = '\0';
	tb_buf_release(&b);
	return n;
}

void tb_budget_price_answer(const tb_inputs *in, tb_inputs *priced, tb_budget *b)
{
	tb_answer a;
	tb_inputs p;
	/* in and priced may be one struct: what was written is read first */
	bool sel_flash = in->model.has_shape && in->training.checkpointing == TB_CKPT_SELECTIVE &&
	                 tb_selective_is_none(&in->training);
	tb_plan_result *keep = tb_xmalloc(sizeof *keep);
	bool kept;
	S_decide(in, &a, &p, keep, &kept);
	/* a measured step was taken on the layout as written: it prices only
	 * that layout */
	bool moved = a.decided && p.measured.has_step_time && !tb_plan_same_layout(&a.layout, &a.written);
	if (moved)
		p.measured.has_step_time = false;
	*priced = p;
	tb_budget_compute(priced, b);
	if (kept) {
		b->plan = *keep;
		b->plan_from_answer = true;
	}
	free(keep);
	if (moved)
		tb_budget_warn(b, "measured.step_time was taken on the layout as written, which the "
		               "answer does not price: the figures use the prediction for the layout priced");
	/* said of what was written, whatever the answer priced (memory.c says
	 * it when the priced layout keeps it) */
	if (sel_flash && priced->training.checkpointing != TB_CKPT_SELECTIVE)
		tb_budget_warn(b, "%s", tb_selective_none_warning(priced));
	if (a.decided && !a.runs) {
		/* nothing runs: no time, cost, MFU or verdict is priced on a
		 * layout that cannot run */
		b->time.known = false;
		b->losses.known = false;
		tb_budget_warn(b, "No time or cost: %s", a.why_not);
	}
	/* the step the priced time implies: the seconds over the run's steps */
	double tokens = (double)priced->training.global_batch * (double)priced->training.seq_len;
	double steps = tokens > 0 ? priced->training.tokens / tokens : 0;
	a.step_s = b->time.known && steps > 0 ? b->time.seconds[1] / steps : 0;
	b->answer = a;
}

void tb_budget_compute_answer(const tb_inputs *in, tb_inputs *priced, tb_budget *b)
{
	tb_budget_price_answer(in, priced, b);
	tb_budget_compute_risk(priced, b);
}
