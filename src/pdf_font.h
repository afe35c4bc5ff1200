/* pdf_font.h: TrueType fonts for the PDF back end: which glyph draws a
 * character, how wide it is, and the embedded subset of the glyphs a
 * document used, with a ToUnicode map so text can be searched and copied.
 *
 * A font is mapped and parsed once; nothing is built per code point, so
 * loading a face costs a file read.  TrueType outlines (glyf) and CFF
 * outlines (an OpenType 'CFF ' table, pdf_cff.h) are embedded; CFF2 is
 * refused; a .ttc or .otc gives its first face.
 *
 * A document shows text as 2-byte CIDs: each distinct (glyph, text) pair a
 * document draws gets the next CID, so the ToUnicode map gives back exactly
 * the characters that were drawn, even where one glyph serves several. */
#ifndef TB_PDF_FONT_H
#define TB_PDF_FONT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "pdf_write.h"

typedef struct tb_pdf_font tb_pdf_font;

/* Loads the font file at `path`; NULL with a reason in why[] (a sentence
 * without the path) when it cannot be read or is not a TrueType font. */
tb_pdf_font *tb_pdf_font_load(const char *path, char *why, size_t why_len);
void tb_pdf_font_free(tb_pdf_font *f);

/* The glyph that draws code point `cp`, 0 when the font has none. */
unsigned tb_pdf_font_glyph(const tb_pdf_font *f, uint32_t cp);

/* Whether glyph `gid` has an outline (a space has none; a letter must). */
bool tb_pdf_font_inked(const tb_pdf_font *f, unsigned gid);

/* Advance width of glyph `gid` in thousandths of the font size, rounded
 * down: the widths the document's /W array gives viewers. */
int tb_pdf_font_width(const tb_pdf_font *f, unsigned gid);

/* The font file's bytes, for the shaper. */
const unsigned char *tb_pdf_font_data(const tb_pdf_font *f, size_t *len);

/* At most this many characters a glyph stands for in the ToUnicode map;
 * a longer cluster's text is said by /ActualText around it. */
#define TB_PDF_CID_TEXT_MAX 32

/* The CID that draws glyph `gid` for the text uni[0..nuni): one character,
 * several (a ligature, a cluster), or none (a glyph of a cluster whose
 * text another glyph carries); assigns the next one on first use. */
unsigned tb_pdf_font_cid(tb_pdf_font *f, unsigned gid, const uint32_t *uni, size_t nuni);

/* Whether any CID was assigned: a font no text used is not embedded. */
bool tb_pdf_font_used(const tb_pdf_font *f);

/* The font's PostScript name (from its name table, else "Font"). */
const char *tb_pdf_font_name(const tb_pdf_font *f);

/* Makes the embedded subset of the glyphs the document used: our own
 * TrueType subset, or hb-subset's CFF for PostScript outlines.  False
 * with a reason in why[] when it cannot be made (hb-subset missing, a
 * font it refuses); the document is then refused, never written without
 * the font.  Called once, after the last CID is assigned. */
bool tb_pdf_font_prepare(tb_pdf_font *f, char *why, size_t why_len);

/* Writes the prepared font as objects of `w`: a Type0 font numbered
 * `type0` (which pages name in their resources) with its CIDFont (Type 2
 * over TrueType, with a CID-to-glyph map; Type 0 over CFF, with an
 * embedded CMap from codes to the font's CIDs), descriptor, embedded
 * subset and ToUnicode CMap. */
void tb_pdf_font_write(tb_pdf_font *f, tb_pdfw *w, unsigned type0);

#endif
