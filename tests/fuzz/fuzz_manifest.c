/* fuzz_manifest.c: libFuzzer target for the NAME.sha256 an earlier run left.
 *
 * The manifest is read back from the output directory, where anyone who
 * can write there may have edited it; it decides which files a new run
 * removes.  Each input becomes r.sha256 in a scratch directory that also
 * holds files outside the set "r" (another set's, a bare "r", a hidden
 * file, one in the parent directory and one in a subdirectory), then a run
 * writes the set {r.json}.  Contract: the run succeeds; every file outside
 * the set is still there with its contents; the new manifest lists exactly
 * r.json; nothing hidden of ours is left.  A violation aborts. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trainbudget/fileio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char S_root[64];
static char S_dir[128];

static const char *const S_outside[] = {
	"other.md", "r", "rx.md", ".hidden", "sub/r.md",
};

static void S_path(char *out, size_t n, const char *dir, const char *name)
{
	snprintf(out, n, "%s/%s", dir, name);
}

static void S_put(const char *dir, const char *name, const void *data, size_t len)
{
	char p[256];
	S_path(p, sizeof p, dir, name);
	FILE *f = fopen(p, "wb");
	if (!f)
		abort();
	if (len && fwrite(data, 1, len, f) != len)
		abort();
	fclose(f);
}

static void S_same(const char *dir, const char *name, const char *want)
{
	char p[256], got[256];
	S_path(p, sizeof p, dir, name);
	FILE *f = fopen(p, "rb");
	if (!f)
		abort();    /* a file outside the set was removed */
	size_t n = fread(got, 1, sizeof got - 1, f);
	fclose(f);
	got[n] = '\0';
	if (strcmp(got, want) != 0)
		abort();
}

static void S_clear(void)
{
	DIR *d = opendir(S_dir);
	if (!d)
		abort();
	struct dirent *e;
	char p[256];
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    strcmp(e->d_name, "sub") == 0)
			continue;
		if (strncmp(e->d_name, ".trainbudget-", 13) == 0)
			abort();    /* a temporary or kept version left behind */
		S_path(p, sizeof p, S_dir, e->d_name);
		unlink(p);
	}
	closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!S_root[0]) {
		strcpy(S_root, "/tmp/tb-fuzz-manifest-XXXXXX");
		if (!mkdtemp(S_root))
			abort();
		snprintf(S_dir, sizeof S_dir, "%s/out", S_root);
		char sub[160];
		snprintf(sub, sizeof sub, "%s/sub", S_dir);
		if (mkdir(S_dir, 0777) != 0 || mkdir(sub, 0777) != 0)
			abort();
		S_put(S_root, "r.md", "parent", 6);
	}
	S_clear();
	for (size_t i = 0; i < sizeof S_outside / sizeof S_outside[0]; i++)
		S_put(S_dir, S_outside[i], S_outside[i], strlen(S_outside[i]));
	S_put(S_dir, "r.sha256", data, size);

	tb_outfile f = { "r.json", "{}", 2, NULL };
	tb_diags d;
	tb_diags_init(&d);
	if (tb_fileio_write_set(S_dir, "r", &f, 1, &d) != 0)
		abort();
	tb_diags_release(&d);

	for (size_t i = 0; i < sizeof S_outside / sizeof S_outside[0]; i++)
		S_same(S_dir, S_outside[i], S_outside[i]);
	S_same(S_root, "r.md", "parent");
	/* SHA-256("{}") */
	S_same(S_dir, "r.sha256",
	       "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a  r.json\n");
	return 0;
}
