/* hfconfig.c: a Hugging Face config.json as a model shape.
 *
 * JSON is YAML flow syntax, so libyaml reads it.  The top-level scalars
 * and lists of scalars matter, and so do those of `text_config`, where
 * the multimodal classes (llama4, gemma3) keep their language model;
 * other nested objects (rope_scaling, vision_config) are skipped.  Each
 * value keeps its line:col so errors point into the config file.
 *
 * Absent fields take the defaults of the model type's transformers config
 * class, which differ from one class to the next (tie_word_embeddings:
 * true for GPT-2 and the Gemmas, false for the others; head_dim 128 for
 * Qwen 3 and Llama 4, 256 for Gemma 2 and 3; the layer patterns of each).
 * docs/scenario.md lists what is read for each type. */
#include "trainbudget/hfconfig.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "trainbudget/buf.h"
#include "trainbudget/xalloc.h"

#define S_MAX_FIELDS 512
#define S_MAX_DEPTH 32
#define S_MAX_ITEMS 100000

typedef enum { S_SCALAR, S_MAP, S_SEQ } S_kind;

typedef struct S_field {
	char *key, *val;        /* key with its "text_config." prefix when nested */
	size_t line, col;       /* of the value */
	S_kind kind;
	char **items;           /* S_SEQ: its scalar items */
	size_t nitems;
	bool seq_nested;        /* S_SEQ: an item was not a scalar */
} S_field;

typedef struct S_cfg {
	S_field f[S_MAX_FIELDS];
	size_t n;
	const char *path, *text;
	size_t len;
	tb_diags *d;
	bool failed;
	const char *prefix;     /* "" or "text_config." for the lookups below */
	const char *type;       /* model_type, for messages */
} S_cfg;

/* ---- reading ------------------------------------------------------------ */

typedef struct S_frame {
	bool is_map, collect;
	const char *prefix;
	char *key;              /* a mapping's key awaiting its value */
	S_field *seq;           /* a collected list */
} S_frame;

static const S_field *S_raw(const S_cfg *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->f[i].key, name) == 0)
			return &c->f[i];
	return NULL;
}

static S_field *S_add_field(S_cfg *c, const char *prefix, const char *key, S_kind kind,
                            size_t line, size_t col)
{
	char name[256];
	snprintf(name, sizeof name, "%s%s", prefix, key);
	if (c->n >= S_MAX_FIELDS || S_raw(c, name))
		return NULL;    /* the first of duplicate keys wins */
	S_field *f = &c->f[c->n++];
	memset(f, 0, sizeof *f);
	f->key = tb_xstrdup(name);
	f->val = tb_xstrdup("");
	f->kind = kind;
	f->line = line;
	f->col = col;
	return f;
}

/* Reads the members of the top-level mapping and of its text_config.
 * Returns false after reporting a syntax or structure error. */
