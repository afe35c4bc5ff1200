#include "trainbudget/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "trainbudget/buf.h"
#include "trainbudget/xalloc.h"

/* ---- reading ---------------------------------------------------------- */

char *tb_fileio_slurp(const char *path, size_t max_bytes, size_t *len_out)
{
	int is_stdin = strcmp(path, "-") == 0;
	int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		if (!is_stdin)
			close(fd);
		errno = EISDIR;
		return NULL;
	}
	tb_buf b;
	tb_buf_init(&b);
	int err = 0;
	for (;;) {
		/* Read one byte past the cap, so "exactly max" and "more" differ. */
		size_t want = 65536;
		if (b.len + want > max_bytes + 1)
			want = max_bytes + 1 - b.len;
		tb_buf_grow(&b, want);
		ssize_t got = read(fd, b.ptr + b.len, want);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			err = errno;
			break;
		}
		if (got == 0)
			break;
		b.len += (size_t)got;
		b.ptr[b.len] = '\0';
		if (b.len > max_bytes) {
			err = EFBIG;
			break;
		}
	}
	if (!is_stdin)
		close(fd);
	if (err) {
		tb_buf_release(&b);
		errno = err;
		return NULL;
	}
	return tb_buf_detach(&b, len_out);
}

int tb_fileio_read(const char *path, size_t max_bytes, char **out,
                   size_t *len_out, tb_diags *d)
{
	size_t len = 0;
	char *text = tb_fileio_slurp(path, max_bytes, &len);
	if (!text) {
		const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
		if (errno == EFBIG)
			tb_diags_add(d, TB_DIAG_ERROR, name, NULL, 0, 0, 0,
			             "file too large; expected at most %zu bytes", max_bytes);
		else if (errno == EISDIR)
			tb_diags_add(d, TB_DIAG_ERROR, name, NULL, 0, 0, 0,
			             "is a directory; expected a file");
		else
			tb_diags_add(d, TB_DIAG_ERROR, name, NULL, 0, 0, 0,
			             "cannot %s: %s; expected a readable file",
			             errno == EIO || errno == EINVAL ? "read" : "open", strerror(errno));
		return -1;
	}
	*out = text;
	*len_out = len;
	return 0;
}

/* ---- writing ---------------------------------------------------------- */

/* The temporary sits beside its target so rename() never crosses a file
 * system, and starts with a dot so a half-finished run does not look like
 * a report in a directory listing. */
static char *S_temp_name(const char *path, unsigned serial)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
	tb_buf b;
	tb_buf_init(&b);
	tb_buf_put(&b, path, dirlen);
	tb_buf_printf(&b, ".%s.tmp-%ld-%u", path + dirlen, (long)getpid(), serial);
	return tb_buf_detach(&b, NULL);
}

static int S_write_fd(int fd, const char *data, size_t len)
{
	while (len > 0) {
		ssize_t w = write(fd, data, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		data += w;
		len -= (size_t)w;
	}
	return 0;
}

/* Creates and fills a fresh temporary for `path`; its name goes to *tmp. */
static int S_write_temp(const tb_outfile *f, char **tmp, tb_diags *d)
{
	static unsigned serial;
	int fd = -1;
	for (int tries = 0; tries < 100 && fd < 0; tries++) {
		free(*tmp);
		*tmp = S_temp_name(f->path, serial++);
		/* O_EXCL: never follow or reuse someone else's file. */
		fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		int err = errno;
		free(*tmp);
		*tmp = NULL;
		tb_diags_add(d, TB_DIAG_ERROR, f->path, NULL, 0, 0, 0,
		             "cannot create the output file: %s; expected a writable directory",
		             strerror(err));
		return -1;
	}
	if (S_write_fd(fd, f->data, f->len) != 0) {
		int err = errno;
		close(fd);
		tb_diags_add(d, TB_DIAG_ERROR, f->path, NULL, 0, 0, 0,
		             "cannot write the output file: %s; expected room to write %zu bytes",
		             strerror(err), f->len);
		return -1;
	}
	/* close() is where NFS and full disks report deferred write errors. */
	if (close(fd) != 0) {
		tb_diags_add(d, TB_DIAG_ERROR, f->path, NULL, 0, 0, 0,
		             "cannot write the output file: %s; expected room to write %zu bytes",
		             strerror(errno), f->len);
		return -1;
	}
	return 0;
}

/* A hard link to the file a rename is about to replace, so a run that
 * fails half-way can put the previous report back.  NULL when there is
 * no such file, or the file system has no hard links. */
static char *S_keep_old(const char *path)
{
	static unsigned serial;
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return NULL;
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
	tb_buf b;
	tb_buf_init(&b);
	tb_buf_put(&b, path, dirlen);
	tb_buf_printf(&b, ".%s.old-%ld-%u", path + dirlen, (long)getpid(), serial++);
	if (link(path, b.ptr) != 0) {
		tb_buf_release(&b);
		return NULL;
	}
	return tb_buf_detach(&b, NULL);
}

int tb_fileio_write_all(const tb_outfile *files, size_t n, tb_diags *d)
{
	char **tmps = tb_xcalloc(n ? n : 1, sizeof *tmps);
	char **olds = tb_xcalloc(n ? n : 1, sizeof *olds);
	size_t renamed = 0;
	int rc = 0;

	for (size_t i = 0; i < n && rc == 0; i++)
		rc = S_write_temp(&files[i], &tmps[i], d);
	for (size_t i = 0; i < n && rc == 0; i++)
		olds[i] = S_keep_old(files[i].path);

	for (; rc == 0 && renamed < n; renamed++) {
		if (rename(tmps[renamed], files[renamed].path) != 0) {
			tb_diags_add(d, TB_DIAG_ERROR, files[renamed].path, NULL, 0, 0, 0,
			             "cannot move the output file into place: %s; expected a writable path",
			             strerror(errno));
			rc = -1;
			break;
		}
	}

	if (rc != 0) {
		/* All or nothing: what this call already renamed is undone (the
		 * previous run's file back in place, or none), so no one signs a
		 * report whose companions are from another run. */
		for (size_t i = 0; i < renamed; i++)
			if (!olds[i] || rename(olds[i], files[i].path) != 0)
				unlink(files[i].path);
		for (size_t i = renamed; i < n; i++)
			if (tmps[i])
				unlink(tmps[i]);
	}
	for (size_t i = 0; i < n; i++) {
		if (olds[i])
			unlink(olds[i]);    /* gone already when it was put back */
		free(olds[i]);
		free(tmps[i]);
	}
	free(olds);
	free(tmps);
	return rc;
}

int tb_fileio_ensure_dir(const char *dir, tb_diags *d)
{
	struct stat st;
	if (stat(dir, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return 0;
		tb_diags_add(d, TB_DIAG_ERROR, dir, NULL, 0, 0, 0,
		             "is not a directory; expected a directory for the output files");
		return -1;
	}
	if (errno == ENOENT && mkdir(dir, 0777) == 0)
		return 0;
	tb_diags_add(d, TB_DIAG_ERROR, dir, NULL, 0, 0, 0,
	             "cannot use as the output directory: %s; expected an existing or creatable directory",
	             strerror(errno));
	return -1;
}
