/* validate.c: trainbudget against published figures.
 *
 *   validate OUT.md [published.yaml]
 *
 * Each row is a scenario (YAML, through the same loader and calculators
 * as `trainbudget estimate`) whose figure is compared with a published
 * value: the reference set in ../shared/reference/published.yaml (also
 * copied, figure by figure, into tests/fixtures/validation.txt so the
 * table can be rebuilt without it) and runs reconstructed from papers.
 * Writes one Markdown table to OUT.md and exits 1 when any error leaves
 * its tolerance, 2 when it cannot run.  Where a comparison needs an
 * assumption (an MFU), the row says which. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>
#include "trainbudget/budget.h"
#include "trainbudget/diag.h"
#include "trainbudget/gpus.h"
#include "trainbudget/scenario.h"
#include "trainbudget/stages.h"
#include "te_gemm_layer.h"

#define FIXTURE "tests/fixtures/validation.txt"
#define ROWS_MAX 96

/* ---- reference figures: published.yaml, else the fixture ------------- */

static yaml_document_t S_doc;
static int S_have_doc;
static char *S_fix;     /* the fixture's text */

static yaml_node_t *S_map_get(yaml_node_t *map, const char *key)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(&S_doc, p->key);
		if (k && k->type == YAML_SCALAR_NODE && strcmp((char *)k->data.scalar.value, key) == 0)
			return yaml_document_get_node(&S_doc, p->value);
	}
	return NULL;
}

/* `path` as "case-id/expected.rows.3.flops": the case by id, then map
 * keys and sequence indices separated by dots. */
static int S_yaml_lookup(const char *path, double *out)
{
	if (!S_have_doc)
		return -1;
	const char *slash = strchr(path, '/');
	if (!slash)
		return -1;
	yaml_node_t *cases = S_map_get(yaml_document_get_root_node(&S_doc), "cases");
	if (!cases || cases->type != YAML_SEQUENCE_NODE)
		return -1;
	yaml_node_t *node = NULL;
	for (yaml_node_item_t *it = cases->data.sequence.items.start;
	     it < cases->data.sequence.items.top; it++) {
		yaml_node_t *c = yaml_document_get_node(&S_doc, *it);
		yaml_node_t *id = S_map_get(c, "id");
		if (id && id->type == YAML_SCALAR_NODE &&
		    strlen((char *)id->data.scalar.value) == (size_t)(slash - path) &&
		    strncmp((char *)id->data.scalar.value, path, (size_t)(slash - path)) == 0) {
			node = c;
			break;
		}
	}
	char key[128];
	const char *p = slash + 1;
	while (node && *p) {
		size_t n = strcspn(p, ".");
		if (n >= sizeof key)
			return -1;
		memcpy(key, p, n);
		key[n] = '\0';
		p += n + (p[n] == '.');
		if (node->type == YAML_SEQUENCE_NODE) {
			long i = strtol(key, NULL, 10);
			yaml_node_item_t *it = node->data.sequence.items.start + i;
			node = it < node->data.sequence.items.top ? yaml_document_get_node(&S_doc, *it) : NULL;
		} else {
			node = S_map_get(node, key);
		}
	}
	if (!node || node->type != YAML_SCALAR_NODE)
		return -1;
	char *end;
	*out = strtod((char *)node->data.scalar.value, &end);
	return end == (char *)node->data.scalar.value ? -1 : 0;
}

