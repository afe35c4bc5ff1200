/* pdf_break.c: break opportunities inside text without spaces.  The
 * character properties come from HarfBuzz's Unicode functions (the PDF
 * already shapes with it); Thai words from libthai. */
#include "pdf_break.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pdf_text.h"
#include "textlib.h"
#include "trainbudget/xalloc.h"
#include "utf8.h"

static bool S_thai(uint32_t cp)
{
	return cp >= 0x0E01 && cp <= 0x0E5B;
}

/* Ideographs, kana and Hangul syllables: UAX #14's ID class, between
 * which a line may break. */
static bool S_ideographic(uint32_t cp)
{
	return (cp >= 0x3041 && cp <= 0x3096) || (cp >= 0x30A1 && cp <= 0x30FA) ||
	       (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x4E00 && cp <= 0x9FFF) ||
	       (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
	       (cp >= 0x20000 && cp <= 0x3FFFD);
}

/* UAX #14's classes that forbid a break next to them, for the
 * punctuation of Chinese and Japanese text (kinsoku): closing marks (CL,
 * CP), the full stops, commas and marks that end a clause (IS, EX), the
 * small kana and the prolonged sound mark (CJ, NS) never start a line;
 * opening marks (OP) never end one. */
static bool S_no_break_before(uint32_t cp)
{
	static const uint16_t cl[] = {
		/* 、。〉》」』】〕〗〙〛 ー ゝゞヽヾ 々〻 */
		0x3001, 0x3002, 0x3009, 0x300B, 0x300D, 0x300F, 0x3011, 0x3015, 0x3017, 0x3019,
		0x301B, 0x30FC, 0x309D, 0x309E, 0x30FD, 0x30FE, 0x3005, 0x303B,
		/* small kana (CJ) */
		0x3041, 0x3043, 0x3045, 0x3047, 0x3049, 0x3063, 0x3083, 0x3085, 0x3087, 0x308E,
		0x3095, 0x3096, 0x30A1, 0x30A3, 0x30A5, 0x30A7, 0x30A9, 0x30C3, 0x30E3, 0x30E5,
		0x30E7, 0x30EE, 0x30F5, 0x30F6,
		/* fullwidth ） ， ． ！ ？ ： ； ］ ｝ ｠ and the closing quotes */
		0xFF09, 0xFF0C, 0xFF0E, 0xFF01, 0xFF1F, 0xFF1A, 0xFF1B, 0xFF3D, 0xFF5D, 0xFF60,
		0x2019, 0x201D,
	};
	for (size_t i = 0; i < sizeof cl / sizeof cl[0]; i++)
		if (cp == cl[i])
			return true;
	return false;
}

static bool S_no_break_after(uint32_t cp)
{
	/* OP: ( [ { and the opening brackets and quotes of CJK text */
	return cp == '(' || cp == '[' || cp == '{' || cp == 0x2018 || cp == 0x201C ||
	       cp == 0x3008 || cp == 0x300A || cp == 0x300C || cp == 0x300E || cp == 0x3010 ||
	       cp == 0x3014 || cp == 0x3016 || cp == 0x3018 || cp == 0x301A || cp == 0xFF08 ||
	       cp == 0xFF3B || cp == 0xFF5B || cp == 0xFF5F;
}

/* Ideographs and the punctuation set among them. */
static bool S_cjk(uint32_t cp)
{
	return S_ideographic(cp) || (cp >= 0x3000 && cp <= 0x303F) || (cp >= 0xFF01 && cp <= 0xFF60) ||
	       cp == 0x30FC || S_no_break_before(cp) || S_no_break_after(cp);
}

bool tb_pdf_cp_extends(uint32_t cp)
{
	if (tb_pdf_cp_simple(cp))
		return false;
	const tb_textlib *L = tb_textlib_get(NULL);
	if (!L)
		return false;
	hb_unicode_general_category_t g =
		L->hb_unicode_general_category(L->hb_unicode_funcs_get_default(), cp);
	return g == HB_UNICODE_GENERAL_CATEGORY_NON_SPACING_MARK ||
	       g == HB_UNICODE_GENERAL_CATEGORY_SPACING_MARK ||
	       g == HB_UNICODE_GENERAL_CATEGORY_ENCLOSING_MARK || cp == 0x200C || cp == 0x200D ||
	       (cp >= 0xFE00 && cp <= 0xFE0F) || (cp >= 0xE0020 && cp <= 0xE007F) ||
	       (cp >= 0xE0100 && cp <= 0xE01EF) || (cp >= 0x1F3FB && cp <= 0x1F3FF);
}

/* The words of a Thai run cps[0..n) (offsets off[]): WORD before each. */
static void S_thai_words(__typeof__(th_brk_wc_find_breaks) *brk, const uint32_t *cps, const size_t *off, size_t n, unsigned char *out)
{
	thwchar_t *w = tb_xcalloc(n + 1, sizeof *w);
	int *pos = tb_xcalloc(n + 1, sizeof *pos);
	for (size_t i = 0; i < n; i++)
		w[i] = (thwchar_t)cps[i];
	/* NULL: libthai's shared breaker and its dictionary, loaded once */
	int np = brk(NULL, w, pos, n + 1);
	for (int k = 0; k < np; k++)
		if (pos[k] > 0 && (size_t)pos[k] < n && out[off[pos[k]]] == TB_PDF_BREAK_CHAR)
			out[off[pos[k]]] = TB_PDF_BREAK_WORD;
	free(w);
	free(pos);
}

bool tb_pdf_has_thai(const char *s, size_t len)
{
	/* U+0E00..U+0E7F: E0 B8 xx and E0 B9 xx */
	for (size_t i = 0; i + 2 < len; i++)
		if ((unsigned char)s[i] == 0xE0 && ((unsigned char)s[i + 1] & 0xFE) == 0xB8)
			return true;
	return false;
}

void tb_pdf_breaks(const char *s, size_t len, unsigned char *out, bool thai)
{
	memset(out, TB_PDF_BREAK_NONE, len);
	if (!len)
		return;
	/* the characters and where each starts */
	uint32_t *cps = tb_xcalloc(len, sizeof *cps);
	size_t *off = tb_xcalloc(len, sizeof *off);
	size_t n = 0;
	for (size_t i = 0; i < len;) {
		uint32_t cp = '?';
		size_t k = tb_utf8_seq((const unsigned char *)s + i, len - i, &cp);
		if (!k)
			k = 1;
		cps[n] = cp;
		off[n++] = i;
		i += k;
	}
	/* the libraries only for what the simple characters do not settle;
	 * without them (the shaper reports it) Thai is cut like any word */
	const tb_textlib *L = NULL;
	for (size_t c = 0; c < n && !L; c++)
		if (!tb_pdf_cp_simple(cps[c]))
			L = tb_textlib_get(NULL);
	for (size_t c = 1; c < n; c++) {
		uint32_t prev = cps[c - 1], cur = cps[c];
		unsigned char b = TB_PDF_BREAK_CHAR;
		if (tb_pdf_cp_extends(cur) || prev == 0x200D ||
		    (L && !tb_pdf_cp_simple(prev) &&
		     L->hb_unicode_combining_class(L->hb_unicode_funcs_get_default(), prev) ==
		     HB_UNICODE_COMBINING_CLASS_VIRAMA))
			b = TB_PDF_BREAK_NONE;
		else if (S_cjk(prev) && S_cjk(cur) && !S_no_break_before(cur) &&
		         !S_no_break_after(prev))
			b = TB_PDF_BREAK_WORD;
		out[off[c]] = b;
	}
	/* without libthai a Thai word group is cut like any word too wide */
	__typeof__(th_brk_wc_find_breaks) *brk = NULL;
	for (size_t c = 0; c < n && thai && !brk; c++)
		if (S_thai(cps[c]))
			brk = tb_textlib_thai();
	for (size_t a = 0; a < n && brk;) {
		if (!S_thai(cps[a])) {
			a++;
			continue;
		}
		size_t b = a;
		while (b < n && S_thai(cps[b]))
			b++;
		S_thai_words(brk, cps + a, off + a, b - a, out);
		a = b;
	}
	free(cps);
	free(off);
}
