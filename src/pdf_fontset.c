/* pdf_fontset.c: which font draws each character of the PDF.  A
 * character is looked for in its style's face, then the regular face,
 * then the fallback fonts found on the system (CJK, emoji); one no font
 * has refuses the document with an error naming it, so text never
 * vanishes from a signed page.  Lookups are cached per style. */
#include "pdf_doc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trainbudget/xalloc.h"
#include "utf8.h"

static const char *const S_face_file[TB_PDF_NFACES] = {
	"DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf",
};

/* Where fallback fonts are looked for, in order, when neither the face
 * nor the regular face draws a character: each file's name is tried in
 * the font folder first, then at the path Debian installs it to.  A font
 * there for one script is only read for that script's characters, so a
 * line of Devanagari never reads the 4.5 MB Chinese font to find it has
 * none. */
static const uint32_t S_cjk[][2] = {
	{0x2E80, 0x9FFF}, {0xF900, 0xFAFF}, {0xFE30, 0xFE4F}, {0xFF00, 0xFFEF},
	{0x20000, 0x3FFFF},
};
static const uint32_t S_hangul[][2] = {
	{0x1100, 0x11FF}, {0x3130, 0x318F}, {0xA960, 0xA97F}, {0xAC00, 0xD7FF},
};
static const uint32_t S_cjk_hangul[][2] = {
	{0x1100, 0x11FF}, {0x2E80, 0x9FFF}, {0xA960, 0xA97F}, {0xAC00, 0xD7FF}, {0xF900, 0xFAFF},
	{0xFE30, 0xFE4F}, {0xFF00, 0xFFEF}, {0x20000, 0x3FFFF},
};
static const uint32_t S_deva[][2] = { {0x0900, 0x097F}, {0x1CD0, 0x1CFF}, {0xA8E0, 0xA8FF} };
static const uint32_t S_thai[][2] = { {0x0E00, 0x0E7F} };
#define S_ANY NULL, 0
#define S_FOR(r) r, sizeof r / sizeof r[0]
static const struct S_fallback {
	const char *path;
	const uint32_t (*ranges)[2];    /* NULL: any character */
	size_t nranges;
} S_system_fallbacks[] = {
	/* fonts-dejavu-core: the full faces (Armenian, Georgian, N'Ko, more
	 * symbols) beyond the subsets the build makes */
	{"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", S_ANY},
	/* fonts-droid-fallback: Chinese, Japanese (few Korean syllables) */
	{"/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf", S_FOR(S_cjk)},
	/* fonts-noto-cjk: Chinese, Japanese and Korean, in PostScript
	 * outlines (CFF, embedded through hb-subset); after Droid so that a
	 * machine with both draws what the tests pin */
	{"/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", S_FOR(S_cjk_hangul)},
	/* fonts-nanum: Korean */
	{"/usr/share/fonts/truetype/nanum/NanumGothic.ttf", S_FOR(S_hangul)},
	/* fonts-wqy-microhei, fonts-wqy-zenhei, fonts-arphic-uming: CJK */
	{"/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", S_FOR(S_cjk)},
	{"/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc", S_FOR(S_cjk)},
	{"/usr/share/fonts/truetype/arphic/uming.ttc", S_FOR(S_cjk)},
	/* fonts-lohit-deva: Devanagari, with the OpenType rules HarfBuzz
	 * shapes it by (conjuncts, reph, pre-base matras) */
	{"/usr/share/fonts/truetype/lohit-devanagari/Lohit-Devanagari.ttf", S_FOR(S_deva)},
	/* fonts-tlwg-garuda-ttf: Thai, marks placed by its GPOS */
	{"/usr/share/fonts/truetype/tlwg/Garuda.ttf", S_FOR(S_thai)},
	/* fonts-symbola: emoji and symbols, in outline */
	{"/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf", S_ANY},
	/* fonts-freefont-ttf: many scripts */
	{"/usr/share/fonts/truetype/freefont/FreeSerif.ttf", S_ANY},
};

