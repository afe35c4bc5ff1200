/* fileio: reads with a cap, and output sets written all or nothing, one
 * run at a time, whatever fails and whichever signal comes. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "trainbudget/buf.h"
#include "trainbudget/fileio.h"

static char S_dir[64];

static void S_setup(void)
{
	strcpy(S_dir, "/tmp/tb-fileio-XXXXXX");
	cr_assert_not_null(mkdtemp(S_dir));
}

static void S_teardown(void)
{
	DIR *dir = opendir(S_dir);
	if (dir) {
		struct dirent *e;
		char p[512];
		while ((e = readdir(dir)) != NULL) {
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			snprintf(p, sizeof p, "%s/%s", S_dir, e->d_name);
			if (unlink(p) != 0)
				rmdir(p);
		}
		closedir(dir);
	}
	rmdir(S_dir);
}

static void S_path(char *out, size_t n, const char *name)
{
	snprintf(out, n, "%s/%s", S_dir, name);
}

static void S_put(const char *name, const char *text)
{
	char p[512];
	S_path(p, sizeof p, name);
	FILE *f = fopen(p, "wb");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

static char *S_slurp(const char *name)
{
	char p[512];
	S_path(p, sizeof p, name);
	tb_diags d;
	tb_diags_init(&d);
	char *text = NULL;
	size_t len = 0;
	int rc = tb_fileio_read(p, 1 << 20, &text, &len, &d);
	tb_diags_release(&d);
	return rc == 0 ? text : NULL;
}

/* The directory's entries, sorted, one per line: "a.md b.svg" style
 * comparisons that name what is wrong when they fail. */
static int S_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *S_listing(void)
{
	DIR *dir = opendir(S_dir);
	cr_assert_not_null(dir);
	char *names[64];
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(dir)) != NULL && n < 64)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			names[n++] = strdup(e->d_name);
	closedir(dir);
	qsort(names, n, sizeof names[0], S_cmp_str);
	tb_buf b;
	tb_buf_init(&b);
	for (size_t i = 0; i < n; i++) {
		tb_buf_printf(&b, "%s%s", i ? " " : "", names[i]);
		free(names[i]);
	}
	return tb_buf_detach(&b, NULL);
}

static void S_listing_is(const char *want)
{
	char *got = S_listing();
	cr_assert_str_eq(got, want);
	free(got);
}

static ino_t S_inode(const char *name)
{
	char p[512];
	S_path(p, sizeof p, name);
	struct stat st;
	cr_assert_eq(stat(p, &st), 0, "%s exists", name);
	return st.st_ino;
}

static void S_text_is(const char *name, const char *want)
{
	char *text = S_slurp(name);
	cr_assert_not_null(text, "%s exists", name);
	cr_assert_str_eq(text, want, "%s", name);
	free(text);
}

#define S_FILE(n, t) { (n), (t), sizeof(t) - 1, NULL }

/* One set, written with no error. */
static void S_write(const char *name, const tb_outfile *files, size_t n)
{
	tb_diags d;
	tb_diags_init(&d);
	cr_assert_eq(tb_fileio_write_set(S_dir, name, files, n, &d), 0,
	             "%s", d.n ? d.items[0].msg : "");
	cr_assert_eq(d.n, 0);
	tb_diags_release(&d);
}

TestSuite(fileio, .init = S_setup, .fini = S_teardown);

Test(fileio, read_whole_file_nul_terminated)
{
	S_put("a.yaml", "title: x\nmodel:\n  params: 7B\n");
	char p[512];
	S_path(p, sizeof p, "a.yaml");
	tb_diags d;
	tb_diags_init(&d);
	char *text = NULL;
	size_t len = 0;
	cr_assert_eq(tb_fileio_read(p, 1024, &text, &len, &d), 0);
	cr_assert_eq(len, 29);
	cr_assert_str_eq(text, "title: x\nmodel:\n  params: 7B\n");
	cr_assert_eq(d.errors, 0);
	free(text);
	tb_diags_release(&d);
}

Test(fileio, read_empty_file)
{
	S_put("empty", "");
	char *text = S_slurp("empty");
	cr_assert_not_null(text);
	cr_assert_str_eq(text, "");
	free(text);
}

Test(fileio, read_cap_is_inclusive)
{
	S_put("ten", "0123456789");
	char p[512];
	S_path(p, sizeof p, "ten");
	tb_diags d;
	tb_diags_init(&d);
	char *text = NULL;
	size_t len = 0;
	cr_assert_eq(tb_fileio_read(p, 10, &text, &len, &d), 0, "exactly the cap is allowed");
	cr_assert_eq(len, 10);
	free(text);
	text = NULL;
	cr_assert_eq(tb_fileio_read(p, 9, &text, &len, &d), -1, "one byte over the cap fails");
	cr_assert_null(text);
	cr_assert_eq(d.errors, 1);
	cr_assert_str_eq(d.items[0].msg, "file too large; expected at most 9 bytes");
	cr_assert_str_eq(d.items[0].file, p);
	tb_diags_release(&d);
}

