/* fileio: reads with a cap, and output sets written all or nothing. */
#include <criterion/criterion.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* Entries in the test directory, so a stray temporary is caught. */
static size_t S_entries(void)
{
	DIR *dir = opendir(S_dir);
	cr_assert_not_null(dir);
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(dir)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			n++;
	closedir(dir);
	return n;
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

Test(fileio, write_all_writes_every_file_and_no_temporaries)
{
	char a[512], b[512];
	S_path(a, sizeof a, "r.md");
	S_path(b, sizeof b, "r.json");
	tb_outfile files[] = {
		{ a, "# report\n", 9 },
		{ b, "{\"x\":1}\n", 8 },
	};
	tb_diags d;
	tb_diags_init(&d);
	cr_assert_eq(tb_fileio_write_all(files, 2, &d), 0);
	cr_assert_eq(d.n, 0);
	char *ta = S_slurp("r.md"), *tbb = S_slurp("r.json");
	cr_assert_str_eq(ta, "# report\n");
	cr_assert_str_eq(tbb, "{\"x\":1}\n");
	cr_assert_eq(S_entries(), 2, "only the two outputs, no temporaries");
	free(ta);
	free(tbb);
	tb_diags_release(&d);
}

Test(fileio, write_all_keeps_embedded_nul_bytes)
{
	char a[512];
	S_path(a, sizeof a, "bin.pdf");
	tb_outfile f = { a, "%PDF\0\x01", 6 };
	tb_diags d;
	tb_diags_init(&d);
	cr_assert_eq(tb_fileio_write_all(&f, 1, &d), 0);
	struct stat st;
	cr_assert_eq(stat(a, &st), 0);
	cr_assert_eq(st.st_size, 6);
	tb_diags_release(&d);
}

Test(fileio, second_write_failing_leaves_no_file)
{
	char a[512], bad[512];
	S_path(a, sizeof a, "r.md");
	S_path(bad, sizeof bad, "missing-dir/r.html");
	tb_outfile files[] = {
		{ a, "# report\n", 9 },
		{ bad, "<p>x</p>\n", 9 },
	};
	tb_diags d;
	tb_diags_init(&d);
	cr_assert_eq(tb_fileio_write_all(files, 2, &d), -1);
	cr_assert_eq(d.errors, 1);
	cr_assert_str_eq(d.items[0].file, bad);
	cr_assert_eq(access(a, F_OK), -1, "the first output must not exist");
	cr_assert_eq(S_entries(), 0, "no temporary may remain");
	tb_diags_release(&d);
}

Test(fileio, failure_keeps_the_previous_version_intact)
{
	S_put("r.md", "old report\n");
	char a[512], bad[512];
	S_path(a, sizeof a, "r.md");
	S_path(bad, sizeof bad, "missing-dir/r.pdf");
	tb_outfile files[] = {
		{ a, "new report\n", 11 },
		{ bad, "%PDF", 4 },
	};
	tb_diags d;
	tb_diags_init(&d);
	cr_assert_eq(tb_fileio_write_all(files, 2, &d), -1);
	char *text = S_slurp("r.md");
	cr_assert_str_eq(text, "old report\n", "never half old, half new");
	cr_assert_eq(S_entries(), 1);
	free(text);
	tb_diags_release(&d);
}

Test(fileio, rename_failing_removes_what_was_moved)
{
	/* A directory in the way of the second target: its temporary writes,
	 * but the rename over a directory fails after the first succeeded. */
	char a[512], b[512];
	S_path(a, sizeof a, "r.md");
	S_path(b, sizeof b, "r.svg");
	cr_assert_eq(mkdir(b, 0777), 0);
	tb_outfile files[] = {
		{ a, "# report\n", 9 },
		{ b, "<svg/>", 6 },
	};
	tb_diags d;
	tb_diags_init(&d);
	cr_assert_eq(tb_fileio_write_all(files, 2, &d), -1);
	cr_assert_eq(access(a, F_OK), -1);
	cr_assert_eq(S_entries(), 1, "only the directory that was in the way");
	tb_diags_release(&d);
}

Test(fileio, rename_failing_puts_the_previous_report_back)
{
	/* The report a reviewer signed yesterday survives a rerun that fails
	 * half-way: the first rename is undone from the kept hard link. */
	char a[512], b[512];
	S_path(a, sizeof a, "r.pdf");
	S_path(b, sizeof b, "r.json");
	tb_outfile old = { a, "signed v1", 9 };
	tb_diags d;
	tb_diags_init(&d);
	cr_assert_eq(tb_fileio_write_all(&old, 1, &d), 0);
	cr_assert_eq(mkdir(b, 0777), 0);
	tb_outfile files[] = {
		{ a, "draft v2", 8 },
		{ b, "{}", 2 },
	};
	cr_assert_eq(tb_fileio_write_all(files, 2, &d), -1);
	char *t = S_slurp("r.pdf");
	cr_assert_str_eq(t, "signed v1");
	free(t);
	cr_assert_eq(S_entries(), 2, "the old report and the directory in the way, no leftovers");
	tb_diags_release(&d);
}

Test(fileio, outputs_honour_the_umask)
{
	/* A mkstemp()-style 0600 would hide reports from colleagues. */
	mode_t old = umask(022);
	char a[512];
	S_path(a, sizeof a, "r.html");
	tb_outfile f = { a, "x", 1 };
	tb_diags d;
	tb_diags_init(&d);
	cr_assert_eq(tb_fileio_write_all(&f, 1, &d), 0);
	umask(old);
	struct stat st;
	cr_assert_eq(stat(a, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0644);
	tb_diags_release(&d);
}

Test(fileio, ensure_dir_rejects_a_file_and_creates_a_missing_dir)
{
	S_put("plain", "x");
	char p[512], q[512];
	S_path(p, sizeof p, "plain");
	S_path(q, sizeof q, "out");
	tb_diags d;
	tb_diags_init(&d);
	cr_assert_eq(tb_fileio_ensure_dir(p, &d), -1);
	cr_assert_str_eq(d.items[0].msg,
	                 "is not a directory; expected a directory for the output files");
	cr_assert_eq(tb_fileio_ensure_dir(q, &d), 0);
	struct stat st;
	cr_assert_eq(stat(q, &st), 0);
	cr_assert(S_ISDIR(st.st_mode));
	cr_assert_eq(tb_fileio_ensure_dir(q, &d), 0, "an existing directory is fine");
	cr_assert_eq(d.errors, 1);
	tb_diags_release(&d);
}