static bool S_meant_for(const tb_pdf_font_slot *s, uint32_t cp)
{
	if (!s->ranges)
		return true;
	for (size_t i = 0; i < s->nranges; i++)
		if (cp >= s->ranges[i][0] && cp <= s->ranges[i][1])
			return true;
	return false;
}

#define TB_PDF_MAX_FONTS 24
/* ---- fonts ------------------------------------------------------------- */

static int S_face(unsigned style)
{
	return (style & TB_PDF_MONO) ? TB_PDF_FACE_MONO : (style & TB_PDF_BOLD) ? TB_PDF_FACE_BOLD : TB_PDF_FACE_REGULAR;
}

/* Font i, loaded on first use: only fonts a page uses are read, and only
 * those text used are embedded.  A face that cannot be read is an error;
 * a fallback that cannot be read is passed over. */
tb_pdf_font *tb_pdf_fontset_at(tb_pdf_doc *st, size_t i)
{
	tb_pdf_font_slot *s = &st->fonts[i];
	if (s->tried || st->failed)
		return s->f;
	s->tried = true;
	char why[160];
	if (i < TB_PDF_NFACES) {
		tb_buf path;
		tb_buf_init(&path);
		tb_buf_printf(&path, "%s/%s", st->font_dir, S_face_file[i]);
		s->f = tb_pdf_font_load(path.ptr, why, sizeof why);
		if (s->f)
			s->loaded = tb_xstrdup(path.ptr);
		if (!s->f && access(path.ptr, F_OK) != 0) {
			tb_diags_add(st->d, TB_DIAG_ERROR, path.ptr, NULL, 0, 0, 0,
			             "cannot read font: %s; expected the DejaVu fonts "
			             "(Debian package fonts-dejavu-core) or --font-dir naming "
			             "a folder with %s, %s and %s", why,
			             S_face_file[0], S_face_file[1], S_face_file[2]);
			st->failed = true;
		} else if (!s->f) {
			/* there, and unusable: the file is at fault, not a package */
			tb_diags_add(st->d, TB_DIAG_ERROR, path.ptr, NULL, 0, 0, 0,
			             "cannot read font: %s; expected an undamaged TrueType font "
			             "(this file is damaged or not the font its name says)", why);
			st->failed = true;
		}
		tb_buf_release(&path);
		return s->f;
	}
	/* the font folder's copy first, then the system's */
	const char *base = strrchr(s->path, '/');
	base = base ? base + 1 : s->path;
	tb_buf local;
	tb_buf_init(&local);
	tb_buf_printf(&local, "%s/%s", st->font_dir, base);
	/* a face's own file is not its fallback: the folder's DejaVuSans.ttf
	 * is the build's subset, read already, while the fallback is there
	 * for what the subset left out */
	bool face = false;
	for (size_t k = 0; k < TB_PDF_NFACES; k++)
		face = face || (st->fonts[k].loaded && strcmp(st->fonts[k].loaded, local.ptr) == 0);
	if (!face && strcmp(local.ptr, s->path) != 0 &&
	    (s->f = tb_pdf_font_load(local.ptr, why, sizeof why)))
		s->loaded = tb_xstrdup(local.ptr);
	if (!s->f && (s->f = tb_pdf_font_load(s->path, why, sizeof why)))
		s->loaded = tb_xstrdup(s->path);
	tb_buf_release(&local);
	return s->f;
}

