/* pdf_break.c: break opportunities inside text without spaces, from
 * ICU's line and character break iterators (pdf_break.h says which). */
#include "pdf_break.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pdf_text.h"
#include "textlib.h"
#include "trainbudget/xalloc.h"
#include "utf8.h"

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

/* ICU's iterators, one of each for the process: opening one costs 10 us
 * and re-pointing it at a word 0.35 us.  A mutex, since the PDF back end
 * may lay out documents on several threads. */
static pthread_mutex_t S_lock = PTHREAD_MUTEX_INITIALIZER;
static UBreakIterator *S_line, *S_char;

/* At exit: the iterators closed and ICU's caches freed, so that memory
 * checkers see nothing ICU kept (its strings point inside their blocks,
 * which valgrind counts as possibly lost). */
static void S_icu_release(void)
{
	const tb_textlib_icu *I = tb_textlib_breaker();
	I->ubrk_close(S_line);
	I->ubrk_close(S_char);
	S_line = S_char = NULL;
	I->u_cleanup();
}

/* Marks ICU's boundaries of u[0..nu) in out[], where at[k] is the byte
 * offset of UTF-16 unit k: WORD at a line break, CHAR at a cluster
 * boundary; false when ICU cannot be used. */
static bool S_icu(const UChar *u, int32_t nu, const size_t *at, unsigned char *out)
{
	const tb_textlib_icu *I = tb_textlib_breaker();
	if (!I)
		return false;
	pthread_mutex_lock(&S_lock);
	UErrorCode st = U_ZERO_ERROR;
	if (!S_line && !S_char)
		atexit(S_icu_release);
	if (!S_line)
		S_line = I->ubrk_open(UBRK_LINE, "", NULL, 0, &st);
	if (!S_char && U_SUCCESS(st))
		S_char = I->ubrk_open(UBRK_CHARACTER, "", NULL, 0, &st);
	bool ok = U_SUCCESS(st) && S_line && S_char;
	if (ok) {
		I->ubrk_setText(S_char, u, nu, &st);
		for (int32_t b = I->ubrk_first(S_char); U_SUCCESS(st) && b != UBRK_DONE;
		     b = I->ubrk_next(S_char))
			if (b > 0 && b < nu)
				out[at[b]] = TB_PDF_BREAK_CHAR;
		I->ubrk_setText(S_line, u, nu, &st);
		for (int32_t b = I->ubrk_first(S_line); U_SUCCESS(st) && b != UBRK_DONE;
		     b = I->ubrk_next(S_line))
			if (b > 0 && b < nu)
				out[at[b]] = TB_PDF_BREAK_WORD;
		ok = U_SUCCESS(st);
	}
	pthread_mutex_unlock(&S_lock);
	return ok;
}

/* Without ICU: a cut between any two characters but before one that
 * extends its cluster, after a joiner or after a virama. */
static void S_clusters(const uint32_t *cps, const size_t *off, size_t n, unsigned char *out)
{
	const tb_textlib *L = NULL;
	for (size_t c = 0; c < n && !L; c++)
		if (!tb_pdf_cp_simple(cps[c]))
			L = tb_textlib_get(NULL);
	for (size_t c = 1; c < n; c++) {
		uint32_t prev = cps[c - 1];
		bool joined = tb_pdf_cp_extends(cps[c]) || prev == 0x200D ||
		              (L && !tb_pdf_cp_simple(prev) &&
		               L->hb_unicode_combining_class(L->hb_unicode_funcs_get_default(), prev) ==
		               HB_UNICODE_COMBINING_CLASS_VIRAMA);
		out[off[c]] = joined ? TB_PDF_BREAK_NONE : TB_PDF_BREAK_CHAR;
	}
}

void tb_pdf_breaks_warm(bool thai)
{
	const tb_textlib_icu *I = tb_textlib_breaker();
	if (!I)
		return;
	/* an iterator of its own: the shared ones stay free for the layout
	 * while ICU loads its rules and dictionary (its caches have their own
	 * locks) */
	static const UChar word[] = {0x0E20, 0x0E32, 0x0E29, 0x0E32, 0x0E44, 0x0E17, 0x0E22};
	UErrorCode st = U_ZERO_ERROR;
	UBreakIterator *it = I->ubrk_open(UBRK_LINE, "", NULL, 0, &st);
	if (thai && U_SUCCESS(st)) {
		I->ubrk_setText(it, word, (int32_t)(sizeof word / sizeof word[0]), &st);
		for (int32_t b = I->ubrk_first(it); U_SUCCESS(st) && b != UBRK_DONE; b = I->ubrk_next(it))
			;
	}
	I->ubrk_close(it);
}

