/* pdf_break.h: where a line may break inside text that has no spaces,
 * for the PDF's paragraphs (pdf_text.c).  Between words at spaces is
 * pdf_text.c's own rule; this adds what Unicode's line breaking (UAX #14)
 * allows without a space: between Chinese and Japanese characters (but
 * not before their closing punctuation and small kana, nor after an
 * opening bracket), and
 * between Thai words, which are written without spaces and found with
 * libthai's dictionary.  A word too wide for a line is cut only between
 * grapheme clusters, never between a letter and its marks, inside a
 * conjunct or an emoji sequence. */
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

/* For each byte offset i of sanitized UTF-8 s[0..len), out[i] says
 * whether a line may break before byte i; out[0] is NONE.  Thai words are
 * found only when `thai` is set: the dictionary costs a few milliseconds
 * to load, so the paragraph breaker asks for them only for a Thai word
 * group that does not fit its line. */
void tb_pdf_breaks(const char *s, size_t len, unsigned char *out, bool thai);

/* Whether cp continues the cluster before it: a mark, a joiner, a
 * variation selector, a tag character, an emoji modifier.  The shaper
 * keeps such a character in its base's font; a line never breaks before
 * it. */
bool tb_pdf_cp_extends(uint32_t cp);

/* Whether s[0..len) holds Thai. */
bool tb_pdf_has_thai(const char *s, size_t len);

#endif
