/* flock() is BSD, not POSIX; glibc declares it under _DEFAULT_SOURCE. */
#define _DEFAULT_SOURCE

#include "trainbudget/fileio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "trainbudget/buf.h"
#include "trainbudget/sha256.h"
#include "trainbudget/xalloc.h"

/* ---- reading ---------------------------------------------------------- */

char *tb_fileio_slurp(const char *path, size_t max_bytes, size_t *len_out)
{
	int is_stdin = strcmp(path, "-") == 0;
	/* Non-blocking: open() of a FIFO with no writer would wait for one. */
	int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	bool waits = false;     /* a pipe or device: poll, within TB_FILEIO_IDLE_MS */
	if (fstat(fd, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			if (!is_stdin)
				close(fd);
			errno = EISDIR;
			return NULL;
		}
		waits = !is_stdin && !S_ISREG(st.st_mode);
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
			if (waits && (errno == EAGAIN || errno == EWOULDBLOCK)) {
				struct pollfd pfd = { .fd = fd, .events = POLLIN };
				int r = poll(&pfd, 1, TB_FILEIO_IDLE_MS);
				if (r > 0 || (r < 0 && errno == EINTR))
					continue;
				err = r == 0 ? ETIMEDOUT : errno;
				break;
			}
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
	if (!err && waits && b.len == 0)
		err = ENODATA;      /* a FIFO nobody has opened to write: EOF at once */
	if (err) {
		tb_buf_release(&b);
		errno = err;
		return NULL;
	}
	return tb_buf_detach(&b, len_out);
}

const char *tb_fileio_why(int err)
{
	if (err == ETIMEDOUT)
		return "nothing to read for 10 s: a pipe or device nobody writes to";
	if (err == ENODATA)
		return "nothing to read: a pipe or device nobody writes to";
	if (err == EISDIR)
		return "it is a directory";
	return strerror(err);
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
			             errno == EIO || errno == EINVAL || errno == ETIMEDOUT || errno == ENODATA
			             ? "read" : "open",
			             tb_fileio_why(errno));
		return -1;
	}
	*out = text;
	*len_out = len;
	return 0;
}


/* ---- signals ---------------------------------------------------------- */

/* Between begin and end these only set a flag: the code stops at the next
 * safe point and undoes what it did, then main.c re-raises the signal.
 * Nothing async-signal-unsafe runs in the handler. */
static const int S_caught_sigs[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM };
/* Ignored, so that the failure becomes an errno the caller can undo. */
static const int S_ignored_sigs[] = { SIGPIPE, SIGXFSZ };
#define S_NCAUGHT (sizeof S_caught_sigs / sizeof S_caught_sigs[0])
#define S_NIGNORED (sizeof S_ignored_sigs / sizeof S_ignored_sigs[0])

static volatile sig_atomic_t S_caught;
static int S_last_signal;
static struct sigaction S_saved[S_NCAUGHT + S_NIGNORED];

static void S_on_signal(int sig)
{
	if (!S_caught)
		S_caught = sig;
}

static void S_caught_set(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < S_NCAUGHT; i++)
		sigaddset(set, S_caught_sigs[i]);
}

static void S_signals_take(void)
{
	S_caught = 0;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = S_on_signal;
	S_caught_set(&sa.sa_mask);
	sa.sa_flags = 0;    /* no SA_RESTART: a wait for the lock must end */
	for (size_t i = 0; i < S_NCAUGHT; i++) {
		sigaction(S_caught_sigs[i], NULL, &S_saved[i]);
		/* A signal ignored on entry (nohup, a background job) stays so. */
		if (S_saved[i].sa_handler != SIG_IGN)
			sigaction(S_caught_sigs[i], &sa, NULL);
	}
	struct sigaction ign;
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	for (size_t i = 0; i < S_NIGNORED; i++)
		sigaction(S_ignored_sigs[i], &ign, &S_saved[S_NCAUGHT + i]);
}

