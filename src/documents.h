/* documents.h: the documents of a report model, NAME.md with its charts'
 * SVGs, NAME.html and NAME.pdf as the command line asks, added to the
 * command's output set.  The PDF, the longest, is drawn on a thread of
 * its own while this one writes the others. */
#ifndef TB_DOCUMENTS_H
#define TB_DOCUMENTS_H

#include "cli.h"
#include "outputs.h"
#include "trainbudget/diag.h"
#include "trainbudget/report.h"

/* also (may be NULL): more work for this thread while the PDF is drawn
 * (the report's JSON).  TB_EXIT_OUTPUT, with errors in d, when the PDF
 * cannot be made. */
tb_exit tb_documents_render(const tb_cli *cli, const tb_report *r, const char *name,
                            tb_outputs *outs, tb_diags *d, void (*also)(void *), void *also_ctx);

#endif
