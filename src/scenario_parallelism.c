/* scenario_parallelism.c: the parallelism section (tensor, pipeline,
 * virtual pipeline, context, expert, sequence parallelism, ZeRO stage),
 * and the checks of the layout against the GPU count, the batch and the
 * model's shape.  The data-parallel size is what the GPUs leave:
 * count / (tensor x pipeline x context). */
#include "scenario_sections.h"

static const char *const S_keys[] = {
	"tensor", "pipeline", "expert", "sequence_parallel", "zero", "virtual_pipeline", "context",
};

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
		if ((n = tb_yaml_get(pm, "tensor")) && !tb_yaml_int(c, n, "parallelism.tensor", 1, 1000000, &par->tensor)) ok = false;
		if ((n = tb_yaml_get(pm, "pipeline")) && !tb_yaml_int(c, n, "parallelism.pipeline", 1, 1000000, &par->pipeline)) ok = false;
		if ((n = tb_yaml_get(pm, "expert")) && !tb_yaml_int(c, n, "parallelism.expert", 1, 1000000, &par->expert)) ok = false;
		if ((n = tb_yaml_get(pm, "sequence_parallel")) && !tb_yaml_bool(c, n, "parallelism.sequence_parallel", &par->sequence_parallel)) ok = false;
		if ((n = tb_yaml_get(pm, "zero")) && !tb_yaml_int(c, n, "parallelism.zero", 0, 3, &zero)) ok = false;
		if ((n = tb_yaml_get(pm, "virtual_pipeline")) && !tb_yaml_int(c, n, "parallelism.virtual_pipeline", 1, 1000, &par->virtual_pipeline)) ok = false;
		if ((n = tb_yaml_get(pm, "context")) && !tb_yaml_int(c, n, "parallelism.context", 1, 1000000, &par->context)) ok = false;
	}
	par->zero = (int)zero;
	return ok;
}

const tb_scenario_section tb_scenario_section_parallelism = {
	"parallelism", S_keys, TB_N(S_keys), NULL, 0, S_load,
};