static void S_signals_give(void)
{
	for (size_t i = 0; i < S_NCAUGHT; i++)
		sigaction(S_caught_sigs[i], &S_saved[i], NULL);
	for (size_t i = 0; i < S_NIGNORED; i++)
		sigaction(S_ignored_sigs[i], &S_saved[S_NCAUGHT + i], NULL);
	S_last_signal = S_caught;
}

int tb_fileio_signal(void)
{
	return S_last_signal;
}

/* ---- output sets ------------------------------------------------------ */

/* Temporaries and kept previous versions are hidden, named by process and
 * serial, never after their target: the pattern is ours alone, so the
 * leftovers of a run killed outright can be recognised and removed. */
#define S_STAGE_PREFIX ".trainbudget-"
#define S_LOCK_FILE ".trainbudget.lock"

typedef enum { S_KEEP_NONE, S_KEEP_LINK, S_KEEP_MOVE } S_keep_how;

typedef struct S_item {
	char *name;         /* the target, in the directory */
	const char *data;   /* new contents (borrowed); NULL: remove the target */
	size_t len;
	char *tmp;          /* the written temporary, until renamed */
	char *old;          /* the previous file under a hidden name */
	S_keep_how keep;
	bool moved_old;     /* S_KEEP_MOVE: the previous file is at `old` now */
	bool done;          /* in place (or removed) */
	bool same;          /* the target already holds `data`: left as it is */
	struct stat seen;   /* the target when found the same (S_same) */
} S_item;

struct tb_fileio_set {
	char *dir;          /* for messages */
	int dirfd;          /* held open: the lock is on it */
	int lockfd;         /* the fallback lock file, or -1 */
	S_item *items;
	size_t n, cap;
	size_t staged;      /* items[0..staged) written before the commit */
	char *manifest;     /* the NAME.sha256 contents, owned */
	bool committed;
	bool blocked;       /* caught signals held since commit */
	sigset_t mask;      /* the mask to restore */
};

static unsigned S_serial;

