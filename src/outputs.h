/* outputs.h: the files a command writes, gathered in memory first (their
 * names inside the output directory and their bytes), so that nothing
 * touches the disk until every one of them is made (fileio.h delivers
 * the set whole). */
#ifndef TB_OUTPUTS_H
#define TB_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>

#include "trainbudget/fileio.h"

typedef struct tb_outputs {
	tb_outfile *files;      /* names inside the output directory */
	char **owned;           /* names and contents to free */
	size_t n, cap, nowned, owned_cap;
} tb_outputs;

/* NAME SUFFIX with `data` (taken: freed with the set), hashed now for
 * the manifest.  A name already in the set keeps its first file: the
 * same chart twice in one template. */
void tb_outputs_add(tb_outputs *o, const char *name, const char *suffix, char *data, size_t len);
/* The same with its hash already made (the PDF's writer makes it). */
void tb_outputs_add_hashed(tb_outputs *o, const char *name, const char *suffix, char *data,
                           size_t len, const char sha256_hex[65]);
void tb_outputs_release(tb_outputs *o);

/* A chart id becomes part of a file name: [A-Za-z0-9_-] only. */
bool tb_outputs_safe_id(const char *id);

#endif
