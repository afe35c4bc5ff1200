/* pipelayout.c: Megatron-LM's pipeline layout strings (pipelayout.h).
 *
 * Megatron-LM expands a layout with two regular expressions, "(...)*n"
 * then "x*n", and reads the result a character at a time.  Here the
 * expansion is never built: each symbol is counted onto its rank as it is
 * read, and every symbol moves a counter with a limit (the model's layers
 * and MTP modules, one embedding, one loss, TB_PIPE_STAGES_MAX stages), so
 * a repeat count cannot make the work grow past them. */
#include "trainbudget/pipelayout.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trainbudget/xalloc.h"

typedef struct S_state {
	int64_t p, layers, dense, mtp;
	int64_t *lay, *den, *mt;     /* per rank */
	int64_t stage, t, m, l;
	int64_t m_stage, l_stage;
	bool e;                      /* the embedding seen (every other symbol wants it first) */
	const char *why;
	long at;
	char *buf;
	size_t cap;
} S_state;

static bool S_fail(S_state *s, long at, const char *why)
{
	s->why = why;
	s->at = at;
	return false;
}

static bool S_emit(S_state *s, char c, long at)
{
	switch (c) {
	case '|':
		if (s->stage + 1 >= TB_PIPE_STAGES_MAX)
			return S_fail(s, at, "more than 65,536 stages");
		s->stage++;
		return true;
	case 'E':
		if (s->e)
			return S_fail(s, at, "the embedding (E) twice; expected it once, first");
		if (s->stage > 0)
			return S_fail(s, at, "the embedding (E) after other stages; expected it first, in "
			                     "the first stage (it runs on rank 0)");
		s->e = true;
		return true;
	case 't':
		if (!s->e)
			return S_fail(s, at, "a layer before the embedding; expected E first");
		if (s->l)
			return S_fail(s, at, "a layer after the loss (L); expected L last");
		if (s->m)
			return S_fail(s, at, "a decoder layer (t) after an MTP module (m); expected every "
			                     "decoder layer before the MTP modules");
		if (s->t >= s->layers) {
			snprintf(s->buf, s->cap, "more decoder layers (t) than model.layers (%lld)",
			         (long long)s->layers);
			return S_fail(s, at, s->buf);
		}
		s->lay[s->stage % s->p]++;
		s->den[s->stage % s->p] += s->t < s->dense;
		s->t++;
		return true;
	case 'm':
		if (!s->e)
			return S_fail(s, at, "an MTP module before the embedding; expected E first");
		if (s->l)
			return S_fail(s, at, "an MTP module after the loss (L); expected L last");
		if (s->m >= s->mtp) {
			snprintf(s->buf, s->cap, "more MTP modules (m) than model.mtp_modules (%lld)",
			         (long long)s->mtp);
			return S_fail(s, at, s->buf);
		}
		if (s->m > 0 && s->stage != s->m_stage)
			return S_fail(s, at, "MTP modules in two stages; expected them together in one "
			                     "(Megatron-LM's rule)");
		s->m_stage = s->stage;
		s->mt[s->stage % s->p]++;
		s->m++;
		return true;
	case 'L':
		if (!s->e)
			return S_fail(s, at, "the loss before the embedding; expected E first");
		if (s->l)
			return S_fail(s, at, "the loss (L) twice; expected it once, last");
		s->l = 1;
		s->l_stage = s->stage;
		return true;
	default:
		return S_fail(s, at, "an unknown layer; expected E (embedding), t (decoder layer), "
		                     "m (MTP module), L (loss), | between stages, x*n or (...)*n to repeat");
	}
}

/* A repeat count after '*' at text[*i]; advances *i past it. */
static bool S_count(S_state *s, const char *text, size_t *i, int64_t *n)
{
	long at = (long)*i;
	if (text[*i] != '*')
		return S_fail(s, at, "a group without a repeat count; expected (...)*n");
	(*i)++;
	if (text[*i] < '0' || text[*i] > '9')
		return S_fail(s, (long)*i, "'*' without a count; expected digits after it");
	int64_t v = 0;
	while (text[*i] >= '0' && text[*i] <= '9') {
		v = v * 10 + (text[*i] - '0');
		if (v > TB_PIPE_STAGES_MAX * 16)
			return S_fail(s, at, "a repeat count above a million");
		(*i)++;
	}
	*n = v;
	return true;
}

