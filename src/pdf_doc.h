/* pdf_doc.h: the PDF back end's shared state and the drawing steps its
 * files share; internal to render_pdf.c and its helpers.
 *
 *   pdf_fontset.c  which font draws each character: the three faces, the
 *                  fallback fonts, the glyph cache, measuring, refusal
 *   pdf_draw.c     content-stream operators, text runs, pages and
 *                  paragraphs
 *   pdf_blocks.c   tables, charts, code and derivations
 *   pdf_signoff.c  the sign-off page: the roles' fields, the inputs' digests
 *   pdf_tags.c     the logical structure (Tagged PDF): elements, marked
 *                  content, artifacts, the structure tree
 *   render_pdf.c   the tree walk, headings, title block, verdict box,
 *                  sign-off page, running furniture, and the objects
 *
 * Everything draws onto st->page at st->y (the top of the next thing
 * drawn), in points from the page's bottom-left corner. */
#ifndef TB_PDF_DOC_H
#define TB_PDF_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pdf_font.h"
#include "pdf_shape.h"
#include "pdf_text.h"
#include "trainbudget/buf.h"
#include "trainbudget/diag.h"
#include "trainbudget/render.h"

#define TB_PDF_BODY_PT 9.5
#define TB_PDF_LEAD 1.32        /* line height as a multiple of the font size */
#define TB_PDF_ASCENT 0.93      /* DejaVu's ascent: first baseline below the top */

/* The faces, in the order of the font slots; fallbacks follow them. */
enum { TB_PDF_FACE_REGULAR, TB_PDF_FACE_BOLD, TB_PDF_FACE_MONO, TB_PDF_NFACES };

#define TB_PDF_MAX_FONTS 24

typedef struct tb_pdf_font_slot {
	tb_pdf_font *f;
	bool tried;             /* a load was attempted */
	char *path;             /* fallbacks: the path to try */
	char *loaded;           /* the file read, for errors that blame the font */
	unsigned obj;           /* the Type0 font's object number, when written */
	void *hb;               /* its HarfBuzz font, made when complex text first uses it */
	/* a system fallback's scripts: the characters it is read for
	 * (NULL: any) */
	const uint32_t (*ranges)[2];
	size_t nranges;
} tb_pdf_font_slot;

/* Where a link's text was drawn on a page: its rectangle and its
 * destination's number. */
typedef struct tb_pdf_annot {
	double x0, y0, x1, y1;
	unsigned link;
	/* 0: a link; else an unsigned signature field, the signer's role
	 * (static) */
	const char *sig_role;
	uint32_t elem;          /* a link's Link structure element, 0 none */
	unsigned struct_parent; /* its key in the parent tree, when written */
} tb_pdf_annot;

typedef struct tb_pdf_page {
	tb_buf c;               /* the content stream being drawn */
	/* The page's body, once the next page is begun; c then holds its
	 * furniture (header, footer), a second stream of the page's
	 * contents, drawn on with every setting below as the body left it
	 * (the streams of an array are one, ISO 32000-1, 7.8.2). */
	tb_buf body;
	bool ended;
	/* What the stream has set so far.  A page saves and restores no
	 * graphics state (no q or Q), so each setting lasts to the page's end
	 * and one equal to it is not written again; the text font and size
	 * outlive BT ... ET (ISO 32000-1, 9.3.1).  0: not set yet. */
	uint32_t fill, stroke;  /* 0xRRGGBB + 1 */
	int tf_font;            /* font index + 1 */
	double tf_size, line_width;
	bool line_width_set;
	uint32_t *mcid_elem;    /* the structure element of each MCID */
	unsigned nmcid;
	size_t mcap;
	uint32_t fonts;         /* bit i: font i is used on the page */
	unsigned obj;
	tb_pdf_annot *annots;
	size_t nannots, acap;
	unsigned annot_obj;     /* the first annotation's object number, when written */
} tb_pdf_page;

/* A structure element's child: an element, or (elem 0) the marked
 * content `mcid` of page `page`. */
typedef struct tb_pdf_kid {
	uint32_t elem;
	uint32_t page, mcid;
} tb_pdf_kid;

