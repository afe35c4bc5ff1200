/* signoff.c: the inputs a report rests on and the one digest over them.
 *
 * The digest is the SHA-256 of a short text, one line per thing covered,
 * so anyone can rebuild it with printf and sha256sum:
 *
 *   trainbudget-inputs 1
 *   version 0.1.0
 *   scenario <sha256 of the scenario's bytes>
 *   hf_config <sha256 of the config.json's bytes>      (when there is one)
 *   template <sha256 of the template's bytes>          (when there is one)
 *   set <sha256 of "KEY=VALUE">                        (each --set, in order)
 *   sweep <sha256 of "KEY=VALUES">                     (each --sweep, in order)
 *
 * Paths are left out on purpose: the same bytes give the same digest
 * wherever they live, and a path is no figure.  Overrides enter by their
 * own hash, so a value holding a line break cannot forge a line. */
#include "trainbudget/signoff.h"

#include <stdlib.h>
#include <string.h>

#include "trainbudget/buf.h"
#include "trainbudget/sha256.h"
#include "trainbudget/xalloc.h"
#include "utf8.h"

static const char *const S_kind_names[TB_INPUT_KINDS] = {
	"scenario", "hf_config", "template", "measured_log", "pilot", "measured_trace",
};

const char *tb_signoff_kind_name(tb_input_kind k)
{
	return (unsigned)k < TB_INPUT_KINDS ? S_kind_names[k] : "?";
}

void tb_signoff_init(tb_signoff *s)
{
	memset(s, 0, sizeof *s);
}

static void S_free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static char **S_copy_list(const char *const *v, size_t n)
{
	if (!n)
		return NULL;
	char **c = tb_xcalloc(n, sizeof *c);
	for (size_t i = 0; i < n; i++)
		c[i] = tb_xstrdup(v[i] ? v[i] : "");
	return c;
}

void tb_signoff_release(tb_signoff *s)
{
	for (size_t i = 0; i < s->nfiles; i++) {
		free(s->files[i].path);
		free(s->files[i].read_as);
	}
	S_free_list(s->sets, s->nsets);
	S_free_list(s->sweeps, s->nsweeps);
	memset(s, 0, sizeof *s);
}

void tb_signoff_copy(tb_signoff *dst, const tb_signoff *src)
{
	tb_signoff_release(dst);
	*dst = *src;
	for (size_t i = 0; i < dst->nfiles; i++) {
		dst->files[i].path = tb_xstrdup(src->files[i].path);
		dst->files[i].read_as = tb_xstrdup(src->files[i].read_as);
	}
	dst->sets = S_copy_list((const char *const *)src->sets, src->nsets);
	dst->sweeps = S_copy_list((const char *const *)src->sweeps, src->nsweeps);
}

void tb_signoff_set_overrides(tb_signoff *s, const char *const *sets, size_t nsets,
                              const char *const *sweeps, size_t nsweeps)
{
	S_free_list(s->sets, s->nsets);
	S_free_list(s->sweeps, s->nsweeps);
	s->sets = S_copy_list(sets, nsets);
	s->nsets = nsets;
	s->sweeps = S_copy_list(sweeps, nsweeps);
	s->nsweeps = nsweeps;
}

char *tb_signoff_path(const char *given)
{
	if (!given || !*given)
		return tb_xstrdup("?");
	const char *p = given;
	if (given[0] == '/') {
		const char *slash = strrchr(given, '/');
		p = slash[1] ? slash + 1 : "?";
	}
	return tb_utf8_shown(p, strlen(p));
}

/* The last `k` components of absolute path p ("/x/a/config.json", 2:
 * "a/config.json"); every component when it has no more. */
static char *S_tail(const char *p, int k)
{
	size_t end = strlen(p);
	while (end > 1 && p[end - 1] == '/')
		end--;
	size_t at = end;
	for (int i = 0; i < k; i++) {
		if (i > 0) {
			while (at > 0 && p[at - 1] == '/')
				at--;
			if (at == 0)
				break;
		}
		while (at > 0 && p[at - 1] != '/')
			at--;
	}
	while (at < end && p[at] == '/')
		at++;
	return at < end ? tb_utf8_shown(p + at, end - at) : tb_xstrdup("?");
}

void tb_signoff_paths(char **out, const char *const *given, size_t n)
{
	enum { S_MAX = 128 };
	int k[S_MAX];
	bool grow[S_MAX];
	size_t m = n < S_MAX ? n : S_MAX;
	for (size_t i = 0; i < n; i++)
		out[i] = tb_signoff_path(given[i]);
	for (size_t i = 0; i < m; i++)
		k[i] = 1;
	/* lengthen every absolute path of a colliding group by a directory,
	 * together, until no two agree or none can grow */
	for (int round = 0; round < 256; round++) {
		bool any = false;
		for (size_t i = 0; i < m; i++) {
			grow[i] = false;
			if (!given[i] || given[i][0] != '/')
				continue;
			for (size_t j = 0; j < m && !grow[i]; j++)
				grow[i] = j != i && strcmp(out[i], out[j]) == 0;
		}
		for (size_t i = 0; i < m; i++) {
			if (!grow[i])
				continue;
			char *longer = S_tail(given[i], k[i] + 1);
			if (strcmp(longer, out[i]) != 0) {
				free(out[i]);
				out[i] = longer;
				k[i]++;
				any = true;
			} else {
				free(longer);
			}
		}
		if (!any)
			break;
	}
}