Test(fileio, read_cap_larger_than_one_chunk)
{
	/* 200,000 bytes crosses the reader's 64 KiB chunks. */
	char p[512];
	S_path(p, sizeof p, "big");
	FILE *f = fopen(p, "wb");
	cr_assert_not_null(f);
	for (int i = 0; i < 200000; i++)
		fputc('a' + i % 26, f);
	fclose(f);
	tb_diags d;
	tb_diags_init(&d);
	char *text = NULL;
	size_t len = 0;
	cr_assert_eq(tb_fileio_read(p, 200000, &text, &len, &d), 0);
	cr_assert_eq(len, 200000);
	cr_assert_eq(text[199999], 'a' + 199999 % 26);
	cr_assert_eq(text[200000], '\0');
	free(text);
	text = NULL;
	cr_assert_eq(tb_fileio_read(p, 131072, &text, &len, &d), -1);
	cr_assert_null(text);
	tb_diags_release(&d);
}

Test(fileio, read_missing_file_names_it)
{
	char p[512];
	S_path(p, sizeof p, "nope.yaml");
	tb_diags d;
	tb_diags_init(&d);
	char *text = NULL;
	size_t len = 0;
	cr_assert_eq(tb_fileio_read(p, 1024, &text, &len, &d), -1);
	cr_assert_eq(d.errors, 1);
	cr_assert_str_eq(d.items[0].file, p);
	cr_assert_str_eq(d.items[0].msg,
	                 "cannot open: No such file or directory; expected a readable file");
	tb_diags_release(&d);
}

Test(fileio, read_directory_is_an_error)
{
	tb_diags d;
	tb_diags_init(&d);
	char *text = NULL;
	size_t len = 0;
	cr_assert_eq(tb_fileio_read(S_dir, 1024, &text, &len, &d), -1);
	cr_assert_str_eq(d.items[0].msg, "is a directory; expected a file");
	tb_diags_release(&d);
}

Test(fileio, a_set_is_written_with_its_manifest)
{
	/* FIPS 180-2's examples: SHA-256("abc") and of the empty message. */
	tb_outfile files[] = { S_FILE("r.md", "abc"), S_FILE("r.json", "") };
	S_write("r", files, 2);
	S_text_is("r.md", "abc");
	S_text_is("r.json", "");
	S_text_is("r.sha256",
	          "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  r.md\n"
	          "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  r.json\n");
	S_listing_is("r.json r.md r.sha256");
}

Test(fileio, a_hash_given_is_the_manifests)
{
	/* a file hashed by its maker is listed by that hash, not hashed again
	 * (the hash of "xyz" is not this: the manifest shows which it used) */
	tb_outfile files[] = { { "r.md", "xyz", 3,
	                         "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" } };
	S_write("r", files, 1);
	S_text_is("r.sha256",
	          "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  r.md\n");
}

Test(fileio, without_a_name_no_manifest)
{
	tb_outfile files[] = { S_FILE("r.md", "x") };
	S_write(NULL, files, 1);
	S_listing_is("r.md");
}

Test(fileio, write_keeps_embedded_nul_bytes)
{
	tb_outfile f = { "bin.pdf", "%PDF\0\x01", 6, NULL };
	S_write(NULL, &f, 1);
	char p[512];
	S_path(p, sizeof p, "bin.pdf");
	struct stat st;
	cr_assert_eq(stat(p, &st), 0);
	cr_assert_eq(st.st_size, 6);
}

/* A write that fails (a file size limit: EFBIG, with SIGXFSZ ignored
 * while the set is held) after another file of the set was written. */
static int S_write_too_big(const char *name, tb_diags *d)
{
	static char big[4096];
	memset(big, 'x', sizeof big);
	tb_outfile files[] = { S_FILE("r.md", "new report\n"), { "r.pdf", big, sizeof big, NULL } };
	struct rlimit old, lim;
	cr_assert_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 1024;
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	int rc = tb_fileio_write_set(S_dir, name, files, 2, d);
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
	return rc;
}