typedef struct tb_pdf_elem {
	const char *type;       /* a standard structure type (static): P, H1, Table, ... */
	uint32_t parent;
	char *alt;              /* a figure's alternate description */
	tb_pdf_kid *kids;
	size_t nkids, kcap;
	unsigned obj;           /* when written; 0: empty, left out */
	unsigned objr;          /* a Link's annotation object, when written */
	bool annot;             /* a Form: its content is its annotation alone */
} tb_pdf_elem;

typedef struct tb_pdf_outline_item {
	char *title;            /* sanitized UTF-8 */
	size_t page;
	double top;             /* NAN: the whole page */
} tb_pdf_outline_item;

/* A cache of characters already looked up, per style: which font draws it
 * with which glyph, and how wide. */
#define TB_PDF_GLYPH_CACHE 4096
typedef struct tb_pdf_glyph_hit {
	uint32_t key;           /* (face << 21 | cp) + 1; 0 empty */
	unsigned char font;
	uint16_t gid;
	int16_t width;
	uint16_t cid;           /* its CID drawn as this one character; 0: not yet asked */
} tb_pdf_glyph_hit;

typedef struct tb_pdf_doc {
	bool failed;                    /* an error already reported in d */
	/* deflates the pages' bodies, then their furniture, once drawn
	 * (pdf_deflate.h) */
	struct tb_pdf_helper *deflate;
	tb_diags *d;
	const char *font_dir;
	char *file_sha256;      /* tb_pdf_options.sha256_hex */
	tb_pdf_font_slot fonts[TB_PDF_MAX_FONTS]; /* the faces, then the fallbacks */
	size_t nfonts;
	tb_pdf_glyph_hit cache[TB_PDF_GLYPH_CACHE];
	/* printable ASCII's widths per face, as measured (thousandths + 1;
	 * 0: not looked up yet, -1: no font draws it) */
	int32_t ascii_w[TB_PDF_NFACES][0x7F - 0x20];
	tb_pdf_cells cells;             /* scratch for measuring */
	void *hb_buf;                   /* HarfBuzz's buffer, made on first use */
	tb_pdf_shaped shaped;           /* scratch for complex text */
	const tb_report_meta *meta;
	tb_pdf_block_fn block;

	double page_w, page_h;
	double left, right, top, bottom; /* the body's box */
	tb_pdf_page *page;
	double y;                       /* top of the next thing drawn */
	tb_pdf_page **pages;
	size_t npages, pcap;
	tb_pdf_outline_item *outline;
	size_t noutline, ocap;
	/* the links' destinations, as allowed for HTML (linkdest.h), by
	 * number - 1 */
	char **links;
	size_t nlinks, lcap;

	/* the structure tree: elements in the order opened (the reading
	 * order), the one open now, and whether marked content (1) or an
	 * artifact (2) is open on the page */
	tb_pdf_elem *elems;
	size_t nelems, ecap;
	uint32_t cur;
	int marked;
	unsigned tree_obj, parent_tree_obj, next_key;

	double indent;                  /* lists and quotes */
	char marker[16];                /* list marker waiting for its item's first line */
	double marker_x;
	int base_level;                 /* heading level numbered "1" */
	int counters[7];
	cmark_node *title_node;         /* a leading H1: the title, unnumbered */
	bool verdict_drawn;             /* the next numbered section opens a page */
} tb_pdf_doc;



static inline bool tb_pdf_ok(const tb_pdf_doc *st)
{
	return !st->failed;
}

/* ---- pdf_fontset.c ----------------------------------------------------- */

/* The font slots: the faces in st->font_dir, then opt's fallback list (or
 * the system's).  Fonts are read on first use. */
void tb_pdf_fontset_init(tb_pdf_doc *st, const tb_pdf_options *opt);
void tb_pdf_fontset_release(tb_pdf_doc *st);
/* Font i, loaded on first use; NULL when it cannot be read (a face that
 * cannot be read is an error in st->d). */
