/* validate_runs.c: the published runs of validate_perf, as the step-time
 * model sees them (validate_runs.h).
 *
 * The runs are ../shared/reference/runs.yaml, copied verbatim to the top
 * of tests/fixtures/runs.yaml so a clean clone can rebuild the table (the
 * copy is compared with the reference when both are present), followed by
 * the modern runs found since (kind: generic rows, 2023-2025), which
 * validate_perf.c scores apart.  The published figures (layout, batch,
 * measured speed) are read from that file; what a row leaves out (a shape
 * printed only in the group's comment, a micro-batch size nobody
 * published, the framework's overlap behaviour) is completed here, row
 * group by row group, and each completion is written into the table as
 * an assumption.
 *
 * Every published speed becomes a step time with its source's own FLOP
 * formula (never a raw TFLOP/s comparison): Narayanan et al. 2021 Eq. (3)
 * for Megatron-LM and BLOOM's TFLOP/s, Korthikanti et al. 2022's model
 * FLOPs for its MFU, tokens/s per GPU as printed by MosaicML. */
#include "validate_runs.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "trainbudget/budget.h"
#include "trainbudget/goodput.h"
#include "trainbudget/gpus.h"
#include "trainbudget/inputs.h"
#include "trainbudget/perf.h"

#define KEYS_MAX 56

/* ---- the runs file: a sequence of flat mappings ------------------------ */

typedef struct S_yrow {
	int n;
	char key[KEYS_MAX][24];
	char val[KEYS_MAX][96];
} S_yrow;

static S_yrow S_y[TB_VRUNS_ROWS_MAX];
int tb_vruns_nrows;