bool tb_scenario_check_layout(tb_yaml_ctx *c, const tb_yaml_node *root, tb_scenario *sc)
{
	tb_inputs *in = &sc->inputs;
	const tb_training *t = &in->training;
	const tb_hardware *h = &in->hardware;
	tb_parallelism *par = &in->parallelism;
	const tb_yaml_node *tr = tb_yaml_child_map(root, "training");
	const tb_yaml_node *hw = tb_yaml_child_map(root, "hardware");
	const tb_yaml_node *pm = tb_yaml_child_map(root, "parallelism");
	const tb_yaml_node *tn = pm ? tb_yaml_get(pm, "tensor") : NULL, *ppn = pm ? tb_yaml_get(pm, "pipeline") : NULL;
	const tb_yaml_node *where = tn ? tn : ppn ? ppn : hw ? tb_yaml_get(hw, "count") : root;
	const tb_yaml_node *cn = pm ? tb_yaml_get(pm, "context") : NULL;
	const tb_yaml_node *vn = pm ? tb_yaml_get(pm, "virtual_pipeline") : NULL;
	int64_t tp = par->tensor * par->pipeline;
	if (h->count % tp != 0) {
		tb_yaml_err(c, where, "parallelism.tensor x parallelism.pipeline (%lld x %lld = %lld) does not divide hardware.count (%lld); expected a divisor of the GPU count",
		            (long long)par->tensor, (long long)par->pipeline, (long long)tp, (long long)h->count);
		return false;
	}
	if (par->context > 1 && h->count % (tp * par->context) != 0) {
		tb_yaml_err(c, cn, "parallelism.tensor x parallelism.pipeline x parallelism.context (%lld x %lld x %lld = %lld) does not divide hardware.count (%lld); expected a divisor of the GPU count",
		            (long long)par->tensor, (long long)par->pipeline, (long long)par->context,
		            (long long)(tp * par->context), (long long)h->count);
		return false;
	}
	tp *= par->context;
	par->data = h->count / tp;
	const tb_yaml_node *gb = tr ? tb_yaml_get(tr, "global_batch") : NULL, *mb = tr ? tb_yaml_get(tr, "micro_batch") : NULL;
	int64_t per_step = par->data * t->micro_batch;
	if (t->global_batch % per_step != 0) {
		tb_yaml_err(c, mb ? mb : gb ? gb : (hw ? tb_yaml_get(hw, "count") : root),
		            "training.global_batch (%lld) is not a multiple of data-parallel size x micro_batch (%lld x %lld = %lld); expected whole micro-batches on every replica",
		            (long long)t->global_batch, (long long)par->data, (long long)t->micro_batch, (long long)per_step);
	}
	const tb_model *m = &in->model;
	if (par->context > 1 && t->seq_len % (2 * par->context) != 0) {
		const tb_yaml_node *sn = tr ? tb_yaml_get(tr, "seq_len") : NULL;
		tb_yaml_err(c, cn ? cn : sn, "training.seq_len (%lld) is not divisible by 2 x parallelism.context (2 x %lld = %lld); expected a sequence that splits into 2 x context equal chunks (load-balanced causal attention)",
		            (long long)t->seq_len, (long long)par->context, (long long)(2 * par->context));
	}
	if (par->virtual_pipeline > 1) {
		int64_t chunks = par->pipeline * par->virtual_pipeline;
		int64_t mbs = per_step > 0 ? t->global_batch / per_step : 0;
		if (par->pipeline == 1)
			tb_yaml_err(c, vn, "parallelism.virtual_pipeline (%lld) without pipeline parallelism; expected 1 unless parallelism.pipeline is above 1",
			            (long long)par->virtual_pipeline);
		else if (m->has_shape && chunks > m->layers)
			tb_yaml_err(c, vn, "parallelism.pipeline x parallelism.virtual_pipeline (%lld x %lld = %lld) is above model.layers (%lld); expected at least one layer per virtual stage",
			            (long long)par->pipeline, (long long)par->virtual_pipeline, (long long)chunks, (long long)m->layers);
		else if (t->global_batch % per_step == 0 && mbs % par->pipeline != 0)
			tb_yaml_err(c, vn, "parallelism.virtual_pipeline (%lld) needs the micro-batches per step (%lld) to be a multiple of parallelism.pipeline (%lld); expected a global batch of k x %lld x data-parallel size x micro_batch (Megatron-LM's interleaved schedule)",
			            (long long)par->virtual_pipeline, (long long)mbs, (long long)par->pipeline, (long long)par->pipeline);
	}
	if (m->has_shape) {
		if (m->heads % par->tensor != 0)
			tb_yaml_err(c, tn, "parallelism.tensor (%lld) does not divide model.heads (%lld); expected a divisor of the attention heads",
			            (long long)par->tensor, (long long)m->heads);
		if (par->pipeline > m->layers)
			tb_yaml_err(c, ppn, "parallelism.pipeline (%lld) is above model.layers (%lld); expected at most one stage per layer",
			            (long long)par->pipeline, (long long)m->layers);
	}
	const tb_yaml_node *en = pm ? tb_yaml_get(pm, "expert") : NULL;
	if (par->expert > 1) {
		if (!m->has_shape || m->experts <= 1)
			tb_yaml_err(c, en, "parallelism.expert (%lld) with a dense model; expected 1 unless model.experts is above 1",
			            (long long)par->expert);
		else if (m->experts % par->expert != 0 || par->data % par->expert != 0)
			tb_yaml_err(c, en, "parallelism.expert (%lld) does not divide both model.experts (%lld) and the data-parallel size (%lld); expected a common divisor",
			            (long long)par->expert, (long long)m->experts, (long long)par->data);
	}
	return true;
}
