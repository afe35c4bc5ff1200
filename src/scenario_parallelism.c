/* scenario_parallelism.c: the parallelism section (tensor, pipeline,
 * virtual pipeline, context, expert, sequence parallelism, ZeRO stage),
 * and the checks of the layout against the GPU count, the batch and the
 * model's shape.  The data-parallel size is what the GPUs leave:
 * count / (tensor x pipeline x context). */
#include "scenario_sections.h"

#include "trainbudget/gpus.h"
#include "trainbudget/perf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const S_keys[] = {
	"tensor", "pipeline", "expert", "sequence_parallel", "zero", "virtual_pipeline", "context",
	"framework", "overlap_dp", "overlap_ep", "overlap_tp", "expert_tensor", "dispatcher", "shard_group",
	"bucket_size", "no_sync", "cuda_graph", "pipeline_layout", "cp_comm_type", "overlap_tp_qkv",
	"overlap_tp_dgrad", "overlap_tp_sms",
};

/* parallelism.overlap_tp_sms: Transformer Engine's ub_cfgs names, each
 * the SMs its GEMM gives up (against the card's count once the hardware
 * is read: tb_scenario_check_layout; unknown names are the subsection
 * check's, scenario.c) */
static bool S_ub_sms(tb_yaml_ctx *c, const tb_yaml_node *pm, tb_parallelism *par)
{
	const tb_yaml_node *m = tb_yaml_get_map(c, pm, "overlap_tp_sms");
	if (!m)
		return !tb_yaml_map_broken(pm, "overlap_tp_sms");
	bool ok = true;
	for (int g = 0; g < TB_UB_COUNT; g++) {
		const tb_yaml_node *v = tb_yaml_get(m, tb_ub_gemm_names[g]);
		char key[64];
		int64_t sms;
		snprintf(key, sizeof key, "parallelism.overlap_tp_sms.%s", tb_ub_gemm_names[g]);
		if (!v)
			continue;
		if (!tb_yaml_int(c, v, key, 0, 1024, &sms)) {
			ok = false;
			continue;
		}
		par->overlap_tp_sms[g] = (int16_t)sms;
		par->overlap_tp_sms_set |= (uint16_t)(1u << g);
	}
	return ok;
}

static bool S_load(tb_yaml_ctx *c, const tb_yaml_node *root, tb_scenario *sc)
{
	tb_inputs *in = &sc->inputs;
	const tb_yaml_node *n;
	bool ok = true;

	tb_parallelism *par = &in->parallelism;
	par->tensor = par->pipeline = par->expert = 1;
	par->virtual_pipeline = par->context = 1;
	const tb_yaml_node *pm = tb_yaml_get_map(c, root, "parallelism");
	int64_t zero = 0;
	if (pm) {
		static const struct { const char *key; unsigned bit; } S_bits[] = {
			{ "tensor", TB_LAYOUT_TENSOR }, { "pipeline", TB_LAYOUT_PIPELINE },
			{ "virtual_pipeline", TB_LAYOUT_VIRTUAL }, { "context", TB_LAYOUT_CONTEXT },
			{ "expert", TB_LAYOUT_EXPERT }, { "zero", TB_LAYOUT_ZERO },
			{ "sequence_parallel", TB_LAYOUT_SEQUENCE_PARALLEL },
		};
		for (size_t i = 0; i < TB_N(S_bits); i++)
			if (tb_yaml_get(pm, S_bits[i].key))
				par->written |= S_bits[i].bit;
		if ((n = tb_yaml_get(pm, "tensor")) && !tb_yaml_int(c, n, "parallelism.tensor", 1, 1000000, &par->tensor)) ok = false;
		if ((n = tb_yaml_get(pm, "pipeline")) && !tb_yaml_int(c, n, "parallelism.pipeline", 1, 1000000, &par->pipeline)) ok = false;
		if ((n = tb_yaml_get(pm, "expert")) && !tb_yaml_int(c, n, "parallelism.expert", 1, 1000000, &par->expert)) ok = false;
		if ((n = tb_yaml_get(pm, "sequence_parallel")) && !tb_yaml_bool(c, n, "parallelism.sequence_parallel", &par->sequence_parallel)) ok = false;
		if ((n = tb_yaml_get(pm, "overlap_ep")) && !tb_yaml_bool(c, n, "parallelism.overlap_ep", &par->overlap_ep)) ok = false;
		if ((n = tb_yaml_get(pm, "overlap_tp")) && !tb_yaml_bool(c, n, "parallelism.overlap_tp", &par->overlap_tp)) ok = false;
		bool on = true;
		if ((n = tb_yaml_get(pm, "overlap_tp_qkv")) && !tb_yaml_bool(c, n, "parallelism.overlap_tp_qkv", &on)) ok = false;
		par->no_overlap_tp_qkv = !on;
		on = true;
		if ((n = tb_yaml_get(pm, "overlap_tp_dgrad")) && !tb_yaml_bool(c, n, "parallelism.overlap_tp_dgrad", &on)) ok = false;
		par->no_overlap_tp_dgrad = !on;
		if (tb_yaml_get(pm, "overlap_tp_sms") && !S_ub_sms(c, pm, par))
			ok = false;
		if ((n = tb_yaml_get(pm, "zero")) && !tb_yaml_int(c, n, "parallelism.zero", 0, 3, &zero)) ok = false;
		if ((n = tb_yaml_get(pm, "virtual_pipeline")) && !tb_yaml_int(c, n, "parallelism.virtual_pipeline", 1, 1000, &par->virtual_pipeline)) ok = false;
		if ((n = tb_yaml_get(pm, "context")) && !tb_yaml_int(c, n, "parallelism.context", 1, 1000000, &par->context)) ok = false;
		if ((n = tb_yaml_get(pm, "expert_tensor")) && !tb_yaml_int(c, n, "parallelism.expert_tensor", 1, 1000000, &par->expert_tensor)) ok = false;
		if ((n = tb_yaml_get(pm, "shard_group")) && !tb_yaml_int(c, n, "parallelism.shard_group", 1, 1000000000, &par->shard_group)) ok = false;
		if ((n = tb_yaml_get(pm, "bucket_size")) && !tb_yaml_int(c, n, "parallelism.bucket_size", 1, 1000000000000LL, &par->bucket_size)) ok = false;
		if ((n = tb_yaml_get(pm, "no_sync")) && !tb_yaml_bool(c, n, "parallelism.no_sync", &par->no_sync)) ok = false;
		bool overlap_dp = true;
		if ((n = tb_yaml_get(pm, "overlap_dp")) && !tb_yaml_bool(c, n, "parallelism.overlap_dp", &overlap_dp)) ok = false;
		par->no_overlap_dp = !overlap_dp;
		static const char *const S_disp[] = { "alltoall", "deepep" };
		int di;
		if ((n = tb_yaml_get(pm, "dispatcher"))) {
			if (tb_yaml_enum(c, n, "parallelism.dispatcher", S_disp, TB_N(S_disp), &di))
				par->dispatcher = (tb_dispatcher)di;
			else
				ok = false;
		}
		static const char *const S_cg[] = { "none", "layers", "full_iteration" };
		if ((n = tb_yaml_get(pm, "cuda_graph"))) {
			if (tb_yaml_enum(c, n, "parallelism.cuda_graph", S_cg, TB_N(S_cg), &di))
				par->cuda_graph = (tb_cuda_graph)di;
			else
				ok = false;
		}
		static const char *const S_cp[] = { "p2p", "a2a", "allgather" };
		if ((n = tb_yaml_get(pm, "cp_comm_type"))) {
			if (tb_yaml_enum(c, n, "parallelism.cp_comm_type", S_cp, TB_N(S_cp), &di))
				par->cp_comm = (tb_cp_comm)di;
			else
				ok = false;
		}
		static const char *const S_fw[] = { "megatron", "deepspeed", "fsdp" };
		int fw;
		if ((n = tb_yaml_get(pm, "framework"))) {
			if (tb_yaml_enum(c, n, "parallelism.framework", S_fw, TB_N(S_fw), &fw))
				par->framework = (tb_framework)(fw + 1);
			else
				ok = false;
		}
	}
	par->zero = (int)zero;
	return ok;
}