static char *S_hidden_name(const char *kind)
{
	tb_buf b;
	tb_buf_init(&b);
	tb_buf_printf(&b, S_STAGE_PREFIX "%ld-%u.%s", (long)getpid(), S_serial++, kind);
	return tb_buf_detach(&b, NULL);
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static void S_error(const tb_fileio_set *s, const char *name, tb_diags *d, const char *fmt, ...)
{
	tb_buf p, msg;
	tb_buf_init(&p);
	tb_buf_init(&msg);
	tb_buf_puts(&p, s->dir);
	if (name) {
		if (p.len && p.ptr[p.len - 1] != '/')
			tb_buf_putc(&p, '/');
		tb_buf_puts(&p, name);
	}
	va_list ap;
	va_start(ap, fmt);
	tb_buf_vprintf(&msg, fmt, ap);
	va_end(ap);
	tb_diags_add(d, TB_DIAG_ERROR, p.ptr, NULL, 0, 0, 0, "%s", msg.ptr);
	tb_buf_release(&msg);
	tb_buf_release(&p);
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

/* Writes the item's contents to a fresh temporary in the directory.  A
 * file being replaced lends its permission bits: a report someone made
 * private stays private. */
static int S_stage(tb_fileio_set *s, S_item *it, tb_diags *d)
{
	int fd = -1;
	for (int tries = 0; tries < 100 && fd < 0; tries++) {
		free(it->tmp);
		it->tmp = S_hidden_name("tmp");
		/* O_EXCL: never follow or reuse someone else's file. */
		fd = openat(s->dirfd, it->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		int err = errno;
		free(it->tmp);
		it->tmp = NULL;
		S_error(s, it->name, d, "cannot create the output file: %s; expected a writable directory",
		        strerror(err));
		return -1;
	}
	struct stat st;
	if (fstatat(s->dirfd, it->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	    fchmod(fd, st.st_mode & 0777) != 0) {
		int err = errno;
		close(fd);
		S_error(s, it->name, d, "cannot keep the file's permissions: %s; expected to own the file being replaced",
		        strerror(err));
		return -1;
	}
	if (S_write_fd(fd, it->data, it->len) != 0) {
		int err = errno;
		close(fd);
		S_error(s, it->name, d, "cannot write the output file: %s; expected room to write %zu bytes",
		        strerror(err), it->len);
		return -1;
	}
	/* close() is where NFS and full disks report deferred write errors. */
	if (close(fd) != 0) {
		S_error(s, it->name, d, "cannot write the output file: %s; expected room to write %zu bytes",
		        strerror(errno), it->len);
		return -1;
	}
	return 0;
}

/* Whether the target already holds the item's bytes: a regular file of
 * the same length and contents.  Such a file is left as it is, inode and
 * times too, as install -C leaves one: a rerun that changes nothing writes
 * nothing, and spares ext4 freeing the blocks of the version it would have
 * replaced (with discard, about 0.15 ms a file).  What it was is kept, so
 * that the commit can tell a file changed since (S_still_same). */
static bool S_same(tb_fileio_set *s, S_item *it)
{
	struct stat st;
	if (fstatat(s->dirfd, it->name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size != (uint64_t)it->len)
		return false;
	/* O_NONBLOCK: a FIFO put there since opens, and fails the check */
	int fd = openat(s->dirfd, it->name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return false;
	bool same = fstat(fd, &it->seen) == 0 && it->seen.st_ino == st.st_ino &&
	            it->seen.st_dev == st.st_dev && S_ISREG(it->seen.st_mode) &&
	            (uint64_t)it->seen.st_size == (uint64_t)it->len;
	char buf[16384];
	for (size_t off = 0; same && off < it->len;) {
		size_t want = it->len - off < sizeof buf ? it->len - off : sizeof buf;
		ssize_t got = read(fd, buf, want);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0 || memcmp(buf, it->data + off, (size_t)got) != 0)
			same = false;
		else
			off += (size_t)got;
	}
	close(fd);
	return same;
}

/* Whether a target S_same found is still that file: the same inode, size
 * and times (a write, chmod or rename since moves its ctime). */
static bool S_still_same(tb_fileio_set *s, const S_item *it)
{
	struct stat st;
	const struct stat *a = &it->seen;
	return fstatat(s->dirfd, it->name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       st.st_dev == a->st_dev && st.st_ino == a->st_ino && st.st_size == a->st_size &&
	       st.st_mtim.tv_sec == a->st_mtim.tv_sec && st.st_mtim.tv_nsec == a->st_mtim.tv_nsec &&
	       st.st_ctim.tv_sec == a->st_ctim.tv_sec && st.st_ctim.tv_nsec == a->st_ctim.tv_nsec;
}

/* Keeps the file the item replaces or removes under a hidden name, so the
 * step can be undone: a hard link while the target stays in place, or,
 * where the file system has no hard links, a rename done just before the
 * new file takes its place.  Nothing to keep: no file, or a directory
 * (which the rename will refuse). */
static int S_keep_old(tb_fileio_set *s, S_item *it, tb_diags *d)
{
	struct stat st;
	if (it->same)
		return 0;
	if (fstatat(s->dirfd, it->name, &st, AT_SYMLINK_NOFOLLOW) != 0 || S_ISDIR(st.st_mode))
		return 0;
	for (int tries = 0; tries < 100; tries++) {
		free(it->old);
		it->old = S_hidden_name("old");
		if (linkat(s->dirfd, it->name, s->dirfd, it->old, 0) == 0) {
			it->keep = S_KEEP_LINK;
			return 0;
		}
		if (errno == EEXIST)
			continue;
		if (errno == EPERM || errno == EMLINK || errno == EOPNOTSUPP || errno == ENOSYS) {
			it->keep = S_KEEP_MOVE;
			return 0;
		}
		break;
	}
	int err = errno;
	free(it->old);
	it->old = NULL;
	S_error(s, it->name, d, "cannot keep the previous version: %s; expected a writable directory",
	        strerror(err));
	return -1;
}

/* Puts the item in place: the new file over its target, or the target
 * removed. */
static int S_apply(tb_fileio_set *s, S_item *it, tb_diags *d)
{
	if (it->same)
		return 0;
	if (it->keep == S_KEEP_MOVE) {
		if (renameat(s->dirfd, it->name, s->dirfd, it->old) != 0)
			goto fail;
		it->moved_old = true;
	}
	if (it->data) {
		if (renameat(s->dirfd, it->tmp, s->dirfd, it->name) != 0)
			goto fail;
		free(it->tmp);
		it->tmp = NULL;
	} else if (it->keep == S_KEEP_LINK && unlinkat(s->dirfd, it->name, 0) != 0) {
		goto fail;
	}
	it->done = true;
	return 0;
fail:
	if (it->data)
		S_error(s, it->name, d, "cannot move the output file into place: %s; expected a writable path",
		        strerror(errno));
	else
		S_error(s, it->name, d, "cannot remove the previous run's file: %s; expected a writable path",
		        strerror(errno));
	return -1;
}

/* Undoes every item, last first: previous versions back in place, new
 * files and temporaries gone.  Safe on a half-applied set. */
static void S_undo(tb_fileio_set *s, tb_diags *d)
{
	for (size_t k = s->n; k-- > 0;) {
		S_item *it = &s->items[k];
		bool restore = it->old && (it->keep == S_KEEP_LINK ? it->done : it->moved_old);
		if (restore) {
			/* One rename replaces the new file with the old inode. */
			if (renameat(s->dirfd, it->old, s->dirfd, it->name) == 0) {
				free(it->old);
				it->old = NULL;
			} else {
				S_error(s, it->name, d, "cannot put the previous version back: %s; "
				        "it is kept as %s", strerror(errno), it->old);
				free(it->old);      /* forgotten, so never unlinked */
				it->old = NULL;
			}
		} else if (it->done && it->data) {
			unlinkat(s->dirfd, it->name, 0);
		}
		it->done = it->moved_old = false;
		if (it->tmp) {
			unlinkat(s->dirfd, it->tmp, 0);
			free(it->tmp);
			it->tmp = NULL;
		}
		if (it->old) {
			unlinkat(s->dirfd, it->old, 0);     /* a link never used */
			free(it->old);
			it->old = NULL;
		}
		it->keep = S_KEEP_NONE;
	}
}

static void S_items_free(tb_fileio_set *s)
{
	for (size_t k = 0; k < s->n; k++) {
		free(s->items[k].name);
		free(s->items[k].tmp);
		free(s->items[k].old);
	}
	free(s->items);
	s->items = NULL;
	s->n = s->cap = s->staged = 0;
	free(s->manifest);
	s->manifest = NULL;
}

/* Waits for the directory.  flock() on the directory itself leaves no file
 * behind and is released by the kernel however the process ends; where
 * the file system cannot lock a directory (NFS emulates flock() with
 * byte-range locks, which need a file open for writing) a lock file in the
 * directory takes its place. */
static int S_lock(tb_fileio_set *s, tb_diags *d)
{
	while (flock(s->dirfd, LOCK_EX) != 0) {
		if (errno != EINTR)
			goto fallback;
		if (S_caught)
			return -1;
	}
	return 0;
fallback:
	if (errno != EBADF && errno != ENOLCK && errno != EINVAL &&
	    errno != EOPNOTSUPP && errno != ENOSYS)
		goto fail;
	s->lockfd = openat(s->dirfd, S_LOCK_FILE, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
	if (s->lockfd < 0)
		goto fail;
	struct flock fl;
	memset(&fl, 0, sizeof fl);
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	while (fcntl(s->lockfd, F_SETLKW, &fl) != 0) {
		if (errno != EINTR)
			goto fail;
		if (S_caught)
			return -1;
	}
	return 0;
fail:
	S_error(s, NULL, d, "cannot lock the output directory: %s; expected a directory "
	        "other runs can share", strerror(errno));
	return -1;
}

/* ".trainbudget-PID-N.tmp" or ".old" of a process that no longer exists:
 * only a run holding the lock makes these, so with the lock held they are
 * what a run killed outright (SIGKILL, a power cut) left behind. */
static bool S_is_leftover(const char *n)
{
	size_t plen = strlen(S_STAGE_PREFIX);
	if (strncmp(n, S_STAGE_PREFIX, plen) != 0)
		return false;
	const char *p = n + plen;
	long pid = 0;
	size_t digits = 0;
	for (; *p >= '0' && *p <= '9' && digits < 10; p++, digits++)
		pid = pid * 10 + (*p - '0');
	if (digits == 0 || *p++ != '-')
		return false;
	for (digits = 0; *p >= '0' && *p <= '9'; p++)
		digits++;
	if (digits == 0 || (strcmp(p, ".tmp") != 0 && strcmp(p, ".old") != 0))
		return false;
	return pid > 0 && pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

static void S_remove_leftovers(tb_fileio_set *s)
{
	int fd = fcntl(s->dirfd, F_DUPFD_CLOEXEC, 0);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return;
	}
	struct dirent *e;
	while ((e = readdir(dir)) != NULL)
		if (S_is_leftover(e->d_name))
			unlinkat(s->dirfd, e->d_name, 0);
	closedir(dir);
}

tb_fileio_set *tb_fileio_set_begin(const char *dir, tb_diags *d)
{
	tb_fileio_set *s = tb_xcalloc(1, sizeof *s);
	s->dir = tb_xstrdup(dir);
	s->dirfd = s->lockfd = -1;
	S_signals_take();
	/* mkdir first, then look: a run creating it at the same moment makes
	 * EEXIST, which is success here. */
	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		S_error(s, NULL, d, "cannot use as the output directory: %s; expected an "
		        "existing or creatable directory", strerror(errno));
		goto fail;
	}
	s->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->dirfd < 0) {
		if (errno == ENOTDIR)
			S_error(s, NULL, d, "is not a directory; expected a directory for the output files");
		else
			S_error(s, NULL, d, "cannot use as the output directory: %s; expected an "
			        "existing or creatable directory", strerror(errno));
		goto fail;
	}
	if (S_lock(s, d) != 0)
		goto fail;
	S_remove_leftovers(s);
	return s;
fail:
	tb_fileio_set_end(s);
	return NULL;
}

/* A name a set may hold: one directory entry, visible, on one line (the
 * manifest is line-based). */
static bool S_plain_name(const char *n)
{
	return *n && *n != '.' && !strchr(n, '/') && !strchr(n, '\n') && !strchr(n, '\\') &&
	       strlen(n) < 256;
}

static bool S_in_files(const tb_outfile *files, size_t n, const char *name, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(files[i].name) == len && memcmp(files[i].name, name, len) == 0)
			return true;
	return false;
}

static S_item *S_add_item(tb_fileio_set *s, const char *name, size_t len)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 8;
		s->items = tb_xrealloc(s->items, s->cap * sizeof *s->items);
	}
	S_item *it = &s->items[s->n++];
	memset(it, 0, sizeof *it);
	it->name = tb_xstrndup(name, len);
	return it;
}

/* The files the previous NAME.sha256 listed that this set does not hold.
 * Only names of the set's own form (NAME.x, NAME-x) are taken from it, so
 * an edited manifest cannot reach outside the set. */
static void S_add_stale(tb_fileio_set *s, const char *name, const char *manifest,
                        const tb_outfile *files, size_t n)
{
	int fd = openat(s->dirfd, manifest, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return;
	char buf[65536];
	size_t len = 0;
	for (;;) {
		ssize_t got = read(fd, buf + len, sizeof buf - 1 - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		len += (size_t)got;
		if (len == sizeof buf - 1)
			break;
	}
	close(fd);
	buf[len] = '\0';
	size_t nlen = strlen(name);
	size_t first_stale = s->n;
	for (char *line = buf, *end; *line; line = end + 1) {
		end = strchr(line, '\n');
		if (!end)
			break;      /* a cut last line: not trusted */
		/* sha256sum's format: 64 hex digits, two characters, the name. */
		if (end - line < 67 || strspn(line, "0123456789abcdef") != 64 ||
		    line[64] != ' ' || (line[65] != ' ' && line[65] != '*'))
			continue;
		const char *f = line + 66;
		size_t flen = (size_t)(end - f);
		char save = *end;
		*end = '\0';
		bool ours = flen > nlen && strncmp(f, name, nlen) == 0 &&
		            (f[nlen] == '.' || f[nlen] == '-') && S_plain_name(f) &&
		            strcmp(f, manifest) != 0 && !S_in_files(files, n, f, flen);
		for (size_t k = first_stale; ours && k < s->n; k++)
			if (strcmp(s->items[k].name, f) == 0)
				ours = false;
		*end = save;
		if (ours)
			S_add_item(s, f, flen);
	}
}

static void S_unblock(tb_fileio_set *s)
{
	if (s->blocked) {
		sigprocmask(SIG_SETMASK, &s->mask, NULL);
		s->blocked = false;
	}
}

/* Drops what tb_fileio_set_stage wrote, the directory as it was. */
static void S_unstage(tb_fileio_set *s)
{
	tb_diags none;
	tb_diags_init(&none);
	S_undo(s, &none);
	tb_diags_release(&none);
	S_items_free(s);
}

int tb_fileio_set_stage(tb_fileio_set *s, const tb_outfile *files, size_t n)
{
	if (!s || s->committed || s->staged != s->n)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (S_caught)
			return -1;
		if (!S_plain_name(files[i].name))
			continue;       /* the commit refuses it, and says why */
		bool have = false;
		for (size_t k = 0; k < s->n && !have; k++)
			have = strcmp(s->items[k].name, files[i].name) == 0;
		if (have)
			continue;
		S_item *it = S_add_item(s, files[i].name, strlen(files[i].name));
		it->data = files[i].data;
		it->len = files[i].len;
		it->same = S_same(s, it);
		if (it->same) {
			s->staged = s->n;
			continue;
		}
		tb_diags none;
		tb_diags_init(&none);
		int rc = S_stage(s, it, &none);
		tb_diags_release(&none);
		if (rc != 0) {
			/* left for the commit to write again, and to report */
			if (it->tmp)
				unlinkat(s->dirfd, it->tmp, 0);
			free(it->tmp);
			free(it->name);
			s->n--;
			return -1;
		}
		s->staged = s->n;
	}
	return 0;
}

int tb_fileio_set_commit(tb_fileio_set *s, const char *name, const tb_outfile *files,
                         size_t n, tb_diags *d)
{
	tb_buf manifest_name;
	tb_buf_init(&manifest_name);
	if (name)
		tb_buf_printf(&manifest_name, "%s.sha256", name);

	for (size_t i = 0; i < n; i++) {
		const char *why = NULL;
		if (!S_plain_name(files[i].name))
			why = "not a plain file name";
		else if (name && strcmp(files[i].name, manifest_name.ptr) == 0)
			why = "the name of the set's manifest";
		for (size_t j = 0; !why && j < i; j++)
			if (strcmp(files[i].name, files[j].name) == 0)
				why = "named twice in one output set";
		if (why) {
			S_error(s, files[i].name, d, "%s; expected each file once, by a name without "
			        "'/' that does not start with '.'", why);
			tb_buf_release(&manifest_name);
			S_unstage(s);
			return -1;
		}
	}
	if (name && !S_plain_name(manifest_name.ptr)) {
		S_error(s, manifest_name.ptr, d, "not a plain file name; expected a set name "
		        "without '/' that does not start with '.'");
		tb_buf_release(&manifest_name);
		S_unstage(s);
		return -1;
	}

	/* New files first, then the previous run's leftovers, the manifest
	 * last: a manifest in place means everything it lists is. */
	tb_buf list;
	tb_buf_init(&list);
	/* what was staged stands where the same bytes are committed under
	 * its name; anything else staged is dropped and written anew */
	bool same = s->staged <= n;
	for (size_t k = 0; k < s->staged && same; k++)
		same = strcmp(s->items[k].name, files[k].name) == 0 &&
		       s->items[k].data == files[k].data && s->items[k].len == files[k].len;
	if (!same)
		S_unstage(s);
	for (size_t i = 0; i < n; i++) {
		if (i >= s->n) {
			S_item *it = S_add_item(s, files[i].name, strlen(files[i].name));
			it->data = files[i].data;
			it->len = files[i].len;
		}
		if (name) {
			char hex[65];
			if (!files[i].sha256_hex)
				tb_sha256_hex(files[i].data, files[i].len, hex);
			tb_buf_printf(&list, "%s  %s\n", files[i].sha256_hex ? files[i].sha256_hex : hex,
			              files[i].name);
		}
	}
	if (name) {
		S_add_stale(s, name, manifest_name.ptr, files, n);
		S_item *it = S_add_item(s, manifest_name.ptr, manifest_name.len);
		s->manifest = tb_buf_detach(&list, &it->len);
		it->data = s->manifest;
	}
	tb_buf_release(&list);
	tb_buf_release(&manifest_name);

	for (size_t k = 0; k < s->n; k++) {
		S_item *it = &s->items[k];
		if (S_caught)
			goto undo;
		if (!it->data || it->tmp)
			continue;
		/* found the same ahead (tb_fileio_set_stage): still so, or
		 * written after all; else asked now */
		it->same = it->same ? S_still_same(s, it) : S_same(s, it);
		if (!it->same && S_stage(s, it, d) != 0)
			goto undo;
	}
	for (size_t k = 0; k < s->n; k++)
		if (S_keep_old(s, &s->items[k], d) != 0)
			goto undo;

	/* The window where the directory holds part of each set: no signal
	 * may cut it.  Held ones are delivered at tb_fileio_set_end. */
	sigset_t set;
	S_caught_set(&set);
	if (!s->blocked && sigprocmask(SIG_BLOCK, &set, &s->mask) == 0)
		s->blocked = true;
	if (S_caught)
		goto undo;
	for (size_t k = 0; k < s->n; k++)
		if (S_apply(s, &s->items[k], d) != 0)
			goto undo;
	s->committed = true;
	return 0;
undo:
	S_undo(s, d);
	S_items_free(s);
	return -1;
}

void tb_fileio_set_rollback(tb_fileio_set *s, tb_diags *d)
{
	if (!s || !s->committed)
		return;
	S_undo(s, d);
	S_items_free(s);
	s->committed = false;
}

int tb_fileio_set_end(tb_fileio_set *s)
{
	if (!s)
		return S_last_signal;
	if (!s->committed)
		S_unstage(s);
	for (size_t k = 0; k < s->n; k++)
		if (s->items[k].old)
			unlinkat(s->dirfd, s->items[k].old, 0);
	S_items_free(s);
	/* Closing the descriptor lets the next run in. */
	if (s->lockfd >= 0)
		close(s->lockfd);
	if (s->dirfd >= 0)
		close(s->dirfd);
	/* Unblocked while our handler is still in place, so a held signal is
	 * recorded, not acted on, before the previous handling returns. */
	S_unblock(s);
	S_signals_give();
	free(s->dir);
	free(s);
	return S_last_signal;
}

int tb_fileio_write_set(const char *dir, const char *name, const tb_outfile *files,
                        size_t n, tb_diags *d)
{
	tb_fileio_set *s = tb_fileio_set_begin(dir, d);
	if (!s)
		return -1;
	int rc = tb_fileio_set_commit(s, name, files, n, d);
	tb_fileio_set_end(s);
	return rc;
}