static bool S_read(S_cfg *c)
{
	yaml_parser_t p;
	if (!yaml_parser_initialize(&p))
		return false;
	yaml_parser_set_input_string(&p, (const unsigned char *)c->text, c->len);
	S_frame st[S_MAX_DEPTH + 1];
	int depth = 0;
	bool ok = true, done = false, top_is_map = false, seen_top = false;
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
		case YAML_SEQUENCE_START_EVENT: {
			bool is_map = ev.type == YAML_MAPPING_START_EVENT;
			if (depth >= S_MAX_DEPTH) {
				tb_diags_add(c->d, TB_DIAG_ERROR, c->path, c->text, c->len, line, col,
				             "nesting deeper than %d levels; expected a Hugging Face config.json", S_MAX_DEPTH);
				ok = false;
				done = true;
				break;
			}
			S_frame fr = { is_map, false, "", NULL, NULL };
			if (!seen_top) {
				seen_top = true;
				top_is_map = is_map;
				fr.collect = is_map;
			} else if (depth > 0) {
				S_frame *up = &st[depth - 1];
				if (up->collect && up->is_map && up->key) {
					S_field *f = S_add_field(c, up->prefix, up->key, is_map ? S_MAP : S_SEQ, line, col);
					if (is_map && depth == 1 && strcmp(up->key, "text_config") == 0) {
						fr.collect = true;
						fr.prefix = "text_config.";
					} else if (!is_map && f) {
						fr.collect = true;
						fr.seq = f;
					}
				} else if (up->collect && !up->is_map && up->seq) {
					up->seq->seq_nested = true;
				}
				if (up->is_map) {
					free(up->key);
					up->key = NULL;
				}
			}
			st[depth++] = fr;
			break;
		}
		case YAML_MAPPING_END_EVENT:
		case YAML_SEQUENCE_END_EVENT:
			if (depth > 0) {
				free(st[depth - 1].key);
				depth--;
			}
			break;
		case YAML_SCALAR_EVENT: {
			if (!seen_top) {
				seen_top = true;
				top_is_map = false;
			}
			if (depth == 0 || !st[depth - 1].collect)
				break;
			S_frame *fr = &st[depth - 1];
			const char *v = (const char *)ev.data.scalar.value;
			size_t vl = ev.data.scalar.length;
			if (fr->is_map) {
				if (!fr->key) {
					fr->key = tb_xstrndup(v, vl);
				} else {
					S_field *f = S_add_field(c, fr->prefix, fr->key, S_SCALAR, line, col);
					if (f) {
						free(f->val);
						f->val = tb_xstrndup(v, vl);
					}
					free(fr->key);
					fr->key = NULL;
				}
			} else if (fr->seq && fr->seq->nitems < S_MAX_ITEMS) {
				S_field *f = fr->seq;
				f->items = tb_xrealloc(f->items, (f->nitems + 1) * sizeof *f->items);
				f->items[f->nitems++] = tb_xstrndup(v, vl);
			}
			break;
		}
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	while (depth > 0)
		free(st[--depth].key);
	yaml_parser_delete(&p);
	if (ok && !top_is_map) {
		tb_diags_add(c->d, TB_DIAG_ERROR, c->path, c->text, c->len, 1, 1,
		             "config.json is not a JSON object; expected { \"model_type\": ..., ... }");
		ok = false;
	}
	return ok;
}

/* ---- typed lookups ------------------------------------------------------ */

/* A field of the language model: under text_config for the multimodal
 * types, else at the top.  An explicit null counts as absent. */
