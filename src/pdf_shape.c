/* pdf_shape.c: a line of complex text into positioned glyphs.  FriBidi
 * gives the levels (UAX #9 with its bracket pairs, numbers and
 * separators) and the line's visual order; the line is cut into runs of
 * one level, font, style and script; each run is shaped by HarfBuzz with
 * the whole line as context, so a word cut by a change of style (a link)
 * still joins. */
#include "pdf_shape.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pdf_break.h"
#include "pdf_doc.h"
#include "textlib.h"
#include "utf8.h"
#include "trainbudget/xalloc.h"

/* ---- which text needs shaping ---------------------------------------- */

bool tb_pdf_shape_simple(const tb_pdf_cells *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (!tb_pdf_cp_simple(c->v[i].cp))
			return false;
	return true;
}

/* A strong left-to-right letter among the characters that need no
 * shaping: Latin, Greek, Cyrillic, CJK.  The rest of them are neutral or
 * numbers, which do not set a direction. */
static bool S_simple_letter(uint32_t cp)
{
	if (cp < 0x80)
		return (cp | 0x20) >= 'a' && (cp | 0x20) <= 'z';
	if (cp < 0x2000)
		return (cp >= 0xC0 && cp != 0xD7 && cp != 0xF7) && !(cp >= 0x2B9 && cp <= 0x2FF) &&
		       cp != 0x37E && cp != 0x387;
	return cp >= 0x3040 && cp != 0x30FB && !(cp >= 0xFF01 && cp <= 0xFF20);
}

int tb_pdf_shape_dir(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < len;) {
		uint32_t cp = '?';
		size_t n = tb_utf8_seq(u + i, len - i, &cp);
		i += n ? n : 1;
		if (tb_pdf_cp_simple(cp)) {
			if (S_simple_letter(cp))
				return TB_PDF_DIR_LTR;
			continue;
		}
		const tb_textlib *L = tb_textlib_get(NULL);
		if (!L)
			return TB_PDF_DIR_LTR; /* the shaper reports it when it draws */
		FriBidiCharType t = L->fribidi_get_bidi_type(cp);
		if (t == FRIBIDI_TYPE_LTR)
			return TB_PDF_DIR_LTR;
		if (t == FRIBIDI_TYPE_RTL || t == FRIBIDI_TYPE_AL)
			return TB_PDF_DIR_RTL;
	}
	return TB_PDF_DIR_LTR;
}

/* ---- fonts ------------------------------------------------------------- */

/* Only made once the libraries were loaded. */
void tb_pdf_shape_font_free(void *hb_font)
{
	const tb_textlib *L = hb_font ? tb_textlib_get(NULL) : NULL;
	if (L)
		L->hb_font_destroy(hb_font);
}

void tb_pdf_shape_buffer_free(void *hb_buffer)
{
	const tb_textlib *L = hb_buffer ? tb_textlib_get(NULL) : NULL;
	if (L)
		L->hb_buffer_destroy(hb_buffer);
}

static hb_font_t *S_hb_font(const tb_textlib *L, tb_pdf_doc *st, size_t fi)
{
	tb_pdf_font_slot *s = &st->fonts[fi];
	if (s->hb)
		return s->hb;
	size_t len;
	const unsigned char *data = tb_pdf_font_data(s->f, &len);
	hb_blob_t *blob = L->hb_blob_create((const char *)data, (unsigned)len,
	                                 HB_MEMORY_MODE_READONLY, NULL, NULL);
	hb_face_t *face = L->hb_face_create(blob, 0);
	hb_font_t *font = L->hb_font_create(face);
	unsigned upem = L->hb_face_get_upem(face);
	L->hb_font_set_scale(font, (int)upem, (int)upem);
	L->hb_face_destroy(face);
	L->hb_blob_destroy(blob);
	s->hb = font;
	return font;
}

/* The font slot that draws cell i; -1 when none does (reported).  A
 * mark, joiner or selector stays in its base's font when that has it, so
 * HarfBuzz can place it there. */
static int S_font_of(tb_pdf_doc *st, const tb_pdf_cells *c, size_t i, int prev)
{
	uint32_t cp = c->v[i].cp;
	bool keep = tb_pdf_cp_extends(cp) ||
	            cp == ' ' || cp == 0x00A0 || cp == 0x202F; /* spaces stay in a run's font */
	if (prev >= 0 && keep && (tb_pdf_ignorable(cp) ||
	                          tb_pdf_font_glyph(st->fonts[prev].f, cp)))
		return prev;
	tb_pdf_glyph_hit g;
	if (tb_pdf_fontset_glyph(st, c->v[i].style, cp, &g))
		return g.font;
	if (tb_pdf_ignorable(cp))
		return prev >= 0 ? prev : -2; /* the neighbour's, found below */
	if (!st->failed)
		tb_pdf_fontset_missing(st, cp, c);
	return -1;
}

