/* pdf_deflate.h: the page streams of a PDF, deflated by whichever thread
 * is free (render.h, tb_pdf_helper).
 *
 * Once a document's pages are drawn their content no longer changes; the
 * back end offers them here, and while it writes the other objects a
 * helper thread (the one that rendered the Markdown, HTML and JSON, now
 * idle) deflates pages from the front.  The back end takes each page's
 * bytes in order, deflating any page nobody has started.  Deflate is a
 * function of the bytes and the level, so the file is the same whoever
 * compressed which page, and with no helper at all. */
#ifndef TB_PDF_DEFLATE_H
#define TB_PDF_DEFLATE_H

#include <stddef.h>

#include "trainbudget/render.h"

/* Offers n page contents (pointers and lengths stay valid until
 * tb_pdf_helper_close) to be deflated at `level`. */
void tb_pdf_helper_offer(tb_pdf_helper *h, const char *const *data, const size_t *len, size_t n,
                         int level);

/* Page i's deflated bytes (the helper keeps them; NULL with *zlen 0 when
 * deflate failed, and the page is then stored as it is).  Deflates pages
 * itself while the one it needs is not done. */
const unsigned char *tb_pdf_helper_take(tb_pdf_helper *h, size_t i, size_t *zlen);

/* No more pages will be taken: a waiting tb_pdf_helper_work returns
 * (also when nothing was offered: the document failed).  Returns once no
 * page is being deflated, so the offered bytes may then be freed. */
void tb_pdf_helper_close(tb_pdf_helper *h);

#endif
