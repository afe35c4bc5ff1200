/* render.h: the back ends.  One file each, one entry point each (cmark's
 * cmark_render_html).  Each returns a string the caller frees, or writes
 * into a tb_buf the caller owns; none computes a figure. */
#ifndef TB_RENDER_H
#define TB_RENDER_H

#include <stddef.h>
#include "trainbudget/budget.h"
#include "trainbudget/buf.h"
#include "trainbudget/chart.h"
#include "trainbudget/diag.h"
#include "trainbudget/report.h"
#include "trainbudget/scenario.h"

/* `trainbudget estimate`: the 20-second summary, verdict first. */
char *tb_render_text(const tb_scenario *sc, const tb_budget *b);

/* `trainbudget plan`: the best layouts, the scenario's own with its rank,
 * where the step goes, why the winner wins, and the days-against-cost
 * front when the hardware was searched (render_plan.c). */
char *tb_render_plan_text(const tb_scenario *sc, const tb_budget *b);

/* The budget as JSON (the contract in docs/json.md), SI units. */
char *tb_render_json(const tb_scenario *sc, const tb_budget *b);

struct tb_sweep;
struct tb_compare;

/* The same document with the sweep (`--sweep`) as its last key, "sweep"
 * (render_json_compare.c). */
char *tb_render_json_sweep(const tb_scenario *sc, const tb_budget *b,
                           const struct tb_sweep *sw);

/* A comparison: "comparison" (the proposals, the inputs that differ, the
 * headline figures with the best and the differences) and "proposals",
 * each the document `estimate --format json` prints for it. */
char *tb_render_json_compare(const struct tb_compare *c);

/* `estimate --sweep`: the points as a text table, then the cliffs
 * (render_text_sweep.c). */
char *tb_render_text_sweep(const struct tb_sweep *sw);

/* The tables of `trainbudget gpus` and `trainbudget models` (render_tables.c). */
char *tb_render_gpus_text(void);
char *tb_render_models_text(void);

/* GFM Markdown; charts are linked as `<svg_prefix><chart id>.svg`. */
char *tb_render_md(const tb_report *r, const char *svg_prefix);

/* One self-contained HTML page: embedded CSS, inline SVG. */
char *tb_render_html(const tb_report *r);

/* One chart as a standalone SVG document. */
char *tb_render_svg(const tb_chart *c);

typedef enum { TB_PAPER_A4, TB_PAPER_LETTER } tb_paper;

typedef struct tb_pdf_options {
	tb_paper paper;
	const char *font_dir;   /* holds DejaVuSans*.ttf; NULL = the default */
	/* Fonts tried in order for characters the DejaVu faces lack: a
	 * NULL-terminated list of TrueType files (an empty list: none); NULL =
	 * the places Debian's CJK and emoji font packages install to. */
	const char *const *fallback_fonts;
	/* A plain PDF; false (the default): PDF/A-2b, with XMP metadata and an
	 * sRGB output intent */
	bool no_pdfa;
	/* Another thread's help with the streams' deflate (NULL: none) */
	struct tb_pdf_helper *helper;
	/* Not NULL: receives the SHA-256 of the file, 64 hex digits and a NUL
	 * (the writer hashes the file for its /ID; the rest of the file
	 * continues that hash rather than a second pass over it) */
	char *sha256_hex;
} tb_pdf_options;

/* A thread that has finished its own work can deflate the streams of a
 * PDF another thread is writing: make a helper, name it in that
 * document's tb_pdf_options, and call tb_pdf_helper_work from the free
 * thread; it returns when no page is left to start or the document has
 * ended (also on failure).  The file is the same bytes with or without
 * it.  tb_pdf_helper_work_ready deflates only the streams offered so
 * far and returns: a thread with work of its own left calls it between
 * its pieces, so that the pages are done before the writer asks for them
 * (from one thread, which keeps its compressor for its later calls).
 * Free the helper after both threads are done. */
typedef struct tb_pdf_helper tb_pdf_helper;
tb_pdf_helper *tb_pdf_helper_new(void);
void tb_pdf_helper_work(tb_pdf_helper *h);
void tb_pdf_helper_work_ready(tb_pdf_helper *h);
void tb_pdf_helper_free(tb_pdf_helper *h);

/* Starts opening, on a helper thread, the text libraries a PDF of `text`
 * (a template) will need: FriBidi and HarfBuzz for text that must be
 * shaped or ordered, ICU's line breaker (and its Thai dictionary).  A hint, never
 * required: without it the back end opens them itself when first needed.
 * Call tb_render_pdf_prefetch_wait before the process ends. */
void tb_render_pdf_prefetch(const char *text, size_t len);
void tb_render_pdf_prefetch_wait(void);

/* The sign-off PDF into `out`.  Returns 0, or -1 with errors in d (a
 * missing font, a character no font can draw); `out` is then left empty. */
int tb_render_pdf(const tb_report *r, const tb_pdf_options *opt,
                  tb_buf *out, tb_diags *d);

/* The core of tb_render_pdf over any cmark tree: `block` finds the tb_block
 * of a custom block node (tb_report_block for a report), so tests can
 * render a hand-made document and meta.  Same contract as tb_render_pdf. */
typedef const tb_block *(*tb_pdf_block_fn)(cmark_node *node);
int tb_render_pdf_tree(cmark_node *root, const tb_report_meta *meta,
                       tb_pdf_block_fn block, const tb_pdf_options *opt,
                       tb_buf *out, tb_diags *d);

#endif