tb_pdf_font *tb_pdf_fontset_at(tb_pdf_doc *st, size_t i);
/* The font and glyph that draw cp in style; false when no font has it. */
bool tb_pdf_fontset_glyph(tb_pdf_doc *st, unsigned style, uint32_t cp, tb_pdf_glyph_hit *out);
/* The same, with out->cid the CID that draws cp as itself (one
 * character, one glyph: tb_pdf_font_cid's), kept with the glyph so a
 * character drawn again is not looked up again. */
bool tb_pdf_fontset_glyph_cid(tb_pdf_doc *st, unsigned style, uint32_t cp,
                              tb_pdf_glyph_hit *out);
/* Refuses the document: no font draws cp (c is the text, for the message). */
void tb_pdf_fontset_missing(tb_pdf_doc *st, uint32_t cp, const tb_pdf_cells *c);
/* Refuses the document when cp must leave ink and font fi drew its
 * cluster with empty glyphs only (a damaged font's substitutions). */
void tb_pdf_fontset_blank(tb_pdf_doc *st, size_t fi, uint32_t cp);
/* Width of cells[a..b) in thousandths of the font size. */
long tb_pdf_fontset_cells_width(tb_pdf_doc *st, const tb_pdf_cells *c, size_t a, size_t b);
/* A tb_pdf_measure_fn: ctx is the tb_pdf_doc. */
double tb_pdf_fontset_measure(void *ctx, unsigned style, double size_pt, const char *s,
                              size_t len);
double tb_pdf_fontset_width(tb_pdf_doc *st, unsigned style, double size_pt, const char *s);

/* ---- pdf_draw.c -------------------------------------------------------- */

extern const tb_rgb tb_pdf_black, tb_pdf_grey, tb_pdf_rule, tb_pdf_shade;

/* Glyph code `cid` (two bytes, big-endian) inside a literal string: half
 * the bytes of hex for the deflater to read.  The delimiters and the
 * escape are escaped, and a carriage return, which a reader takes for a
 * line feed (ISO 32000-1, 7.3.4.2). */
void tb_pdf_put_cid(tb_buf *b, unsigned cid);

void tb_pdf_draw_op(tb_pdf_page *p, const char *op);
void tb_pdf_draw_fill_rgb(tb_pdf_page *p, tb_rgb c);
void tb_pdf_draw_stroke_rgb(tb_pdf_page *p, tb_rgb c);
void tb_pdf_draw_rect(tb_pdf_page *p, double x, double y, double w, double h);
void tb_pdf_draw_move_to(tb_pdf_page *p, double x, double y);
void tb_pdf_draw_line_to(tb_pdf_page *p, double x, double y);
void tb_pdf_draw_line_width(tb_pdf_page *p, double w);
void tb_pdf_draw_circle(tb_pdf_page *p, double x, double y, double r);

/* `len` bytes of sanitized UTF-8, left end of the baseline at (x, y),
 * turned angle_rad counter-clockwise about it. */
void tb_pdf_draw_text_at(tb_pdf_doc *st, double x, double y, unsigned style, double size_pt,
                         tb_rgb color, const char *s, size_t len, double angle_rad);
/* Sanitizes then draws a NUL-terminated string. */
void tb_pdf_draw_label(tb_pdf_doc *st, double x, double y, unsigned style, double size_pt,
                       tb_rgb color, const char *s);

void tb_pdf_draw_new_page(tb_pdf_doc *st);
/* The current page's body is done: it is offered to be deflated, and
 * what is drawn on the page from here is its furniture. */
void tb_pdf_draw_end_page(tb_pdf_doc *st);
/* The number a link's text carries (TB_PDF_LINK_SHIFT) for destination
 * `url`: 0 when the destination is not allowed (its text is drawn as
 * text, as HTML drops the link), or the table is full. */
unsigned tb_pdf_draw_link(tb_pdf_doc *st, const char *url);
/* An unsigned signature field for `role` (static) over the rectangle
 * (x0, y0)-(x1, y1) of the current page. */
void tb_pdf_draw_sig_field(tb_pdf_doc *st, const char *role, double x0, double y0, double x1,
                           double y1);
