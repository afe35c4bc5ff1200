/* PLACEHOLDER: replaced by its owner; see include/trainbudget/. */
#include "trainbudget/report.h"
tb_report *tb_report_new(const tb_scenario *sc, const tb_budget *b, const tb_report_options *o, tb_diags *d) { (void)sc; (void)b; (void)o; tb_diags_add(d, TB_DIAG_ERROR, "report", 0, 0, 0, 0, "reports are not built yet"); return 0; }
void tb_report_free(tb_report *r) { (void)r; }
cmark_node *tb_report_root(const tb_report *r) { (void)r; return 0; }
const tb_block *tb_report_block(cmark_node *n) { (void)n; return 0; }
const tb_report_meta *tb_report_get_meta(const tb_report *r) { (void)r; return 0; }
size_t tb_report_nblocks(const tb_report *r) { (void)r; return 0; }
const tb_block *tb_report_block_at(const tb_report *r, size_t i) { (void)r; (void)i; return 0; }
