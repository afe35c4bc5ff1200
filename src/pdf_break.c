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
