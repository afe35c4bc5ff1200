/* fileio.h: whole files in, sets of files out, nothing half-written.
 *
 * Reading takes a size cap, so a mistaken argument (a disk image, /dev/zero)
 * fails with a message instead of exhausting memory.
 *
 * Writing replaces a whole set of outputs in one directory, as one step
 * that other runs, failures and signals cannot split:
 *   - runs writing into the same directory take turns (an advisory lock
 *     on the directory, released however the process ends);
 *   - every file goes to a temporary beside its target first, and only when
 *     all are written are they renamed into place;
 *   - the set is named: NAME.sha256 lists each file with its SHA-256
 *     (`sha256sum -c` reads it), and a file the previous NAME.sha256 listed
 *     that this set does not contain (a chart the template no longer draws,
 *     a format not asked for) is removed in the same step, so the directory
 *     never holds a mix of two runs;
 *   - until the set is ended, a failed rename, a caller that finds it cannot
 *     deliver (standard output closed) or SIGHUP, SIGINT, SIGQUIT or SIGTERM
 *     puts the previous set back exactly as it was, with no temporary left.
 * Errors go to the diagnostics list as "what is wrong; what was expected";
 * nothing here prints or exits (a caught signal is returned, for main.c to
 * re-raise). */
#ifndef TB_FILEIO_H
#define TB_FILEIO_H

#include <stddef.h>
#include "trainbudget/diag.h"

/* Scenario files and templates are a few kilobytes; 16 MiB is generous. */
#define TB_FILEIO_READ_MAX_BYTES ((size_t)16 << 20)

/* A named FIFO, socket or device that gives nothing for this long is an
 * error, not a wait: a FIFO nobody writes to once hung a sweep for ever. */
#define TB_FILEIO_IDLE_MS 10000

/* Reads all of `path` ("-" = standard input) into a NUL-terminated string
 * the caller frees; NULL with errno set (EFBIG past `max_bytes`, EISDIR for
 * a directory, ETIMEDOUT for a named pipe or device idle TB_FILEIO_IDLE_MS)
 * for callers that report the error in their own words.  Standard input,
 * which a person may be typing, waits as long as it takes. */
char *tb_fileio_slurp(const char *path, size_t max_bytes, size_t *len_out);

/* The reason for a failed tb_fileio_slurp, in words: strerror, but for the
 * cases whose strerror misleads (ETIMEDOUT is not a network time-out). */
const char *tb_fileio_why(int err);

/* The same, with the error in d as "what is wrong; what was expected".
 * Returns 0, or -1 (*out and *len_out are then untouched). */
int tb_fileio_read(const char *path, size_t max_bytes, char **out,
                   size_t *len_out, tb_diags *d);

/* One output: a file name inside the output directory (no '/', not hidden)
 * and its bytes.  All borrowed. */
typedef struct tb_outfile {
	const char *name;
	const char *data;
	size_t len;
	/* Its SHA-256 in lowercase hex where the caller already has it (a
	 * report hashes each document as it is made, beside the PDF still
	 * being drawn), else NULL: the manifest hashes it. */
	const char *sha256_hex;
} tb_outfile;

/* An output directory held for one set; opaque. */
typedef struct tb_fileio_set tb_fileio_set;

/* Makes `dir` ready and takes it: creates it when missing (one level; a
 * run creating it at the same moment is not an error), then waits until no
 * other run is writing into it.  From here until tb_fileio_set_end, the
 * signals above are recorded instead of ending the process (those ignored
 * on entry stay ignored), and SIGPIPE and SIGXFSZ are ignored so a closed
 * pipe or a size limit is an error that can be undone.  Leftover
 * temporaries of runs that were killed outright (SIGKILL) are removed.
 * Returns NULL with an error in d, or NULL and no error when a signal came
 * while waiting (tb_fileio_signal() says which).  One set at a time. */
tb_fileio_set *tb_fileio_set_begin(const char *dir, tb_diags *d);

/* Writes `files` to hidden temporaries ahead of the commit, while the rest
 * of the set is still being made: the commit then writes only what is not
 * here (nor already in place with these bytes).  Nothing becomes visible;
 * a file the commit does not name with the same bytes, or a set ended
 * without a commit, has its temporary removed.
 * Returns -1 (nothing said: the commit writes the file again and reports)
 * when one cannot be written or a signal came, else 0. */
int tb_fileio_set_stage(tb_fileio_set *s, const tb_outfile *files, size_t n);

/* Replaces the set called `name` with `files` (NULL name: no NAME.sha256
 * and nothing removed; the files are still replaced all or nothing).  A
 * file that already exists keeps its permission bits; a new one gets 0666
 * less the umask.  A regular file already holding its bytes is left as it
 * is (inode and times), unless it changed after it was compared.  Returns
 * 0 with the new set in place and the previous one still recoverable by
 * tb_fileio_set_rollback, or -1 with the directory as it was (an error in
 * d, or none when a signal came first). */
int tb_fileio_set_commit(tb_fileio_set *s, const char *name,
                         const tb_outfile *files, size_t n, tb_diags *d);

/* Puts back the set a successful commit replaced, byte for byte and inode
 * for inode.  A restore that fails is reported in d, and the previous file
 * is then kept under its hidden name rather than lost. */
void tb_fileio_set_rollback(tb_fileio_set *s, tb_diags *d);

/* Keeps what was committed (and not rolled back), lets the directory go,
 * restores signal handling and frees s (NULL does nothing).  Signals are
 * held from commit to here, so one that comes in between finds the new set
 * complete.  Returns the signal caught since begin, or 0. */
int tb_fileio_set_end(tb_fileio_set *s);

/* The signal the last begin or end caught, or 0. */
int tb_fileio_signal(void);

/* begin, commit and end in one call: 0, or -1 with an error in d (or a
 * caught signal). */
int tb_fileio_write_set(const char *dir, const char *name,
                        const tb_outfile *files, size_t n, tb_diags *d);

#endif
