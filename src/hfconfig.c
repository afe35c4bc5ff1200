/* hfconfig.c: a Hugging Face config.json as a model shape.
 *
 * JSON is YAML flow syntax, so libyaml reads it; only the top-level
 * scalars matter (nested objects such as rope_scaling are skipped).  Each
 * value keeps its line:col so errors point into the config file.
 *
 * Absent fields take the defaults of the family's transformers config
 * class, which differ: PretrainedConfig (GPT-2, Gemma) ties the embeddings
 * by default, while LlamaConfig, MistralConfig, MixtralConfig and
 * Qwen2Config default tie_word_embeddings to false. */
#include "trainbudget/hfconfig.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "trainbudget/xalloc.h"

#define S_MAX_FIELDS 512
#define S_MAX_DEPTH 32

typedef struct S_field {
	char *key, *val;
	size_t line, col;       /* of the value */
	bool scalar;
} S_field;

typedef struct S_cfg {
	S_field f[S_MAX_FIELDS];
	size_t n;
	const char *path, *text;
	size_t len;
	tb_diags *d;
	bool failed;
} S_cfg;

static const S_field *S_lookup(const S_cfg *c, const char *key)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->f[i].key, key) == 0)
			return &c->f[i];
	return NULL;
}

/* Reads the top-level mapping's scalar members.  Returns false after
 * reporting a syntax or structure error. */
