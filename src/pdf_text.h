/* pdf_text.h: line breaking for the PDF back end (render_pdf.c).
 *
 * Paragraphs are broken into lines here.  The breaker knows nothing
 * about fonts: widths come from a callback (render_pdf.c passes
 * tb_pdf_fontset_measure, which shapes what needs it), which keeps it
 * testable with a fake font.  Text is UTF-8; breaks fall between words
 * (at spaces, and where pdf_break.h allows one without: Thai words,
 * ideographs), and a word wider than the line is cut between grapheme
 * clusters, never inside one, so no text ever runs past the width it was
 * given. */
#ifndef TB_PDF_TEXT_H
#define TB_PDF_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "trainbudget/buf.h"

/* Style bits: the face is mono, else bold, else regular; italic is drawn
 * as a slanted regular face so no fourth font is embedded. */
enum { TB_PDF_BOLD = 1u, TB_PDF_ITALIC = 2u, TB_PDF_MONO = 4u };
/* A link's text carries its destination's number (1-based, the
 * document's link table) above the face bits, so a link is a run of its
 * own wherever it is drawn and its place on the page is known. */
#define TB_PDF_LINK_SHIFT 8
#define TB_PDF_LINK_OF(style) ((style) >> TB_PDF_LINK_SHIFT)
#define TB_PDF_FACE_BITS ((1u << TB_PDF_LINK_SHIFT) - 1)

/* Width in points of `len` bytes of UTF-8 `s` in `style` at `size_pt`. */
typedef double (*tb_pdf_measure_fn)(void *ctx, unsigned style, double size_pt,
                                    const char *s, size_t len);

typedef struct tb_pdf_piece {
	unsigned style;
	size_t off, len;        /* into the paragraph's text */
	bool space_before;      /* a breakable space separates it from the previous piece */
	bool break_before;      /* a line may break before it without a space (pdf_break.h) */
	bool newline;           /* a hard break comes before it */
	double width_pt;
} tb_pdf_piece;

typedef struct tb_pdf_line {
	size_t first, n;        /* pieces */
	double width_pt;
} tb_pdf_line;

typedef struct tb_pdf_para {
	double size_pt;
	tb_buf text;            /* sanitized UTF-8: BMP only, no control characters */
	tb_pdf_piece *pieces;
	size_t npieces, cap;
	tb_pdf_line *lines;
	size_t nlines, lcap;
	bool rtl;               /* right to left (its first strong letter's), set by layout */
	bool pending_space;     /* text so far ended in a space */
	bool pending_newline;
	/* the last layout's width and measure: asked again with no text
	 * added, it stands (a derivation is laid out to find its height,
	 * then drawn) */
	double laid_w, laid_size_pt;
	tb_pdf_measure_fn laid_measure;
	void *laid_ctx;
} tb_pdf_para;

void tb_pdf_para_init(tb_pdf_para *p, double size_pt);
void tb_pdf_para_release(tb_pdf_para *p);

/* Adds running text: split into words at spaces, tabs and newlines. */
void tb_pdf_para_add(tb_pdf_para *p, unsigned style, const char *s, size_t len);
/* Adds text whose spaces matter (code): each line is kept as one piece and
 * cut between characters only where it is too wide. */
void tb_pdf_para_add_verbatim(tb_pdf_para *p, unsigned style, const char *s,
                              size_t len);
void tb_pdf_para_add_break(tb_pdf_para *p);

/* Breaks into lines no wider than width_pt; returns the number of lines
 * (at least 1 when there is any text).  May be called again with another
 * width. */
size_t tb_pdf_para_layout(tb_pdf_para *p, double width_pt,
                          tb_pdf_measure_fn measure, void *ctx);

/* Copies `len` bytes of UTF-8 into `out`, replacing invalid sequences
 * with '?' and control characters with spaces. */
void tb_pdf_sanitize(tb_buf *out, const char *s, size_t len);

/* ---- from text to what is drawn ----------------------------------------
 * A run of text becomes cells, one per character, in logical order;
 * pdf_shape.c turns those that need it into glyphs. */

typedef struct tb_pdf_cell {
	uint32_t cp;
	bool gap;               /* a space only advanced over, never drawn */
	unsigned style;
} tb_pdf_cell;

typedef struct tb_pdf_cells {
	tb_pdf_cell *v;
	size_t n, cap;
} tb_pdf_cells;

void tb_pdf_cells_release(tb_pdf_cells *c);
/* Appends the characters of sanitized UTF-8 s[0..len) in `style`. */
void tb_pdf_cells_add(tb_pdf_cells *c, unsigned style, const char *s, size_t len);
/* Whether cp is drawn one glyph a character, left to right, with
 * nothing to join, reorder or position (pdf_shape.c shapes the rest):
 * ASCII, Latin, Greek and Cyrillic letters without combining marks,
 * general punctuation, symbols, arrows, maths, boxes, and the ideographs
 * and syllables of Chinese, Japanese and Korean.  The bidi controls,
 * joiners and marks are not among them. */
static inline bool tb_pdf_cp_simple(uint32_t cp)
{
	if (cp < 0x0300)
		return true;
	if (cp < 0x2000)
		return (cp >= 0x0370 && cp <= 0x0482) || (cp >= 0x048A && cp <= 0x052F) ||
		       (cp >= 0x1E00 && cp <= 0x1FFF);
	if (cp < 0x3000)
		return (cp >= 0x2010 && cp <= 0x2027) || (cp >= 0x2030 && cp <= 0x205E) ||
		       (cp >= 0x2070 && cp <= 0x2BFF);
	return (cp >= 0x3000 && cp <= 0x3029) || (cp >= 0x3030 && cp <= 0x303F) ||
	       (cp >= 0x3041 && cp <= 0x3096) || (cp >= 0x30A0 && cp <= 0x30FF) ||
	       (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xAC00 && cp <= 0xD7A3) ||
	       (cp >= 0xFF01 && cp <= 0xFF60);
}

/* Characters that draw nothing (joiners, variation selectors, bidi
 * marks): skipped when no font has a glyph for them. */
bool tb_pdf_ignorable(uint32_t cp);

/* Length of the longest prefix of s[0..len) that ends on a character
 * boundary and is at most max_bytes long. */
size_t tb_pdf_utf8_floor(const char *s, size_t len, size_t max_bytes);

#endif