void tb_pdf_fontset_init(tb_pdf_doc *st, const tb_pdf_options *opt)
{
	st->nfonts = TB_PDF_NFACES;
	if (opt && opt->fallback_fonts) {
		const char *const *list = opt->fallback_fonts;
		for (size_t i = 0; list[i] && st->nfonts < TB_PDF_MAX_FONTS; i++)
			st->fonts[st->nfonts++].path = tb_xstrdup(list[i]);
		return;
	}
	for (size_t i = 0; i < sizeof S_system_fallbacks / sizeof S_system_fallbacks[0] &&
	                   st->nfonts < TB_PDF_MAX_FONTS; i++) {
		tb_pdf_font_slot *sl = &st->fonts[st->nfonts++];
		sl->path = tb_xstrdup(S_system_fallbacks[i].path);
		sl->ranges = S_system_fallbacks[i].ranges;
		sl->nranges = S_system_fallbacks[i].nranges;
	}
}

void tb_pdf_fontset_release(tb_pdf_doc *st)
{
	for (size_t i = 0; i < st->nfonts; i++) {
		tb_pdf_font_free(st->fonts[i].f);
		free(st->fonts[i].path);
		free(st->fonts[i].loaded);
		if (st->fonts[i].hb)
			tb_pdf_shape_font_free(st->fonts[i].hb);
	}
	tb_pdf_shape_buffer_free(st->hb_buf);
	tb_pdf_shaped_release(&st->shaped);
}

/* Which Debian package draws code point cp: for the error message. */
static const char *S_package_for(uint32_t cp)
{
	if ((cp >= 0xAC00 && cp <= 0xD7AF) || (cp >= 0x1100 && cp <= 0x11FF) ||
	    (cp >= 0x3130 && cp <= 0x318F))
		return "fonts-noto-cjk or fonts-nanum (Korean)";
	if ((cp >= 0x2E80 && cp <= 0x9FFF) ||
	    (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFF00 && cp <= 0xFFEF) ||
	    (cp >= 0x20000 && cp <= 0x3FFFF))
		return "fonts-droid-fallback or fonts-noto-cjk (Chinese, Japanese)";
	if ((cp >= 0x1F000 && cp <= 0x1FAFF) || (cp >= 0x2600 && cp <= 0x27BF))
		return "fonts-symbola (emoji and symbols)";
	if ((cp >= 0x0900 && cp <= 0x097F) || (cp >= 0xA8E0 && cp <= 0xA8FF))
		return "fonts-lohit-deva (Devanagari)";
	if (cp >= 0x0E00 && cp <= 0x0E7F)
		return "fonts-tlwg-garuda-ttf (Thai)";
	return "fonts-freefont-ttf or another TrueType font that covers it";
}

/* A character that must leave ink: not a space, a control or a format
 * character. */
static bool S_visible(uint32_t cp)
{
	return cp > 0x20 && !(cp >= 0x7F && cp <= 0xA0) && cp != 0x1680 &&
	       !(cp >= 0x2000 && cp <= 0x200A) && cp != 0x2028 && cp != 0x2029 &&
	       cp != 0x202F && cp != 0x205F && cp != 0x3000 && !tb_pdf_ignorable(cp);
}

/* The font file at fault, by name: a face or fallback that has cp but
 * cannot draw it, or a face that lacks what every face must have.  The
 * document is refused, never drawn without the text. */
static void S_blame(tb_pdf_doc *st, size_t fi, uint32_t cp, bool empty)
{
	if (st->failed)
		return;
	const char *file = st->fonts[fi].loaded ? st->fonts[fi].loaded
	                   : fi < TB_PDF_NFACES ? S_face_file[fi] : st->fonts[fi].path;
	tb_diags_add(st->d, TB_DIAG_ERROR, file, NULL, 0, 0, 0,
	             empty ? "the font draws U+%04X with an empty glyph, so the PDF would lose it; "
	                     "expected a font whose character map and glyphs are whole (this file "
	                     "is damaged or not the font its name says)"
	                   : "the font has no glyph for U+%04X, which every face must draw: its "
	                     "character map is broken; expected a font whose character map and "
	                     "glyphs are whole (this file is damaged or not the font its name says)",
	             (unsigned)cp);
	st->failed = true;
}