Test(fileio, a_failed_write_leaves_no_file)
{
	tb_diags d;
	tb_diags_init(&d);
	cr_assert_eq(S_write_too_big("r", &d), -1);
	cr_assert_eq(d.errors, 1);
	char want[600];
	snprintf(want, sizeof want, "%s/r.pdf", S_dir);
	cr_assert_str_eq(d.items[0].file, want);
	cr_assert_str_eq(d.items[0].msg,
	                 "cannot write the output file: File too large; expected room to write 4096 bytes");
	S_listing_is("");
	tb_diags_release(&d);
}

Test(fileio, a_failed_write_keeps_the_previous_set)
{
	tb_outfile old[] = { S_FILE("r.md", "old report\n"), S_FILE("r-a.svg", "<svg/>") };
	S_write("r", old, 2);
	char *manifest = S_slurp("r.sha256");
	tb_diags d;
	tb_diags_init(&d);
	cr_assert_eq(S_write_too_big("r", &d), -1);
	S_text_is("r.md", "old report\n");
	S_text_is("r-a.svg", "<svg/>");
	S_text_is("r.sha256", manifest);
	S_listing_is("r-a.svg r.md r.sha256");
	free(manifest);
	tb_diags_release(&d);
}

Test(fileio, a_failed_rename_removes_what_was_moved)
{
	/* A directory in the way of the second target: its temporary writes,
	 * but the rename over a directory fails after the first succeeded. */
	char b[512];
	S_path(b, sizeof b, "r.svg");
	cr_assert_eq(mkdir(b, 0777), 0);
	tb_outfile files[] = { S_FILE("r.md", "# report\n"), S_FILE("r.svg", "<svg/>") };
	tb_diags d;
	tb_diags_init(&d);
	cr_assert_eq(tb_fileio_write_set(S_dir, "r", files, 2, &d), -1);
	cr_assert_eq(d.errors, 1);
	cr_assert(strstr(d.items[0].msg, "cannot move the output file into place: ") == d.items[0].msg);
	S_listing_is("r.svg");
	tb_diags_release(&d);
}

Test(fileio, a_failed_rename_puts_the_previous_set_back)
{
	/* The report a reviewer signed yesterday survives a rerun that fails
	 * half-way: the same files, the same inodes, nothing hidden left. */
	tb_outfile v1[] = { S_FILE("r.pdf", "signed v1"), S_FILE("r-a.svg", "chart a") };
	S_write("r", v1, 2);
	ino_t pdf = S_inode("r.pdf"), svg = S_inode("r-a.svg"), man = S_inode("r.sha256");
	char b[512];
	S_path(b, sizeof b, "r.json");
	cr_assert_eq(mkdir(b, 0777), 0);
	/* r-a.svg is stale in v2 and removed before the manifest moves; the
	 * failing r.json comes before both. */
	tb_outfile v2[] = { S_FILE("r.pdf", "draft v2"), S_FILE("r.json", "{}") };
	tb_diags d;
	tb_diags_init(&d);
	cr_assert_eq(tb_fileio_write_set(S_dir, "r", v2, 2, &d), -1);
	S_text_is("r.pdf", "signed v1");
	S_text_is("r-a.svg", "chart a");
	cr_assert_eq(S_inode("r.pdf"), pdf);
	cr_assert_eq(S_inode("r-a.svg"), svg);
	cr_assert_eq(S_inode("r.sha256"), man);
	S_listing_is("r-a.svg r.json r.pdf r.sha256");
	tb_diags_release(&d);
}

Test(fileio, a_chart_the_new_set_lacks_is_removed)
{
	tb_outfile v1[] = { S_FILE("r.md", "v1"), S_FILE("r-a.svg", "a1"), S_FILE("r-b.svg", "b1") };
	S_write("r", v1, 3);
	S_put("r-c.svg", "made by hand");     /* never listed: not the run's */
	tb_outfile v2[] = { S_FILE("r.md", "v2"), S_FILE("r-a.svg", "a2") };
	S_write("r", v2, 2);
	S_listing_is("r-a.svg r-c.svg r.md r.sha256");
	S_text_is("r-a.svg", "a2");
	S_text_is("r-c.svg", "made by hand");
}

Test(fileio, formats_not_asked_for_again_are_removed)
{
	tb_outfile v1[] = { S_FILE("r.md", "v1"), S_FILE("r.pdf", "v1"), S_FILE("r.json", "v1") };
	S_write("r", v1, 3);
	tb_outfile v2[] = { S_FILE("r.json", "v2") };
	S_write("r", v2, 1);
	S_listing_is("r.json r.sha256");
}