static const tb_scenario_subsection S_subs[] = {
	{ "overlap_tp_sms", tb_ub_gemm_names, TB_UB_COUNT,
	  "one of Transformer Engine's overlapped GEMMs: qkv_fprop, proj_fprop, fc1_fprop, fc2_fprop, "
	  "qkv_dgrad, proj_dgrad, fc1_dgrad, fc2_dgrad, qkv_wgrad or fc1_wgrad" },
};

const tb_scenario_section tb_scenario_section_parallelism = {
	"parallelism", S_keys, TB_N(S_keys), S_subs, TB_N(S_subs), S_load,
};

/* The predicates tb_scenario_near searches with, for errors that name a
 * value that would work. */
typedef struct { int64_t a, b; } S_pair;

static bool S_divides_both(int64_t v, const void *arg)
{
	const S_pair *p = arg;
	return v > 0 && p->a % v == 0 && p->b % v == 0;
}

/* A context size c with the sequence splitting into 2c equal chunks. */
static bool S_context_fits(int64_t v, const void *arg)
{
	return v > 0 && *(const int64_t *)arg % (2 * v) == 0;
}

/* The sequences per step the layout needs whole: a micro-batch on every
 * replica, and with interleaving a multiple of the pipeline stages. */
static int64_t S_batch_unit(const tb_parallelism *par, const tb_training *t)
{
	int64_t u = par->data * t->micro_batch;
	return par->virtual_pipeline > 1 ? u * par->pipeline : u;
}

/* The default global batch is a guess: it follows the layout (the multiple
 * of the unit nearest the documented 1,024, at least one unit) rather than
 * fail on a key the user did not write. */
static void S_adapt_batch(tb_scenario *sc, const tb_parallelism *par, tb_training *t)
{
	int64_t unit = S_batch_unit(par, t);
	if (unit <= 0 || t->global_batch % unit == 0)
		return;
	int64_t k = (2 * t->global_batch + unit) / (2 * unit);     /* rounded, ties up */
	int64_t g = (k < 1 ? 1 : k) * unit;
	char value[32], deflt[32];
	snprintf(value, sizeof value, "%lld", (long long)g);
	snprintf(deflt, sizeof deflt, "%lld", (long long)t->global_batch);
	if (par->virtual_pipeline > 1)
		tb_scenario_adapt(sc, "training.global_batch", value, deflt,
		                  "%lld is not a multiple of data-parallel size x micro_batch x pipeline "
		                  "(%lld x %lld x %lld = %lld, the interleaved schedule's unit): the nearest "
		                  "multiple", (long long)t->global_batch, (long long)par->data,
		                  (long long)t->micro_batch, (long long)par->pipeline, (long long)unit);
	else
		tb_scenario_adapt(sc, "training.global_batch", value, deflt,
		                  "%lld is not a multiple of data-parallel size x micro_batch (%lld x %lld = "
		                  "%lld): the nearest multiple",
		                  (long long)t->global_batch, (long long)par->data, (long long)t->micro_batch,
		                  (long long)unit);
	t->global_batch = g;
}