/* The symbols of text[from, to), each with an optional *n; groups only
 * when `groups` (Megatron-LM's groups do not nest). */
static bool S_seq(S_state *s, const char *text, size_t from, size_t to, bool groups)
{
	size_t i = from;
	while (i < to) {
		char c = text[i];
		if (c == ',') {
			i++;
			continue;
		}
		if (c == '(') {
			if (!groups)
				return S_fail(s, (long)i, "a group inside a group; expected groups side by side");
			size_t j = i + 1;
			bool body = false;
			while (j < to && text[j] != ')') {
				if (text[j] == '(')
					return S_fail(s, (long)j, "a group inside a group; expected groups side by side");
				body = body || text[j] != ',';
				j++;
			}
			if (j >= to)
				return S_fail(s, (long)i, "'(' without ')'");
			if (!body)
				return S_fail(s, (long)i, "an empty group; expected stages or layers inside");
			size_t k = j + 1;
			int64_t n;
			if (!S_count(s, text, &k, &n))
				return false;
			for (int64_t r = 0; r < n; r++)
				if (!S_seq(s, text, i + 1, j, false))
					return false;
			i = k;
			continue;
		}
		if (c == ')')
			return S_fail(s, (long)i, "')' without '('");
		if (c == '*')
			return S_fail(s, (long)i, "'*' after nothing to repeat; expected x*n or (...)*n");
		size_t k = i + 1;
		int64_t n = 1;
		if (k < to && text[k] == '*' && !S_count(s, text, &k, &n))
			return false;
		for (int64_t r = 0; r < n; r++)
			if (!S_emit(s, c, (long)i))
				return false;
		i = k;
	}
	return true;
}

static tb_pipe_rank S_rank(const S_state *s, int64_t r)
{
	tb_pipe_rank k = { r, 1, s->lay[r], s->den[r], s->mt[r] };
	return k;
}

static const char *S_check(S_state *s, tb_pipe_layout *out)
{
	int64_t stages = s->stage + 1, p = s->p;
	s->at = -1;
	if (!s->e)
		return "no embedding (E); expected it first";
	if (!s->l)
		return "no loss (L); expected it last";
	if (stages % p != 0) {
		snprintf(s->buf, s->cap, "%lld stages on %lld pipeline ranks; expected a multiple of "
		         "parallelism.pipeline (each rank holds the same number of virtual stages)",
		         (long long)stages, (long long)p);
		return s->buf;
	}
	if (s->l_stage % p != p - 1) {
		snprintf(s->buf, s->cap, "the loss (L) in stage %lld, which runs on rank %lld; expected "
		         "it on the last rank (%lld)", (long long)s->l_stage + 1,
		         (long long)(s->l_stage % p), (long long)(p - 1));
		return s->buf;
	}
	if (s->t != s->layers) {
		snprintf(s->buf, s->cap, "%lld decoder layers (t); expected model.layers (%lld)",
		         (long long)s->t, (long long)s->layers);
		return s->buf;
	}
	if (s->m != s->mtp) {
		snprintf(s->buf, s->cap, "%lld MTP modules (m); expected model.mtp_modules (%lld)",
		         (long long)s->m, (long long)s->mtp);
		return s->buf;
	}
	int64_t v = stages / p;
	if (s->m > 0 && s->m_stage / p != v - 1)
		return "MTP modules outside their rank's last virtual stage; expected them there "
		       "(Megatron-LM's rule)";
	out->pipeline = p;
	out->virtual_pipeline = v;
	out->first = S_rank(s, 0);
	out->last = S_rank(s, p - 1);
	out->n_middle = 0;
	for (int64_t r = 1; r < p - 1; r++) {
		tb_pipe_rank k = S_rank(s, r);
		int i = 0;
		while (i < out->n_middle && (out->middle[i].layers != k.layers ||
		       out->middle[i].dense != k.dense || out->middle[i].mtp != k.mtp))
			i++;
		if (i < out->n_middle) {
			out->middle[i].count++;
			continue;
		}
		if (out->n_middle == TB_PIPE_KINDS)
			return "more than 8 kinds of middle rank (ranks that differ in their layers, dense "
			       "layers or MTP modules); expected a layout with fewer";
		out->middle[out->n_middle++] = k;
	}
	return NULL;
}

