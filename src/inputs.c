/* PLACEHOLDER: replaced by its owner; see include/trainbudget/. */
#include "trainbudget/inputs.h"
const char *tb_precision_name(tb_precision p) { (void)p; return ""; }
const char *tb_optimizer_name(tb_optimizer o) { (void)o; return ""; }
const char *tb_checkpointing_name(tb_checkpointing c) { (void)c; return ""; }
const char *tb_mlp_name(tb_mlp m) { (void)m; return ""; }
const char *tb_norm_name(tb_norm n) { (void)n; return ""; }
const char *tb_positions_name(tb_positions p) { (void)p; return ""; }
const char *tb_dtype_name(tb_dtype d) { (void)d; return ""; }
tb_dtype tb_precision_compute_dtype(tb_precision p) { (void)p; return TB_DTYPE_BF16; }
