/* fileio.h: whole files in, sets of files out, nothing half-written.
 *
 * Reading takes a size cap, so a mistaken argument (a disk image, /dev/zero)
 * fails with a message instead of exhausting memory.  Writing takes the
 * whole set of outputs a command produces: each goes to a temporary file in
 * its target directory and is renamed into place only after every one of
 * them was written, so a failed run leaves no new or partial output file,
 * and a file it was replacing is put back as it was.
 * Errors go to the diagnostics list as "what is wrong; what was expected";
 * nothing here prints or exits. */
#ifndef TB_FILEIO_H
#define TB_FILEIO_H

#include <stddef.h>
#include "trainbudget/diag.h"

/* Scenario files and templates are a few kilobytes; 16 MiB is generous. */
#define TB_FILEIO_READ_MAX_BYTES ((size_t)16 << 20)

/* Reads all of `path` ("-" = standard input) into a NUL-terminated string
 * the caller frees; NULL with errno set (EFBIG past `max_bytes`, EISDIR for
 * a directory) for callers that report the error in their own words. */
char *tb_fileio_slurp(const char *path, size_t max_bytes, size_t *len_out);

/* The same, with the error in d as "what is wrong; what was expected".
 * Returns 0, or -1 (*out and *len_out are then untouched). */
int tb_fileio_read(const char *path, size_t max_bytes, char **out,
                   size_t *len_out, tb_diags *d);

/* One output: its path and its bytes (both borrowed). */
typedef struct tb_outfile {
	const char *path;
	const char *data;
	size_t len;
} tb_outfile;

/* Writes every file or none.  All contents go to temporaries first
 * (".NAME.tmp-PID-N" beside each target, created with mode 0666 less the
 * umask); only when all are complete are they renamed over their targets.
 * If a write or a rename fails, every temporary and every target already
 * renamed by this call is removed, and -1 is returned with an error in d
 * naming the file and the system's reason.  Returns 0 on success. */
int tb_fileio_write_all(const tb_outfile *files, size_t n, tb_diags *d);

/* Makes sure `dir` is a directory, creating it (one level) when missing.
 * Returns 0, or -1 with an error in d ("'x' is not a directory"). */
int tb_fileio_ensure_dir(const char *dir, tb_diags *d);

#endif