static bool S_read(S_cfg *c)
{
	yaml_parser_t p;
	if (!yaml_parser_initialize(&p))
		return false;
	yaml_parser_set_input_string(&p, (const unsigned char *)c->text, c->len);
	int depth = 0;
	bool ok = true, done = false, top_is_map = false, seen_top = false;
	char *key = NULL;       /* a top-level key awaiting its value */
	while (!done) {
		yaml_event_t ev;
		if (!yaml_parser_parse(&p, &ev)) {
			tb_diags_add(c->d, TB_DIAG_ERROR, c->path, c->text, c->len,
			             p.problem_mark.line + 1, p.problem_mark.column + 1,
			             "invalid JSON: %s; expected a Hugging Face config.json object",
			             p.problem ? p.problem : "syntax error");
			ok = false;
			break;
		}
		size_t line = ev.start_mark.line + 1, col = ev.start_mark.column + 1;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		case YAML_ALIAS_EVENT:
			tb_diags_add(c->d, TB_DIAG_ERROR, c->path, c->text, c->len, line, col,
			             "YAML alias in config.json; expected plain JSON");
			ok = false;
			done = true;
			break;
		case YAML_MAPPING_START_EVENT:
		case YAML_SEQUENCE_START_EVENT:
			if (!seen_top) {
				seen_top = true;
				top_is_map = ev.type == YAML_MAPPING_START_EVENT;
			}
			if (depth == 1 && key) {
				/* a nested value: skip it, but remember the key exists */
				if (c->n < S_MAX_FIELDS) {
					S_field *f = &c->f[c->n++];
					f->key = key;
					f->val = tb_xstrdup("");
					f->line = line;
					f->col = col;
					f->scalar = false;
					key = NULL;
				}
			}
			if (++depth > S_MAX_DEPTH) {
				tb_diags_add(c->d, TB_DIAG_ERROR, c->path, c->text, c->len, line, col,
				             "nesting deeper than %d levels; expected a Hugging Face config.json", S_MAX_DEPTH);
				ok = false;
				done = true;
			}
			break;
		case YAML_MAPPING_END_EVENT:
		case YAML_SEQUENCE_END_EVENT:
			depth--;
			break;
		case YAML_SCALAR_EVENT:
			if (!seen_top) {
				seen_top = true;
				top_is_map = false;
			}
			if (depth == 1 && top_is_map) {
				const char *v = (const char *)ev.data.scalar.value;
				if (!key) {
					key = tb_xstrndup(v, ev.data.scalar.length);
				} else {
					if (c->n < S_MAX_FIELDS && !S_lookup(c, key)) {
						S_field *f = &c->f[c->n++];
						f->key = key;
						f->val = tb_xstrndup(v, ev.data.scalar.length);
						f->line = line;
						f->col = col;
						f->scalar = true;
					} else {
						free(key);
					}
					key = NULL;
				}
			}
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	free(key);
	yaml_parser_delete(&p);
	if (ok && !top_is_map) {
		tb_diags_add(c->d, TB_DIAG_ERROR, c->path, c->text, c->len, 1, 1,
		             "config.json is not a JSON object; expected { \"model_type\": ..., ... }");
		ok = false;
	}
	return ok;
}

static void S_missing(S_cfg *c, const char *key, const char *model_type)
{
	tb_diags_add(c->d, TB_DIAG_ERROR, c->path, c->text, c->len, 1, 1,
	             "missing \"%s\" in config.json; expected it for model_type %s", key, model_type);
	c->failed = true;
}

/* Reads an integer field in [min, max]; absent -> *out unchanged and
 * false (the caller decides whether that is an error). */
static bool S_int(S_cfg *c, const char *key, int64_t min, int64_t max, int64_t *out)
{
	const S_field *f = S_lookup(c, key);
	if (!f)
		return false;
	if (f->scalar && strcmp(f->val, "null") == 0)
		return false;
	char *end = NULL;
	double v = f->scalar ? strtod(f->val, &end) : NAN;
	if (!f->scalar || end == f->val || *end != '\0' || !isfinite(v) || v != floor(v) ||
	    v < (double)min || v > (double)max) {
		tb_diags_add(c->d, TB_DIAG_ERROR, c->path, c->text, c->len, f->line, f->col,
		             "\"%s\" is not a whole number from %lld to %lld; expected an integer",
		             key, (long long)min, (long long)max);
		c->failed = true;
		return false;
	}
	*out = (int64_t)v;
	return true;
}

static void S_bool(S_cfg *c, const char *key, bool *out)
{
	const S_field *f = S_lookup(c, key);
	if (!f || (f->scalar && strcmp(f->val, "null") == 0))
		return;
	if (f->scalar && strcmp(f->val, "true") == 0)
		*out = true;
	else if (f->scalar && strcmp(f->val, "false") == 0)
		*out = false;
	else {
		tb_diags_add(c->d, TB_DIAG_ERROR, c->path, c->text, c->len, f->line, f->col,
		             "\"%s\" is not a boolean; expected true or false", key);
		c->failed = true;
	}
}

static int64_t S_req(S_cfg *c, const char *key, const char *mt, int64_t max)
{
	int64_t v = 0;
	if (!S_int(c, key, 1, max, &v) && !c->failed)
		S_missing(c, key, mt);
	return v;
}

int tb_hfconfig_parse(const char *path, const char *text, size_t len,
                      tb_model *out, tb_diags *d)
{
	S_cfg *c = tb_xcalloc(1, sizeof *c);
	c->path = path ? path : "config.json";
	c->text = text ? text : "";
	c->len = text ? len : 0;
	c->d = d;
	tb_model m;
	memset(&m, 0, sizeof m);
	int rc = -1;
	if (!S_read(c))
		goto done;

	const S_field *mtf = S_lookup(c, "model_type");
	if (!mtf || !mtf->scalar) {
		tb_diags_add(d, TB_DIAG_ERROR, c->path, c->text, c->len, mtf ? mtf->line : 1, mtf ? mtf->col : 1,
		             "missing \"model_type\" in config.json; expected one of llama, mistral, mixtral, qwen2, gemma, gpt2");
		goto done;
	}
	const char *mt = mtf->val;
	static const char *const families[] = { "llama", "mistral", "mixtral", "qwen2", "gemma", "gpt2" };
	size_t fam = sizeof families / sizeof *families;
	for (size_t i = 0; i < sizeof families / sizeof *families; i++)
		if (strcmp(mt, families[i]) == 0)
			fam = i;
	if (fam == sizeof families / sizeof *families) {
		const char *sugg = tb_diags_suggest(mt, families, sizeof families / sizeof *families);
		tb_diags_add(d, TB_DIAG_ERROR, c->path, c->text, c->len, mtf->line, mtf->col,
		             "unsupported model_type '%.40s'%s%s%s; expected one of llama, mistral, mixtral, qwen2, gemma, gpt2",
		             mt, sugg ? " (did you mean '" : "", sugg ? sugg : "", sugg ? "'?)" : "");
		goto done;
	}

	m.has_shape = true;
	m.experts_per_token = 1;
	if (fam == 5) {
		/* GPT-2: learned positions, LayerNorm, biases, GELU MLP, tied. */
		m.hidden = S_req(c, "n_embd", mt, 1000000);
		m.layers = S_req(c, "n_layer", mt, 10000);
		m.heads = S_req(c, "n_head", mt, 100000);
		m.vocab = S_req(c, "vocab_size", mt, 100000000);
		m.max_positions = S_req(c, "n_positions", mt, 100000000);
		m.ffn_hidden = 4 * m.hidden;
		S_int(c, "n_inner", 1, 10000000, &m.ffn_hidden);
		m.kv_heads = m.heads;
		m.mlp = TB_MLP_PLAIN;
		m.norm = TB_NORM_LAYERNORM;
		m.positions = TB_POS_LEARNED;
		m.bias = true;
		m.tied_embeddings = true;
	} else {
		m.hidden = S_req(c, "hidden_size", mt, 1000000);
		m.layers = S_req(c, "num_hidden_layers", mt, 10000);
		m.heads = S_req(c, "num_attention_heads", mt, 100000);
		m.ffn_hidden = S_req(c, "intermediate_size", mt, 10000000);
		m.vocab = S_req(c, "vocab_size", mt, 100000000);
		m.kv_heads = m.heads;
		S_int(c, "num_key_value_heads", 1, 100000, &m.kv_heads);
		m.mlp = TB_MLP_GATED;
		m.norm = TB_NORM_RMSNORM;
		m.positions = TB_POS_ROPE;
		m.tied_embeddings = fam == 4;   /* GemmaConfig ties; the others do not */
		m.qkv_bias = fam == 3;          /* Qwen2 has biases on q, k, v */
		if (fam == 2) {
			int64_t e = 0, k = 0;
			if (S_int(c, "num_local_experts", 1, 100000, &e))
				m.experts = e;
			else if (!c->failed)
				S_missing(c, "num_local_experts", mt);
			m.experts_per_token = 2;
			if (S_int(c, "num_experts_per_tok", 1, 100000, &k))
				m.experts_per_token = k;
		}
		bool attention_bias = false;
		S_bool(c, "attention_bias", &attention_bias);
		if (attention_bias)
			m.qkv_bias = true;
		bool mlp_bias = false;
		S_bool(c, "mlp_bias", &mlp_bias);
		if (mlp_bias)
			m.bias = true;
	}
	S_bool(c, "tie_word_embeddings", &m.tied_embeddings);
	if (c->failed)
		goto done;

	m.head_dim = 0;
	const S_field *hdf = S_lookup(c, "head_dim");
	if (fam != 5 && hdf && S_int(c, "head_dim", 1, 100000, &m.head_dim)) {
		/* Gemma: head_dim is its own field, not hidden/heads. */
	} else if (c->failed) {
		goto done;
	} else if (m.hidden % m.heads != 0) {
		const S_field *f = S_lookup(c, fam == 5 ? "n_head" : "num_attention_heads");
		tb_diags_add(d, TB_DIAG_ERROR, c->path, c->text, c->len, f ? f->line : 1, f ? f->col : 1,
		             "%lld heads do not divide hidden size %lld and there is no head_dim; expected a divisor",
		             (long long)m.heads, (long long)m.hidden);
		goto done;
	} else {
		m.head_dim = m.hidden / m.heads;
	}
	if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0) {
		const S_field *f = S_lookup(c, "num_key_value_heads");
		tb_diags_add(d, TB_DIAG_ERROR, c->path, c->text, c->len, f ? f->line : 1, f ? f->col : 1,
		             "num_key_value_heads %lld does not divide num_attention_heads %lld; expected a divisor",
		             (long long)m.kv_heads, (long long)m.heads);
		goto done;
	}
	if (m.experts > 1 && m.experts_per_token > m.experts) {
		const S_field *f = S_lookup(c, "num_experts_per_tok");
		tb_diags_add(d, TB_DIAG_ERROR, c->path, c->text, c->len, f ? f->line : 1, f ? f->col : 1,
		             "num_experts_per_tok %lld is above num_local_experts %lld; expected at most the number of experts",
		             (long long)m.experts_per_token, (long long)m.experts);
		goto done;
	}
	if (m.experts <= 1)
		m.experts_per_token = 1;
	*out = m;
	rc = 0;
done:
	for (size_t i = 0; i < c->n; i++) {
		free(c->f[i].key);
		free(c->f[i].val);
	}
	free(c);
	return rc;
}
