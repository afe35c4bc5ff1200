/* pdf_break.h: where a line may break inside text that has no spaces,
 * for the PDF's paragraphs (pdf_text.c).  Between words at spaces is
 * pdf_text.c's own rule; inside a word with letters beyond Latin, Greek
 * and Cyrillic, the breaks are Unicode's line breaking algorithm (UAX #14)
 * as ICU implements it: between Chinese and Japanese characters but not
 * before their closing punctuation and small kana nor after an opening
 * bracket, between the words of Thai, Lao, Khmer and Burmese (written
 * without spaces; ICU's dictionaries find them), and every other class
 * rule.  A word too wide for a line is cut only between grapheme clusters
 * (UAX #29, ICU's character iterator), never between a letter and its
 * marks, inside a conjunct or an emoji sequence.
 *
 * Latin, Greek and Cyrillic words break at spaces only: UAX #14 would
 * also allow a break after a hyphen, which a signed report does without
 * so that "GPU-hours" and "-10%" stay whole. */
#ifndef TB_PDF_BREAK_H
#define TB_PDF_BREAK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	TB_PDF_BREAK_NONE = 0,  /* inside a character or a cluster */
	TB_PDF_BREAK_CHAR = 1,  /* between clusters: only to cut a word wider than a line */
	TB_PDF_BREAK_WORD = 2,  /* a break opportunity, as a space is */
};

/* For each byte offset i of sanitized UTF-8 s[0..len) (a word: no
 * spaces), out[i] says whether a line may break before byte i; out[0] is
 * NONE.  Without ICU (libicu not installed) a word is only cut between
 * clusters as HarfBuzz's character properties find them. */
void tb_pdf_breaks(const char *s, size_t len, unsigned char *out);

/* Whether UAX #14 may break inside the word s[0..len) at all: false for
 * one made only of letters, marks and digits of scripts that separate
 * words with spaces (Arabic, Hebrew, Devanagari...), whose only
 * opportunities are its spaces; true otherwise, and without HarfBuzz.
 * Lets the layout leave ICU closed for such words. */
bool tb_pdf_breaks_inside(const char *s, size_t len);

/* Opens ICU's break iterators, and with `thai` loads its Thai dictionary,
 * on the calling thread without holding the layout's iterators: for a
 * helper thread (pdf_prefetch.c). */
void tb_pdf_breaks_warm(bool thai);

/* Whether cp continues the cluster before it: a mark, a joiner, a
 * variation selector, a tag character, an emoji modifier.  The shaper
 * keeps such a character in its base's font; a line never breaks before
 * it. */
bool tb_pdf_cp_extends(uint32_t cp);

#endif
