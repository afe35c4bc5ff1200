/* hfconfig.h: Hugging Face config.json, read with libyaml (JSON is YAML
 * 1.2 flow syntax for the files HF writes).  Family conventions applied:
 * each transformers config class's defaults for absent fields
 * (tie_word_embeddings: true for GPT-2 and Gemma, false for Llama,
 * Mistral, Mixtral and Qwen2), head_dim apart from hidden/heads, gating
 * implied by model_type, GPT-2's n_embd/n_layer/n_head/n_inner. */
#ifndef TB_HFCONFIG_H
#define TB_HFCONFIG_H

#include <stddef.h>
#include "trainbudget/diag.h"
#include "trainbudget/inputs.h"

/* Fills *out (has_shape = true) from the JSON text; errors point into
 * `path`.  Returns 0 on success, -1 with errors in d. */
int tb_hfconfig_parse(const char *path, const char *text, size_t len,
                      tb_model *out, tb_diags *d);

#endif