const char *tb_pipe_layout_parse(const char *text, int64_t pipeline, int64_t layers,
                                 int64_t dense, int64_t mtp, tb_pipe_layout *out,
                                 char *why, size_t cap, long *at)
{
	memset(out, 0, sizeof *out);
	*at = -1;
	size_t len = strlen(text);
	if (len == 0)
		return "an empty layout; expected stages such as \"Et|(tt|)*30mL\"";
	if (len >= TB_PIPE_TEXT_MAX)
		return "a layout longer than 255 characters; expected a shorter one (repeat with "
		       "(...)*n)";
	if (pipeline < 1 || pipeline > TB_PIPE_STAGES_MAX)
		return "a pipeline of more than 65,536 ranks";
	S_state s;
	memset(&s, 0, sizeof s);
	s.p = pipeline;
	s.layers = layers;
	s.dense = dense;
	s.mtp = mtp;
	s.buf = why;
	s.cap = cap;
	size_t n = (size_t)pipeline;
	s.lay = tb_xcalloc(3 * n, sizeof *s.lay);
	s.den = s.lay + n;
	s.mt = s.den + n;
	const char *bad = NULL;
	if (!S_seq(&s, text, 0, len, true))
		bad = s.why;
	else
		bad = S_check(&s, out);
	*at = s.at;
	free(s.lay);
	if (bad) {
		memset(out, 0, sizeof *out);
		return bad;
	}
	memcpy(out->text, text, len + 1);
	return NULL;
}

/* Appends to dst[*len..cap); false when it does not fit. */
__attribute__((format(printf, 4, 5)))
static bool S_add(char *dst, size_t cap, size_t *len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(dst + *len, cap - *len, fmt, ap);
	va_end(ap);
	if (k < 0 || *len + (size_t)k >= cap)
		return false;
	*len += (size_t)k;
	return true;
}

/* One stage's layers: "t", "t*n" or nothing. */
static bool S_add_layers(char *dst, size_t cap, size_t *len, int64_t n)
{
	return n <= 0 || (n == 1 ? S_add(dst, cap, len, "t")
	                         : S_add(dst, cap, len, "t*%lld", (long long)n));
}

size_t tb_pipe_layout_write(int64_t layers, int64_t pipeline, int64_t last, int64_t mtp,
                            char *dst, size_t cap)
{
	if (pipeline < 2 || last < 0 || last > layers || mtp < 0 || mtp > 9 || cap == 0)
		return 0;
	int64_t rest = layers - last, others = pipeline - 1, middle = pipeline - 2;
	int64_t base = rest / others, r = rest % others;
	int64_t on_middle = r < middle ? r : middle;
	int64_t first = base + (r - on_middle > 0 ? 1 : 0);
	size_t len = 0;
	dst[0] = '\0';
	bool ok = S_add(dst, cap, &len, "E") && S_add_layers(dst, cap, &len, first) &&
	          S_add(dst, cap, &len, "|");
	/* the middle ranks: those with the remainder's layer, then the
	 * others, each run of equal stages as one group */
	int64_t runs[2][2] = { { on_middle, base + 1 }, { middle - on_middle, base } };
	for (int i = 0; ok && i < 2; i++) {
		int64_t count = runs[i][0];
		if (count == 1)
			ok = S_add_layers(dst, cap, &len, runs[i][1]) && S_add(dst, cap, &len, "|");
		else if (count > 1)
			ok = S_add(dst, cap, &len, "(") && S_add_layers(dst, cap, &len, runs[i][1]) &&
			     S_add(dst, cap, &len, "|)*%lld,", (long long)count);
	}
	ok = ok && S_add_layers(dst, cap, &len, last);
	for (int64_t i = 0; ok && i < mtp; i++)
		ok = S_add(dst, cap, &len, "m");
	ok = ok && S_add(dst, cap, &len, "L");
	if (!ok) {
		dst[0] = '\0';
		return 0;
	}
	return len;
}