Test(fileio, other_sets_are_left_alone)
{
	tb_outfile a[] = { S_FILE("a.md", "a"), S_FILE("a-x.svg", "ax") };
	tb_outfile ab[] = { S_FILE("a-x.md", "a-x"), S_FILE("a-x-y.svg", "a-x-y") };
	S_write("a", a, 2);
	S_write("a-x", ab, 2);
	tb_outfile a2[] = { S_FILE("a.json", "a2") };
	S_write("a", a2, 1);
	S_listing_is("a-x-y.svg a-x.md a-x.sha256 a.json a.sha256");
}

Test(fileio, an_edited_manifest_cannot_reach_outside_the_set)
{
	S_put("other.md", "not ours");
	S_put("r", "the bare name");
	S_put("r.md", "ours");
	/* Listed: another set's file, a path, a hidden name, the bare name, a
	 * line cut short; and one real member. */
	const char *h = "0000000000000000000000000000000000000000000000000000000000000000";
	char text[1024];
	snprintf(text, sizeof text,
	         "%s  other.md\n%s  ../r.md\n%s  r/../other.md\n%s  .r.md\n%s  r\n"
	         "%s  r-\\x.svg\nnot a line\n%s  r.md",
	         h, h, h, h, h, h, h);
	S_put("r.sha256", text);
	tb_outfile v[] = { S_FILE("r.json", "{}") };
	S_write("r", v, 1);
	/* r.md was on the cut last line: not trusted, so kept */
	S_listing_is("other.md r r.json r.md r.sha256");
}

Test(fileio, names_must_be_plain_and_unique)
{
	const char *bad[] = { "a/b.md", ".r.md", "", "r.sha256" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		tb_outfile f = { bad[i], "x", 1, NULL };
		tb_diags d;
		tb_diags_init(&d);
		cr_assert_eq(tb_fileio_write_set(S_dir, "r", &f, 1, &d), -1, "'%s'", bad[i]);
		cr_assert_eq(d.errors, 1);
		tb_diags_release(&d);
	}
	tb_outfile twice[] = { S_FILE("r.md", "1"), S_FILE("r.md", "2") };
	tb_diags d;
	tb_diags_init(&d);
	cr_assert_eq(tb_fileio_write_set(S_dir, "r", twice, 2, &d), -1);
	cr_assert(strstr(d.items[0].msg, "named twice in one output set; ") == d.items[0].msg);
	tb_diags_release(&d);
	S_listing_is("");
}

