/* pdf_cff.h: fonts with PostScript outlines (OpenType's 'CFF ' table,
 * as Noto CJK and Source Han ship) for the PDF back end.
 *
 * The PDF embeds such a font as a CIDFontType0 whose program is the bare
 * CFF table of a subset HarfBuzz makes (hb-subset: subroutines, FDSelect
 * and charsets are its to get right).  A CID-keyed CFF selects glyphs by
 * the CIDs its charset gives them, so the document's codes go through an
 * embedded CMap to those CIDs; a name-keyed CFF is selected by glyph id.
 * Only what that needs is read here: where the CharStrings are, which CID
 * each glyph has, whether a glyph leaves ink.  Every offset is checked
 * against the table, whatever its bytes.  Internal to the PDF back end. */
#ifndef TB_PDF_CFF_H
#define TB_PDF_CFF_H

#include <stdbool.h>
#include <stddef.h>

#include "trainbudget/buf.h"

typedef struct tb_pdf_cff {
	const unsigned char *p;
	size_t len;
	size_t strings;         /* the String INDEX */
	size_t charstrings;     /* the CharStrings INDEX */
	unsigned nglyphs;
	size_t charset;         /* CID-keyed only: its charset, never predefined */
	bool cid_keyed;         /* a ROS in its Top DICT */
	char registry[40], ordering[40];
	unsigned supplement;
} tb_pdf_cff;

/* Reads the CFF table p[0..len); false with a reason in why[] when it is
 * not one this back end can embed (CFF2, damaged, several fonts). */
bool tb_pdf_cff_parse(const unsigned char *p, size_t len, tb_pdf_cff *c, char *why,
                      size_t why_len);

/* Whether glyph `gid` draws anything: its charstring has a path or calls
 * a subroutine (which is taken to draw), not only a width and hints. */
bool tb_pdf_cff_inked(const tb_pdf_cff *c, unsigned gid);

/* The CID that selects each glyph, into cid_of[0..nglyphs): its
 * charset's for a CID-keyed font, the glyph id for a name-keyed one;
 * false when the charset is damaged or gives a CID twice. */
bool tb_pdf_cff_cids(const tb_pdf_cff *c, unsigned *cid_of);

/* The subset of the OpenType font font[0..len) (face 0 of a collection)
 * holding glyphs gids[0..n), as a bare CFF table appended to `out`, and
 * each glyph's CID in it in cids[0..n).  False with a sentence in *why
 * (static storage) when hb-subset cannot be loaded or fails. */
bool tb_pdf_cff_subset(const unsigned char *font, size_t len, const unsigned *gids, size_t n,
                       tb_buf *out, unsigned *cids, const char **why);

#endif