char *tb_vruns_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t cap = 0, n = 0;
	for (;;) {
		if (n + 4096 + 1 > cap) {
			cap = cap ? 2 * cap : 16384;
			char *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		size_t got = fread(buf + n, 1, 4096, f);
		n += got;
		if (got < 4096)
			break;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static const char *S_get(const S_yrow *r, const char *key);

/* Whether key's value may be cut to fit (S_yrow.val): free text only. */
static bool S_free_text(const char *key)
{
	return strcmp(key, "src") == 0 || strcmp(key, "assumed") == 0 || strcmp(key, "note") == 0;
}

int tb_vruns_load(const char *text, size_t len)
{
	yaml_parser_t p;
	yaml_document_t doc;
	if (!yaml_parser_initialize(&p))
		return -1;
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	if (!yaml_parser_load(&p, &doc)) {
		yaml_parser_delete(&p);
		return -1;
	}
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	int rc = -1;
	if (root && root->type == YAML_SEQUENCE_NODE) {
		rc = 0;
		for (yaml_node_item_t *it = root->data.sequence.items.start;
		     it < root->data.sequence.items.top; it++) {
			yaml_node_t *m = yaml_document_get_node(&doc, *it);
			if (!m || m->type != YAML_MAPPING_NODE)
				continue;
			/* a row left out would shift every group's figures unseen */
			if (tb_vruns_nrows == TB_VRUNS_ROWS_MAX ||
			    m->data.mapping.pairs.top - m->data.mapping.pairs.start > KEYS_MAX) {
				fprintf(stderr, "runs.yaml: more than %d rows or %d keys a row; "
				        "raise TB_VRUNS_ROWS_MAX or KEYS_MAX\n", TB_VRUNS_ROWS_MAX, KEYS_MAX);
				rc = -1;
				break;
			}
			S_yrow *r = &S_y[tb_vruns_nrows++];
			memset(r, 0, sizeof *r);
			for (yaml_node_pair_t *kv = m->data.mapping.pairs.start;
			     kv < m->data.mapping.pairs.top; kv++) {
				yaml_node_t *k = yaml_document_get_node(&doc, kv->key);
				yaml_node_t *v = yaml_document_get_node(&doc, kv->value);
				if (!k || !v || k->type != YAML_SCALAR_NODE || v->type != YAML_SCALAR_NODE)
					continue;
				/* a key or a value cut to fit would be read as another */
				const char *ks = (const char *)k->data.scalar.value;
				if (strlen(ks) >= sizeof r->key[0] || strcspn(ks, " ,.;:()'") != strlen(ks) ||
				    (!S_free_text(ks) && v->data.scalar.length >= sizeof r->val[0])) {
					/* (a text with a comma, unquoted, splits into such a key) */
					fprintf(stderr, "runs.yaml: row %d: key \"%.40s\" is not a name, or it or its "
					        "value is too long\n",
					        tb_vruns_nrows, ks);
					rc = -1;
				}
				snprintf(r->key[r->n], sizeof r->key[0], "%s", (char *)k->data.scalar.value);
				snprintf(r->val[r->n], sizeof r->val[0], "%s", (char *)v->data.scalar.value);
				r->n++;
			}
		}
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&p);
	/* an id cut to fit, or two alike, would score one row as another */
	for (int i = 0; rc == 0 && i < tb_vruns_nrows; i++) {
		const char *id = S_get(&S_y[i], "id"), *group = S_get(&S_y[i], "group");
		if (!id)
			continue;
		if (strlen(id) >= sizeof ((tb_vruns_case *)0)->id ||
		    (group && strlen(group) >= sizeof ((tb_vruns_case *)0)->group)) {
			fprintf(stderr, "runs.yaml: %s: the id or the group is longer than %zu or %zu bytes\n",
			        id, sizeof ((tb_vruns_case *)0)->id - 1, sizeof ((tb_vruns_case *)0)->group - 1);
			rc = -1;
		}
		for (int j = 0; rc == 0 && j < i; j++) {
			const char *o = S_get(&S_y[j], "id");
			if (o && strcmp(o, id) == 0) {
				fprintf(stderr, "runs.yaml: id %s appears twice\n", id);
				rc = -1;
			}
		}
	}
	return rc;
}

static const char *S_get(const S_yrow *r, const char *key)
{
	for (int i = 0; i < r->n; i++)
		if (strcmp(r->key[i], key) == 0)
			return r->val[i];
	return NULL;
}

/* A number, or NAN when absent or null. */
static double S_num(const S_yrow *r, const char *key)
{
	const char *v = S_get(r, key);
	if (!v || !*v || strcmp(v, "null") == 0 || strcmp(v, "~") == 0)
		return NAN;
	char *end;
	double d = strtod(v, &end);
	return end == v ? NAN : d;
}

/* ---- the runs as the model sees them ------------------------------------ */

tb_vruns_case tb_vruns_cases[TB_VRUNS_ROWS_MAX];
int tb_vruns_ncases;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void S_say(char *dst, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dst, cap, fmt, ap);
	va_end(ap);
}

/* Narayanan et al. 2021 Eq. (3): FLOPs of one step with full
 * recomputation, the convention of Megatron-LM's and BLOOM's TFLOP/s. */
static double S_eq3(double B, double s, double l, double h, double V)
{
	return 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
}

/* Korthikanti et al. 2022 Sec. 6: model FLOPs (no recomputation). */
static double S_kor_model(double B, double s, double l, double h, double V)
{
	return 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
}

typedef struct S_shape {
	double h, L, heads, ffn, V;
} S_shape;

/* Builds the perf input through the same adapter the program uses. */
static void S_input(tb_vruns_case *c, const char *gpu, const S_shape *sh,
                    double seq, double gbs, double mbs, double tp, double pp,
                    double vpp, double dp, int zero, tb_checkpointing ck,
                    bool sp, bool flash, bool dropout, tb_precision prec)
{
	tb_inputs in;
	memset(&in, 0, sizeof in);
	in.model.has_shape = true;
	in.model.layers = (int64_t)sh->L;
	in.model.hidden = (int64_t)sh->h;
	in.model.heads = (int64_t)sh->heads;
	in.model.kv_heads = (int64_t)sh->heads;
	in.model.head_dim = (int64_t)(sh->h / sh->heads);
	in.model.ffn_hidden = (int64_t)sh->ffn;
	in.model.vocab = (int64_t)sh->V;
	in.model.mlp = TB_MLP_PLAIN;
	/* GPT-3's and Megatron-LM's learned positions; MPT and BLOOM add
	 * ALiBi's bias inside attention: neither rotates anything */
	in.model.positions = TB_POS_LEARNED;
	in.training.seq_len = (int64_t)seq;
	in.training.global_batch = (int64_t)gbs;
	in.training.micro_batch = (int64_t)mbs;
	in.training.precision = prec;
	in.training.optimizer = TB_OPT_ADAMW;
	in.training.checkpointing = ck;
	in.training.flash_attention = flash;
	in.training.dropout = dropout;
	in.training.attention_flops = TB_ATTN_FLOPS_FULL;
	in.parallelism.tensor = (int64_t)tp;
	in.parallelism.pipeline = (int64_t)pp;
	in.parallelism.virtual_pipeline = (int64_t)vpp;
	in.parallelism.data = (int64_t)dp;
	in.parallelism.zero = zero;
	in.parallelism.sequence_parallel = sp;
	const tb_gpu *g = tb_gpus_find(gpu);
	if (g)
		in.hardware.gpu = *g;
	in.hardware.count = (int64_t)(tp * pp * dp);
	/* for the layout search: the run's tokens price nothing here (steps
	 * are compared), the overhead is the program's default */
	in.training.tokens = 300e9;
	in.hardware.overhead_bytes = 2.0 * 1073741824.0;
	in.hardware.mfu_predicted = true;
	in.hardware.price_per_gpu_hour = 1;
	in.hardware.pue = 1;
	in.parallelism.context = 1;
	in.parallelism.expert = 1;
	c->inputs = in;
	tb_perf_input_from(&in, &c->in);
}

static tb_vruns_case *S_new(const S_yrow *r, const char *group)
{
	tb_vruns_case *c = &tb_vruns_cases[tb_vruns_ncases++];
	memset(c, 0, sizeof *c);
	snprintf(c->id, sizeof c->id, "%s", S_get(r, "id"));
	snprintf(c->group, sizeof c->group, "%s", group);
	return c;
}

static const S_shape S_175B = { 12288, 96, 96, 4 * 12288, 51200 };
static const S_shape S_530B = { 20480, 105, 128, 4 * 20480, 51200 };

static void S_megatron(const S_yrow *r)
{
	tb_vruns_case *c = S_new(r, "Narayanan 2021 Table 1");
	S_shape sh = { S_num(r, "hidden"), S_num(r, "layers"), S_num(r, "heads"), 0, 51200 };
	sh.ffn = 4 * sh.h;
	double gpus = S_num(r, "gpus"), gbs = S_num(r, "gbs"), s = S_num(r, "seq");
	S_input(c, "a100-80gb", &sh, s, gbs, 1, S_num(r, "tp"), S_num(r, "pp"), 1,
	        S_num(r, "dp"), 0, TB_CKPT_FULL, false, false, true, TB_PREC_FP16_MIXED);
	c->in.overlap_dp = false;
	double tf = S_num(r, "tflops_gpu");
	c->published_s = S_eq3(gbs, s, sh.L, sh.h, sh.V) / (gpus * tf * 1e12);
	S_say(c->basis, sizeof c->basis, "%.0f TFLOP/s per GPU by Eq. (3)", tf);
	S_say(c->assumed, sizeof c->assumed,
	      "micro-batch 1, no interleaving (not published); fp16; gradient all-reduce after the backward (Megatron-LM 2021)");
}

static void S_korthikanti(const S_yrow *r)
{
	tb_vruns_case *c = S_new(r, "Korthikanti 2022 Table 5");
	S_shape sh = { S_num(r, "hidden"), S_num(r, "layers"), S_num(r, "heads"),
	               S_num(r, "ffn"), 51200 };
	if (isnan(sh.ffn))
		sh.ffn = 4 * sh.h;
	const char *mode = S_get(r, "mode");
	bool seqsel = mode && strcmp(mode, "seqsel") == 0;
	double gpus = S_num(r, "gpus"), s = S_num(r, "seq");
	double gbs = S_num(r, "gbs"), mbs = S_num(r, "mbs"), vpp = S_num(r, "vpp");
	bool agg = isnan(gbs);
	if (agg) {
		/* the 2240-GPU figure: the 530B layout of Table 5 at dp 8 */
		gbs = 2240, mbs = 1, vpp = 3, seqsel = true;
	}
	S_input(c, "a100-80gb", &sh, s, gbs, mbs, S_num(r, "tp"), S_num(r, "pp"), vpp,
	        S_num(r, "dp"), 0, seqsel ? TB_CKPT_SELECTIVE : TB_CKPT_FULL, seqsel, false,
	        true, TB_PREC_FP16_MIXED);
	c->in.overlap_dp = false;
	if (!agg) {
		c->published_s = S_num(r, "step_s");
		S_say(c->basis, sizeof c->basis, "step time %.2f s as printed", c->published_s);
		S_say(c->assumed, sizeof c->assumed, "vocabulary 51,200, fp16 (Table 3's GPT setting)");
	} else {
		double mfu = S_num(r, "mfu_pct") / 100;
		c->published_s = S_kor_model(gbs, s, sh.L, sh.h, sh.V) / (gpus * 312e12 * mfu);
		S_say(c->basis, sizeof c->basis, "MFU %.1f%% by the paper's model-FLOPs formula",
		      mfu * 100);
		S_say(c->assumed, sizeof c->assumed,
		      "global batch 2240, micro-batch 1, interleaving 3 (as ptd.530B.2240 and kor22.530B); "
		      "shape from the group's 530B rows");
	}
}

static void S_ptd(const S_yrow *r)
{
	const char *id = S_get(r, "id");
	bool big = strstr(id, "530B") != NULL;
	const S_shape *sh = big ? &S_530B : &S_175B;
	bool zero3 = strncmp(id, "zero3.", 6) == 0;
	tb_vruns_case *c = S_new(r, zero3 ? "Narayanan 2021 Table 2, ZeRO-3" : "Narayanan 2021 Table 2, PTD-P");
	double gpus = S_num(r, "gpus"), gbs = S_num(r, "gbs"), s = S_num(r, "seq");
	double mbs = S_num(r, "mbs");
	bool mbs_assumed = isnan(mbs);
	if (mbs_assumed)
		mbs = 1;
	double tp = S_num(r, "tp"), pp = S_num(r, "pp"), dp = S_num(r, "dp");
	if (zero3)
		dp = gpus;
	S_input(c, "a100-80gb", sh, s, gbs, mbs, tp, pp, 1, dp, zero3 ? 3 : 0,
	        TB_CKPT_FULL, false, false, true, TB_PREC_FP16_MIXED);
	c->in.overlap_dp = zero3;
	double tf = S_num(r, "tflops_gpu");
	c->published_s = S_eq3(gbs, s, sh->L, sh->h, sh->V) / (gpus * tf * 1e12);
	S_say(c->basis, sizeof c->basis, "%.0f TFLOP/s per GPU by Eq. (3)", tf);
	if (zero3)
		S_say(c->assumed, sizeof c->assumed,
		      "shape from the group comment; full recomputation (Eq. 3 counts it); "
		      "fp16; DeepSpeed prefetches the gathers (overlap)");
	else
		S_say(c->assumed, sizeof c->assumed,
		      "shape from the group comment; %sno interleaving (not published); fp16; "
		      "gradient all-reduce after the backward",
		      mbs_assumed ? "micro-batch 1 (null in the source), " : "");
}

static void S_mosaic(const S_yrow *r)
{
	tb_vruns_case *c = S_new(r, "MosaicML llm-foundry FSDP");
	const char *id = S_get(r, "id");
	S_shape sh = { 0, 0, 0, 0, 50368 };
	/* the MPT configurations of llm-foundry (d_model, n_layers, n_heads;
	 * expansion ratio 4), whose parameter counts the rows print */
	if (strstr(id, ".70b."))
		sh.h = 8192, sh.L = 80, sh.heads = 64;
	else if (strstr(id, ".30b."))
		sh.h = 7168, sh.L = 48, sh.heads = 64;
	else if (strstr(id, ".13b."))
		sh.h = 5120, sh.L = 40, sh.heads = 40;
	else if (strstr(id, ".7b."))
		sh.h = 4096, sh.L = 32, sh.heads = 32;
	else
		sh.h = 2048, sh.L = 24, sh.heads = 16;
	sh.ffn = 4 * sh.h;
	const char *gpu = strncmp(S_get(r, "gpu"), "H100", 4) == 0 ? "h100-sxm" : "a100-80gb";
	double gpus = S_num(r, "gpus"), s = S_num(r, "seq"), gbs = S_num(r, "gbs");
	const char *ac = S_get(r, "ac");
	bool ckpt = ac && strcmp(ac, "true") == 0;
	const char *prec = S_get(r, "prec");
	bool pure = prec && strstr(prec, "PURE");
	S_input(c, gpu, &sh, s, gbs, S_num(r, "mbs"), 1, 1, 1, gpus, 3,
	        ckpt ? TB_CKPT_FULL : TB_CKPT_NONE, false, true, false, TB_PREC_BF16_MIXED);
	if (pure)
		c->in.grad_bytes = 2;
	double tok = S_num(r, "tok_s_gpu");
	c->published_s = gbs * s / (gpus * tok);
	S_say(c->basis, sizeof c->basis, "%.0f tokens/s per GPU as printed", tok);
	S_say(c->assumed, sizeof c->assumed,
	      "MPT shape (d_model %.0f, %.0f layers, %.0f heads, vocabulary 50,368); flash attention; "
	      "no dropout; FSDP = ZeRO-3 with prefetch%s",
	      sh.h, sh.L, sh.heads, pure ? "; PURE reduces in bf16" : "; fp32 gradient reduction");
}

static void S_bloom(const S_yrow *r)
{
	tb_vruns_case *c = S_new(r, "BLOOM-176B batch ramp");
	S_shape sh = { 14336, 70, 112, 4 * 14336, 250880 };
	double gpus = S_num(r, "gpus"), gbs = S_num(r, "gbs"), s = S_num(r, "seq");
	S_input(c, "a100-80gb", &sh, s, gbs, S_num(r, "mbs"), S_num(r, "tp"),
	        S_num(r, "pp"), 1, S_num(r, "dp"), 1, TB_CKPT_FULL, false, false, false,
	        TB_PREC_BF16_MIXED);
	c->in.overlap_dp = false;
	/* Jean Zay: four Omni-Path 100 Gb/s links per node of 8 (BLOOM paper,
	 * arXiv:2211.05100, Sec. 3.4.1) */
	c->in.hw.network_bytes_per_s = 4 * 100e9 / 8 / 8;
	double tf = S_num(r, "tflops_gpu");
	c->published_s = S_eq3(gbs, s, sh.L, sh.h, sh.V) / (gpus * tf * 1e12);
	S_say(c->basis, sizeof c->basis, "%.0f TFLOP/s per GPU by Megatron-DeepSpeed's formula (= Eq. 3)", tf);
	S_say(c->assumed, sizeof c->assumed,
	      "shape and vocabulary from the group comment; network 4 x 100 Gb/s per node "
	      "(BLOOM paper Sec. 3.4.1); no dropout, no interleaving; DeepSpeed reduces after "
	      "the pipeline flush");
}

static void S_not_scored(const S_yrow *r, const char *why)
{
	tb_vruns_case *c = S_new(r, "aggregate figures (tier C)");
	c->set = TB_VRUNS_NOT_SCORED;
	snprintf(c->why_not, sizeof c->why_not, "%s", why);
}

/* ---- the modern runs: generic rows ------------------------------------- */

tb_vruns_case tb_vruns_modern[TB_VRUNS_ROWS_MAX];
int tb_vruns_nmodern;

/* A fused-or-eager key as scenarios write it: 1 eager, 0 fused, -1 not
 * written; anything else stops the harness. */
static int S_kernels(const S_yrow *r, const char *key)
{
	const char *v = S_get(r, key);
	if (!v)
		return -1;
	for (int eager = 0; eager < 2; eager++)
		if (strcmp(v, tb_kernels_name(eager)) == 0)
			return eager;
	fprintf(stderr, "validate: %s: %s \"%s\" unknown (fused or eager)\n", S_get(r, "id"), key, v);
	exit(1);
}

static bool S_is(const S_yrow *r, const char *key, const char *want);

/* ub_sms: the SMs each overlapped GEMM gives up as the run's userbuffers
 * config sets them, "proj_fprop=32 fc2_fprop=16" (the rest Transformer
 * Engine's defaults), or "none" (no SMs priced); anything else stops the
 * harness */
static void S_ub_sms(const S_yrow *r, tb_parallelism *p)
{
	const char *v = S_get(r, "ub_sms");
	if (!v)
		return;
	if (!S_is(r, "overlap_tp", "true")) {
		fprintf(stderr, "validate: %s: ub_sms without overlap_tp: true holds nothing\n", S_get(r, "id"));
		exit(1);
	}
	if (strcmp(v, "none") == 0) {
		p->overlap_tp_sms_set = (uint16_t)((1u << TB_UB_COUNT) - 1);
		memset(p->overlap_tp_sms, 0, sizeof p->overlap_tp_sms);
		return;
	}
	char buf[256], *save = NULL;
	snprintf(buf, sizeof buf, "%s", v);
	for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(w, '=');
		int g = 0;
		if (eq)
			for (*eq = '\0'; g < TB_UB_COUNT && strcmp(w, tb_ub_gemm_names[g]) != 0; g++)
				;
		char *end = NULL;
		long n = eq ? strtol(eq + 1, &end, 10) : -1;
		if (!eq || g == TB_UB_COUNT || !end || *end || n < 0 || n > 1024) {
			fprintf(stderr, "validate: %s: ub_sms \"%s\" unreadable (NAME=SMs ... or none)\n",
			        S_get(r, "id"), v);
			exit(1);
		}
		p->overlap_tp_sms[g] = (int16_t)n;
		p->overlap_tp_sms_set |= (uint16_t)(1u << g);
	}
}