static int S_fixture_lookup(const char *path, double *out)
{
	if (!S_fix)
		return -1;
	size_t n = strlen(path);
	for (const char *l = S_fix; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (strncmp(l, path, n) == 0 && l[n] == ' ') {
			*out = strtod(l + n + 1, NULL);
			return 0;
		}
	return -1;
}

static int S_failures_to_read;

/* Every figure read, so the fixture can be rewritten from published.yaml. */
static struct { char path[96]; double v; } S_used[ROWS_MAX];
static int S_nused;

static void S_remember(const char *path, double v)
{
	for (int i = 0; i < S_nused; i++)
		if (strcmp(S_used[i].path, path) == 0)
			return;
	if (S_nused < ROWS_MAX) {
		snprintf(S_used[S_nused].path, sizeof S_used[0].path, "%s", path);
		S_used[S_nused++].v = v;
	}
}

/* A published figure.  The YAML wins; the fixture must agree with it. */
static double S_ref(const char *path)
{
	double y, f;
	int hy = S_yaml_lookup(path, &y) == 0, hf = S_fixture_lookup(path, &f) == 0;
	if (hy && hf && fabs(y - f) > 1e-9 * fabs(y))
		fprintf(stderr, "validate: %s is %.10g in published.yaml but %.10g in %s: refresh the fixture\n",
		        path, y, f, FIXTURE);
	if (hy) {
		S_remember(path, y);
		return y;
	}
	if (hf) {
		S_remember(path, f);
		return f;
	}
	fprintf(stderr, "validate: %s: no such figure in published.yaml or %s\n", path, FIXTURE);
	S_failures_to_read++;
	return NAN;
}

/* ---- running trainbudget --------------------------------------------- */

static tb_budget S_b;

/* Loads the YAML built from fmt and computes its budget into S_b. */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static int S_run(const char *fmt, ...)
{
	char yaml[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(yaml, sizeof yaml, fmt, ap);
	va_end(ap);
	tb_diags d;
	tb_diags_init(&d);
	tb_scenario *sc = tb_scenario_load("validate.yaml", yaml, strlen(yaml), NULL, 0, &d);
	if (!sc) {
		char *msg = tb_diags_format(&d);
		fprintf(stderr, "validate: a validation scenario was rejected:\n%s\n%s", yaml, msg);
		free(msg);
		tb_diags_release(&d);
		memset(&S_b, 0, sizeof S_b);
		return -1;
	}
	tb_budget_compute(&sc->inputs, &S_b);
	tb_scenario_free(sc);
	tb_diags_release(&d);
	return 0;
}

/* ---- the table -------------------------------------------------------- */

typedef struct {
	char figure[160];
	double published, ours;
	char unit[24];
	int rel;            /* tolerance relative (1) or absolute (0) */
	double tol;
	char source[200];
	char note[240];
	int measured;       /* 0: a row with no trainbudget figure (not measured) */
} S_row;

static S_row S_rows[ROWS_MAX];
static int S_nrows;

#if defined(__GNUC__)
__attribute__((format(printf, 7, 8)))
#endif
static void S_add(const char *figure, double published, double ours, const char *unit,
                  int rel, double tol, const char *source_fmt, ...)
{
	if (S_nrows == ROWS_MAX)
		return;
	S_row *r = &S_rows[S_nrows++];
	memset(r, 0, sizeof *r);
	snprintf(r->figure, sizeof r->figure, "%s", figure);
	r->published = published;
	r->ours = ours;
	snprintf(r->unit, sizeof r->unit, "%s", unit);
	r->rel = rel;
	r->tol = tol;
	va_list ap;
	va_start(ap, source_fmt);
	vsnprintf(r->source, sizeof r->source, source_fmt, ap);
	va_end(ap);
	r->measured = 1;
}

static void S_note(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(S_rows[S_nrows - 1].note, sizeof S_rows[0].note, fmt, ap);
	va_end(ap);
}

static double S_error(const S_row *r)
{
	return r->rel ? (r->ours - r->published) / r->published : r->ours - r->published;
}

static int S_pass(const S_row *r)
{
	double e = S_error(r);
	return isfinite(e) && fabs(e) <= r->tol * (1 + 1e-12);
}

/* ---- the cases -------------------------------------------------------- */

static const char S_src_palm[] = "Chowdhery et al. 2022 (PaLM), arXiv:2204.02311, Table 3 and Sec. 4.1";

static void S_zero_figure1(void)
{
	const char *names[4] = { "baseline", "P_os", "P_os_g", "P_os_g_p" };
	if (S_run("title: ZeRO Figure 1\nmodel:\n  params: 7.5B\ntraining:\n  tokens: 1B\n"
	          "  precision: fp16-mixed\n  optimizer: adamw\nhardware:\n  gpu: a100-80gb\n  count: 64\n") != 0)
		return;
	for (int s = 0; s < 4; s++) {
		char path[96], fig[160];
		snprintf(path, sizeof path, "zero.figure1/expected.%s", names[s]);
		const tb_mem_items *m = &S_b.memory.zero[s].bytes;
		double states = m->weights + m->gradients + m->master_weights + m->optimizer;
		snprintf(fig, sizeof fig, "ZeRO stage %d: model states per GPU, 7.5B params, 64 GPUs, Adam (K = 12)", s);
		S_add(fig, S_ref(path), states / 1e9, "GB", 0, 0.05,
		      "Rajbhandari et al. 2020 (ZeRO), Figure 1; published.yaml zero.figure1");
	}
	S_note("Printed to one decimal; tolerance is that rounding");
}

static void S_zero_gpt2(void)
{
	if (S_run("title: ZeRO GPT-2\nmodel:\n  params: 1.5B\ntraining:\n  tokens: 1B\n"
	          "  precision: fp16-mixed\n  optimizer: adamw\nhardware:\n  gpu: v100-sxm2\n  count: 1\n") != 0)
		return;
	S_add("Mixed-precision Adam model states, GPT-2 1.5B", S_ref("zero.gpt2_1.5b/expected.model_states_GB"),
	      S_b.memory.model_states_bytes / 1e9, "GB", 1, 0.001,
	      "Rajbhandari et al. 2020 (ZeRO), Sec. 3.1; published.yaml zero.gpt2_1.5b");
}

static void S_chinchilla_table3(void)
{
	for (int i = 0; i < 9; i++) {
		char pp[96], pf[96], pt[96], fig[160];
		snprintf(pp, sizeof pp, "chinchilla.table3/expected.rows.%d.parameters", i);
		snprintf(pf, sizeof pf, "chinchilla.table3/expected.rows.%d.flops", i);
		snprintf(pt, sizeof pt, "chinchilla.table3/expected.rows.%d.tokens", i);
		double n = S_ref(pp), c = S_ref(pf), d = S_ref(pt);
		if (S_run("title: Chinchilla Table 3\nmodel:\n  params: %.17g\ntraining:\n  tokens: %.17g\n"
		          "hardware:\n  gpu: tpu-v4\n  count: 1024\n", n, d) != 0)
			continue;
		snprintf(fig, sizeof fig, "Training FLOPs 6ND, %.3g params on %.4g tokens", n, d);
		S_add(fig, c, S_b.flops.total_6nd, "FLOP", 1, 0.05,
		      "Hoffmann et al. 2022, Table 3; published.yaml chinchilla.table3");
		if (i == 3)
			S_note("The paper's 1.5T tokens for 67B is rounded (6ND/C = 1.047)");
	}
}

static void S_chinchilla_optimum(void)
{
	/* N = 1e11, D = 9.6e11: C = 6ND = 5.76e23, the Gopher budget. */
	if (S_run("title: Gopher budget\nmodel:\n  params: 100B\ntraining:\n  tokens: 960B\n"
	          "hardware:\n  gpu: tpu-v4\n  count: 1024\n") != 0)
		return;
	S_add("Approach-3 compute-optimal N at C = 5.76e23 (unrounded constants)",
	      S_ref("chinchilla.approach3_optimum_gopher_budget/expected.N_opt"),
	      S_b.chinchilla.run.params_fit, "params", 1, 0.02,
	      "Hoffmann et al. 2022, Eq. 4 and 10, Figure 4 caption (40B); published.yaml");
	S_add("Approach-3 compute-optimal D at C = 5.76e23",
	      S_ref("chinchilla.approach3_optimum_gopher_budget/expected.D_opt"),
	      S_b.chinchilla.run.tokens_fit, "tokens", 1, 0.02,
	      "Hoffmann et al. 2022, Eq. 4 and 10; published.yaml (derived)");
	for (int i = 0; i < 4; i++) {
		char pc[96], pn[96], fig[160];
		snprintf(pc, sizeof pc, "epoch.optimum_derived/expected.rows.%d.C", i);
		snprintf(pn, sizeof pn, "epoch.optimum_derived/expected.rows.%d.N_opt", i);
		double c = S_ref(pc);
		/* N fixed at 1e10, D chosen so 6ND = C */
		if (S_run("title: Epoch optimum\nmodel:\n  params: 10B\ntraining:\n  tokens: %.17g\n"
		          "hardware:\n  gpu: tpu-v4\n  count: 1024\n", c / 6e10) != 0)
			continue;
		snprintf(fig, sizeof fig, "Epoch AI refit: compute-optimal N at C = %.3g", c);
		S_add(fig, S_ref(pn), S_b.chinchilla.run.params_epoch, "params", 1, 0.01,
		      "Besiroglu et al. 2024, arXiv:2404.10102; published.yaml epoch.optimum_derived");
	}
}

/* Korthikanti Table 2 under its assumptions: GPT shape (plain 4h GeLU MLP,
 * LayerNorm, biases, learned positions), 16-bit activations, dropout, no
 * flash attention.  Per layer, per micro-batch, per GPU. */
static void S_korthikanti(const char *id, int layers, int hidden, int heads, int b)
{
	static const struct { const char *key, *label; int t; const char *sp, *ckpt; } modes[] = {
		{ "no_parallelism", "no parallelism", 1, "false", "none" },
		{ "tensor_parallel", "tensor parallel t=8", 8, "false", "none" },
		{ "tensor_plus_sequence_parallel", "tensor + sequence parallel", 8, "true", "none" },
		{ "tensor_parallel_selective", "tensor parallel + selective recompute", 8, "false", "selective" },
		{ "tensor_sequence_parallel_selective", "tensor + sequence parallel + selective", 8, "true", "selective" },
		{ "full_recompute", "full recompute", 1, "false", "full" },
	};
	for (size_t k = 0; k < sizeof modes / sizeof modes[0]; k++) {
		char path[128], fig[160];
		if (S_run("title: Korthikanti\nmodel:\n  layers: %d\n  hidden: %d\n  heads: %d\n"
		          "  ffn_hidden: %d\n  mlp: plain\n  norm: layernorm\n  bias: true\n"
		          "  positions: learned\n  max_positions: 2048\n  vocab: 51200\n"
		          "  tied_embeddings: true\ntraining:\n  tokens: 1B\n  seq_len: 2048\n"
		          "  micro_batch: %d\n  global_batch: %d\n  precision: fp16-mixed\n"
		          "  checkpointing: %s\n  flash_attention: false\n  dropout: true\n"
		          "hardware:\n  gpu: a100-80gb\n  count: 8\nparallelism:\n  tensor: %d\n"
		          "  sequence_parallel: %s\n",
		          layers, hidden, heads, 4 * hidden, b, b * 8, modes[k].ckpt, modes[k].t,
		          modes[k].sp) != 0)
			continue;
		snprintf(path, sizeof path, "korthikanti.act_per_layer.%s/expected.%s", id, modes[k].key);
		snprintf(fig, sizeof fig, "Activations per layer, %s config (h=%d, a=%d, s=2048, b=%d): %s",
		         id, hidden, heads, b, modes[k].label);
		S_add(fig, S_ref(path), S_b.memory.activations_per_layer_bytes / 1073741824.0, "GiB",
		      1, 1e-6, "Korthikanti et al. 2022, Table 2 formulas, Table 3 config; published.yaml");
	}
}

static void S_gpt3_flops(void)
{
	if (S_run("title: GPT-3\nmodel:\n  params: 175B\ntraining:\n  tokens: 300B\n"
	          "hardware:\n  gpu: a100-80gb\n  count: 1024\n") != 0)
		return;
	S_add("GPT-3 175B training compute (175B params x 300B tokens, 6ND)", 3.14e23,
	      S_b.flops.total_6nd, "FLOP", 1, 0.01,
	      "Brown et al. 2020 (GPT-3), arXiv:2005.14165, Table D.1 (3.14E+23 total train compute)");
	S_note("The paper's figure is 6ND with N and D as listed in Table D.1");
}

static void S_palm_mfu(void)
{
	/* 238.3K tokens/s at 2048 x 2048 tokens a step = 17.60094 s a step.
	 * Tensor (model) parallel 12 as in PaLM's 12-way model parallelism:
	 * 6144 / 12 = 512 replicas, 4 sequences each. */
	if (S_run("title: PaLM 540B\nmodel:\n  layers: 118\n  hidden: 18432\n  heads: 48\n"
	          "  kv_heads: 1\n  head_dim: 256\n  ffn_hidden: 73728\n  mlp: gated\n"
	          "  vocab: 256000\n  tied_embeddings: true\n  norm: layernorm\n  bias: false\n"
	          "training:\n  tokens: 780B\n  seq_len: 2048\n  global_batch: 2048\n  micro_batch: 1\n"
	          "  precision: bf16-mixed\n  optimizer: adafactor\nhardware:\n  gpu: tpu-v4\n"
	          "  count: 6144\nparallelism:\n  tensor: 12\nmeasured:\n  step_time: %.6f s\n",
	          2048.0 * 2048.0 / 238.3e3) != 0)
		return;
	S_add("PaLM 540B model FLOPs utilization from 238.3K tokens/s on 6144 TPU v4", 0.462,
	      S_b.time.achieved_mfu, "", 0, 0.005, "%s", S_src_palm);
	S_note("Model FLOPs per token 6N + 12LHQT (PaLM App. B; published.yaml palm.mfu_formula), "
	       "N from the Table 1 shape, Q = 256; peak 275 TFLOP/s bf16");
	S_add("PaLM 540B parameters from the Table 1 shape", S_ref("palm.table1/expected.rows.2.params_B") * 1e9,
	      S_b.params.total, "params", 1, 0.005, "%s", "Chowdhery et al. 2022, Table 1; published.yaml palm.table1");
}

/* Llama 2 Table 2: A100-80GB GPU-hours for 2T tokens.  One MFU for all
 * three (the mean of what each implies) shows how well one assumption
 * reconstructs the family. */
static void S_llama2(void)
{
	static const struct { const char *preset, *label; double hours; } m[] = {
		{ "llama-2-7b", "7B", 184320 }, { "llama-2-13b", "13B", 368640 },
		{ "llama-2-70b", "70B", 1720320 },
	};
	double implied[3], mean = 0;
	for (int i = 0; i < 3; i++) {
		if (S_run("title: Llama 2\nmodel:\n  preset: %s\ntraining:\n  tokens: 2T\n  seq_len: 4096\n"
		          "  global_batch: 1024\n  micro_batch: 1\nhardware:\n  gpu: a100-80gb\n  count: 2048\n"
		          "  mfu: 0.4\nparallelism:\n  tensor: 8\n", m[i].preset) != 0)
			return;
		implied[i] = 0.4 * S_b.time.gpu_hours[1] / m[i].hours;
		mean += implied[i] / 3;
	}
	for (int i = 0; i < 3; i++) {
		char fig[160];
		if (S_run("title: Llama 2\nmodel:\n  preset: %s\ntraining:\n  tokens: 2T\n  seq_len: 4096\n"
		          "  global_batch: 1024\n  micro_batch: 1\nhardware:\n  gpu: a100-80gb\n  count: 2048\n"
		          "  mfu: %.6f\nparallelism:\n  tensor: 8\n", m[i].preset, mean) != 0)
			return;
		snprintf(fig, sizeof fig, "Llama 2 %s pre-training GPU-hours, 2T tokens, A100-80GB",
		         m[i].label);
		S_add(fig, m[i].hours, S_b.time.gpu_hours[1], "GPU-h", 1, 0.10,
		      "Touvron et al. 2023 (Llama 2), arXiv:2307.09288, Table 2 (Sec. 2.2.1)");
		S_note("One MFU for the family, %.3f (the mean of the implied %.3f, %.3f, %.3f), "
		       "on 312 TFLOP/s bf16", mean, implied[0], implied[1], implied[2]);
	}
}

/* Megatron-LM Sec. 5.1: time = 8TP / (nX), X = 140 TFLOP/s per GPU
 * counting the recomputation forward.  With full checkpointing the same
 * throughput is MFU = (X / peak) x model/hardware FLOPs. */
static void S_megatron(void)
{
	static const char y[] = "title: Megatron GPT-3\nmodel:\n  preset: gpt3-175b\ntraining:\n"
		"  tokens: 300B\n  seq_len: 2048\n  global_batch: 1536\n  micro_batch: 1\n"
		"  checkpointing: full\nhardware:\n  gpu: a100-80gb\n  count: 1024\n  mfu: %.6f\n"
		"parallelism:\n  tensor: 8\n  pipeline: 16\n";
	if (S_run(y, 0.4) != 0)
		return;
	double ratio = S_b.flops.total_model / S_b.flops.total_hardware;
	double mfu = 140e12 / 312e12 * ratio;
	if (S_run(y, mfu) != 0)
		return;
	S_add("Megatron-LM: GPT-3 175B on 300B tokens, 1024 A100, 140 TFLOP/s per GPU", 34,
	      S_b.time.seconds[1] / 86400, "days", 1, 0.05,
	      "Narayanan et al. 2021 (Megatron-LM), arXiv:2104.04473, Sec. 5.1 (Eq. 4: ~34 days)");
	S_note("MFU = 140/312 x model/hardware FLOPs = %.3f (full recomputation, as Eq. 3)", mfu);
}

/* DeepSeek-V3 Table 1: 2664K H800 GPU-hours of pre-training on 14.8T
 * tokens (2788K with 119K context extension and 5K post-training).  37B
 * active of 671B; H800 has the H100 SXM's dense peak (989.4 TFLOP/s bf16). */
static void S_deepseek(void)
{
	if (S_run("title: DeepSeek-V3\nmodel:\n  params: 37B\ntraining:\n  tokens: 14.8T\n"
	          "  global_batch: 4096\nhardware:\n  gpu: h100-sxm\n  count: 2048\n  mfu: 0.35\n") != 0)
		return;
	S_add("DeepSeek-V3 pre-training H800 GPU-hours, 37B active params, 14.8T tokens", 2664e3,
	      S_b.time.gpu_hours[1], "GPU-h", 1, 0.10,
	      "DeepSeek-AI 2024 (DeepSeek-V3), arXiv:2412.19437, Table 1 (2664K of 2788K total)");
	S_note("ASSUMED MFU 0.35 on the bf16 dense peak (DeepSeek publishes none; trained in FP8, "
	       "so 0.175 of the FP8 peak); 6ND at active params; H100 SXM peaks for the H800");
	S_add("DeepSeek-V3 total H800 GPU-hours (adds 119K context extension, 5K post-training)",
	      2788e3, S_b.time.gpu_hours[1] + 124e3, "GPU-h", 1, 0.10,
	      "DeepSeek-AI 2024 (DeepSeek-V3), arXiv:2412.19437, Table 1");
	S_note("The 124K of later stages are taken from the table, not estimated");
}

/* PEFT's printed trainable counts (tests/test_tuning.c has the sources of
 * each) and QLoRA's bits per weight. */
static void S_peft(void)
{
	static const struct { const char *name, *model, *lora; double trainable; const char *src; } c[] = {
		{ "Llama 2 7B, r=8 on q_proj and v_proj", "{preset: llama-2-7b}",
		  "{rank: 8, targets: [q_proj, v_proj]}", 4194304,
		  "PEFT LoRA example output (trainable params: 4,194,304 || all params: 6,742,609,920)" },
		{ "Llama 3 8B, r=16 all-linear", "{preset: llama-3-8b}",
		  "{rank: 16, targets: all-linear}", 41943040,
		  "PEFT print_trainable_parameters, Llama 3 8B all-linear (41,943,040 || 8,072,204,288)" },
		{ "Llama 3.2 3B, r=32 on q_proj and v_proj",
		  "{layers: 28, hidden: 3072, heads: 24, kv_heads: 8, head_dim: 128, ffn_hidden: 8192, "
		  "vocab: 128256, tied_embeddings: true}",
		  "{rank: 32, targets: [q_proj, v_proj]}", 9175040,
		  "huggingface/peft method_comparison/MetaMathQA/results/lora--llama-3.2-3B-rank32.json" },
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		if (S_run("title: peft\nmodel: %s\ntraining:\n  tokens: 1M\n  method: lora\n  lora: %s\n"
		          "hardware:\n  gpu: h100-sxm\n  count: 1\n", c[i].model, c[i].lora) != 0)
			continue;
		char fig[160];
		snprintf(fig, sizeof fig, "LoRA trainable parameters, %s", c[i].name);
		S_add(fig, c[i].trainable, S_b.params.trainable, "params", 1, 0, "%s", c[i].src);
	}
	if (S_run("title: qlora\nmodel: {preset: llama-2-7b}\ntraining:\n  tokens: 1M\n  method: qlora\n"
	          "hardware:\n  gpu: h100-sxm\n  count: 1\n") != 0)
		return;
	/* the linear layers' bytes over their count, in bits */
	double lin = S_b.params.matrices;
	double other = S_b.params.total - lin;
	double bits = (S_b.memory.frozen_weights_bytes - 2 * other) / lin * 8;
	S_add("QLoRA storage of a frozen linear weight: NF4, blocks of 64, double quantization", 4.127,
	      bits, "bits", 0, 0.0005, "Dettmers et al. 2023 (QLoRA), arXiv:2305.14314, Sec. 3 "
	      "(0.127 bits of constants a parameter)");
}

/* The GEMM law (perf.h) on the B300 against Transformer Engine's GEMM
 * profiling guide: the 12 GEMMs of a layer of hidden 4,096 and MLP 16,384
 * at 15,872 tokens, inputs pre-quantized (the kernels alone), with the
 * card's MAMF ceilings and backward ratios (gpus.c).  The backward ratios
 * and the fp4 fraction come from the same table, so the forward rows are
 * the test of the ceilings and the whole-layer rows of the assembly; the
 * NVFP4 figure, which set the fraction, is left out. */
static void S_gemm_layer(void)
{
	const tb_gpu_node *n = tb_gpus_node("b300");
	const struct {
		const char *what;
		tb_dtype d;
		tb_fp8_recipe r;
		double bytes, ceiling, fwd_ms, layer_ms;
	} c[] = {
		{ "bf16", TB_DTYPE_BF16, TB_FP8_AUTO, 2, n->matmul_ceiling, 4.250, 13.102 },
		{ "fp8 per tensor", TB_DTYPE_FP8, TB_FP8_TENSORWISE, 1, n->matmul_ceiling_fp8, 2.158, 6.812 },
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		double f, all = tb_te_gemm_layer_s("b300", c[i].d, c[i].r, c[i].bytes, c[i].ceiling, &f);
		char fig[160];
		snprintf(fig, sizeof fig, "B300 GEMMs of a 5B layer at 15,872 tokens, %s, forward", c[i].what);
		S_add(fig, c[i].fwd_ms, 1e3 * f, "ms", 1, 0.10,
		      "Transformer Engine docs/examples/gemm_profiling (1609c890e, 2026-06), pre-quantized");
		snprintf(fig, sizeof fig, "B300 GEMMs of a 5B layer at 15,872 tokens, %s, forward and backward",
		         c[i].what);
		S_add(fig, c[i].layer_ms, 1e3 * all, "ms", 1, 0.10,
		      "Transformer Engine docs/examples/gemm_profiling (1609c890e, 2026-06), pre-quantized");
	}
}

/* The expert dispatch through NCCL's all-to-all on H100, against NVIDIA's
 * Megatron Core MoE report (arXiv:2603.07685v2 Table 7: a DeepSeek-V3
 * layer, 4,096 tokens a GPU, 8 of 256 experts, hidden 7,168 in bf16; the
 * communication alone).  H100's links are priced at their ring figures,
 * none of them set from this table (GB200's all-to-all fraction is, and
 * its rows are pinned in test_perf_blocks.c, not here). */
static void S_dispatch(void)
{
	const tb_gpu_node *nd = tb_gpus_node("h100-sxm");
	tb_perf_hw hw;
	memset(&hw, 0, sizeof hw);
	tb_perf_hw_links(nd, &hw);
	static const int64_t ep[] = { 8, 16, 32, 64 };
	static const double us[] = { 1265, 5774, 8059, 9164 };
	for (size_t i = 0; i < sizeof ep / sizeof ep[0]; i++) {
		int64_t g = ep[i] < nd->gpus ? ep[i] : nd->gpus;
		double s = tb_perf_collective_s(TB_COLL_ALL_TO_ALL, 4096.0 * 8 * 7168 * 2, ep[i], g, &hw, NULL);
		char fig[160];
		snprintf(fig, sizeof fig, "H100 expert dispatch (NCCL all-to-all) of a DeepSeek-V3 layer, "
		         "4,096 tokens a GPU, EP %lld (%lld node%s)", (long long)ep[i],
		         (long long)((ep[i] + nd->gpus - 1) / nd->gpus), ep[i] > nd->gpus ? "s" : "");
		S_add(fig, us[i], 1e6 * s, "us", 1, 0.10,
		      "NVIDIA, Scalable Training of MoE Models with Megatron Core, arXiv:2603.07685v2 Table 7");
	}
}

/* DeepSeek-V3's Table 1 split: the context extension (Sec. 4.3's two
 * phases of 1,000 steps) at the MFU the pre-training's GPU-hours imply. */
static void S_deepseek_stages(void)
{
	static const char y[] =
		"title: DeepSeek-V3 stages\n"
		"model: {preset: deepseek-v3}\n"
		"training: {seq_len: 4096, global_batch: 15360, precision: fp8-mixed, checkpointing: full}\n"
		"hardware: {gpu: h800, count: 2048, mfu: 0.22}\n"
		"parallelism: {tensor: 1, pipeline: 16, context: 1, expert: 64, zero: 1, "
		"overlap_ep: true, dispatcher: deepep}\n"
		"stages:\n"
		"  - {name: pre-training, training: {tokens: 14.8T}}\n"
		"  - {name: 32K, training: {tokens: 62914560000, seq_len: 32k, global_batch: 1920}}\n"
		"  - {name: 128K, training: {tokens: 62914560000, seq_len: 128k, global_batch: 480}}\n";
	tb_diags d;
	tb_diags_init(&d);
	tb_scenario *sc = tb_scenario_load("validate.yaml", y, strlen(y), NULL, 0, &d);
	if (!sc) {
		char *msg = tb_diags_format(&d);
		fprintf(stderr, "validate: the staged DeepSeek-V3 scenario was rejected:\n%s", msg);
		free(msg);
		tb_diags_release(&d);
		return;
	}
	tb_budget_compute_answer(&sc->inputs, &sc->inputs, &S_b);
	tb_budget_compute_stages(&sc->inputs, sc->stages, sc->nstages, &S_b);
	double pre = S_b.stages[0].gpu_hours;
	double ext = S_b.stages[1].gpu_hours + S_b.stages[2].gpu_hours;
	S_add("DeepSeek-V3 context extension H800 GPU-hours (32K x 1,920 then 128K x 480 sequences, "
	      "1,000 steps each), at the MFU its pre-training implies", 119e3,
	      pre > 0 ? ext * 2664e3 / pre : 0, "GPU-h", 1, 0.10,
	      "DeepSeek-AI 2024 (DeepSeek-V3), arXiv:2412.19437, Table 1 and Sec. 4.3");
	S_note("Stages priced alone at one MFU, scaled so pre-training gives its 2,664K; what is "
	       "checked is how the cost grows with the sequence (attention at 32K and 128K)");
	tb_scenario_free(sc);
	tb_diags_release(&d);
}

/* Fine-tuning memory against the tables users check it with.  They state
 * no precision and no run (sequence, batch, checkpointing), so they are
 * compared, not passed or failed: one minimal run for all of them. */
static void S_finetune_tables(FILE *o)
{
	static const struct { const char *table, *preset, *method; double gb; } c[] = {
		{ "LLaMA-Factory (README, Hardware Requirement)", "llama-2-7b", "lora", 16 },
		{ "LLaMA-Factory (README, Hardware Requirement)", "llama-2-7b", "qlora", 6 },
		{ "LLaMA-Factory (README, Hardware Requirement)", "llama-2-70b", "lora", 160 },
		{ "LLaMA-Factory (README, Hardware Requirement)", "llama-2-70b", "qlora", 48 },
		{ "Unsloth (requirements page, \"absolute minimum\")", "llama-3-8b", "lora", 22 },
		{ "Unsloth (requirements page, \"absolute minimum\")", "llama-3-8b", "qlora", 6 },
		{ "Unsloth (requirements page, \"absolute minimum\")", "llama-3-70b", "lora", 164 },
		{ "Unsloth (requirements page, \"absolute minimum\")", "llama-3-70b", "qlora", 41 },
	};
	fprintf(o, "\n## Fine-tuning memory against published tables\n\n"
	        "The tables users weigh this tool against give one figure per model size and method, "
	        "with no sequence length, batch or recomputation stated and no precision; they are "
	        "compared here, not passed or failed. trainbudget's figure is one minimal run for all: "
	        "one GPU, micro-batch 1 of 2,048 tokens, full recomputation, LoRA r=16 on every linear "
	        "layer, adapters in fp32 with AdamW, the default 2 GiB for the CUDA context and "
	        "allocator.\n\n"
	        "| Table | Model | Method | Published | trainbudget | Difference |\n"
	        "|---|---|---|---:|---:|---:|\n");
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		if (S_run("title: table\nmodel: {preset: %s}\ntraining:\n  tokens: 10M\n  seq_len: 2048\n"
		          "  global_batch: 8\n  micro_batch: 1\n  checkpointing: full\n  method: %s\n"
		          "  lora: {rank: 16, targets: all-linear}\nhardware:\n"
		          "  gpu: {name: big, memory: 1000GB, bf16: 989T, bandwidth: 3TB/s}\n  count: 1\n"
		          "parallelism: {tensor: 1, pipeline: 1, zero: 0}\n", c[i].preset, c[i].method) != 0)
			continue;
		double ours = S_b.memory.per_gpu.total / 1e9;
		fprintf(o, "| %s | %s | %s | %g GB | %.1f GB | %+.0f%% |\n", c[i].table, c[i].preset,
		        c[i].method, c[i].gb, ours, (ours - c[i].gb) / c[i].gb * 100);
	}
	fprintf(o, "\nWhere they part: the fp32 logits of the cross-entropy (1.05 GB at 2,048 tokens "
	        "of Llama 3's 128,256-token vocabulary) and the 2 GiB context are most of the small "
	        "QLoRA rows' excess; Unsloth's minimum computes the loss in chunks and offloads the "
	        "checkpointed activations, which trainbudget does not model. The 16-bit rows agree "
	        "within 10%%.\n");
}

/* ---- output ----------------------------------------------------------- */

/* GPU-hours grouped in thousands (184,320), the rest to 4 significant
 * digits; fractions as percentages. */
static void S_num(FILE *o, double v, const char *unit)
{
	if (!isfinite(v)) {
		fputs("n/a", o);
	} else if (unit[0] == '\0') {
		fprintf(o, "%.2f%%", v * 100);
	} else if (strcmp(unit, "GPU-h") == 0 && v >= 0 && v < 1e12) {
		char d[32], g[48];
		int n = snprintf(d, sizeof d, "%.0f", v), k = 0;
		for (int i = 0; i < n; i++) {
			if (i && (n - i) % 3 == 0)
				g[k++] = ',';
			g[k++] = d[i];
		}
		g[k] = '\0';
		fprintf(o, "%s %s", g, unit);
	} else {
		fprintf(o, "%.4g %s", v, unit);
	}
}

static int S_write(const char *path, const char *refsrc)
{
	FILE *o = fopen(path, "w");
	if (!o) {
		perror(path);
		return 2;
	}
	int fails = 0;
	fprintf(o, "# Validation\n\n"
	        "Written by `make validate` (tests/validate.c): each row is a scenario run through "
	        "trainbudget's loader and calculators and compared with a published figure. The run "
	        "fails when any error leaves its tolerance. Reference figures were read from %s.\n\n"
	        "| # | Figure | Published | trainbudget | Error | Tolerance | Source | Result |\n"
	        "|---:|---|---:|---:|---:|---:|---|---|\n", refsrc);
	for (int i = 0; i < S_nrows; i++) {
		S_row *r = &S_rows[i];
		int ok = S_pass(r);
		fails += !ok;
		fprintf(o, "| %d | %s%s%s | ", i + 1, r->figure, r->note[0] ? ". " : "", r->note);
		S_num(o, r->published, r->unit);
		fputs(" | ", o);
		S_num(o, r->ours, r->unit);
		double e = S_error(r);
		if (!isfinite(e))
			fputs(" | n/a", o);
		else if (r->rel)
			fprintf(o, " | %+.2f%%", e * 100);
		else if (r->unit[0] == '\0')
			fprintf(o, " | %+.2f pp", e * 100);
		else
			fprintf(o, " | %+.3g %s", e, r->unit);
		if (r->rel)
			fprintf(o, " | ±%g%%", r->tol * 100);
		else if (r->unit[0] == '\0')
			fprintf(o, " | ±%g pp", r->tol * 100);
		else
			fprintf(o, " | ±%g %s", r->tol, r->unit);
		fprintf(o, " | %s | %s |\n", r->source, ok ? "pass" : "**FAIL**");
		printf("validate: %-4s %s: published %.6g, trainbudget %.6g\n", ok ? "ok" : "FAIL",
		       r->figure, r->published, r->ours);
	}
	fprintf(o, "| %d | Measured PyTorch runs (peak memory, step time, MFU) | not measured | — | — | — | "
	        "issue 6 | **no GPU machine in this session: no measured runs, none invented** |\n",
	        S_nrows + 1);
	fprintf(o, "\n%d of %d figures within tolerance.\n\n"
	        "Notes: GB = 1e9 bytes, GiB = 2^30 bytes. Percentages in the error column are relative "
	        "errors (ours − published) / published; \"pp\" are percentage points. Rows that need an "
	        "assumption (Llama 2, Megatron-LM, DeepSeek-V3) state it; the Llama 2 MFU is one value "
	        "fitted to the three published figures, so those rows show how far one assumption "
	        "carries, not an independent prediction.\n", S_nrows - fails, S_nrows);
	S_finetune_tables(o);
	fclose(o);
	return fails;
}

static char *S_slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *s = NULL;
	size_t n = 0, cap = 0;
	int c;
	while ((c = fgetc(f)) != EOF) {
		if (n + 2 > cap) {
			cap = cap ? 2 * cap : 4096;
			char *t = realloc(s, cap);
			if (!t) {
				free(s);
				fclose(f);
				return NULL;
			}
			s = t;
		}
		s[n++] = (char)c;
	}
	fclose(f);
	if (s)
		s[n] = '\0';
	return s;
}