void tb_pdf_fontset_blank(tb_pdf_doc *st, size_t fi, uint32_t cp)
{
	if (S_visible(cp))
		S_blame(st, fi, cp, true);
}

/* A character no font draws: the document is refused, naming it. */
void tb_pdf_fontset_missing(tb_pdf_doc *st, uint32_t cp, const tb_pdf_cells *c)
{
	if (st->failed)
		return;
	/* Printable ASCII is in every face trainbudget draws with: when the
	 * regular face lacks it, its character map is broken, and no package
	 * is missing. */
	if (cp >= 0x20 && cp < 0x7F && tb_pdf_fontset_at(st, TB_PDF_FACE_REGULAR)) {
		S_blame(st, TB_PDF_FACE_REGULAR, cp, false);
		return;
	}
	tb_buf ctx;
	tb_buf_init(&ctx);
	for (size_t i = 0; i < c->n && i < 60; i++) {
		uint32_t u = c->v[i].cp;
		char b[4];
		size_t n = u < 0x80 ? 1 : u < 0x800 ? 2 : u < 0x10000 ? 3 : 4;
		if (n == 1) b[0] = (char)u;
		else if (n == 2) { b[0] = (char)(0xC0 | u >> 6); b[1] = (char)(0x80 | (u & 0x3F)); }
		else if (n == 3) { b[0] = (char)(0xE0 | u >> 12); b[1] = (char)(0x80 | ((u >> 6) & 0x3F)); b[2] = (char)(0x80 | (u & 0x3F)); }
		else { b[0] = (char)(0xF0 | u >> 18); b[1] = (char)(0x80 | ((u >> 12) & 0x3F)); b[2] = (char)(0x80 | ((u >> 6) & 0x3F)); b[3] = (char)(0x80 | (u & 0x3F)); }
		tb_buf_put(&ctx, b, n);
	}
	if (c->n > 60)
		tb_buf_puts(&ctx, "\xE2\x80\xA6");
	tb_diags_add(st->d, TB_DIAG_ERROR, "pdf", NULL, 0, 0, 0,
	             "no font can draw U+%04X in \"%s\", so the PDF would lose it; "
	             "expected a font that covers it: install Debian's %s (looked for "
	             "in --font-dir, then where Debian puts it), or leave pdf out of --format",
	             (unsigned)cp, ctx.ptr, S_package_for(cp));
	tb_buf_release(&ctx);
	st->failed = true;
}

/* The cache slot for `cp` in `style`, filled: the style's face, the
 * regular face, then the fallbacks.  NULL when none has it. */
static tb_pdf_glyph_hit *S_hit(tb_pdf_doc *st, unsigned style, uint32_t cp)
{
	int face = S_face(style);
	uint32_t key = ((uint32_t)face << 21 | cp) + 1;
	tb_pdf_glyph_hit *h = &st->cache[(cp * 2654435761u ^ (uint32_t)face) % TB_PDF_GLYPH_CACHE];
	if (h->key == key)
		return h;
	for (size_t i = 0; i < st->nfonts; i++) {
		if (i != (size_t)face && (i < TB_PDF_NFACES && i != TB_PDF_FACE_REGULAR))
			continue;
		size_t fi = i == 0 ? (size_t)face : i == (size_t)face ? TB_PDF_FACE_REGULAR : i;
		if (!S_meant_for(&st->fonts[fi], cp))
			continue;
		tb_pdf_font *f = tb_pdf_fontset_at(st, fi);
		if (!f)
			continue;
		unsigned gid = tb_pdf_font_glyph(f, cp);
		if (!gid)
			continue;
		if (S_visible(cp) && !tb_pdf_font_inked(f, gid)) {
			S_blame(st, fi, cp, true);
			return NULL;
		}
		h->key = key;
		h->font = (unsigned char)fi;
		h->gid = (uint16_t)gid;
		h->width = (int16_t)tb_pdf_font_width(f, gid);
		h->cid = 0;
		return h;
	}
	return NULL;
}