/* Scripts whose words UAX #14 breaks without a space: the dictionary
 * scripts (class SA) and the ideographic ones (ID, Hangul's syllables). */
static bool S_breaks_within(hb_script_t sc)
{
	switch (sc) {
	case HB_SCRIPT_THAI: case HB_SCRIPT_LAO: case HB_SCRIPT_KHMER: case HB_SCRIPT_MYANMAR:
	case HB_SCRIPT_TAI_THAM: case HB_SCRIPT_TAI_VIET: case HB_SCRIPT_NEW_TAI_LUE:
	case HB_SCRIPT_HAN: case HB_SCRIPT_HIRAGANA: case HB_SCRIPT_KATAKANA: case HB_SCRIPT_HANGUL:
	case HB_SCRIPT_BOPOMOFO: case HB_SCRIPT_YI: case HB_SCRIPT_TANGUT: case HB_SCRIPT_NUSHU:
	case HB_SCRIPT_KHITAN_SMALL_SCRIPT:
		return true;
	default:
		return false;
	}
}

bool tb_pdf_breaks_inside(const char *s, size_t len)
{
	const tb_textlib *L = tb_textlib_get(NULL);
	if (!L)
		return true;
	hb_unicode_funcs_t *uf = L->hb_unicode_funcs_get_default();
	for (size_t i = 0; i < len;) {
		uint32_t cp = '?';
		size_t k = tb_utf8_seq((const unsigned char *)s + i, len - i, &cp);
		i += k ? k : 1;
		switch (L->hb_unicode_general_category(uf, cp)) {
		case HB_UNICODE_GENERAL_CATEGORY_LOWERCASE_LETTER:
		case HB_UNICODE_GENERAL_CATEGORY_MODIFIER_LETTER:
		case HB_UNICODE_GENERAL_CATEGORY_OTHER_LETTER:
		case HB_UNICODE_GENERAL_CATEGORY_TITLECASE_LETTER:
		case HB_UNICODE_GENERAL_CATEGORY_UPPERCASE_LETTER:
		case HB_UNICODE_GENERAL_CATEGORY_SPACING_MARK:
		case HB_UNICODE_GENERAL_CATEGORY_ENCLOSING_MARK:
		case HB_UNICODE_GENERAL_CATEGORY_NON_SPACING_MARK:
		case HB_UNICODE_GENERAL_CATEGORY_DECIMAL_NUMBER:
			if (S_breaks_within(L->hb_unicode_script(uf, cp)))
				return true;
			break;
		default:
			return true;
		}
	}
	return false;
}

void tb_pdf_breaks(const char *s, size_t len, unsigned char *out)
{
	memset(out, TB_PDF_BREAK_NONE, len);
	if (!len)
		return;
	/* the characters, where each starts, and the UTF-16 ICU reads */
	uint32_t *cps = tb_xcalloc(len, sizeof *cps);
	size_t *off = tb_xcalloc(len, sizeof *off);
	UChar *u = tb_xcalloc(2 * len, sizeof *u);
	size_t *at = tb_xcalloc(2 * len + 1, sizeof *at);
	size_t n = 0, nu = 0;
	bool plain = true;
	for (size_t i = 0; i < len;) {
		uint32_t cp = '?';
		size_t k = tb_utf8_seq((const unsigned char *)s + i, len - i, &cp);
		if (!k)
			k = 1;
		plain = plain && cp < 0x3000 && tb_pdf_cp_simple(cp);
		cps[n] = cp;
		off[n++] = i;
		if (cp >= 0x10000) {
			at[nu] = i;
			u[nu++] = (UChar)(0xD800 + ((cp - 0x10000) >> 10));
			at[nu] = i;
			u[nu++] = (UChar)(0xDC00 + ((cp - 0x10000) & 0x3FF));
		} else {
			at[nu] = i;
			u[nu++] = (UChar)cp;
		}
		i += k;
	}
	at[nu] = len;
	/* a Latin, Greek or Cyrillic word: one cluster a character, no break */
	if (plain) {
		for (size_t c = 1; c < n; c++)
			out[off[c]] = TB_PDF_BREAK_CHAR;
	} else if (nu > INT32_MAX || !S_icu(u, (int32_t)nu, at, out)) {
		S_clusters(cps, off, n, out);
	}
	free(cps);
	free(off);
	free(u);
	free(at);
}