int main(int argc, char **argv)
{
	if (argc < 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: validate OUT.md [published.yaml]\n");
		return 2;
	}
	const char *ref = argc > 2 ? argv[2] : "../shared/reference/published.yaml";
	char *text = S_slurp(ref);
	S_fix = S_slurp(FIXTURE);
	char refsrc[300];
	if (text) {
		yaml_parser_t p;
		yaml_parser_initialize(&p);
		yaml_parser_set_input_string(&p, (const unsigned char *)text, strlen(text));
		if (yaml_parser_load(&p, &S_doc) && yaml_document_get_root_node(&S_doc))
			S_have_doc = 1;
		else
			fprintf(stderr, "validate: %s: YAML error at line %zu: %s\n", ref,
			        p.problem_mark.line + 1, p.problem ? p.problem : "?");
		yaml_parser_delete(&p);
		snprintf(refsrc, sizeof refsrc, "`%s` (checked against `%s`)", ref, FIXTURE);
	} else {
		fprintf(stderr, "validate: %s not found (CI keeps it at ../shared/reference/published.yaml "
		        "relative to the repository root); using the copied figures in %s\n", ref, FIXTURE);
		snprintf(refsrc, sizeof refsrc, "`%s` (published.yaml was absent)", FIXTURE);
	}
	if (!S_have_doc && !S_fix) {
		fprintf(stderr, "validate: neither %s nor %s: nothing to validate against\n", ref, FIXTURE);
		return 2;
	}

	S_gpt3_flops();
	S_palm_mfu();
	S_llama2();
	S_megatron();
	S_deepseek();
	S_zero_figure1();
	S_zero_gpt2();
	S_chinchilla_table3();
	S_chinchilla_optimum();
	S_korthikanti("22B", 48, 6144, 64, 4);
	S_korthikanti("175B", 96, 12288, 96, 1);
	S_peft();
	S_deepseek_stages();
	S_gemm_layer();
	S_dispatch();

	int fails = S_write(argv[1], refsrc);
	/* TB_VALIDATE_WRITE_FIXTURE=1: refresh the copy of the figures used. */
	const char *wf = getenv("TB_VALIDATE_WRITE_FIXTURE");
	if (wf && strcmp(wf, "1") == 0 && S_have_doc) {
		FILE *o = fopen(FIXTURE, "w");
		if (!o) {
			perror(FIXTURE);
			return 2;
		}
		fprintf(o, "# The published.yaml figures tests/validate.c uses, as CASE-ID/PATH VALUE.\n"
		        "# Copied from ../shared/reference/published.yaml (sources there and in\n"
		        "# docs/validation.md); rewritten by TB_VALIDATE_WRITE_FIXTURE=1 make validate.\n");
		for (int i = 0; i < S_nused; i++)
			fprintf(o, "%s %.17g\n", S_used[i].path, S_used[i].v);
		fclose(o);
		printf("validate: wrote %s (%d figures)\n", FIXTURE, S_nused);
	}
	if (S_have_doc)
		yaml_document_delete(&S_doc);
	free(text);
	free(S_fix);
	printf("validate: wrote %s: %d of %d figures within tolerance\n", argv[1], S_nrows - fails, S_nrows);
	if (S_failures_to_read)
		return 2;
	return fails ? 1 : 0;
}