/* parallelism.pipeline_layout (pipelayout.h): Megatron-LM's string for
 * the written pipeline size; it sets the virtual size.  False (with the
 * error said) where it cannot be read. */
static bool S_layout(tb_yaml_ctx *c, const tb_yaml_node *n, const tb_yaml_node *vn,
                     tb_scenario *sc)
{
	tb_parallelism *par = &sc->inputs.parallelism;
	const tb_model *m = &sc->inputs.model;
	const char *name = "parallelism.pipeline_layout";
	char *text = tb_yaml_string(c, n, name, TB_PIPE_TEXT_MAX - 1, true);
	if (!text)
		return false;
	bool ok = false;
	if (!m->has_shape)
		tb_yaml_err(c, n, "%s with a model given by its parameter count; expected the model's "
		            "shape (model.layers), whose layers it places", name);
	else if (!(par->written & TB_LAYOUT_PIPELINE))
		tb_yaml_err(c, n, "%s without parallelism.pipeline; expected the pipeline size the "
		            "layout is written for (its stages are a multiple of it)", name);
	else {
		char why[200];
		long at;
		int64_t dense = m->experts > 1 ? m->dense_layers : 0;
		const char *bad = tb_pipe_layout_parse(text, par->pipeline, m->layers,
		                                       dense < m->layers ? dense : m->layers,
		                                       m->mtp_modules, &par->layout, why, sizeof why, &at);
		size_t col;
		if (bad && at >= 0 && tb_yaml_value_col(n, (size_t)at, &col))
			tb_yaml_err_at(c, n->src, n->line, col, "%s: %s", name, bad);
		else if (bad && at >= 0)
			tb_yaml_err(c, n, "%s \"%s\": %s (byte %ld of the layout)", name, text, bad, at + 1);
		else if (bad)
			tb_yaml_err(c, n, "%s \"%s\": %s", name, text, bad);
		else if (vn && par->virtual_pipeline != par->layout.virtual_pipeline) {
			tb_yaml_err(c, vn, "parallelism.virtual_pipeline (%lld) with a pipeline layout of "
			            "%lld virtual stages a rank (%lld stages on %lld ranks); expected %lld, or "
			            "no virtual_pipeline", (long long)par->virtual_pipeline,
			            (long long)par->layout.virtual_pipeline,
			            (long long)(par->layout.virtual_pipeline * par->pipeline),
			            (long long)par->pipeline, (long long)par->layout.virtual_pipeline);
			memset(&par->layout, 0, sizeof par->layout);
		} else {
			par->virtual_pipeline = par->layout.virtual_pipeline;
			par->written |= TB_LAYOUT_VIRTUAL;
			ok = true;
		}
	}
	free(text);
	return ok;
}