static bool S_is(const S_yrow *r, const char *key, const char *want)
{
	const char *v = S_get(r, key);
	return v && strcmp(v, want) == 0;
}

static double S_or(double v, double dflt)
{
	return isnan(v) ? dflt : v;
}

/* A generic row (runs.yaml's schema comment) as the program would take
 * it: the row's card, shape, layout, framework and precision; what it
 * leaves out completed as written into `assumed`.  A whole-run aggregate
 * (GPU-hours for a token count) is scored where the layout, the batch and
 * the GPU count are printed, as the mean speed it implies.  Not scored: a
 * card the table does not have, an aggregate without its layout. */
/* A key with a closed set of values (names, NULL-ended) that the row
 * writes as none of them stops the run, so that a misspelt value is not
 * priced as the default. */
static void S_known(const S_yrow *r, const char *key, const char *const *names)
{
	const char *v = S_get(r, key);
	if (!v)
		return;
	for (const char *const *n = names; *n; n++)
		if (strcmp(v, *n) == 0)
			return;
	fprintf(stderr, "validate: %s: %s \"%s\" unknown; expected", S_get(r, "id"), key, v);
	for (const char *const *n = names; *n; n++)
		fprintf(stderr, " %s", *n);
	fprintf(stderr, "\n");
	exit(1);
}

