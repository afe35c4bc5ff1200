/* PLACEHOLDER: replaced by its owner; see include/trainbudget/. */
#include "trainbudget/gpus.h"
#include <string.h>
size_t tb_gpus_count(void) { return 0; }
const tb_gpu *tb_gpus_at(size_t i) { (void)i; return 0; }
const tb_gpu *tb_gpus_find(const char *n) { (void)n; return 0; }
