/* PLACEHOLDER: replaced by its owner; see include/trainbudget/. */
#include "trainbudget/render.h"
int tb_render_pdf(const tb_report *r, const tb_pdf_options *o, tb_buf *out, tb_diags *d) { (void)r; (void)o; (void)out; tb_diags_add(d, TB_DIAG_ERROR, "pdf", 0, 0, 0, 0, "PDF output is not built yet"); return -1; }