static void S_generic(const S_yrow *r)
{
	tb_vruns_case *c = &tb_vruns_modern[tb_vruns_nmodern++];
	memset(c, 0, sizeof *c);
	snprintf(c->id, sizeof c->id, "%s", S_get(r, "id"));
	snprintf(c->group, sizeof c->group, "%s", S_get(r, "group") ? S_get(r, "group") : "?");
	c->set = TB_VRUNS_HELD;
	const char *gpu = S_get(r, "gpu");
	const tb_gpu *g = gpu ? tb_gpus_find(gpu) : NULL;
	double h = S_num(r, "hidden"), L = S_num(r, "layers"), heads = S_num(r, "heads");
	double gpus = S_num(r, "gpus"), seq = S_num(r, "seq"), gbs = S_num(r, "gbs");
	double step = S_num(r, "step_s"), tok = S_num(r, "tok_s_gpu");
	double mfu = S_num(r, "mfu_pct") / 100, tf = S_num(r, "tflops_gpu");
	double hours = S_num(r, "gpu_hours"), tokens = S_num(r, "tokens");
	const char *why = NULL, *rc = S_get(r, "recompute");
	if (!g)
		why = "card not in the table";
	else if (rc && strcmp(rc, "none") && strcmp(rc, "selective") && strcmp(rc, "selective-op") &&
	         strcmp(rc, "selective-deepseek") && strcmp(rc, "selective-moe") && strcmp(rc, "full"))
		why = "recomputation the model has no mode for (every k-th layer in full)";
	else if (isnan(h) || isnan(L) || isnan(heads) || isnan(seq) || isnan(gbs) || isnan(gpus))
		why = "shape, sequence or batch not published";
	else if (isnan(step) && isnan(tok) && isnan(mfu) && isnan(tf) &&
	         (isnan(hours) || isnan(tokens) || isnan(S_num(r, "pp"))))
		why = "whole-run aggregate (GPU-hours) without its layout";
	if (why) {
		c->set = TB_VRUNS_NOT_SCORED;
		snprintf(c->why_not, sizeof c->why_not, "%s", why);
		return;
	}
	double tp = S_or(S_num(r, "tp"), 1), pp = S_or(S_num(r, "pp"), 1), cp = S_or(S_num(r, "cp"), 1);
	double dp = S_or(S_num(r, "dp"), gpus / (tp * pp * cp));
	double ffn = S_num(r, "ffn"), kv = S_num(r, "kv_heads");
	bool gated = !isnan(ffn) && ffn != 4 * h;
	tb_inputs in;
	memset(&in, 0, sizeof in);
	in.model.has_shape = true;
	in.model.layers = (int64_t)L;
	in.model.hidden = (int64_t)h;
	in.model.heads = (int64_t)heads;
	in.model.kv_heads = (int64_t)S_or(kv, heads);
	in.model.head_dim = (int64_t)S_or(S_num(r, "head_dim"), h / heads);
	in.model.ffn_hidden = (int64_t)S_or(ffn, 4 * h);
	in.model.vocab = (int64_t)S_or(S_num(r, "vocab"), 51200);
	in.model.mlp = gated ? TB_MLP_GATED : TB_MLP_PLAIN;
	/* rotary unless the row says otherwise (every modern family here) */
	in.model.positions = S_is(r, "positions", "learned") ? TB_POS_LEARNED
	                     : S_is(r, "positions", "alibi") ? TB_POS_ALIBI : TB_POS_ROPE;
	double experts = S_or(S_num(r, "experts"), 0);
	if (experts > 1) {
		double width = S_or(S_num(r, "expert_ffn"), in.model.ffn_hidden);
		in.model.experts = (int64_t)experts;
		in.model.experts_per_token = (int64_t)S_or(S_num(r, "top_k"), 1);
		in.model.expert_ffn_hidden = (int64_t)width;
		in.model.shared_ffn_hidden = (int64_t)(S_or(S_num(r, "shared_experts"), 0) * width);
		in.model.dense_layers = (int64_t)S_or(S_num(r, "dense_layers"), 0);
		in.model.mtp_modules = (int64_t)S_or(S_num(r, "mtp"), 0);
		in.model.route_groups = (int64_t)S_or(S_num(r, "route_groups"), 0);
		in.model.route_groups_per_token = (int64_t)S_or(S_num(r, "route_groups_per_token"), 0);
		in.model.mlp = TB_MLP_GATED;    /* every mixture published since Mixtral */
	}
	/* local attention: window_layers of the layers see `window` keys back
	 * (gpt-oss's sliding 128 on every other layer) */
	in.model.window = (int64_t)S_or(S_num(r, "window"), 0);
	in.model.window_layers = in.model.window > 0 ? (int64_t)S_or(S_num(r, "window_layers"), L) : 0;
	if (S_is(r, "mla", "true")) {
		in.model.q_lora_rank = (int64_t)S_or(S_num(r, "q_lora_rank"), 0);
		in.model.kv_lora_rank = (int64_t)S_or(S_num(r, "kv_lora_rank"), 512);
		in.model.qk_nope_dim = (int64_t)S_or(S_num(r, "qk_nope_dim"), 128);
		in.model.qk_rope_dim = (int64_t)S_or(S_num(r, "qk_rope_dim"), 64);
		in.model.v_head_dim = (int64_t)S_or(S_num(r, "v_head_dim"), 128);
	}
	in.training.seq_len = (int64_t)seq;
	in.training.global_batch = (int64_t)gbs;
	in.training.micro_batch = (int64_t)S_or(S_num(r, "mbs"), 1);
	/* bf16-pure: weights and optimizer states in bf16 (torchtitan's
	 * training.dtype bfloat16) */
	S_known(r, "precision", (const char *const[]){ "bf16", "bf16-pure", "fp8", "fp4", NULL });
	in.training.precision = S_is(r, "precision", "fp8") ? TB_PREC_FP8_MIXED
	                        : S_is(r, "precision", "fp4") ? TB_PREC_FP4_MIXED
	                        : S_is(r, "precision", "bf16-pure") ? TB_PREC_BF16 : TB_PREC_BF16_MIXED;
	/* LoRA fine-tuning (MLPerf's Llama 2 70B LoRA): the adapters' rank,
	 * dropout and targets as the source's config sets them */
	if (S_is(r, "method", "lora")) {
		in.training.method = TB_METHOD_LORA;
		in.training.lora.rank = (int64_t)S_or(S_num(r, "lora_rank"), 16);
		in.training.lora.alpha = S_or(S_num(r, "lora_alpha"), 2.0 * (double)in.training.lora.rank);
		in.training.lora.dropout = S_or(S_num(r, "lora_dropout"), 0);
		/* the frozen weights as stored (NeMo's fp8_params: Transformer
		 * Engine's fp8_model_init) */
		const char *qs = S_get(r, "quantization");
		int q = 0;
		while (qs && q < TB_QUANT_COUNT && strcmp(qs, tb_quant_name((tb_quant)q)) != 0)
			q++;
		if (qs && q == TB_QUANT_COUNT) {
			fprintf(stderr, "validate: %s: quantization \"%s\" unknown\n", S_get(r, "id"), qs);
			exit(1);
		}
		in.training.quantization = qs ? (tb_quant)q : TB_QUANT_NONE;
		const char *t = S_get(r, "lora_targets");
		if (!t || strcmp(t, "all-linear") == 0) {
			in.training.lora.all_linear = true;
		} else {
			char buf[96], *save = NULL;
			snprintf(buf, sizeof buf, "%s", t);
			for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
				unsigned bit = tb_lora_target_parse(w);
				if (!bit) {
					fprintf(stderr, "validate: %s: lora target \"%s\" unknown\n",
					        S_get(r, "id"), w);
					exit(1);
				}
				in.training.lora.targets |= bit;
			}
		}
	}
	in.training.optimizer = TB_OPT_ADAMW;
	in.training.checkpointing = S_is(r, "recompute", "full") ? TB_CKPT_FULL
	                            : S_is(r, "recompute", "selective") || S_is(r, "recompute", "selective-op") ||
	                              S_is(r, "recompute", "selective-deepseek") ||
	                              S_is(r, "recompute", "selective-moe")
	                            ? TB_CKPT_SELECTIVE : TB_CKPT_NONE;
	/* selective-op: PyTorch's per-op policy as torchtitan writes it;
	 * selective-deepseek: DeepSeek-V3's norms, MLA up-projections and
	 * MoE SwiGLU; selective-moe: Megatron-LM's layernorm and moe modules */
	in.training.selective_policy = S_is(r, "recompute", "selective-op") ? TB_SELECTIVE_OP
	                               : S_is(r, "recompute", "selective-deepseek") ? TB_SELECTIVE_DEEPSEEK
	                               : S_is(r, "recompute", "selective-moe") ? TB_SELECTIVE_MOE
	                               : TB_SELECTIVE_ATTENTION;
	/* full of part of the layers: Megatron-LM's block method, or
	 * torchtitan's every k-th layer written as its count */
	in.training.recompute_layers = (int64_t)S_or(S_num(r, "recompute_layers"), 0);
	in.training.flash_attention = true;
	in.training.attention_kernel = S_is(r, "attention", "flash2") ? TB_ATTN_KERNEL_FLASH2
	                               : S_is(r, "attention", "cudnn") ? TB_ATTN_KERNEL_CUDNN
	                               : TB_ATTN_KERNEL_AUTO;
	in.training.attention_flops = TB_ATTN_FLOPS_CAUSAL;
	/* fp8 scaling as the source names it; auto: the framework's own */
	in.training.fp8_recipe = TB_FP8_AUTO;
	for (int k = TB_FP8_DELAYED; k <= TB_FP8_DEEPSEEK; k++)
		if (S_is(r, "fp8_recipe", tb_fp8_recipe_name((tb_fp8_recipe)k)))
			in.training.fp8_recipe = (tb_fp8_recipe)k;
	in.parallelism.tensor = (int64_t)tp;
	in.parallelism.pipeline = (int64_t)pp;
	in.parallelism.virtual_pipeline = (int64_t)S_or(S_num(r, "vpp"), 1);
	in.parallelism.context = (int64_t)cp;
	in.parallelism.expert = (int64_t)S_or(S_num(r, "ep"), 1);
	in.parallelism.overlap_ep = S_is(r, "overlap_ep", "true");
	in.parallelism.overlap_tp = S_is(r, "overlap_tp", "true");
	/* the parts of it the source's flags take out */
	in.parallelism.no_overlap_tp_qkv = S_is(r, "overlap_tp_qkv", "false");
	in.parallelism.no_overlap_tp_dgrad = S_is(r, "overlap_tp_dgrad", "false");
	S_ub_sms(r, &in.parallelism);
	in.parallelism.no_overlap_dp = S_is(r, "overlap_dp", "false");
	if (S_is(r, "cuda_graph", "full_iteration"))
		in.parallelism.cuda_graph = TB_CUDA_GRAPH_FULL_ITERATION;
	in.training.no_grad_accum_fusion = S_is(r, "grad_accum_fusion", "false");
	in.training.act_fp8_store = S_is(r, "fp8_act", "true");
	/* Megatron-LM's fp8 parameters (NeMo's FP8_PARAM_GATHER) */
	in.training.fp8_param_gather = S_is(r, "fp8_param_gather", "true");
	/* Megatron-LM's --fp8-output-proj (NeMo's FP8_OUTPUT_PROJ) */
	S_known(r, "fp8_head", (const char *const[]){ "true", NULL });
	in.training.fp8_head = S_is(r, "fp8_head", "true");
	S_known(r, "fp8_dpa", (const char *const[]){ "true", "delayed", "current", "mxfp8", NULL });
	in.training.fp8_attention = S_is(r, "fp8_dpa", "true") ? TB_FP8_ATTN_ON
	                            : S_is(r, "fp8_dpa", "delayed") ? TB_FP8_ATTN_DELAYED
	                            : S_is(r, "fp8_dpa", "current") ? TB_FP8_ATTN_CURRENT
	                            : S_is(r, "fp8_dpa", "mxfp8") ? TB_FP8_ATTN_MXFP8 : TB_FP8_ATTN_OFF;
	/* the cuDNN release the run's container ships (hardware.cudnn) */
	const char *cu = S_get(r, "cudnn");
	if (cu && !(in.hardware.cudnn_version = tb_gpus_cudnn_parse(cu))) {
		fprintf(stderr, "validate: %s: cudnn \"%s\" is not a release such as 9.21\n", S_get(r, "id"), cu);
		exit(1);
	}
	/* PyTorch eager's memory-bound kernels (torchtitan without compile) */
	in.training.eager_kernels = S_kernels(r, "kernels") == 1;
	/* the adapters alone: NeMo's unfused ParallelLinearAdapter under
	 * Transformer Engine's fused layer */
	int lk = S_kernels(r, "lora_kernels");
	if (lk >= 0)
		in.training.lora.kernels = lk ? TB_LORA_KERNELS_EAGER : TB_LORA_KERNELS_FUSED;
	/* the gradients' reduction dtype where the source sets it (NeMo's
	 * distributed_fused_adam grad_sync_dtype; FSDP's reduce_dtype, fp32
	 * under torchtitan's bf16 weights) */
	/* the loss as the source's code runs it (torchtitan before 2025-02
	 * never compiled it); not written: tb_cross_entropy_eager's default */
	S_known(r, "cross_entropy", (const char *const[]){ "fused", "eager", NULL });
	if (S_is(r, "cross_entropy", "eager"))
		in.training.cross_entropy = TB_CE_EAGER;
	else if (S_is(r, "cross_entropy", "fused"))
		in.training.cross_entropy = TB_CE_FUSED;
	S_known(r, "grad_dtype", (const char *const[]){ "bf16", "fp32", NULL });
	if (S_is(r, "grad_dtype", "bf16"))
		in.training.grad_dtype = TB_GRAD_BF16;
	else if (S_is(r, "grad_dtype", "fp32"))
		in.training.grad_dtype = TB_GRAD_FP32;
	/* forced balance (--moe-router-force-load-balancing) or dropped
	 * tokens where the source ran them; dropless, the frameworks'
	 * default, else */
	S_known(r, "routing", (const char *const[]){ "forced", "dropped", "dropless", NULL });
	/* a capacity of the mean drops what the busiest rank would carry
	 * beyond it */
	in.training.moe_routing = S_is(r, "routing", "forced") || S_is(r, "routing", "dropped") ? TB_MOE_BALANCED
	                          : TB_MOE_DROPLESS;
	c->dropless_stated = S_is(r, "routing", "dropless");
	in.parallelism.expert_tensor = (int64_t)S_or(S_num(r, "etp"), 0);
	in.parallelism.dispatcher = S_is(r, "dispatcher", "deepep") ? TB_DISPATCH_DEEPEP : TB_DISPATCH_ALLTOALL;
	const char *cpc = S_get(r, "cp_comm_type");
	in.parallelism.cp_comm = TB_CP_P2P;
	for (int k = TB_CP_P2P; cpc && k <= TB_CP_ALLGATHER; k++)
		if (strcmp(cpc, tb_cp_comm_name((tb_cp_comm)k)) == 0)
			in.parallelism.cp_comm = (tb_cp_comm)k;
	if (cpc && strcmp(cpc, tb_cp_comm_name(in.parallelism.cp_comm)) != 0) {
		fprintf(stderr, "validate: %s: cp_comm_type \"%s\" unknown (p2p, a2a or allgather)\n", S_get(r, "id"), cpc);
		exit(1);
	}
	in.parallelism.data = (int64_t)dp;
	in.parallelism.zero = (int)S_or(S_num(r, "zero"), 0);
	in.parallelism.shard_group = (int64_t)S_or(S_num(r, "shard_group"), 0);
	in.parallelism.bucket_size = (int64_t)S_or(S_num(r, "bucket"), 0);
	/* "ZeRO-2" under Megatron-LM is its distributed optimizer: the
	 * gradients accumulate whole and are reduce-scattered once a step */
	bool distopt = S_is(r, "framework", "megatron") && in.parallelism.zero == 2;
	if (distopt)
		in.parallelism.zero = 1;
	in.parallelism.sequence_parallel = tp > 1;
	in.parallelism.framework = S_is(r, "framework", "megatron") ? TB_FW_MEGATRON
	                           : S_is(r, "framework", "deepspeed") ? TB_FW_DEEPSPEED
	                           : S_is(r, "framework", "fsdp") ? TB_FW_FSDP : TB_FW_ANY;
	in.hardware.gpu = *g;
	/* a card held below its TDP, and its memory's bandwidth, where the
	 * source gives them (Meta's Grand Teton H100: 500 W, HBM2e 2.4 TB/s) */
	double cap = S_num(r, "power_w"), hbm = S_num(r, "hbm_tbs");
	if (!isnan(cap))
		in.hardware.power_limit_w = cap;
	if (!isnan(hbm))
		in.hardware.gpu.bandwidth_bytes_per_s = hbm * 1e12;
	in.hardware.count = (int64_t)gpus;
	in.training.tokens = isnan(tokens) ? 300e9 : tokens;
	/* failures, checkpoints and restarts as a scenario that names none
	 * gets them (scenario_hardware.c) */
	in.hardware.failures_per_node_day = TB_GOODPUT_FAILURES_PER_NODE_DAY;
	in.hardware.checkpoint_bytes_per_s = TB_GOODPUT_WRITE_BYTES_PER_S_PER_NODE;
	in.hardware.restart_s = TB_GOODPUT_RESTART_S;
	in.hardware.overhead_bytes = 2.0 * 1073741824.0;
	in.hardware.mfu_predicted = true;
	/* Megatron-LM's --pipeline-model-parallel-layout where the source
	 * prints it */
	const char *lay = S_get(r, "pp_layout");
	if (lay) {
		char lay_why[200];
		long at;
		const char *bad = tb_pipe_layout_parse(lay, in.parallelism.pipeline, in.model.layers,
		                                       in.model.experts > 1 ? in.model.dense_layers : 0,
		                                       in.model.mtp_modules, &in.parallelism.layout,
		                                       lay_why, sizeof lay_why, &at);
		if (bad) {
			fprintf(stderr, "validate: %s: pp_layout \"%s\": %s\n", S_get(r, "id"), lay, bad);
			exit(1);
		}
		in.parallelism.virtual_pipeline = in.parallelism.layout.virtual_pipeline;
	}
	c->inputs = in;
	/* a forward-only step of the same batch: shorter than the training
	 * step it stands beside, which the row must print */
	c->eval_s = S_num(r, "eval_step_s");
	if (!isnan(c->eval_s) && !(c->eval_s > 0 && !isnan(step) && c->eval_s < step)) {
		fprintf(stderr, "validate: %s: eval_step_s %g needs a step_s above it\n", S_get(r, "id"),
		        c->eval_s);
		exit(1);
	}
	/* the peak memory a GPU the source prints (torchtitan's logs: the
	 * caching allocator's peak reserved bytes, in GiB) */
	c->mem_gib = S_num(r, "mem_gib");
	if (!isnan(c->mem_gib) && !(c->mem_gib > 0 && c->mem_gib < 1e4)) {
		fprintf(stderr, "validate: %s: mem_gib %g is not a memory\n", S_get(r, "id"), c->mem_gib);
		exit(1);
	}
	/* the perf input borrows the layout: from the case's own copy */
	tb_perf_input_from(&c->inputs, &c->in);
	tb_perf_result res;
	tb_perf_predict(&c->in, NULL, &res);
	double peak = c->in.hw.peak_flops;
	const char *conv = S_get(r, "conv");
	if (!isnan(step)) {
		c->published_s = step;
		S_say(c->basis, sizeof c->basis, "step %.3g s as printed", step);
	} else if (!isnan(tok)) {
		c->published_s = gbs * seq / (gpus * tok);
		S_say(c->basis, sizeof c->basis, "%.0f tokens/s per GPU as printed", tok);
	} else if (!isnan(mfu) || !isnan(tf)) {
		/* the source's count where it names one: the whole attention
		 * square (PaLM App. B's 12LHQT, which Megatron-LM counted up to
		 * core_v0.11.0); otherwise the model's own, 6N plus the causal
		 * half, over the precision's dense peak */
		double flops = res.model_flops_per_step;
		bool full = S_is(r, "attention_flops", "full");
		if (full) {
			tb_perf_input sq = c->in;
			sq.causal_attention_flops = false;
			flops /= tb_perf_causal_mfu_scale(&sq);
		} else if (S_get(r, "attention_flops") && !S_is(r, "attention_flops", "causal")) {
			fprintf(stderr, "validate: %s: attention_flops \"%s\" unknown (full or causal)\n",
			        S_get(r, "id"), S_get(r, "attention_flops"));
			exit(1);
		}
		const char *count = full ? "on our count, whole attention square" : "on our model FLOP count";
		if (!isnan(mfu)) {
			c->published_s = flops / (gpus * mfu * peak);
			S_say(c->basis, sizeof c->basis, "MFU %.1f%% (%s), %s", 100 * mfu,
			      conv ? conv : "convention not printed", count);
		} else {
			c->published_s = flops / (gpus * tf * 1e12);
			S_say(c->basis, sizeof c->basis, "%.0f TFLOP/s per GPU (%s), %s", tf,
			      conv ? conv : "convention not printed", count);
		}
	} else {
		/* The whole stage's GPU-hours hold the time failures, restarts
		 * and checkpoints took as well as the steps: the program's own
		 * figure for such a run divides the steps by its goodput
		 * (goodput.c), so the published hours are compared with that,
		 * as the mean step they leave once the same losses are taken
		 * out.  The batch ramp stays in. */
		static tb_budget b;
		tb_budget_compute(&c->inputs, &b);
		double good = b.goodput.progress && b.goodput.fraction > 0 ? b.goodput.fraction : 1;
		c->published_s = gbs * seq * hours * 3600 / (gpus * tokens) * good;
		S_say(c->basis, sizeof c->basis,
		      "%.4gM GPU-hours for %.3gT tokens, the whole stage, at our goodput %.1f%%",
		      hours / 1e6, tokens / 1e12, 100 * good);
	}
	S_say(c->assumed, sizeof c->assumed, "%s%s%s%s%s%s", gated ? "gated MLP (ffn not 4h)" : "plain MLP",
	      distopt ? "; ZeRO-2 as Megatron's distributed optimizer (ZeRO-1)" : "",
	      isnan(S_num(r, "mbs")) ? "; micro-batch 1" : "",
	      S_get(r, "recompute") ? "" : "; no recomputation",
	      tp > 1 ? "; sequence parallel" : "", "; flash attention, no dropout");
}