bool tb_pdf_fontset_glyph(tb_pdf_doc *st, unsigned style, uint32_t cp, tb_pdf_glyph_hit *out)
{
	const tb_pdf_glyph_hit *h = S_hit(st, style, cp);
	if (h)
		*out = *h;
	return h != NULL;
}

bool tb_pdf_fontset_glyph_cid(tb_pdf_doc *st, unsigned style, uint32_t cp,
                              tb_pdf_glyph_hit *out)
{
	tb_pdf_glyph_hit *h = S_hit(st, style, cp);
	if (!h)
		return false;
	if (!h->cid)
		h->cid = (uint16_t)tb_pdf_font_cid(st->fonts[h->font].f, h->gid, &cp, 1);
	*out = *h;
	return true;
}

/* Width in thousandths of the font size of cells[a..b), in the order
 * given; reports a character no font has. */
long tb_pdf_fontset_cells_width(tb_pdf_doc *st, const tb_pdf_cells *c, size_t a, size_t b)
{
	long w = 0;
	for (size_t i = a; i < b; i++) {
		tb_pdf_glyph_hit g;
		if (tb_pdf_fontset_glyph(st, c->v[i].style, c->v[i].cp, &g))
			w += g.width;
		else if (!tb_pdf_ignorable(c->v[i].cp))
			tb_pdf_fontset_missing(st, c->v[i].cp, c);
	}
	return w;
}

/* The width of s when every character needs no shaping (most of what is
 * measured): the sum of its glyphs' widths, as the cells would give it,
 * printable ASCII's from a table filled on first use, the rest from the
 * glyph cache.  False for anything else: a character to shape, a
 * control, malformed UTF-8, or one no font draws (the cells report it). */
static bool S_simple_width(tb_pdf_doc *st, unsigned style, const char *s, size_t len, long *w)
{
	const unsigned char *u = (const unsigned char *)s;
	int32_t *tab = st->ascii_w[S_face(style)];
	long sum = 0;
	for (size_t i = 0; i < len;) {
		unsigned char c = u[i];
		if (c >= 0x20 && c < 0x7F) {
			int32_t *t = &tab[c - 0x20];
			if (!*t) {
				tb_pdf_glyph_hit g;
				*t = tb_pdf_fontset_glyph(st, style, c, &g) ? g.width + 1 : -1;
			}
			if (*t < 0)
				return false;
			sum += *t - 1;
			i++;
			continue;
		}
		uint32_t cp;
		size_t n = c >= 0x80 ? tb_utf8_seq(u + i, len - i, &cp) : 0;
		if (!n || !tb_pdf_cp_simple(cp))
			return false;
		const tb_pdf_glyph_hit *h = S_hit(st, style, cp);
		if (!h)
			return false;
		sum += h->width;
		i += n;
	}
	*w = sum;
	return true;
}

double tb_pdf_fontset_measure(void *ctx, unsigned style, double size_pt, const char *s,
                              size_t len)
{
	tb_pdf_doc *st = ctx;
	long aw;
	if (S_simple_width(st, style, s, len, &aw))
		return (double)aw * size_pt / 1000.0;
	st->cells.n = 0;
	tb_pdf_cells_add(&st->cells, style, s, len);
	if (tb_pdf_shape_simple(&st->cells))
		return (double)tb_pdf_fontset_cells_width(st, &st->cells, 0, st->cells.n) * size_pt / 1000.0;
	tb_pdf_shape(st, &st->cells, TB_PDF_DIR_AUTO, &st->shaped);
	long w = 0;
	for (size_t i = 0; i < st->shaped.n; i++)
		w += st->shaped.v[i].adv;
	return (double)w * size_pt / 1000.0;
}

double tb_pdf_fontset_width(tb_pdf_doc *st, unsigned style, double size_pt, const char *s)
{
	return tb_pdf_fontset_measure(st, style, size_pt, s, strlen(s));
}
