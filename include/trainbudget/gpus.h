/* gpus.h: the built-in accelerator table (static const, with sources).
 * Peaks are dense: vendors' "with sparsity" figures are halved. */
#ifndef TB_GPUS_H
#define TB_GPUS_H

#include <stddef.h>
#include "trainbudget/inputs.h"

size_t tb_gpus_count(void);
const tb_gpu *tb_gpus_at(size_t i);            /* borrowed, static */
const tb_gpu *tb_gpus_find(const char *name);  /* NULL when unknown */

#endif
