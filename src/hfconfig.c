/* PLACEHOLDER: replaced by its owner; see include/trainbudget/. */
#include "trainbudget/hfconfig.h"
int tb_hfconfig_parse(const char *p, const char *t, size_t l, tb_model *o, tb_diags *d) { (void)t; (void)l; (void)o; tb_diags_add(d, TB_DIAG_ERROR, p, 0, 0, 0, 0, "not built yet"); return -1; }