Test(fileio, new_files_honour_the_umask)
{
	/* A mkstemp()-style 0600 would hide reports from colleagues. */
	mode_t old = umask(022);
	tb_outfile f = S_FILE("r.html", "x");
	S_write("r", &f, 1);
	umask(old);
	char a[512];
	S_path(a, sizeof a, "r.html");
	struct stat st;
	cr_assert_eq(stat(a, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0644);
}

Test(fileio, a_regenerated_file_keeps_its_permissions)
{
	mode_t old = umask(022);
	tb_outfile f = S_FILE("r.pdf", "v1");
	S_write("r", &f, 1);
	char a[512];
	S_path(a, sizeof a, "r.pdf");
	cr_assert_eq(chmod(a, 0600), 0);
	tb_outfile g = S_FILE("r.pdf", "v2");
	S_write("r", &g, 1);
	umask(old);
	struct stat st;
	cr_assert_eq(stat(a, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600, "made private, kept private");
	S_text_is("r.pdf", "v2");
}

Test(fileio, begin_creates_the_directory_or_says_why_not)
{
	S_put("plain", "x");
	char p[512], q[512], r[512];
	S_path(p, sizeof p, "plain");
	S_path(q, sizeof q, "out");
	S_path(r, sizeof r, "no/such");
	tb_diags d;
	tb_diags_init(&d);
	cr_assert_null(tb_fileio_set_begin(p, &d));
	cr_assert_str_eq(d.items[0].msg,
	                 "is not a directory; expected a directory for the output files");
	cr_assert_null(tb_fileio_set_begin(r, &d));
	cr_assert_str_eq(d.items[1].msg, "cannot use as the output directory: No such file or "
	                 "directory; expected an existing or creatable directory");
	tb_fileio_set *s = tb_fileio_set_begin(q, &d);
	cr_assert_not_null(s);
	cr_assert_eq(tb_fileio_set_end(s), 0);
	struct stat st;
	cr_assert_eq(stat(q, &st), 0);
	cr_assert(S_ISDIR(st.st_mode));
	cr_assert_eq(d.errors, 2);
	tb_diags_release(&d);
}

Test(fileio, rollback_puts_the_previous_set_back_exactly)
{
	tb_outfile v1[] = { S_FILE("r.md", "v1"), S_FILE("r-a.svg", "a1"), S_FILE("r.pdf", "p1") };
	S_write("r", v1, 3);
	ino_t md = S_inode("r.md"), svg = S_inode("r-a.svg"), pdf = S_inode("r.pdf");
	char *man = S_slurp("r.sha256");
	tb_outfile v2[] = { S_FILE("r.md", "v2"), S_FILE("r-b.svg", "b2"), S_FILE("r.json", "j2") };
	tb_diags d;
	tb_diags_init(&d);
	tb_fileio_set *s = tb_fileio_set_begin(S_dir, &d);
	cr_assert_not_null(s);
	cr_assert_eq(tb_fileio_set_commit(s, "r", v2, 3, &d), 0);
	S_text_is("r-b.svg", "b2");
	S_text_is("r.json", "j2");
	char p[512];
	S_path(p, sizeof p, "r-a.svg");
	cr_assert_eq(access(p, F_OK), -1, "stale until rolled back");
	/* e.g. standard output turned out to be closed */
	tb_fileio_set_rollback(s, &d);
	cr_assert_eq(tb_fileio_set_end(s), 0);
	cr_assert_eq(d.n, 0);
	S_listing_is("r-a.svg r.md r.pdf r.sha256");
	cr_assert_eq(S_inode("r.md"), md);
	cr_assert_eq(S_inode("r-a.svg"), svg);
	cr_assert_eq(S_inode("r.pdf"), pdf);
	S_text_is("r.md", "v1");
	S_text_is("r.sha256", man);
	free(man);
	tb_diags_release(&d);
}

/* ---- concurrency ------------------------------------------------------ */

static double S_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void S_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

Test(fileio, runs_creating_one_directory_all_succeed)
{
	/* Three first runs into the same new directory, released together. */
	char q[512];
	S_path(q, sizeof q, "new");
	int go[2];
	cr_assert_eq(pipe(go), 0);
	pid_t kids[3];
	for (int k = 0; k < 3; k++) {
		kids[k] = fork();
		cr_assert_neq(kids[k], -1);
		if (kids[k] == 0) {
			char c;
			close(go[1]);
			if (read(go[0], &c, 1) != 0)
				_exit(9);
			tb_diags d;
			tb_diags_init(&d);
			tb_fileio_set *s = tb_fileio_set_begin(q, &d);
			_exit(s && tb_fileio_set_end(s) == 0 && d.n == 0 ? 0 : 1);
		}
	}
	close(go[0]);
	close(go[1]);       /* EOF releases all three at once */
	for (int k = 0; k < 3; k++) {
		int st;
		cr_assert_eq(waitpid(kids[k], &st, 0), kids[k]);
		cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "run %d failed", k);
	}
}

Test(fileio, a_second_run_waits_for_the_first)
{
	int held[2];
	cr_assert_eq(pipe(held), 0);
	pid_t kid = fork();
	cr_assert_neq(kid, -1);
	if (kid == 0) {
		close(held[0]);
		tb_diags d;
		tb_diags_init(&d);
		tb_fileio_set *s = tb_fileio_set_begin(S_dir, &d);
		if (!s || write(held[1], "x", 1) != 1)
			_exit(1);
		S_sleep_ms(300);
		tb_outfile f = S_FILE("r.md", "first");
		int rc = tb_fileio_set_commit(s, "r", &f, 1, &d);
		tb_fileio_set_end(s);
		_exit(rc == 0 ? 0 : 1);
	}
	close(held[1]);
	char c;
	cr_assert_eq(read(held[0], &c, 1), 1, "the first run holds the directory");
	double t0 = S_now_s();
	tb_diags d;
	tb_diags_init(&d);
	tb_fileio_set *s = tb_fileio_set_begin(S_dir, &d);
	double waited = S_now_s() - t0;
	cr_assert_not_null(s);
	/* the first run's set is whole by the time the second gets in */
	S_text_is("r.md", "first");
	tb_outfile f = S_FILE("r.md", "second");
	cr_assert_eq(tb_fileio_set_commit(s, "r", &f, 1, &d), 0);
	tb_fileio_set_end(s);
	cr_assert_gt(waited, 0.2, "waited %.3f s for a run holding the directory 0.3 s", waited);
	int st;
	cr_assert_eq(waitpid(kid, &st, 0), kid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	S_text_is("r.md", "second");
	tb_diags_release(&d);
}

/* A signal ignored on entry stays ignored (fileio.c: nohup, a background
 * job started without job control has SIGINT and SIGQUIT ignored), so the
 * tests that raise one start from the default disposition: run from such
 * a job they would otherwise raise into nothing. */
static void S_default_signals(void)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
}

Test(fileio, a_signal_ends_the_wait)
{
	S_default_signals();
	int held[2], waiting[2];
	cr_assert_eq(pipe(held), 0);
	cr_assert_eq(pipe(waiting), 0);
	pid_t holder = fork();
	cr_assert_neq(holder, -1);
	if (holder == 0) {
		close(held[0]);
		tb_diags d;
		tb_diags_init(&d);
		tb_fileio_set *s = tb_fileio_set_begin(S_dir, &d);
		if (!s || write(held[1], "x", 1) != 1)
			_exit(1);
		char c;
		close(waiting[1]);
		(void)!read(waiting[0], &c, 1);     /* until the parent says */
		tb_fileio_set_end(s);
		_exit(0);
	}
	close(held[1]);
	char c;
	cr_assert_eq(read(held[0], &c, 1), 1);
	pid_t waiter = fork();
	cr_assert_neq(waiter, -1);
	if (waiter == 0) {
		tb_diags d;
		tb_diags_init(&d);
		tb_fileio_set *s = tb_fileio_set_begin(S_dir, &d);
		/* NULL, no error, and the signal reported instead of acted on */
		_exit(s == NULL && d.n == 0 && tb_fileio_signal() == SIGTERM ? 0 : 1);
	}
	S_sleep_ms(200);
	cr_assert_eq(kill(waiter, SIGTERM), 0);
	int st;
	cr_assert_eq(waitpid(waiter, &st, 0), waiter);
	cr_assert(WIFEXITED(st), "the waiting run was killed instead of stopping cleanly");
	cr_assert_eq(WEXITSTATUS(st), 0);
	close(waiting[1]);
	cr_assert_eq(waitpid(holder, &st, 0), holder);
	S_listing_is("");
}

/* ---- signals ---------------------------------------------------------- */


Test(fileio, a_signal_before_the_commit_changes_nothing)
{
	S_default_signals();
	tb_outfile v1[] = { S_FILE("r.md", "v1") };
	S_write("r", v1, 1);
	ino_t md = S_inode("r.md");
	tb_diags d;
	tb_diags_init(&d);
	tb_fileio_set *s = tb_fileio_set_begin(S_dir, &d);
	cr_assert_not_null(s);
	raise(SIGINT);      /* recorded, not acted on: we are still here */
	tb_outfile v2[] = { S_FILE("r.md", "v2"), S_FILE("r.json", "{}") };
	cr_assert_eq(tb_fileio_set_commit(s, "r", v2, 2, &d), -1);
	cr_assert_eq(d.n, 0, "an interruption is not an error to print");
	cr_assert_eq(tb_fileio_set_end(s), SIGINT);
	cr_assert_eq(tb_fileio_signal(), SIGINT);
	S_listing_is("r.md r.sha256");
	cr_assert_eq(S_inode("r.md"), md);
	tb_diags_release(&d);
}

static volatile sig_atomic_t S_seen;
static void S_mine(int sig)
{
	S_seen = sig;
}

Test(fileio, a_signal_during_the_commit_waits_for_the_set)
{
	S_default_signals();
	/* Held from commit to end: the new set is complete, then the signal
	 * is reported, and the program's own handling is back in place. */
	struct sigaction sa, before;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = S_mine;
	sigemptyset(&sa.sa_mask);
	cr_assert_eq(sigaction(SIGTERM, &sa, &before), 0);
	tb_diags d;
	tb_diags_init(&d);
	tb_fileio_set *s = tb_fileio_set_begin(S_dir, &d);
	cr_assert_not_null(s);
	tb_outfile v[] = { S_FILE("r.md", "v"), S_FILE("r.json", "{}") };
	cr_assert_eq(tb_fileio_set_commit(s, "r", v, 2, &d), 0);
	raise(SIGTERM);
	cr_assert_eq(tb_fileio_set_end(s), SIGTERM);
	S_listing_is("r.json r.md r.sha256");
	cr_assert_eq(S_seen, 0, "fileio's handler took it, not ours");
	raise(SIGTERM);
	cr_assert_eq(S_seen, SIGTERM, "our handler is back after end");
	sigaction(SIGTERM, &before, NULL);
	S_text_is("r.md", "v");
	tb_diags_release(&d);
}

Test(fileio, an_ignored_signal_stays_ignored)
{
	/* nohup, and background jobs of a non-interactive shell. */
	signal(SIGHUP, SIG_IGN);
	tb_diags d;
	tb_diags_init(&d);
	tb_fileio_set *s = tb_fileio_set_begin(S_dir, &d);
	cr_assert_not_null(s);
	raise(SIGHUP);
	tb_outfile v[] = { S_FILE("r.md", "v") };
	cr_assert_eq(tb_fileio_set_commit(s, "r", v, 1, &d), 0);
	cr_assert_eq(tb_fileio_set_end(s), 0);
	struct sigaction now;
	sigaction(SIGHUP, NULL, &now);
	cr_assert(now.sa_handler == SIG_IGN);
	S_listing_is("r.md r.sha256");
	tb_diags_release(&d);
}

Test(fileio, a_closed_pipe_is_an_error_while_the_set_is_held)
{
	int p[2];
	cr_assert_eq(pipe(p), 0);
	close(p[0]);
	tb_diags d;
	tb_diags_init(&d);
	tb_fileio_set *s = tb_fileio_set_begin(S_dir, &d);
	cr_assert_not_null(s);
	errno = 0;
	cr_assert_eq(write(p[1], "x", 1), -1, "SIGPIPE would have ended the process");
	cr_assert_eq(errno, EPIPE);
	cr_assert_eq(tb_fileio_set_end(s), 0);
	close(p[1]);
	tb_diags_release(&d);
}

Test(fileio, leftovers_of_a_killed_run_are_removed)
{
	pid_t dead = fork();
	cr_assert_neq(dead, -1);
	if (dead == 0)
		_exit(0);
	cr_assert_eq(waitpid(dead, NULL, 0), dead);
	char n1[64], n2[64], n3[64], n4[64];
	snprintf(n1, sizeof n1, ".trainbudget-%ld-3.tmp", (long)dead);
	snprintf(n2, sizeof n2, ".trainbudget-%ld-4.old", (long)dead);
	snprintf(n3, sizeof n3, ".trainbudget-%ld-5.tmp", (long)getppid());   /* alive */
	snprintf(n4, sizeof n4, ".trainbudget-%ld-x.tmp", (long)dead);        /* not ours */
	S_put(n1, "a");
	S_put(n2, "b");
	S_put(n3, "c");
	S_put(n4, "d");
	tb_diags d;
	tb_diags_init(&d);
	tb_fileio_set *s = tb_fileio_set_begin(S_dir, &d);
	cr_assert_not_null(s);
	tb_fileio_set_end(s);
	char want[200];
	if (strcmp(n3, n4) > 0)
		snprintf(want, sizeof want, "%s %s", n4, n3);
	else
		snprintf(want, sizeof want, "%s %s", n3, n4);
	S_listing_is(want);
	tb_diags_release(&d);
}

/* Files written ahead of the commit (tb_fileio_set_stage, while a report's
 * PDF is still drawn) are hidden until it: the commit writes only the
 * rest and the set is the one written whole; a file committed with other
 * bytes under a staged name is written again; a set ended without a
 * commit leaves the directory as it was, no temporary behind. */
Test(fileio, files_written_ahead_join_the_commit_or_leave_nothing)
{
	tb_outfile old[] = { S_FILE("r.md", "old report\n") };
	S_write("r", old, 1);
	char *manifest = S_slurp("r.sha256");
	tb_diags d;
	tb_diags_init(&d);

	/* ended without a commit */
	tb_outfile files[] = { S_FILE("r.md", "abc"), S_FILE("r-a.svg", "<svg/>"),
	                       S_FILE("r.json", "") };
	tb_fileio_set *s = tb_fileio_set_begin(S_dir, &d);
	cr_assert_not_null(s);
	cr_expect_eq(tb_fileio_set_stage(s, files, 2), 0);
	tb_fileio_set_end(s);
	S_text_is("r.md", "old report\n");
	S_text_is("r.sha256", manifest);
	S_listing_is("r.md r.sha256");

	/* two written ahead, the third at the commit */
	s = tb_fileio_set_begin(S_dir, &d);
	cr_assert_not_null(s);
	cr_expect_eq(tb_fileio_set_stage(s, files, 2), 0);
	cr_expect_eq(tb_fileio_set_stage(s, files, 2), 0);       /* nothing new */
	cr_expect_eq(tb_fileio_set_commit(s, "r", files, 3, &d), 0);
	tb_fileio_set_end(s);
	S_text_is("r.md", "abc");
	S_text_is("r-a.svg", "<svg/>");
	S_text_is("r.sha256",
	          "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  r.md\n"
	          "d4dc56669143034f31aa309635d4113d9ad76a02b1739da22c965ed2049be9e6  r-a.svg\n"
	          "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  r.json\n");
	S_listing_is("r-a.svg r.json r.md r.sha256");

	/* staged with bytes the commit does not carry: written again */
	tb_outfile first[] = { S_FILE("r.md", "first") }, second[] = { S_FILE("r.md", "second") };
	s = tb_fileio_set_begin(S_dir, &d);
	cr_assert_not_null(s);
	cr_expect_eq(tb_fileio_set_stage(s, first, 1), 0);
	cr_expect_eq(tb_fileio_set_commit(s, "r", second, 1, &d), 0);
	tb_fileio_set_end(s);
	S_text_is("r.md", "second");
	S_listing_is("r.md r.sha256");
	cr_expect_eq(d.errors, 0);
	free(manifest);
	tb_diags_release(&d);
}

/* A target already holding its bytes is left as it is (inode, times), as
 * install -C leaves one; anything else about it is replaced as before. */
Test(fileio, a_file_already_holding_its_bytes_is_left_as_it_is)
{
	tb_outfile v1[] = { S_FILE("r.md", "same"), S_FILE("r.pdf", "p1"), S_FILE("r-a.svg", "a") };
	S_write("r", v1, 3);
	ino_t md = S_inode("r.md"), pdf = S_inode("r.pdf"), svg = S_inode("r-a.svg");
	ino_t man = S_inode("r.sha256");
	char p[512];
	S_path(p, sizeof p, "r.md");
	struct stat before, after;
	cr_assert_eq(stat(p, &before), 0);

	/* the same set again: nothing is written */
	S_write("r", v1, 3);
	cr_expect_eq(S_inode("r.md"), md);
	cr_expect_eq(S_inode("r.pdf"), pdf);
	cr_expect_eq(S_inode("r-a.svg"), svg);
	cr_expect_eq(S_inode("r.sha256"), man);
	cr_assert_eq(stat(p, &after), 0);
	cr_expect_eq(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
	cr_expect_eq(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);

	/* one file changed: it and the manifest are replaced, the rest stay */
	tb_outfile v2[] = { S_FILE("r.md", "same"), S_FILE("r.pdf", "p2"), S_FILE("r-a.svg", "a") };
	S_write("r", v2, 3);
	cr_expect_eq(S_inode("r.md"), md);
	cr_expect_eq(S_inode("r-a.svg"), svg);
	cr_expect_neq(S_inode("r.pdf"), pdf);
	cr_expect_neq(S_inode("r.sha256"), man);
	S_text_is("r.pdf", "p2");
	S_listing_is("r-a.svg r.md r.pdf r.sha256");

	/* rolled back, the file replaced comes back and the others never left */
	pdf = S_inode("r.pdf");
	man = S_inode("r.sha256");
	char *manifest = S_slurp("r.sha256");
	tb_diags d;
	tb_diags_init(&d);
	tb_fileio_set *s = tb_fileio_set_begin(S_dir, &d);
	cr_assert_not_null(s);
	cr_assert_eq(tb_fileio_set_commit(s, "r", v1, 3, &d), 0);
	S_text_is("r.pdf", "p1");
	tb_fileio_set_rollback(s, &d);
	tb_fileio_set_end(s);
	cr_expect_eq(S_inode("r.pdf"), pdf);
	cr_expect_eq(S_inode("r.sha256"), man);
	cr_expect_eq(S_inode("r.md"), md);
	S_text_is("r.sha256", manifest);
	S_listing_is("r-a.svg r.md r.pdf r.sha256");
	free(manifest);

	/* found the same ahead of the commit, then changed on disk (the same
	 * length): written after all */
	s = tb_fileio_set_begin(S_dir, &d);
	cr_assert_not_null(s);
	cr_expect_eq(tb_fileio_set_stage(s, v2, 1), 0);
	S_put("r.md", "SAME");
	cr_assert_eq(tb_fileio_set_commit(s, "r", v2, 3, &d), 0);
	tb_fileio_set_end(s);
	S_text_is("r.md", "same");

	/* a link holding the same bytes is replaced, never followed */
	S_put("target", "same");
	char t[512];
	S_path(t, sizeof t, "target");
	cr_assert_eq(unlink(p), 0);
	cr_assert_eq(symlink(t, p), 0);
	S_write("r", v2, 3);
	cr_assert_eq(lstat(p, &after), 0);
	cr_expect(S_ISREG(after.st_mode));
	S_text_is("r.md", "same");
	S_text_is("target", "same");
	S_listing_is("r-a.svg r.md r.pdf r.sha256 target");

	/* a FIFO in its place is replaced, never opened to wait for a writer */
	cr_assert_eq(unlink(p), 0);
	cr_assert_eq(mkfifo(p, 0666), 0);
	S_write("r", v2, 3);
	cr_assert_eq(lstat(p, &after), 0);
	cr_expect(S_ISREG(after.st_mode));
	S_text_is("r.md", "same");
	cr_expect_eq(d.errors, 0);
	tb_diags_release(&d);
}
