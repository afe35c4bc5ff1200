/* fault.so: system-call faults for tests/cli-concurrency.sh, by LD_PRELOAD.
 * Never linked into trainbudget.
 *
 *   TB_FAULT_DELAY_US=N   sleep 0 to 2N microseconds (N on average, drawn
 *                         anew each time) before each open, rename, link
 *                         and unlink (and their *at forms), so that
 *                         concurrent runs overlap inside the output stage,
 *                         in an order that changes from call to call, and
 *                         a signal sent at a random moment often lands in
 *                         it (it is well under a millisecond otherwise)
 *   TB_FAULT_NOFLOCK=1    flock() fails with ENOLCK, as on NFS, so the
 *                         lock-file fallback is used
 *   TB_FAULT_NOLINK=1     link() fails with EPERM, as on FAT or some FUSE
 *                         file systems, so previous versions are kept by
 *                         renaming them aside instead
 *   TB_FAULT_NODLOPEN=P   dlopen() of a library whose name starts with P
 *                         fails, as where the package is missing, so the
 *                         PDF's text libraries cannot be opened
 *   TB_FAULT_LOG=FILE     append "CALL PATH" to FILE before each of those
 *                         calls, so a test can tell how far a run it
 *                         killed had gone */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* dlsym returns an object pointer; copying its bytes into a function
 * pointer is the conversion ISO C leaves to POSIX. */
#define S_NEXT(fn, name) \
	do { \
		if (!fn) { \
			void *p_ = dlsym(RTLD_NEXT, name); \
			memcpy(&fn, &p_, sizeof p_); \
		} \
	} while (0)

static void S_delay(void)
{
	static unsigned long state;
	const char *v = getenv("TB_FAULT_DELAY_US");
	long us = v ? strtol(v, NULL, 10) : 0;
	if (us <= 0)
		return;
	if (!state)
		state = (unsigned long)getpid() * 2654435761UL + 1;
	/* a 64-bit LCG (Knuth's MMIX constants): enough to vary the order */
	state = state * 6364136223846793005UL + 1442695040888963407UL;
	us = (long)((state >> 33) % (unsigned long)(2 * us + 1));
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
	/* An interrupted sleep is a signal arriving: let the call go on. */
	nanosleep(&ts, NULL);
}

static void S_log(const char *call, const char *path)
{
	static int (*real_open)(const char *, int, ...);
	const char *log = getenv("TB_FAULT_LOG");
	if (!log || !*log)
		return;
	S_NEXT(real_open, "open");
	int fd = real_open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0)
		return;
	char line[1024];
	int n = snprintf(line, sizeof line, "%s %s\n", call, path);
	if (n > 0)
		(void)!write(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
	close(fd);
}

static int S_on(const char *name)
{
	const char *v = getenv(name);
	return v && strcmp(v, "1") == 0;
}

int openat(int dirfd, const char *path, int flags, ...);
int openat(int dirfd, const char *path, int flags, ...)
{
	static int (*next)(int, const char *, int, ...);
	S_NEXT(next, "openat");
	mode_t mode = 0;
	if (flags & O_CREAT) {
		va_list ap;
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, unsigned);
		va_end(ap);
	}
	S_log("openat", path);
	S_delay();
	return next(dirfd, path, flags, mode);
}

int open(const char *path, int flags, ...);
int open(const char *path, int flags, ...)
{
	static int (*next)(const char *, int, ...);
	S_NEXT(next, "open");
	mode_t mode = 0;
	if (flags & O_CREAT) {
		va_list ap;
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, unsigned);
		va_end(ap);
	}
	S_log("open", path);
	S_delay();
	return next(path, flags, mode);
}

int renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath)
{
	static int (*next)(int, const char *, int, const char *);
	S_NEXT(next, "renameat");
	S_log("renameat", oldpath);
	S_delay();
	return next(olddirfd, oldpath, newdirfd, newpath);
}

int rename(const char *oldpath, const char *newpath)
{
	static int (*next)(const char *, const char *);
	S_NEXT(next, "rename");
	S_log("rename", oldpath);
	S_delay();
	return next(oldpath, newpath);
}

int linkat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, int flags)
{
	static int (*next)(int, const char *, int, const char *, int);
	S_NEXT(next, "linkat");
	S_log("linkat", oldpath);
	S_delay();
	if (S_on("TB_FAULT_NOLINK")) {
		errno = EPERM;
		return -1;
	}
	return next(olddirfd, oldpath, newdirfd, newpath, flags);
}

int link(const char *oldpath, const char *newpath)
{
	static int (*next)(const char *, const char *);
	S_NEXT(next, "link");
	S_log("link", oldpath);
	S_delay();
	if (S_on("TB_FAULT_NOLINK")) {
		errno = EPERM;
		return -1;
	}
	return next(oldpath, newpath);
}

int unlinkat(int dirfd, const char *path, int flags)
{
	static int (*next)(int, const char *, int);
	S_NEXT(next, "unlinkat");
	S_log("unlinkat", path);
	S_delay();
	return next(dirfd, path, flags);
}

int unlink(const char *path)
{
	static int (*next)(const char *);
	S_NEXT(next, "unlink");
	S_log("unlink", path);
	S_delay();
	return next(path);
}

int flock(int fd, int op)
{
	static int (*next)(int, int);
	S_NEXT(next, "flock");
	if (S_on("TB_FAULT_NOFLOCK")) {
		errno = ENOLCK;
		return -1;
	}
	return next(fd, op);
}

void *dlopen(const char *file, int mode)
{
	static void *(*next)(const char *, int);
	S_NEXT(next, "dlopen");
	const char *no = getenv("TB_FAULT_NODLOPEN");
	if (no && no[0] && file && strncmp(file, no, strlen(no)) == 0)
		return NULL;
	return next(file, mode);
}
