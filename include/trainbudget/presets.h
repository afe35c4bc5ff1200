/* presets.h: model shapes from published configs and papers. */
#ifndef TB_PRESETS_H
#define TB_PRESETS_H

#include <stddef.h>
#include "trainbudget/inputs.h"

typedef struct tb_preset {
	const char *name;           /* "llama-2-7b" */
	const char *label;          /* "Llama 2 7B" */
	const char *source;         /* config or paper table it comes from */
	double official_params;     /* the published total count */
	tb_model model;             /* has_shape = true */
} tb_preset;

size_t tb_presets_count(void);
const tb_preset *tb_presets_at(size_t i);           /* borrowed, static */
const tb_preset *tb_presets_find(const char *name); /* NULL when unknown */

#endif