/* The slot an input of this kind replaces, or -1: a scenario or template
 * replaces the one before; a config, the one read from the same path (two
 * configs of one published name, /a/config.json and /b/config.json, are
 * two inputs). */
static long S_slot(const tb_signoff *s, tb_input_kind kind, const char *read_as)
{
	for (size_t i = 0; i < s->nfiles; i++)
		if (s->files[i].kind == kind &&
		    ((kind != TB_INPUT_HF_CONFIG && kind != TB_INPUT_MEASURED_LOG &&
		      kind != TB_INPUT_PILOT && kind != TB_INPUT_MEASURED_TRACE) ||
		     strcmp(s->files[i].read_as, read_as) == 0))
			return (long)i;
	return -1;
}

/* The inputs of one kind, published together: two configs of one name
 * (/a/config.json, /b/config.json) are listed apart, as the sweep's
 * points name them. */
static void S_publish_apart(tb_signoff *s, tb_input_kind kind)
{
	const char *given[TB_SIGNOFF_MAX_FILES];
	char *shown[TB_SIGNOFF_MAX_FILES];
	size_t at[TB_SIGNOFF_MAX_FILES], n = 0;
	for (size_t i = 0; i < s->nfiles; i++)
		if (s->files[i].kind == kind) {
			at[n] = i;
			given[n++] = s->files[i].read_as;
		}
	if (n < 2)
		return;
	tb_signoff_paths(shown, given, n);
	for (size_t i = 0; i < n; i++) {
		free(s->files[at[i]].path);
		s->files[at[i]].path = shown[i];
	}
}

/* Puts (kind, path, hex) in its place. */
static bool S_put(tb_signoff *s, tb_input_kind kind, const char *read_as, const char *hex)
{
	long at = S_slot(s, kind, read_as);
	tb_input_file *f;
	if (at >= 0) {
		f = &s->files[at];
		free(f->path);
		free(f->read_as);
		f->path = tb_signoff_path(read_as);
		f->read_as = tb_xstrdup(read_as);
		memcpy(f->sha256, hex, 65);
		return true;
	}
	if (s->nfiles == TB_SIGNOFF_MAX_FILES)
		return false;
	/* kind order, then the order added: the digest lists them so */
	size_t pos = 0;
	while (pos < s->nfiles && s->files[pos].kind <= kind)
		pos++;
	memmove(&s->files[pos + 1], &s->files[pos], (s->nfiles - pos) * sizeof s->files[0]);
	s->nfiles++;
	f = &s->files[pos];
	f->kind = kind;
	f->path = tb_signoff_path(read_as);
	f->read_as = tb_xstrdup(read_as);
	memcpy(f->sha256, hex, 65);
	S_publish_apart(s, kind);
	return true;
}

void tb_signoff_add(tb_signoff *s, tb_input_kind kind, const char *path,
                    const void *data, size_t len)
{
	if ((unsigned)kind >= TB_INPUT_KINDS)
		return;
	char hex[65];
	tb_sha256_hex(data, len, hex);
	S_put(s, kind, path ? path : "", hex);
}

bool tb_signoff_add_hash(tb_signoff *s, tb_input_kind kind, const char *path,
                         const char *hex_sha256)
{
	if ((unsigned)kind >= TB_INPUT_KINDS || !hex_sha256 || strlen(hex_sha256) != 64)
		return false;
	if (!path)
		path = "";
	long at = S_slot(s, kind, path);
	if (at >= 0 && strcmp(s->files[at].sha256, hex_sha256) != 0)
		return false;
	return S_put(s, kind, path, hex_sha256);
}

void tb_signoff_drop(tb_signoff *s, tb_input_kind kind)
{
	size_t k = 0;
	for (size_t i = 0; i < s->nfiles; i++) {
		if (s->files[i].kind == kind) {
			free(s->files[i].path);
			free(s->files[i].read_as);
		} else
			s->files[k++] = s->files[i];
	}
	memset(&s->files[k], 0, (s->nfiles - k) * sizeof s->files[0]);
	s->nfiles = k;
}

static void S_hashed_lines(tb_buf *t, const char *word, char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char hex[65];
		tb_sha256_hex(v[i], strlen(v[i]), hex);
		tb_buf_printf(t, "%s %s\n", word, hex);
	}
}

void tb_signoff_seal(tb_signoff *s, const char *version)
{
	tb_buf t;
	tb_buf_init(&t);
	tb_buf_printf(&t, "trainbudget-inputs 1\nversion %s\n", version ? version : "");
	for (size_t i = 0; i < s->nfiles; i++)
		tb_buf_printf(&t, "%s %s\n", tb_signoff_kind_name(s->files[i].kind), s->files[i].sha256);
	S_hashed_lines(&t, "set", s->sets, s->nsets);
	S_hashed_lines(&t, "sweep", s->sweeps, s->nsweeps);
	tb_sha256_hex(t.ptr, t.len, s->digest);
	tb_buf_release(&t);
}