/* A bookmark to the current page at `top` (NAN: the whole page). */
void tb_pdf_draw_bookmark(tb_pdf_doc *st, const char *title, double top);
bool tb_pdf_draw_page_empty(const tb_pdf_doc *st);
/* A new page unless h points still fit (or the page is empty). */
void tb_pdf_draw_need(tb_pdf_doc *st, double h);

typedef struct tb_pdf_para_opts {
	double x, width;
	bool right;           /* right-aligned (numbers) */
	bool shade;           /* a grey band behind each line (code) */
	tb_rgb color;
} tb_pdf_para_opts;

double tb_pdf_draw_lead(const tb_pdf_para *p);
/* Line li of a laid-out paragraph with its baseline at `base`. */
void tb_pdf_draw_line(tb_pdf_doc *st, const tb_pdf_para *p, size_t li, double x0,
                      double width, bool right, tb_rgb color, double base);
/* Lays out and draws a paragraph at st->y, breaking pages between lines. */
void tb_pdf_draw_para(tb_pdf_doc *st, tb_pdf_para *p, const tb_pdf_para_opts *o);
double tb_pdf_draw_body_x(const tb_pdf_doc *st);
double tb_pdf_draw_body_w(const tb_pdf_doc *st);
void tb_pdf_draw_simple_para(tb_pdf_doc *st, unsigned style, double size_pt, tb_rgb color,
                             const char *text, double after_pt);

/* ---- pdf_signoff.c ----------------------------------------------------- */

/* "Inputs SHA-256", "Proposals SHA-256": what the printed hash is of. */
void tb_pdf_hash_label(const tb_report_meta *m, char *out, size_t cap);
/* The sign-off page, on a page of its own. */
void tb_pdf_signoff_page(tb_pdf_doc *st);

/* ---- pdf_tags.c -------------------------------------------------------- */

/* Starts the tree with its Document element; releases it. */
void tb_pdf_tags_init(tb_pdf_doc *st);
void tb_pdf_tags_release(tb_pdf_doc *st);
/* Opens an element of `type` (static) inside the open one; closes it. */
void tb_pdf_tag_open(tb_pdf_doc *st, const char *type);
void tb_pdf_tag_close(tb_pdf_doc *st);
/* The open element's alternate description (a figure's). */
void tb_pdf_tag_alt(tb_pdf_doc *st, const char *alt);
/* Begins marked content for the open element on the current page (a
 * no-op inside marked content or an artifact); ends it.  A page break
 * between them ends it on one page and begins it again on the next. */
void tb_pdf_tag_mark(tb_pdf_doc *st);
void tb_pdf_tag_unmark(tb_pdf_doc *st);
/* Begins or ends an artifact: what is drawn for the page, not the text
 * (running headers, footers, a table's repeated header row). */
void tb_pdf_tag_artifact(tb_pdf_doc *st, bool on);
/* Around a link's text: its marked content in a Link element of its own
 * (the paragraph's marked content ends before it and begins again
 * after).  Returns what to give tb_pdf_tag_link_end: 0 nothing opened (an
 * artifact), 1 a Link, 2 a Link inside marked content to resume. */
int tb_pdf_tag_link_begin(tb_pdf_doc *st);
/* A form field's Form element, inside the open one, for annotation a. */
void tb_pdf_tag_form(tb_pdf_doc *st, tb_pdf_annot *a);
void tb_pdf_tag_link_end(tb_pdf_doc *st, int state);
/* Allocates the tree's objects (before the catalog names its root, whose
 * number is returned) and gives each link annotation its key in the parent
 * tree; writes them once the pages have theirs. */
unsigned tb_pdf_tags_alloc(tb_pdf_doc *st, tb_pdfw *w);
void tb_pdf_tags_write(tb_pdf_doc *st, tb_pdfw *w);

/* ---- pdf_blocks.c ------------------------------------------------------ */

void tb_pdf_blocks_table(tb_pdf_doc *st, const tb_table *t);
void tb_pdf_blocks_chart(tb_pdf_doc *st, const tb_chart *ch);
void tb_pdf_blocks_code(tb_pdf_doc *st, const char *text, size_t len);
void tb_pdf_blocks_derivation(tb_pdf_doc *st, const tb_derivation *dv);

#endif