/* Every row of the file becomes a case; the split is by position within
 * the group. */
void tb_vruns_build(void)
{
	char last_group[48] = "";
	int pos = 0;
	for (int i = 0; i < tb_vruns_nrows; i++) {
		const S_yrow *r = &S_y[i];
		const char *id = S_get(r, "id");
		if (!id)
			continue;
		const char *kind = S_get(r, "kind");
		if (kind && strcmp(kind, "generic") == 0) {
			S_generic(r);
			continue;
		}
		int before = tb_vruns_ncases;
		if (strncmp(id, "meg21.", 6) == 0)
			S_megatron(r);
		else if (strncmp(id, "kor22.", 6) == 0)
			S_korthikanti(r);
		else if (strncmp(id, "ptd.", 4) == 0 || strncmp(id, "zero3.", 6) == 0)
			S_ptd(r);
		else if (strncmp(id, "mpt.", 4) == 0)
			S_mosaic(r);
		else if (strncmp(id, "bloom.", 6) == 0)
			S_bloom(r);
		else if (strncmp(id, "palm.", 5) == 0)
			S_not_scored(r, "TPU v4 and no layout: MFU only");
		else if (strncmp(id, "opt.", 4) == 0)
			S_not_scored(r, "no layout, batch or FLOP convention (\"up to\")");
		else
			S_not_scored(r, "H100 96GB 500 W variant, sequence length not published");
		if (tb_vruns_ncases == before)
			continue;
		tb_vruns_case *c = &tb_vruns_cases[tb_vruns_ncases - 1];
		if (c->set == TB_VRUNS_NOT_SCORED)
			continue;
		if (strcmp(c->group, last_group) != 0) {
			snprintf(last_group, sizeof last_group, "%s", c->group);
			pos = 0;
		}
		pos++;
		c->set = pos % 2 == 1 ? TB_VRUNS_FIT : TB_VRUNS_HELD;
	}
}