/* ---- runs -------------------------------------------------------------- */

static tb_pdf_glyph *S_glyph(tb_pdf_shaped *s)
{
	s->v = tb_xgrow(s->v, &s->cap, s->n + 1, sizeof *s->v, 64);
	tb_pdf_glyph *g = &s->v[s->n++];
	memset(g, 0, sizeof *g);
	return g;
}

static tb_pdf_run *S_run(tb_pdf_shaped *s)
{
	s->runs = tb_xgrow(s->runs, &s->rcap, s->nruns + 1, sizeof *s->runs, 8);
	tb_pdf_run *r = &s->runs[s->nruns++];
	memset(r, 0, sizeof *r);
	return r;
}

void tb_pdf_shaped_release(tb_pdf_shaped *s)
{
	free(s->v);
	free(s->runs);
	memset(s, 0, sizeof *s);
}

#define S_RUN_CELLS 512

/* Scratch for one line, an array of each per character. */
typedef struct S_line {
	uint32_t *cp;
	FriBidiCharType *types;
	FriBidiBracketType *brackets;
	FriBidiLevel *levels;
	FriBidiStrIndex *map;
	int *font;
	hb_script_t *script;
	uint32_t *run_of;       /* logical run of each cell */
	uint32_t *cluster_end;  /* for a cluster's first cell: the cell after it */
	unsigned char *ink;     /* for a cluster's first cell: it has an outline */
} S_line;

/* Shapes logical cells [a, b) of font fi as one run of `level`. */
static void S_shape_run(const tb_textlib *L, tb_pdf_doc *st, const tb_pdf_cells *c, const S_line *ln, size_t a,
                        size_t b, hb_buffer_t *buf, tb_pdf_shaped *out)
{
	size_t fi = (size_t)ln->font[a];
	bool rtl = ln->levels[a] & 1;
	hb_font_t *hbf = S_hb_font(L, st, fi);
	tb_pdf_font *f = st->fonts[fi].f;
	L->hb_buffer_clear_contents(buf);
	L->hb_buffer_set_direction(buf, rtl ? HB_DIRECTION_RTL : HB_DIRECTION_LTR);
	L->hb_buffer_set_script(buf, ln->script[a]);
	const char *lang = st->meta && st->meta->lang ? st->meta->lang : "en";
	L->hb_buffer_set_language(buf, L->hb_language_from_string(lang, -1));
	/* no dotted circle for a mark whose base is in the run before */
	L->hb_buffer_set_flags(buf, (hb_buffer_flags_t)((a == 0 ? HB_BUFFER_FLAG_BOT : 0) |
	                                             (b == c->n ? HB_BUFFER_FLAG_EOT : 0) |
	                                             HB_BUFFER_FLAG_REMOVE_DEFAULT_IGNORABLES |
	                                             HB_BUFFER_FLAG_DO_NOT_INSERT_DOTTED_CIRCLE));
	L->hb_buffer_add_codepoints(buf, ln->cp, (int)c->n, (unsigned)a, (int)(b - a));
	L->hb_shape(hbf, buf, NULL, 0);
	unsigned ng = 0;
	const hb_glyph_info_t *gi = L->hb_buffer_get_glyph_infos(buf, &ng);
	const hb_glyph_position_t *gp = L->hb_buffer_get_glyph_positions(buf, NULL);
	unsigned upem = (unsigned)L->hb_face_get_upem(L->hb_font_get_face(hbf));
	if (!upem)
		upem = 1000;

	/* the clusters: each starts at a cell some glyph names and runs to
	 * the next such cell; ink[] says whether any of its glyphs has an
	 * outline */
	uint32_t *end = ln->cluster_end;
	unsigned char *ink = ln->ink;
	for (size_t i = a; i < b; i++)
		end[i] = ink[i] = 0;
	for (unsigned k = 0; k < ng; k++) {
		if (gi[k].cluster >= a && gi[k].cluster < b) {
			end[gi[k].cluster] = 1;
			ink[gi[k].cluster] |= tb_pdf_font_inked(f, gi[k].codepoint);
		}
	}
	size_t next = b;
	for (size_t i = b; i-- > a;) {
		if (end[i]) {
			end[i] = (uint32_t)next;
			next = i;
		}
	}

	tb_pdf_run *r = S_run(out);
	r->first = (uint32_t)out->n;
	r->cell = (uint32_t)a;
	r->ncells = (uint32_t)(b - a);
	r->rtl = rtl;
	uint32_t expect = (uint32_t)a;  /* the cell a one-to-one run draws next */
	for (unsigned k = 0; k < ng; k++) {
		uint32_t cl = gi[k].cluster;
		if (cl < a || cl >= b || !end[cl])
			continue;
		tb_pdf_glyph *g = S_glyph(out);
		g->cell = cl;
		g->ncells = end[cl] - cl;
		g->run = (uint32_t)(out->nruns - 1);
		g->style = c->v[cl].style;
		g->font = (unsigned char)fi;
		g->gid = (uint16_t)gi[k].codepoint;
		/* the cluster's text goes with its first glyph in logical order:
		 * drawn first left to right, last right to left */
		g->text = rtl ? k + 1 == ng || gi[k + 1].cluster != cl
		              : k == 0 || gi[k - 1].cluster != cl;
		g->gap = c->v[cl].gap && g->ncells == 1;
		g->w = tb_pdf_font_width(f, g->gid);
		hb_position_t hmtx = L->hb_font_get_glyph_h_advance(hbf, gi[k].codepoint);
		g->adv = gp[k].x_advance == hmtx ? g->w
		         : (int32_t)lround((double)gp[k].x_advance * 1000.0 / upem);
		g->dx = (int32_t)lround((double)gp[k].x_offset * 1000.0 / upem);
		g->dy = (int32_t)lround((double)gp[k].y_offset * 1000.0 / upem);
		if (!g->gid && !tb_pdf_ignorable(c->v[cl].cp) && !st->failed)
			tb_pdf_fontset_missing(st, c->v[cl].cp, c);
		if (!rtl && (g->ncells != 1 || cl != expect))
			r->reordered = true;
		expect = cl + 1;
	}
	if (!rtl && expect != b)
		r->reordered = true;
	r->n = (uint32_t)out->n - r->first;
	/* text never vanishes: a cluster with a letter in it leaves ink */
	for (size_t i = a; i < b && !st->failed; i++)
		for (size_t k = i; end[i] && !ink[i] && k < end[i] && !st->failed; k++)
			tb_pdf_fontset_blank(st, fi, c->v[k].cp);
}