static const S_field *S_get(const S_cfg *c, const char *key)
{
	char name[256];
	snprintf(name, sizeof name, "%s%s", c->prefix, key);
	const S_field *f = S_raw(c, name);
	if (f && f->kind == S_SCALAR && strcmp(f->val, "null") == 0)
		return NULL;
	return f;
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void S_err_at(S_cfg *c, const S_field *f, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	tb_diags_add(c->d, TB_DIAG_ERROR, c->path, c->text, c->len,
	             f ? f->line : 1, f ? f->col : 1, "%s", msg);
	c->failed = true;
}

static bool S_parse_int(const char *s, int64_t min, int64_t max, int64_t *out)
{
	char *end = NULL;
	double v = strtod(s, &end);
	if (end == s || *end != '\0' || !isfinite(v) || v != floor(v) ||
	    v < (double)min || v > (double)max)
		return false;
	*out = (int64_t)v;
	return true;
}

/* Reads an integer field in [min, max]; absent -> *out unchanged and
 * false (the caller decides whether that is an error). */
static bool S_int(S_cfg *c, const char *key, int64_t min, int64_t max, int64_t *out)
{
	const S_field *f = S_get(c, key);
	if (!f)
		return false;
	int64_t v = 0;
	if (f->kind != S_SCALAR || !S_parse_int(f->val, min, max, &v)) {
		tb_diags_add(c->d, TB_DIAG_ERROR, c->path, c->text, c->len, f->line, f->col,
		             "\"%s\" is not a whole number from %lld to %lld; expected an integer",
		             key, (long long)min, (long long)max);
		c->failed = true;
		return false;
	}
	*out = v;
	return true;
}

static void S_bool(S_cfg *c, const char *key, bool *out)
{
	const S_field *f = S_get(c, key);
	if (!f)
		return;
	if (f->kind == S_SCALAR && strcmp(f->val, "true") == 0)
		*out = true;
	else if (f->kind == S_SCALAR && strcmp(f->val, "false") == 0)
		*out = false;
	else
		S_err_at(c, f, "\"%s\" is not a boolean; expected true or false", key);
}

/* Whether the field is there with an explicit null, which some classes
 * read as "none" (sliding_window, q_lora_rank, attention_chunk_size). */
static bool S_is_null(const S_cfg *c, const char *key)
{
	char name[256];
	snprintf(name, sizeof name, "%s%s", c->prefix, key);
	const S_field *f = S_raw(c, name);
	return f && f->kind == S_SCALAR && strcmp(f->val, "null") == 0;
}

/* A list field: NULL when absent or null; an error (and NULL) when it is
 * not a flat list. */
static const S_field *S_list(S_cfg *c, const char *key)
{
	const S_field *f = S_get(c, key);
	if (!f)
		return NULL;
	if (f->kind != S_SEQ || f->seq_nested) {
		S_err_at(c, f, "\"%s\" is not a list of plain values; expected [ ... ]", key);
		return NULL;
	}
	return f;
}

static void S_missing(S_cfg *c, const char *key)
{
	tb_diags_add(c->d, TB_DIAG_ERROR, c->path, c->text, c->len, 1, 1,
	             "missing \"%s%s\" in config.json; expected it for model_type %s",
	             c->prefix, key, c->type);
	c->failed = true;
}

static int64_t S_req(S_cfg *c, const char *key, int64_t max)
{
	int64_t v = 0;
	if (!S_int(c, key, 1, max, &v) && !c->failed)
		S_missing(c, key);
	return v;
}

/* An integer with the class's default when absent. */
static int64_t S_def(S_cfg *c, const char *key, int64_t min, int64_t max, int64_t dflt)
{
	int64_t v = dflt;
	S_int(c, key, min, max, &v);
	return v;
}

/* ---- layer patterns ------------------------------------------------------ */

/* Counts the local layers of `layer_types` (transformers >= 4.53 writes
 * it for every model with mixed layers).  Returns -1 when absent. */
static int64_t S_layer_types(S_cfg *c, int64_t L, tb_local_attn *kind)
{
	const S_field *f = S_list(c, "layer_types");
	if (!f)
		return -1;
	if ((int64_t)f->nitems < L) {
		S_err_at(c, f, "\"layer_types\" lists fewer types than there are layers; expected one per layer");
		return -1;
	}
	int64_t n = 0;
	for (int64_t i = 0; i < L; i++) {
		const char *t = f->items[i];
		if (strcmp(t, "sliding_attention") == 0) {
			*kind = TB_LOCAL_SLIDING;
			n++;
		} else if (strcmp(t, "chunked_attention") == 0) {
			*kind = TB_LOCAL_CHUNKED;
			n++;
		} else if (strcmp(t, "full_attention") != 0) {
			S_err_at(c, f, "\"layer_types\" has '%.40s'; expected full_attention, sliding_attention or chunked_attention", t);
			return -1;
		}
	}
	return n;
}

/* Whether index i is in an integer list (mlp_only_layers, moe_layers). */
static bool S_in_list(S_cfg *c, const S_field *f, int64_t i, const char *key)
{
	if (!f)
		return false;
	for (size_t j = 0; j < f->nitems; j++) {
		int64_t v = 0;
		if (!S_parse_int(f->items[j], 0, 1000000, &v)) {
			S_err_at(c, f, "\"%s\" holds '%.40s'; expected layer numbers", key, f->items[j]);
			return false;
		}
		if (v == i)
			return true;
	}
	return false;
}

/* ---- the model types ------------------------------------------------------ */

typedef enum {
	F_DEEPSEEK_V2, F_DEEPSEEK_V3, F_GEMMA, F_GEMMA2, F_GEMMA3, F_GEMMA3_TEXT,
	F_GPT2, F_GPT_OSS, F_LLAMA, F_LLAMA4, F_LLAMA4_TEXT, F_MISTRAL, F_MIXTRAL, F_OLMO2,
	F_PHI3, F_QWEN2, F_QWEN2_MOE, F_QWEN3, F_QWEN3_MOE, F_COUNT
} S_family;

/* Sorted, as the error message lists them. */
static const char *const S_types[F_COUNT] = {
	"deepseek_v2", "deepseek_v3", "gemma", "gemma2", "gemma3", "gemma3_text",
	"gpt2", "gpt_oss", "llama", "llama4", "llama4_text", "mistral", "mixtral", "olmo2",
	"phi3", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe",
};

static char *S_type_list(void)
{
	tb_buf b;
	tb_buf_init(&b);
	for (int i = 0; i < F_COUNT; i++) {
		if (i)
			tb_buf_puts(&b, i == F_COUNT - 1 ? " or " : ", ");
		tb_buf_puts(&b, S_types[i]);
	}
	return tb_buf_detach(&b, NULL);
}

static void S_gpt2(S_cfg *c, tb_model *m)
{
	/* GPT-2: learned positions, LayerNorm, biases, GELU MLP, tied. */
	m->hidden = S_req(c, "n_embd", 1000000);
	m->layers = S_req(c, "n_layer", 10000);
	m->heads = S_req(c, "n_head", 100000);
	m->vocab = S_req(c, "vocab_size", 100000000);
	m->max_positions = S_req(c, "n_positions", 100000000);
	m->ffn_hidden = 4 * m->hidden;
	S_int(c, "n_inner", 1, 10000000, &m->ffn_hidden);
	m->kv_heads = m->heads;
	m->mlp = TB_MLP_PLAIN;
	m->norm = TB_NORM_LAYERNORM;
	m->positions = TB_POS_LEARNED;
	m->bias = true;
	m->tied_embeddings = true;
}

/* Local attention: the window and how many layers use it. */
static void S_windows(S_cfg *c, S_family fam, tb_model *m)
{
	int64_t L = m->layers, w = 0;
	tb_local_attn kind = TB_LOCAL_SLIDING;
	int64_t n = -1;
	switch (fam) {
	case F_MISTRAL: case F_MIXTRAL: case F_PHI3:
		/* a window on every layer when the config gives one */
		if (S_int(c, "sliding_window", 1, 100000000, &w))
			n = L;
		break;
	case F_QWEN2: case F_QWEN2_MOE: case F_QWEN3: case F_QWEN3_MOE: {
		bool use = false;
		S_bool(c, "use_sliding_window", &use);
		if (!use || !S_int(c, "sliding_window", 1, 100000000, &w))
			break;
		n = S_layer_types(c, L, &kind);
		if (n < 0 && !c->failed) {
			int64_t mwl = S_def(c, "max_window_layers", 0, 1000000, 28);
			if (fam == F_QWEN2_MOE) {
				/* Qwen2MoeConfig: even layers below max_window_layers */
				n = 0;
				for (int64_t i = 0; i < L && i < mwl; i++)
					n += (i + 1) % 2 != 0;
			} else {
				/* Qwen2Config, Qwen3Config: the layers from max_window_layers on */
				n = L > mwl ? L - mwl : 0;
			}
		}
		break;
	}
	case F_GPT_OSS:
		/* GptOssConfig: a 128-token window on the even layers */
		if (S_is_null(c, "sliding_window"))
			break;
		w = S_def(c, "sliding_window", 1, 100000000, 128);
		n = S_layer_types(c, L, &kind);
		if (n < 0 && !c->failed)
			n = (L + 1) / 2;
		break;
	case F_GEMMA2: case F_GEMMA3: case F_GEMMA3_TEXT:
		if (S_is_null(c, "sliding_window"))
			break;
		w = S_def(c, "sliding_window", 1, 100000000, 4096);
		n = S_layer_types(c, L, &kind);
		if (n < 0 && !c->failed) {
			if (fam == F_GEMMA2) {
				n = (L + 1) / 2;    /* even layers slide, odd ones are global */
			} else {
				int64_t pat = S_def(c, "sliding_window_pattern", 1, 1000000,
				                    S_def(c, "_sliding_window_pattern", 1, 1000000, 6));
				n = L - L / pat;    /* every pat-th layer is global */
			}
		}
		break;
	case F_LLAMA4: case F_LLAMA4_TEXT: {
		/* chunked attention on the rope layers, global on the NoPE ones */
		if (S_is_null(c, "attention_chunk_size"))
			break;
		w = S_def(c, "attention_chunk_size", 1, 100000000, 8192);
		kind = TB_LOCAL_CHUNKED;
		n = S_layer_types(c, L, &kind);
		if (n >= 0 || c->failed)
			break;
		const S_field *nr = S_list(c, "no_rope_layers");
		if (nr && nr->nitems > 0) {
			if ((int64_t)nr->nitems < L) {
				S_err_at(c, nr, "\"no_rope_layers\" is shorter than the layers; expected one 0 or 1 per layer");
				break;
			}
			n = 0;
			for (int64_t i = 0; i < L; i++)
				n += strcmp(nr->items[i], "0") != 0;
		} else {
			int64_t every = S_def(c, "no_rope_layer_interval", 1, 1000000, 4);
			n = L - L / every;
		}
		break;
	}
	default:
		break;
	}
	if (n > 0 && w > 0) {
		m->window = w;
		m->window_layers = n;
		m->local_attn = kind;
	}
}

/* Which layers have routed experts; the rest keep a dense MLP. */
static int64_t S_moe_layers(S_cfg *c, S_family fam, int64_t L)
{
	int64_t n = 0;
	if (fam == F_QWEN2_MOE || fam == F_QWEN3_MOE) {
		const S_field *only = S_list(c, "mlp_only_layers");
		int64_t step = S_def(c, "decoder_sparse_step", 1, 1000000, 1);
		for (int64_t i = 0; i < L && !c->failed; i++)
			n += !S_in_list(c, only, i, "mlp_only_layers") && (i + 1) % step == 0;
	} else if (fam == F_DEEPSEEK_V2 || fam == F_DEEPSEEK_V3) {
		int64_t first = S_def(c, "first_k_dense_replace", 0, 1000000, fam == F_DEEPSEEK_V3 ? 3 : 0);
		int64_t freq = S_def(c, "moe_layer_freq", 1, 1000000, 1);
		for (int64_t i = 0; i < L; i++)
			n += i >= first && i % freq == 0;
	} else if (fam == F_LLAMA4 || fam == F_LLAMA4_TEXT) {
		const S_field *ml = S_list(c, "moe_layers");
		if (ml) {
			for (int64_t i = 0; i < L && !c->failed; i++)
				n += S_in_list(c, ml, i, "moe_layers");
		} else {
			int64_t step = S_def(c, "interleave_moe_layer_step", 1, 1000000, 1);
			for (int64_t i = step - 1; i < L; i += step)
				n++;
		}
	} else {
		n = L;
	}
	return n;
}

static void S_decoder(S_cfg *c, S_family fam, tb_model *m)
{
	bool gemma3 = fam == F_GEMMA3 || fam == F_GEMMA3_TEXT;
	bool llama4 = fam == F_LLAMA4 || fam == F_LLAMA4_TEXT;
	bool mla = fam == F_DEEPSEEK_V2 || fam == F_DEEPSEEK_V3;
	m->hidden = S_req(c, "hidden_size", 1000000);
	m->layers = S_req(c, "num_hidden_layers", 10000);
	m->ffn_hidden = S_req(c, "intermediate_size", 10000000);
	if (gemma3) {
		/* the released multimodal configs leave these to Gemma3TextConfig */
		m->heads = S_def(c, "num_attention_heads", 1, 100000, 8);
		m->vocab = S_def(c, "vocab_size", 1, 100000000, 262208);
	} else {
		m->heads = S_req(c, "num_attention_heads", 100000);
		m->vocab = S_req(c, "vocab_size", 100000000);
	}
	if (c->failed)
		return;
	m->kv_heads = gemma3 ? 4 : m->heads;
	if (!mla)
		S_int(c, "num_key_value_heads", 1, 100000, &m->kv_heads);
	m->mlp = TB_MLP_GATED;
	m->norm = TB_NORM_RMSNORM;
	m->positions = TB_POS_ROPE;
	m->tied_embeddings = fam == F_GEMMA || fam == F_GEMMA2 || gemma3;
	m->qkv_bias = fam == F_QWEN2;

	/* GptOssConfig: attention biases unless said otherwise; its experts
	 * and router always have biases, and every head a learned sink */
	bool gpt_oss = fam == F_GPT_OSS;
	bool attention_bias = gpt_oss, mlp_bias = false;
	S_bool(c, "attention_bias", &attention_bias);
	S_bool(c, "mlp_bias", &mlp_bias);
	if (fam == F_QWEN2_MOE) {
		bool qkv = true;    /* Qwen2MoeConfig: q, k, v biases unless qkv_bias is false */
		S_bool(c, "qkv_bias", &qkv);
		m->qkv_bias = qkv;
	} else if (fam != F_QWEN2 && fam != F_MISTRAL && fam != F_MIXTRAL && fam != F_PHI3 &&
	           attention_bias) {
		m->attn_bias = true;            /* q, k, v and o (MLA: q_a, kv_a and o) */
	}
	m->mlp_bias = (mlp_bias && (fam == F_LLAMA || fam == F_MISTRAL)) || gpt_oss;
	m->router_bias = gpt_oss;
	m->attn_sinks = gpt_oss;

	/* head dimension: the class default, then hidden / heads */
	int64_t hd_default = fam == F_QWEN3 || fam == F_QWEN3_MOE || llama4 ? 128
	                     : fam == F_GEMMA2 || gemma3 ? 256 : gpt_oss ? 64 : 0;
	m->head_dim = hd_default;
	S_int(c, "head_dim", 1, 100000, &m->head_dim);
	if (c->failed)
		return;

	switch (fam) {
	case F_QWEN3: case F_QWEN3_MOE: case F_GEMMA3: case F_GEMMA3_TEXT:
		m->qk_norm = TB_QKNORM_HEAD;
		break;
	case F_OLMO2:
		m->qk_norm = TB_QKNORM_FULL;
		break;
	default:
		break;
	}
	if (fam == F_GEMMA2 || gemma3)
		m->norms_per_layer = 4;     /* input, post-attention, pre- and post-feedforward */

	if (mla) {
		/* null: q straight from the hidden state (DeepSeek-V2-Lite) */
		m->q_lora_rank = S_is_null(c, "q_lora_rank") ? 0 : S_def(c, "q_lora_rank", 1, 10000000, 1536);
		m->kv_lora_rank = S_def(c, "kv_lora_rank", 1, 10000000, 512);
		m->qk_nope_dim = S_def(c, "qk_nope_head_dim", 0, 100000, 128);
		m->qk_rope_dim = S_def(c, "qk_rope_head_dim", 0, 100000, 64);
		m->v_head_dim = S_def(c, "v_head_dim", 1, 100000, 128);
		m->head_dim = m->qk_nope_dim + m->qk_rope_dim;
		m->kv_heads = m->heads;
		if (m->head_dim < 1 && !c->failed) {
			S_err_at(c, S_get(c, "qk_nope_head_dim"),
			         "qk_nope_head_dim + qk_rope_head_dim is 0; expected a positive query/key width");
		}
		if (fam == F_DEEPSEEK_V3)
			m->mtp_modules = S_def(c, "num_nextn_predict_layers", 0, 1000, 0);
	}

	/* experts */
	const char *ekey = NULL;
	int64_t E = 0, k = 0;
	switch (fam) {
	case F_GPT_OSS:
		/* GptOssConfig: 128 experts, 4 a token, each intermediate_size wide */
		ekey = "num_local_experts";
		E = S_def(c, ekey, 0, 100000, 128);
		k = S_def(c, "num_experts_per_tok", 1, 100000, 4);
		m->expert_ffn_hidden = m->ffn_hidden;
		break;
	case F_MIXTRAL:
		ekey = "num_local_experts";
		if (!S_int(c, ekey, 1, 100000, &E) && !c->failed)
			S_missing(c, ekey);
		k = S_def(c, "num_experts_per_tok", 1, 100000, 2);
		break;
	case F_QWEN2_MOE:
		ekey = "num_experts";
		E = S_def(c, ekey, 0, 100000, 60);
		k = S_def(c, "num_experts_per_tok", 1, 100000, 4);
		m->expert_ffn_hidden = S_def(c, "moe_intermediate_size", 1, 10000000, 1408);
		m->shared_ffn_hidden = S_def(c, "shared_expert_intermediate_size", 0, 10000000, 5632);
		m->shared_expert_gate = m->shared_ffn_hidden > 0;
		break;
	case F_QWEN3_MOE:
		/* Qwen3MoeConfig: no shared expert */
		ekey = "num_experts";
		E = S_def(c, ekey, 0, 100000, 128);
		k = S_def(c, "num_experts_per_tok", 1, 100000, 8);
		m->expert_ffn_hidden = S_def(c, "moe_intermediate_size", 1, 10000000, 768);
		break;
	case F_DEEPSEEK_V2: case F_DEEPSEEK_V3: {
		ekey = "n_routed_experts";
		bool v3 = fam == F_DEEPSEEK_V3;
		if (!S_is_null(c, ekey))    /* null: a dense model */
			E = S_def(c, ekey, 0, 100000, v3 ? 256 : 64);
		k = S_def(c, "num_experts_per_tok", 1, 100000, v3 ? 8 : 1);
		m->expert_ffn_hidden = S_def(c, "moe_intermediate_size", 1, 10000000, v3 ? 2048 : 1407);
		int64_t shared = S_def(c, "n_shared_experts", 0, 100000, v3 ? 1 : 2);
		m->shared_ffn_hidden = shared * m->expert_ffn_hidden;
		/* V3's router adds e_score_correction_bias, one per expert */
		m->router_bias = v3;
		/* group-limited routing: topk_group of n_group groups (V3: 4 of
		 * 8; V2-Lite's greedy router, 1 of 1, is unlimited) */
		int64_t groups = S_def(c, "n_group", 1, 100000, 1);
		int64_t per = S_def(c, "topk_group", 1, 100000, groups);
		if (groups > 1 && per < groups) {
			m->route_groups = groups;
			m->route_groups_per_token = per;
		}
		break;
	}
	case F_LLAMA4: case F_LLAMA4_TEXT:
		ekey = "num_local_experts";
		E = S_def(c, ekey, 0, 100000, 16);
		k = S_def(c, "num_experts_per_tok", 1, 100000, 1);
		/* intermediate_size is the experts' (and the shared expert's);
		 * intermediate_size_mlp the dense layers' */
		m->expert_ffn_hidden = m->ffn_hidden;
		m->shared_ffn_hidden = m->ffn_hidden;
		m->ffn_hidden = S_def(c, "intermediate_size_mlp", 1, 10000000, 16384);
		break;
	default:
		break;
	}
	if (c->failed)
		return;
	if (E > 1) {
		m->experts = E;
		m->experts_per_token = k;
		m->dense_layers = m->layers - S_moe_layers(c, fam, m->layers);
		if (k > E) {
			const S_field *f = S_get(c, "num_experts_per_tok");
			tb_diags_add(c->d, TB_DIAG_ERROR, c->path, c->text, c->len, f ? f->line : 1, f ? f->col : 1,
			             "num_experts_per_tok %lld is above %s %lld; expected at most the number of experts",
			             (long long)k, ekey, (long long)E);
			c->failed = true;
			return;
		}
	} else {
		m->expert_ffn_hidden = m->shared_ffn_hidden = 0;
		m->shared_expert_gate = m->router_bias = false;
		m->route_groups = m->route_groups_per_token = 0;
	}
	S_windows(c, fam, m);
}

int tb_hfconfig_parse(const char *path, const char *text, size_t len,
                      tb_model *out, tb_diags *d)
{
	S_cfg *c = tb_xcalloc(1, sizeof *c);
	c->path = path ? path : "config.json";
	c->text = text ? text : "";
	c->len = text ? len : 0;
	c->d = d;
	c->prefix = "";
	tb_model m;
	memset(&m, 0, sizeof m);
	int rc = -1;
	char *types = S_type_list();
	if (!S_read(c))
		goto done;

	const S_field *mtf = S_raw(c, "model_type");
	if (!mtf || mtf->kind != S_SCALAR) {
		tb_diags_add(d, TB_DIAG_ERROR, c->path, c->text, c->len, mtf ? mtf->line : 1, mtf ? mtf->col : 1,
		             "missing \"model_type\" in config.json; expected one of %s", types);
		goto done;
	}
	const char *mt = mtf->val;
	int fam = F_COUNT;
	for (int i = 0; i < F_COUNT; i++)
		if (strcmp(mt, S_types[i]) == 0)
			fam = i;
	if (fam == F_COUNT) {
		/* A near name is another architecture with other formulas (qwen3
		 * is not qwen2), so the only suggestion is the same name in
		 * another case, which transformers would reject. */
		const char *same = NULL;
		for (int i = 0; i < F_COUNT; i++)
			if (strcasecmp(mt, S_types[i]) == 0)
				same = S_types[i];
		if (same)
			tb_diags_add(d, TB_DIAG_ERROR, c->path, c->text, c->len, mtf->line, mtf->col,
			             "unsupported model_type '%.40s'; did you mean '%s'? (model types are lower case)",
			             mt, same);
		else
			tb_diags_add(d, TB_DIAG_ERROR, c->path, c->text, c->len, mtf->line, mtf->col,
			             "unsupported model_type '%.40s'; expected one of %s", mt, types);
		goto done;
	}
	c->type = mt;
	if (fam == F_LLAMA4 || fam == F_GEMMA3) {
		const S_field *tc = S_raw(c, "text_config");
		if (!tc || tc->kind != S_MAP) {
			tb_diags_add(d, TB_DIAG_ERROR, c->path, c->text, c->len, tc ? tc->line : 1, tc ? tc->col : 1,
			             "model_type %s keeps its language model in \"text_config\"; expected a text_config object",
			             mt);
			goto done;
		}
		c->prefix = "text_config.";
	}

	m.has_shape = true;
	m.experts_per_token = 1;
	m.vision_not_counted = c->prefix[0] != '\0';
	if (fam == F_GPT2)
		S_gpt2(c, &m);
	else
		S_decoder(c, (S_family)fam, &m);
	if (c->failed)
		goto done;
	/* tie_word_embeddings: the language model's, else the wrapper's */
	const char *prefix = c->prefix;
	c->prefix = "";
	S_bool(c, "tie_word_embeddings", &m.tied_embeddings);
	c->prefix = prefix;
	if (prefix[0])
		S_bool(c, "tie_word_embeddings", &m.tied_embeddings);
	if (c->failed)
		goto done;

	if (m.head_dim == 0) {
		if (m.hidden % m.heads != 0) {
			const S_field *f = S_get(c, fam == F_GPT2 ? "n_head" : "num_attention_heads");
			tb_diags_add(d, TB_DIAG_ERROR, c->path, c->text, c->len, f ? f->line : 1, f ? f->col : 1,
			             "%lld heads do not divide hidden size %lld and there is no head_dim; expected a divisor",
			             (long long)m.heads, (long long)m.hidden);
			goto done;
		}
		m.head_dim = m.hidden / m.heads;
	}
	if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0) {
		const S_field *f = S_get(c, "num_key_value_heads");
		tb_diags_add(d, TB_DIAG_ERROR, c->path, c->text, c->len, f ? f->line : 1, f ? f->col : 1,
		             "num_key_value_heads %lld does not divide num_attention_heads %lld; expected a divisor",
		             (long long)m.kv_heads, (long long)m.heads);
		goto done;
	}
	if (m.experts <= 1) {
		m.experts = 0;
		m.experts_per_token = 1;
	}
	*out = m;
	rc = 0;
done:
	for (size_t i = 0; i < c->n; i++) {
		free(c->f[i].key);
		free(c->f[i].val);
		for (size_t j = 0; j < c->f[i].nitems; j++)
			free(c->f[i].items[j]);
		free(c->f[i].items);
	}
	free(types);
	free(c);
	return rc;
}
