/* pdf_deflate.h: a PDF's streams, deflated by whichever thread is free
 * (render.h, tb_pdf_helper).
 *
 * A page's body no longer changes once the next page is begun (its
 * running header and footer are a stream of their own, drawn when the
 * page count is known); the back end offers each body here as it begins
 * the next, then every page's furniture, the fonts' streams and the
 * object streams as each is made, and a helper thread (the one that
 * rendered the Markdown, HTML and JSON, now idle) deflates them from the
 * front while the back end goes on.  The back end takes each stream's
 * bytes when it writes it, deflating any nobody has started.  Deflate is
 * a function of the bytes and the level, so the file is the same whoever
 * compressed which stream, and with no helper at all. */
#ifndef TB_PDF_DEFLATE_H
#define TB_PDF_DEFLATE_H

#include <stddef.h>

#include "trainbudget/render.h"

/* Deflate level for every stream (libdeflate's levels).  On default-7b's
 * 236 KB of streams (36; glyphs in literal strings, settings not repeated):
 * level 1 1.6 ms and 77.4 KB, level 3 2.4 ms and 75.6 KB, level 5 3.1 ms
 * and 73.9 KB.  The file: 100.2 KB at level 1, 96.6 KB at 5, where the
 * hex glyphs at level 5 made 99.8 KB; paired, level 1 makes the whole
 * report 10% faster. */
#define TB_PDF_DEFLATE_LEVEL 1

/* Offers the next stream's bytes (valid and unchanged until
 * tb_pdf_helper_close), to be deflated at `level`; returns its number,
 * counted from 0 in the order offered. */
size_t tb_pdf_helper_add(tb_pdf_helper *h, const char *data, size_t len, int level);

/* Every stream is offered: a tb_pdf_helper_work with none left to start
 * returns. */
void tb_pdf_helper_all_added(tb_pdf_helper *h);

/* Stream i's deflated bytes (the helper keeps them; NULL with *zlen 0 when
 * deflate failed, and the stream is then stored as it is).  Deflates
 * streams itself while the one it needs is not done. */
const unsigned char *tb_pdf_helper_take(tb_pdf_helper *h, size_t i, size_t *zlen);

/* No more streams will be taken: a waiting tb_pdf_helper_work returns
 * (also when not every stream was offered: the document failed).  Returns
 * once none is being deflated, so the offered bytes may then be freed. */
void tb_pdf_helper_close(tb_pdf_helper *h);

#endif