/* A modern row that can show a constant the older runs cannot, on a
 * card whose efficiencies were measured: held below its TDP
 * (power_exponent), ZeRO-3 under FSDP or Megatron-FSDP
 * (fsdp_overlap_cost), or a mixture its source says it routed dropless
 * across expert-parallel ranks (moe_dropless_load).  On a card with
 * assumed ones the compute's own error would be fitted as the clocks, as
 * communication or as the routing. */
static bool S_modern_fits(const tb_vruns_case *c)
{
	if (tb_gpus_node(c->inputs.hardware.gpu.name)->efficiency_assumed)
		return false;
	bool fsdp = c->in.zero >= 3 && (c->in.framework == TB_FW_FSDP ||
	                                 c->in.framework == TB_FW_MEGATRON);
	bool dropless = c->dropless_stated && c->in.experts > 1 && c->in.expert > 1;
	return c->in.hw.power_fraction < 1 || (fsdp && c->in.overlap_dp) || dropless;
}

/* Those rows fit power_exponent, fsdp_overlap_cost and moe_dropless_load:
 * within each group, in file order, the first, third, ... of them are its
 * fit set and the rest stay held out. */
void tb_vruns_modern_split(void)
{
	for (int i = 0; i < tb_vruns_nmodern; i++) {
		tb_vruns_case *c = &tb_vruns_modern[i];
		if (c->set != TB_VRUNS_HELD || !S_modern_fits(c))
			continue;
		int pos = 0;
		for (int j = 0; j < i; j++)
			if (tb_vruns_modern[j].set != TB_VRUNS_NOT_SCORED && S_modern_fits(&tb_vruns_modern[j]) &&
			    strcmp(tb_vruns_modern[j].group, c->group) == 0)
				pos++;
		c->set = pos % 2 == 0 ? TB_VRUNS_FIT : TB_VRUNS_HELD;
	}
}