void tb_pdf_shape(tb_pdf_doc *st, const tb_pdf_cells *c, int dir, tb_pdf_shaped *out)
{
	out->n = out->nruns = 0;
	size_t n = c->n;
	if (!n || n > INT_MAX / 8 || st->failed)
		return;
	const char *why;
	const tb_textlib *L = tb_textlib_get(&why);
	if (!L) {
		tb_diags_add(st->d, TB_DIAG_ERROR, "pdf", NULL, 0, 0, 0,
		             "this text needs shaping or bidi ordering, and %s", why);
		st->failed = true;
		return;
	}
	S_line ln;
	ln.cp = tb_xcalloc(n, sizeof *ln.cp);
	ln.types = tb_xcalloc(n, sizeof *ln.types);
	ln.brackets = tb_xcalloc(n, sizeof *ln.brackets);
	ln.levels = tb_xcalloc(n, sizeof *ln.levels);
	ln.map = tb_xcalloc(n, sizeof *ln.map);
	ln.font = tb_xcalloc(n, sizeof *ln.font);
	ln.script = tb_xcalloc(n, sizeof *ln.script);
	ln.run_of = tb_xcalloc(n, sizeof *ln.run_of);
	ln.cluster_end = tb_xcalloc(n, sizeof *ln.cluster_end);
	ln.ink = tb_xcalloc(n, sizeof *ln.ink);
	for (size_t i = 0; i < n; i++)
		ln.cp[i] = c->v[i].cp;

	/* levels and the visual order (UAX #9: P2-P3 when auto, W1-W7 with
	 * numbers and their separators, N0 bracket pairs, N1-N2, I1-I2, L1-L2) */
	FriBidiParType pt = dir == TB_PDF_DIR_RTL ? FRIBIDI_PAR_RTL
	                    : dir == TB_PDF_DIR_LTR ? FRIBIDI_PAR_LTR : FRIBIDI_PAR_ON;
	L->fribidi_get_bidi_types(ln.cp, (FriBidiStrIndex)n, ln.types);
	L->fribidi_get_bracket_types(ln.cp, (FriBidiStrIndex)n, ln.types, ln.brackets);
	for (size_t i = 0; i < n; i++)
		ln.map[i] = (FriBidiStrIndex)i;
	if (!L->fribidi_get_par_embedding_levels_ex(ln.types, ln.brackets, (FriBidiStrIndex)n, &pt,
	                                         ln.levels) ||
	    !L->fribidi_reorder_line(0, ln.types, (FriBidiStrIndex)n, 0, pt, ln.levels, NULL,
	                          ln.map)) {
		memset(ln.levels, 0, n * sizeof *ln.levels);
		for (size_t i = 0; i < n; i++)
			ln.map[i] = (FriBidiStrIndex)i;
	}

	/* fonts: an ignorable character with no glyph takes a neighbour's */
	hb_unicode_funcs_t *uf = L->hb_unicode_funcs_get_default();
	int prev = -1;
	for (size_t i = 0; i < n; i++) {
		ln.font[i] = S_font_of(st, c, i, prev);
		if (ln.font[i] == -1)
			goto done;
		if (ln.font[i] >= 0)
			prev = ln.font[i];
	}
	for (size_t i = n; i-- > 0;) {
		if (ln.font[i] >= 0)
			prev = ln.font[i];
		else
			ln.font[i] = prev >= 0 ? prev : TB_PDF_FACE_REGULAR;
	}
	for (size_t i = 0; i < n; i++)
		if (!tb_pdf_fontset_at(st, (size_t)ln.font[i]))
			goto done;

	/* scripts: common and inherited characters take their neighbour's */
	hb_script_t last = HB_SCRIPT_INVALID;
	for (size_t i = 0; i < n; i++) {
		hb_script_t s = L->hb_unicode_script(uf, ln.cp[i]);
		if (s == HB_SCRIPT_COMMON || s == HB_SCRIPT_INHERITED || s == HB_SCRIPT_UNKNOWN)
			s = last;
		ln.script[i] = s;
		if (s != HB_SCRIPT_INVALID)
			last = s;
	}
	for (size_t i = n; i-- > 0;) {
		if (ln.script[i] != HB_SCRIPT_INVALID)
			last = ln.script[i];
		else
			ln.script[i] = last == HB_SCRIPT_INVALID ? HB_SCRIPT_COMMON : last;
	}

	/* logical runs: one level, font, style and script, and bounded: past
	 * S_RUN_CELLS a run ends before the next character that starts a
	 * cluster, past twice that anywhere.  HarfBuzz 6 asserts (and
	 * aborts) on a long enough chain of marks on one letter, which a
	 * hostile template can write; no text needs a run this long, and the
	 * line around it is still the context each run is shaped in.  (70,000
	 * marks on a q aborted here; tests/cli-pdf.sh keeps that case.) */
	uint32_t nrun = 0;
	size_t len = 0;
	for (size_t i = 0; i < n; i++, len++) {
		if (i > 0 && (ln.levels[i] != ln.levels[i - 1] || ln.font[i] != ln.font[i - 1] ||
		              c->v[i].style != c->v[i - 1].style || ln.script[i] != ln.script[i - 1] ||
		              (len >= S_RUN_CELLS && !tb_pdf_cp_extends(ln.cp[i])) ||
		              len >= 2 * S_RUN_CELLS)) {
			nrun++;
			len = 0;
		}
		ln.run_of[i] = nrun;
	}

	/* shaped in visual order: a run of one level is contiguous there */
	hb_buffer_t *buf = st->hb_buf ? st->hb_buf : (st->hb_buf = L->hb_buffer_create());
	uint32_t done_run = UINT32_MAX;
	for (size_t v = 0; v < n && !st->failed; v++) {
		size_t li = (size_t)ln.map[v];
		if (li >= n || ln.run_of[li] == done_run)
			continue;
		done_run = ln.run_of[li];
		size_t a = li, b = li + 1;
		while (a > 0 && ln.run_of[a - 1] == done_run)
			a--;
		while (b < n && ln.run_of[b] == done_run)
			b++;
		S_shape_run(L, st, c, &ln, a, b, buf, out);
	}
done:
	free(ln.cp);
	free(ln.types);
	free(ln.brackets);
	free(ln.levels);
	free(ln.map);
	free(ln.font);
	free(ln.script);
	free(ln.run_of);
	free(ln.cluster_end);
	free(ln.ink);
}
