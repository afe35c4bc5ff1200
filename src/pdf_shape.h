/* pdf_shape.h: complex text for the PDF back end.  FriBidi resolves a
 * line's bidi levels and its visual order (numbers, brackets, neutrals as
 * UAX #9 says); HarfBuzz turns each run of one font, level and script
 * into positioned glyphs (joining, marks, kerning, ligatures, Indic
 * reordering).  Text that needs neither (left-to-right letters, digits,
 * punctuation and symbols of the simple scripts) keeps the one-glyph-a-
 * character path, so Latin reports cost what they did.
 *
 * Internal to the PDF back end; the fonts come from pdf_fontset.c. */
#ifndef TB_PDF_SHAPE_H
#define TB_PDF_SHAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pdf_text.h"

struct tb_pdf_doc;

typedef struct tb_pdf_glyph {
	unsigned style;
	uint32_t cell, ncells;  /* its cluster: cells [cell, cell + ncells) */
	uint32_t run;           /* the run it was shaped in (visual order) */
	uint16_t gid;
	unsigned char font;     /* font slot */
	bool text;              /* the first glyph of its cluster: carries its text */
	bool gap;               /* a space advanced over, never drawn */
	int32_t w;              /* the glyph's /W width, thousandths of the size */
	int32_t adv, dx, dy;    /* as shaped, thousandths of the size */
} tb_pdf_glyph;

typedef struct tb_pdf_run {
	uint32_t first, n;      /* glyphs, visual order */
	uint32_t cell, ncells;  /* the cells it draws, logical order */
	/* Right to left: drawn in visual order, as PDF wants, and each
	 * glyph's text given in that order too (a cluster's characters
	 * reversed), so a reader that reverses the run, as pdftotext and
	 * every extractor that reads visual order do, gets the logical text
	 * back whole.  /ActualText would not help here: poppler reverses it
	 * as well. */
	bool rtl;
	/* left to right, its glyphs not one a character in order (an Indic
	 * vowel drawn before its consonant, a ligature): its text is said
	 * with /ActualText */
	bool reordered;
} tb_pdf_run;

typedef struct tb_pdf_shaped {
	tb_pdf_glyph *v;
	size_t n, cap;
	tb_pdf_run *runs;
	size_t nruns, rcap;
} tb_pdf_shaped;

/* Paragraph directions. */
enum { TB_PDF_DIR_LTR = 0, TB_PDF_DIR_RTL = 1, TB_PDF_DIR_AUTO = 2 };

/* Whether cells can be drawn one glyph a character, left to right, with
 * nothing to join, reorder or position. */
bool tb_pdf_shape_simple(const tb_pdf_cells *c);

/* The direction of a paragraph of sanitized UTF-8: its first strong
 * character's (UAX #9 P2, P3), left to right when it has none. */
int tb_pdf_shape_dir(const char *s, size_t len);

/* Shapes cells (logical order) into glyphs in visual order, runs in
 * visual order.  dir: TB_PDF_DIR_*.  A character no font draws is
 * reported through pdf_fontset.c and leaves st failed. */
void tb_pdf_shape(struct tb_pdf_doc *st, const tb_pdf_cells *c, int dir, tb_pdf_shaped *out);
void tb_pdf_shaped_release(tb_pdf_shaped *s);

/* The HarfBuzz font of a slot, made on first use; released with the
 * slot (tb_pdf_shape_font_free). */
void tb_pdf_shape_font_free(void *hb_font);
void tb_pdf_shape_buffer_free(void *hb_buffer);

#endif