bool tb_scenario_check_layout(tb_yaml_ctx *c, const tb_yaml_node *root, tb_scenario *sc)
{
	tb_inputs *in = &sc->inputs;
	tb_training *t = &in->training;
	const tb_hardware *h = &in->hardware;
	tb_parallelism *par = &in->parallelism;
	const tb_yaml_node *tr = tb_yaml_child_map(root, "training");
	const tb_yaml_node *hw = tb_yaml_child_map(root, "hardware");
	const tb_yaml_node *pm = tb_yaml_child_map(root, "parallelism");
	const tb_yaml_node *tn = pm ? tb_yaml_get(pm, "tensor") : NULL, *ppn = pm ? tb_yaml_get(pm, "pipeline") : NULL;
	const tb_yaml_node *where = tn ? tn : ppn ? ppn : hw ? tb_yaml_get(hw, "count") : root;
	const tb_yaml_node *cn = pm ? tb_yaml_get(pm, "context") : NULL;
	const tb_yaml_node *vn = pm ? tb_yaml_get(pm, "virtual_pipeline") : NULL;
	char near[64];
	/* first: a layout sets the virtual size the batch's checks read */
	const tb_yaml_node *pln = pm ? tb_yaml_get(pm, "pipeline_layout") : NULL;
	if (pln)
		S_layout(c, pln, vn, sc);
	int64_t tp = par->tensor * par->pipeline;
	if (h->count % tp != 0) {
		tb_scenario_near_multiple(near, sizeof near, "hardware.count", h->count, tp, 100000000);
		tb_yaml_err(c, where, "parallelism.tensor x parallelism.pipeline (%lld x %lld = %lld) does not divide hardware.count (%lld); expected a divisor of the GPU count%s",
		            (long long)par->tensor, (long long)par->pipeline, (long long)tp, (long long)h->count, near);
		return false;
	}
	if (par->context > 1 && h->count % (tp * par->context) != 0) {
		int64_t tpc = tp * par->context;
		tb_scenario_near_multiple(near, sizeof near, "hardware.count", h->count, tpc, 100000000);
		tb_yaml_err(c, cn, "parallelism.tensor x parallelism.pipeline x parallelism.context (%lld x %lld x %lld = %lld) does not divide hardware.count (%lld); expected a divisor of the GPU count%s",
		            (long long)par->tensor, (long long)par->pipeline, (long long)par->context,
		            (long long)tpc, (long long)h->count, near);
		return false;
	}
	tp *= par->context;
	par->data = h->count / tp;
	const tb_yaml_node *gb = tr ? tb_yaml_get(tr, "global_batch") : NULL, *mb = tr ? tb_yaml_get(tr, "micro_batch") : NULL;
	if (!gb && tr)
		gb = tb_yaml_get(tr, "global_batch_tokens");   /* the batch written in tokens */
	/* The data-parallel size and the micro-batch are the answer's to
	 * choose unless every key that sets them is written (answer.h): then
	 * the batch is not bent to a default layout, nor refused by one; the
	 * answer finds a layout the batch splits over. */
	const unsigned sets_batch = TB_LAYOUT_TENSOR | TB_LAYOUT_PIPELINE | TB_LAYOUT_CONTEXT |
	                            TB_LAYOUT_MICRO_BATCH;
	bool open = (par->written & sets_batch) != sets_batch;
	if (!gb && !open)
		S_adapt_batch(sc, par, t);
	int64_t per_step = par->data * t->micro_batch;
	if (!open && t->global_batch % per_step != 0) {
		tb_scenario_near_multiple(near, sizeof near, "global_batch", t->global_batch, per_step, 1000000000);
		tb_yaml_err(c, gb ? gb : mb,
		            "training.global_batch (%lld) is not a multiple of data-parallel size x micro_batch (%lld x %lld = %lld); expected whole micro-batches on every replica%s",
		            (long long)t->global_batch, (long long)par->data, (long long)t->micro_batch, (long long)per_step, near);
	}
	const tb_model *m = &in->model;
	if (par->context > 1 && t->seq_len % (2 * par->context) != 0) {
		const tb_yaml_node *sn = tr ? tb_yaml_get(tr, "seq_len") : NULL;
		tb_scenario_near(near, sizeof near, "context", par->context, 1, 1000000, S_context_fits, &t->seq_len);
		tb_yaml_err(c, cn ? cn : sn, "training.seq_len (%lld) is not divisible by 2 x parallelism.context (2 x %lld = %lld); expected a sequence that splits into 2 x context equal chunks (load-balanced causal attention)%s",
		            (long long)t->seq_len, (long long)par->context, (long long)(2 * par->context), near);
	}
	if (par->virtual_pipeline > 1) {
		int64_t chunks = par->pipeline * par->virtual_pipeline;
		int64_t mbs = per_step > 0 ? t->global_batch / per_step : 0;
		if (par->pipeline == 1)
			tb_yaml_err(c, vn, "parallelism.virtual_pipeline (%lld) without pipeline parallelism; expected 1 unless parallelism.pipeline is above 1",
			            (long long)par->virtual_pipeline);
		else if (!pln && m->has_shape && chunks > m->layers)
			tb_yaml_err(c, vn, "parallelism.pipeline x parallelism.virtual_pipeline (%lld x %lld = %lld) is above model.layers (%lld); expected at least one layer per virtual stage: virtual_pipeline %lld or less would work",
			            (long long)par->pipeline, (long long)par->virtual_pipeline, (long long)chunks, (long long)m->layers,
			            (long long)(m->layers / par->pipeline));
		else if (!pln && m->has_shape && !tb_perf_virtual_ok(m->layers, par->pipeline, par->virtual_pipeline)) {
			/* the nearest that splits, the smaller on a tie */
			int64_t best = 1, want = par->virtual_pipeline;
			for (int64_t v = 2; v * par->pipeline <= m->layers && v <= 64; v++)
				if (tb_perf_virtual_ok(m->layers, par->pipeline, v) &&
				    llabs(v - want) < llabs(best - want))
					best = v;
			tb_yaml_err(c, vn, "parallelism.virtual_pipeline (%lld) does not split model.layers (%lld) into whole virtual stages on %lld pipeline ranks; expected model.layers, or model.layers + 1 or + 2 (the embedding and the loss counted as layers, as Megatron-LM allows), divisible by pipeline x virtual_pipeline: virtual_pipeline %lld would work",
			            (long long)par->virtual_pipeline, (long long)m->layers, (long long)par->pipeline, (long long)best);
		} else if (!open && t->global_batch % per_step == 0 && mbs % par->pipeline != 0) {
			int64_t unit = S_batch_unit(par, t);
			tb_scenario_near_multiple(near, sizeof near, "global_batch", t->global_batch, unit, 1000000000);
			tb_yaml_err(c, vn ? vn : pln, "parallelism.virtual_pipeline (%lld) needs the micro-batches per step (%lld) to be a multiple of parallelism.pipeline (%lld); expected a global batch of k x %lld x data-parallel size x micro_batch (Megatron-LM's interleaved schedule)%s",
			            (long long)par->virtual_pipeline, (long long)mbs, (long long)par->pipeline, (long long)par->pipeline, near);
		}
	}
	if (m->has_shape) {
		if (m->heads % par->tensor != 0) {
			tb_scenario_near(near, sizeof near, "tensor", par->tensor, 1, m->heads, tb_scenario_divides, &m->heads);
			tb_yaml_err(c, tn, "parallelism.tensor (%lld) does not divide model.heads (%lld); expected a divisor of the attention heads%s",
			            (long long)par->tensor, (long long)m->heads, near);
		}
		if (par->pipeline > m->layers)
			tb_yaml_err(c, ppn, "parallelism.pipeline (%lld) is above model.layers (%lld); expected at most one stage per layer: pipeline %lld or less would work",
			            (long long)par->pipeline, (long long)m->layers, (long long)m->layers);
	}
	const tb_yaml_node *fn = pm ? tb_yaml_get(pm, "framework") : NULL;
	const char *fw_why;
	if (fn && !tb_perf_framework_zero_ok(par->framework, par->zero, par->pipeline, &fw_why)) {
		const tb_yaml_node *zn = tb_yaml_get(pm, "zero");
		tb_yaml_err(c, zn ? zn : fn, "parallelism.zero (%d) with parallelism.framework %s%s: %s; expected a stage the framework runs",
		            par->zero, tb_framework_name(par->framework),
		            par->framework == TB_FW_DEEPSPEED && par->pipeline > 1 ? " and a pipeline" : "",
		            fw_why);
	}
	const tb_yaml_node *en = pm ? tb_yaml_get(pm, "expert") : NULL;
	const tb_yaml_node *etn = pm ? tb_yaml_get(pm, "expert_tensor") : NULL;
	int64_t et = tb_perf_expert_tensor(par->expert_tensor, par->tensor);
	if (etn && (!m->has_shape || m->experts <= 1))
		tb_yaml_err(c, etn, "parallelism.expert_tensor with a dense model; expected it only where model.experts is above 1");
	else if (etn && par->tensor % et != 0)
		tb_yaml_err(c, etn, "parallelism.expert_tensor (%lld) does not divide parallelism.tensor (%lld); expected a divisor of it, 1 for experts unsplit",
		            (long long)et, (long long)par->tensor);
	else if (par->expert > 1) {
		/* below the tensor size, expert groups fold over the tensor ranks */
		int64_t ranks = par->data * (par->tensor / et);
		if (!m->has_shape || m->experts <= 1)
			tb_yaml_err(c, en, "parallelism.expert (%lld) with a dense model; expected 1 unless model.experts is above 1",
			            (long long)par->expert);
		else if (m->experts % par->expert != 0 || ranks % par->expert != 0) {
			S_pair both = { m->experts, ranks };
			tb_scenario_near(near, sizeof near, "expert", par->expert, 1, m->experts, S_divides_both, &both);
			tb_yaml_err(c, en, "parallelism.expert (%lld) does not divide both model.experts (%lld) and the %s (%lld); expected a common divisor%s",
			            (long long)par->expert, (long long)m->experts,
			            et < par->tensor ? "data-parallel size x tensor / expert_tensor" : "data-parallel size",
			            (long long)ranks, near);
		}
	}
	const tb_yaml_node *sgn = pm ? tb_yaml_get(pm, "shard_group") : NULL;
	int64_t dc = par->data * (par->context > 1 ? par->context : 1);
	if (sgn && par->zero < 1)
		tb_yaml_err(c, sgn, "parallelism.shard_group with ZeRO 0, which shards nothing; expected parallelism.zero 1 to 3 (HSDP shards within the group)");
	else if (sgn && dc % par->shard_group != 0)
		tb_yaml_err(c, sgn, "parallelism.shard_group (%lld) does not divide the data-parallel group (%lld = data x context); expected a divisor of it, such as the GPUs of a node",
		            (long long)par->shard_group, (long long)dc);
	const tb_yaml_node *bsn = pm ? tb_yaml_get(pm, "bucket_size") : NULL;
	if (bsn && par->bucket_size > 0 && par->zero >= 3)
		tb_yaml_err(c, bsn, "parallelism.bucket_size with ZeRO 3, whose collectives run a layer's weights at a time; expected parallelism.zero 0 to 2, or no bucket_size");
	else if (bsn && par->bucket_size > 0 && par->framework == TB_FW_FSDP && par->zero > 0)
		tb_yaml_err(c, bsn, "parallelism.bucket_size under fsdp with ZeRO %d, which reduces a wrapped module at a time; expected parallelism.zero 0 (DDP's bucket_cap_mb, as weights) or no bucket_size", par->zero);
	const tb_yaml_node *cgn = pm ? tb_yaml_get(pm, "cuda_graph") : NULL;
	const char *cg_why;
	if (cgn && !tb_perf_cuda_graph_ok(par->cuda_graph, par->framework, par->zero, &cg_why))
		tb_yaml_err(c, cgn, "parallelism.cuda_graph full_iteration under %s at ZeRO %d: %s",
		            par->framework == TB_FW_ANY ? "no framework named" : tb_framework_name(par->framework),
		            par->zero, cg_why);
	const tb_yaml_node *nsn = pm ? tb_yaml_get(pm, "no_sync") : NULL;
	if (nsn && par->no_sync && (par->framework != TB_FW_FSDP || par->zero < 2))
		tb_yaml_err(c, nsn, "parallelism.no_sync is FSDP's, with ZeRO 2 or 3 (it defers their per-micro-batch reduce-scatter); expected parallelism.framework: fsdp and parallelism.zero 2 or 3");
	/* the op policy is written here for a dense decoder's matmuls:
	 * torchtitan's experts run as grouped GEMMs the policy never keeps,
	 * and MLA's order of projections is its own */
	const tb_yaml_node *spn = tr ? tb_yaml_get(tr, "selective_policy") : NULL;
	if (spn && t->selective_policy == TB_SELECTIVE_OP && in->model.has_shape &&
	    (in->model.experts > 1 || in->model.kv_lora_rank > 0))
		tb_yaml_err(c, spn, "training.selective_policy op is modelled for dense layers with ordinary attention; expected attention for a mixture of experts or multi-head latent attention");
	else if (spn && t->selective_policy == TB_SELECTIVE_MOE && in->model.has_shape && in->model.experts <= 1)
		tb_yaml_err(c, spn, "training.selective_policy moe recomputes a mixture's expert layers, and this model has none; expected model.experts above 1, or another policy");
	else if (spn && t->selective_policy == TB_SELECTIVE_MOE && !t->flash_attention)
		tb_yaml_err(c, spn, "training.selective_policy moe with training.flash_attention false: Megatron-LM's layernorm and moe modules are modelled beside a fused attention that keeps no score matrix; expected flash_attention true, or another policy");
	else if (spn && t->selective_policy == TB_SELECTIVE_DEEPSEEK && !t->flash_attention)
		tb_yaml_err(c, spn, "training.selective_policy deepseek with training.flash_attention false: DeepSeek-V3's recipe is modelled with a fused attention that keeps no score matrix; expected flash_attention true, or another policy");
	else if (spn && (par->written & TB_LAYOUT_CHECKPOINTING) && t->checkpointing != TB_CKPT_SELECTIVE)
		tb_yaml_err(c, spn, "training.selective_policy with training.checkpointing %s: the policy says what selective recomputation keeps; expected training.checkpointing selective, or no policy",
		            tb_checkpointing_name(t->checkpointing));
	/* Megatron-Core casts the input of its fused SwiGLU alone
	 * (fused_bias_swiglu.py): a plain MLP's GeLU keeps its 16 bits */
	const tb_yaml_node *afn = tr ? tb_yaml_get(tr, "activation_func_fp8_input_store") : NULL;
	if (afn && t->act_fp8_store && in->model.has_shape && in->model.mlp != TB_MLP_GATED)
		tb_yaml_err(c, afn, "training.activation_func_fp8_input_store casts the input of a gated MLP's SwiGLU, and this model's MLP is plain; expected a gated MLP, or false");
	const tb_yaml_node *akn = tr ? tb_yaml_get(tr, "attention_kernel") : NULL;
	if (akn && t->attention_kernel != TB_ATTN_KERNEL_AUTO && !t->flash_attention)
		tb_yaml_err(c, akn, "training.attention_kernel %s with training.flash_attention false: the kernel named is a fused attention, which keeps no score matrix; expected flash_attention true, or no attention_kernel",
		            tb_attn_kernel_name(t->attention_kernel));
	/* torchao has per-row scales; Transformer Engine, which Megatron-LM
	 * and DeepSpeed run fp8 through, does not */
	const tb_yaml_node *frn = tr ? tb_yaml_get(tr, "fp8_recipe") : NULL;
	if (frn && t->fp8_recipe == TB_FP8_ROWWISE &&
	    (in->parallelism.framework == TB_FW_MEGATRON || in->parallelism.framework == TB_FW_DEEPSPEED))
		tb_yaml_err(c, frn, "training.fp8_recipe rowwise under parallelism.framework %s: per-row scaling is torchao's (PyTorch FSDP), and Transformer Engine, which %s runs fp8 through, has none; expected delayed, tensorwise, blockwise, mxfp8 or deepseek, or framework fsdp",
		            tb_framework_name(in->parallelism.framework),
		            in->parallelism.framework == TB_FW_MEGATRON ? "Megatron-LM" : "DeepSpeed");
	if (frn && t->fp8_recipe == TB_FP8_MXFP8 &&
	    tb_gpus_fp8_recipe(in->hardware.gpu.name, TB_FP8_MXFP8) != TB_FP8_MXFP8) {
		/* the cards that have it, as the table says (tb_gpus_mx_blocks) */
		char mx[128] = "";
		size_t len = 0;
		for (size_t i = 0; i < tb_gpus_count(); i++) {
			bool known, has = tb_gpus_mx_blocks(tb_gpus_at(i)->name, &known);
			if (has && len < sizeof mx)
				len += (size_t)snprintf(mx + len, sizeof mx - len, "%s%s", len ? ", " : "",
				                        tb_gpus_at(i)->name);
		}
		tb_yaml_err(c, frn, "training.fp8_recipe mxfp8 on %s, whose matrix units have no MX block scaling (Blackwell's and CDNA 4's have: %s); expected delayed, tensorwise, rowwise, blockwise or deepseek, or one of those cards",
		            in->hardware.gpu.name, mx);
	}
	/* Megatron-LM's fp8 parameters: the trained linear layers' weights
	 * in fp8 under the distributed optimizer's fp32 master copy */
	const tb_yaml_node *pgn = tr ? tb_yaml_get(tr, "fp8_param_gather") : NULL;
	if (pgn && t->fp8_param_gather && in->parallelism.framework != TB_FW_MEGATRON)
		tb_yaml_err(c, pgn, "training.fp8_param_gather is Megatron-LM's --fp8-param-gather, and parallelism.framework is %s; expected megatron (under fsdp the weights' gather follows training.fp8_recipe: tensorwise gathers them in fp8), or false",
		            tb_framework_name(in->parallelism.framework));
	else if (pgn && t->fp8_param_gather && !tb_method_trains_base(t->method))
		tb_yaml_err(c, pgn, "training.fp8_param_gather keeps trained weights in fp8, and training.method %s trains none; expected full or dpo, or training.quantization fp8 for a frozen base in fp8",
		            tb_method_name(t->method));
	else if (pgn && t->fp8_param_gather && (par->written & TB_LAYOUT_ZERO) && par->zero == 0 &&
	         par->data * (par->context > 0 ? par->context : 1) > 1)
		tb_yaml_err(c, pgn, "training.fp8_param_gather with parallelism.zero 0: Megatron-LM gathers fp8 weights through its distributed optimizer (--fp8-param-gather needs --use-distributed-optimizer or FSDP); expected zero 1 or 3, or false");
	/* Transformer Engine's DotProductAttention casts to fp8 where the
	 * linear layers run fp8, on cuDNN's fused kernel, under Megatron-LM */
	const tb_yaml_node *fan = tr ? tb_yaml_get(tr, "fp8_attention") : NULL;
	if (fan && t->fp8_attention != TB_FP8_ATTN_OFF) {
		if (t->precision != TB_PREC_FP8_MIXED && t->precision != TB_PREC_FP4_MIXED)
			tb_yaml_err(c, fan, "training.fp8_attention %s with training.precision %s: Transformer Engine runs the attention in fp8 inside its fp8 autocast; expected precision fp8-mixed or fp4-mixed, or false",
			            tb_fp8_attn_name(t->fp8_attention), tb_precision_name(t->precision));
		else if (in->parallelism.framework != TB_FW_MEGATRON)
			tb_yaml_err(c, fan, "training.fp8_attention is Megatron-LM's --fp8-dot-product-attention (Transformer Engine's attention), and parallelism.framework is %s; expected megatron, or false",
			            tb_framework_name(in->parallelism.framework));
		else if (!t->flash_attention || t->attention_kernel == TB_ATTN_KERNEL_FLASH2)
			tb_yaml_err(c, fan, "training.fp8_attention runs cuDNN's fused attention in fp8, and %s; expected flash_attention true with attention_kernel auto or cudnn, or false",
			            !t->flash_attention ? "training.flash_attention is false" : "training.attention_kernel is flash2");
		else if (t->fp8_attention == TB_FP8_ATTN_MXFP8 &&
		         tb_gpus_fp8_recipe(in->hardware.gpu.name, TB_FP8_MXFP8) != TB_FP8_MXFP8)
			tb_yaml_err(c, fan, "training.fp8_attention mxfp8 on %s, whose matrix units have no MX block scaling; expected true, delayed or current, or a Blackwell card",
			            in->hardware.gpu.name);
	}
	/* the head leaves 16 bits only where its framework builds it so:
	 * Megatron-LM's TELMHeadColumnParallelLinear under MXFP8 alone
	 * (fp8_utils.is_mxfp8_output_proj_active) */
	const tb_yaml_node *fhn = tr ? tb_yaml_get(tr, "fp8_head") : NULL;
	if (fhn && t->fp8_head && t->precision != TB_PREC_FP8_MIXED)
		tb_yaml_err(c, fhn, "training.fp8_head with training.precision %s: the head's GEMMs run in the fp8 recipe of the linear layers; expected precision fp8-mixed, or false",
		            tb_precision_name(t->precision));
	else if (fhn && t->fp8_head && in->parallelism.framework == TB_FW_MEGATRON &&
	         t->fp8_recipe != TB_FP8_MXFP8)
		tb_yaml_err(c, fhn, "training.fp8_head is Megatron-LM's --fp8-output-proj, which runs the head in fp8 under MXFP8 alone, and training.fp8_recipe is %s; expected mxfp8, or false",
		            t->fp8_recipe == TB_FP8_AUTO ? "auto (delayed under megatron)" : tb_fp8_recipe_name(t->fp8_recipe));
	const tb_yaml_node *rln = tr ? tb_yaml_get(tr, "recompute_layers") : NULL;
	if (rln && t->checkpointing != TB_CKPT_FULL)
		tb_yaml_err(c, rln, "training.recompute_layers with training.checkpointing %s: it says how many layers of each pipeline chunk full recomputation redoes; expected training.checkpointing full, or no recompute_layers",
		            tb_checkpointing_name(t->checkpointing));
	const tb_yaml_node *ccn = pm ? tb_yaml_get(pm, "cp_comm_type") : NULL;
	if (ccn && m->has_shape && par->context > 1 && par->tensor > 0 && m->heads % par->tensor == 0 &&
	    !tb_perf_cp_ok(par->cp_comm, m->heads, m->kv_heads, par->tensor, par->context)) {
		int64_t kv = m->kv_heads > 0 ? m->kv_heads : m->heads, best = 1;
		for (int64_t v = 2; v < par->context; v++)
			if (tb_perf_cp_ok(TB_CP_A2A, m->heads, kv, par->tensor, v) && t->seq_len % (2 * v) == 0)
				best = v;
		char works[64] = "no size above 1 divides both";
		if (best > 1)
			snprintf(works, sizeof works, "%lld would work", (long long)best);
		tb_yaml_err(c, ccn, "parallelism.cp_comm_type a2a with %lld query heads and %lld key-value groups per tensor rank (tensor %lld): the all-to-all hands each of the %lld context ranks whole ones; expected a context size dividing both (%s), or cp_comm_type p2p",
		            (long long)(m->heads / par->tensor), (long long)(kv / par->tensor),
		            (long long)par->tensor, (long long)par->context, works);
	}
	const tb_yaml_node *dn = pm ? tb_yaml_get(pm, "dispatcher") : NULL;
	if (dn && par->dispatcher != TB_DISPATCH_ALLTOALL && (!m->has_shape || m->experts <= 1))
		tb_yaml_err(c, dn, "parallelism.dispatcher with a dense model, which dispatches no tokens; expected it only where model.experts is above 1");
	/* the routing's keys, as the dispatcher's: a dense model routes nothing */
	const tb_yaml_node *rn = tr ? tb_yaml_get(tr, "moe_routing") : NULL;
	const tb_yaml_node *ln = tr ? tb_yaml_get(tr, "moe_load_factor") : NULL;
	if (!m->has_shape || m->experts <= 1) {
		if (rn && t->moe_routing != TB_MOE_DROPLESS)
			tb_yaml_err(c, rn, "training.moe_routing with a dense model, which routes no tokens; expected it only where model.experts is above 1");
		if (ln)
			tb_yaml_err(c, ln, "training.moe_load_factor with a dense model, which routes no tokens; expected it only where model.experts is above 1");
	}
	static const char *const S_tp_parts[] = { "overlap_tp_qkv", "overlap_tp_dgrad", "overlap_tp_sms" };
	for (size_t i = 0; pm && i < TB_N(S_tp_parts); i++) {
		const tb_yaml_node *pn = tb_yaml_get(pm, S_tp_parts[i]);
		if (pn && !par->overlap_tp)
			tb_yaml_err(c, pn, "parallelism.%s without parallelism.overlap_tp: it describes the tensor-parallel overlap; expected parallelism.overlap_tp: true, or no %s",
			            S_tp_parts[i], S_tp_parts[i]);
	}
	/* the SMs a GEMM gives up, out of the card's */
	const tb_yaml_node *smn = pm ? tb_yaml_child_map(pm, "overlap_tp_sms") : NULL;
	const tb_yaml_node *smk = pm ? tb_yaml_get_key(pm, "overlap_tp_sms") : NULL;
	int64_t card_sms = tb_gpu_sms(&in->hardware.gpu);
	bool inline_card = !tb_gpus_find(in->hardware.gpu.name);
	if (smn && smk && par->overlap_tp && card_sms == 0)
		tb_yaml_err(c, smk, "parallelism.overlap_tp_sms on %s, whose SM count is not known, so what the collectives take of it cannot be priced; expected %s, or no overlap_tp_sms (`trainbudget gpus` lists the counts the table has)",
		            in->hardware.gpu.name,
		            inline_card ? "hardware.gpu.sms on the inline card"
		                        : "the card written inline with its hardware.gpu.sms");
	/* under rs_dgrad the weight-gradient GEMMs overlap nothing, and
	 * Transformer Engine refuses a config for them (initialize_ub) */
	static const tb_ub_gemm S_wgrads[] = { TB_UB_QKV_WGRAD, TB_UB_FC1_WGRAD };
	for (size_t i = 0; smn && par->overlap_tp && tb_overlap_tp_dgrad(par) && i < TB_N(S_wgrads); i++) {
		const tb_yaml_node *v = tb_yaml_get_key(smn, tb_ub_gemm_name(S_wgrads[i]));
		if (v)
			tb_yaml_err(c, v, "parallelism.overlap_tp_sms.%s with overlap_tp_dgrad true: the input gradients' reduce-scatters ride the data-gradient GEMMs, so no collective overlaps the weight-gradient ones; expected no %s, or parallelism.overlap_tp_dgrad: false (Transformer Engine's bulk overlap)",
			            tb_ub_gemm_name(S_wgrads[i]), tb_ub_gemm_name(S_wgrads[i]));
	}
	for (int g = 0; smn && par->overlap_tp && card_sms > 0 && g < TB_UB_COUNT; g++) {
		const tb_yaml_node *v = tb_yaml_get(smn, tb_ub_gemm_name((tb_ub_gemm)g));
		if (v && (par->overlap_tp_sms_set & (1u << g)) && par->overlap_tp_sms[g] >= card_sms)
			tb_yaml_err(c, v, "parallelism.overlap_tp_sms.%s %d leaves its GEMM none of %s's %lld SMs; expected fewer than %lld",
			            tb_ub_gemm_name((tb_ub_gemm)g), par->overlap_tp_sms[g], in->hardware.gpu.name,
			            (long long)card_sms, (long long)card_sms);
	}
	const tb_yaml_node *otn = pm ? tb_yaml_get(pm, "overlap_tp") : NULL;
	if (otn && par->overlap_tp && par->tensor <= 1 && (par->written & TB_LAYOUT_TENSOR))
		tb_yaml_err(c, otn, "parallelism.overlap_tp with parallelism.tensor 1, which has no tensor-parallel communication; expected false, or parallelism.tensor above 1");
	const tb_yaml_node *on = pm ? tb_yaml_get(pm, "overlap_ep") : NULL;
	if (on && par->overlap_ep && (!m->has_shape || m->experts <= 1))
		tb_yaml_err(c, on, "parallelism.overlap_ep with a dense model, which has no expert all-to-all; expected false unless model.experts is above 1");
	else if (on && par->overlap_ep && par->expert <= 1 && (par->written & TB_LAYOUT_EXPERT))
		tb_yaml_err(c, on, "parallelism.overlap_ep with parallelism.expert 1, which has no expert all-to-all; expected false, or parallelism.expert above 1");
	return true;
}
