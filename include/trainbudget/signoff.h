/* signoff.h: what a report's SHA-256 covers.
 *
 * A figure or a word of a report rests on the scenario file, the Hugging
 * Face config.json it names, a user template, the --set and --sweep
 * overrides and the tool itself (its tables, presets and built-in
 * template).  Each file is hashed from the very bytes that were parsed
 * (read once, so it cannot change between the read and the hash), and one
 * digest is made over all of them: the "inputs SHA-256" every report
 * prints.  docs/json.md ("What the numbers rest on") defines the
 * construction; printf and sha256sum reproduce it.
 *
 * Not covered, because they change no number and no word: fonts (a
 * character no font draws refuses the PDF), the paper size, the formats,
 * the output folder, and where the files are.  The report's date, when it
 * comes from SOURCE_DATE_EPOCH, is printed beside the digest instead. */
#ifndef TB_SIGNOFF_H
#define TB_SIGNOFF_H

#include <stdbool.h>
#include <stddef.h>

typedef enum {
	TB_INPUT_SCENARIO,      /* the scenario file (or the built-in text) */
	TB_INPUT_HF_CONFIG,     /* model.hf_config (several in a sweep over it) */
	TB_INPUT_TEMPLATE,      /* report --template */
	TB_INPUT_MEASURED_LOG,  /* measured.log: a run's training log (several with pilots) */
	TB_INPUT_PILOT,         /* --calibrate PILOT.yaml, each pilot scenario */
	TB_INPUT_MEASURED_TRACE, /* measured.trace: a run's profiler trace */
	TB_INPUT_KINDS
} tb_input_kind;

/* A scenario, its template, and the configs a sweep over model.hf_config
 * reads (tb_sweep refuses more). */
#define TB_SIGNOFF_MAX_FILES 18

typedef struct tb_input_file {
	tb_input_kind kind;
	char *path;             /* as published: tb_signoff_path */
	char *read_as;          /* as the run read it: which file it is */
	char sha256[65];        /* of the bytes parsed, lowercase hex */
} tb_input_file;

typedef struct tb_signoff {
	tb_input_file files[TB_SIGNOFF_MAX_FILES];  /* in kind order */
	size_t nfiles;
	char **sets, **sweeps;  /* the overrides as given, in order; owned */
	size_t nsets, nsweeps;
	char digest[65];        /* set by tb_signoff_seal */
} tb_signoff;

void tb_signoff_init(tb_signoff *s);
void tb_signoff_release(tb_signoff *s);
/* dst (initialised or released) becomes a deep copy of src. */
void tb_signoff_copy(tb_signoff *dst, const tb_signoff *src);

/* Records `len` bytes of `data` as an input of this kind, named by `path`
 * as the run read it (published through tb_signoff_path).  A scenario or
 * template replaces the one before; a config replaces one read from the
 * same path.  Call tb_signoff_seal afterwards. */
void tb_signoff_add(tb_signoff *s, tb_input_kind kind, const char *path,
                    const void *data, size_t len);
/* The same from a hash taken elsewhere (hex_sha256: 64 lowercase hex
 * digits), `path` as the run read it (an input's read_as).  Returns
 * false, changing nothing, when an input of that kind read from that path
 * is listed with other bytes (a file that changed
 * while the run read it), or when the list is full. */
bool tb_signoff_add_hash(tb_signoff *s, tb_input_kind kind, const char *path,
                         const char *hex_sha256);
/* Forgets every input of this kind. */
void tb_signoff_drop(tb_signoff *s, tb_input_kind kind);

/* Copies the overrides, --set KEY=VALUE and --sweep KEY=VALUES, as given. */
void tb_signoff_set_overrides(tb_signoff *s, const char *const *sets, size_t nsets,
                              const char *const *sweeps, size_t nsweeps);

/* s->digest = SHA-256 over the files, the tool `version` and the
 * overrides. */
void tb_signoff_seal(tb_signoff *s, const char *version);

/* "scenario", "hf_config", "template", "measured_log", "pilot",
 * "measured_trace": the names in the digest and JSON. */
const char *tb_signoff_kind_name(tb_input_kind k);

/* A path as published in a report: as given when relative, the base name
 * when absolute (no report shows where the user's files live), with
 * control characters and bytes that are not UTF-8 as '?'.  The caller
 * frees the result. */
char *tb_signoff_path(const char *given);

/* n paths published together (a sweep's configs): as tb_signoff_path, but
 * an absolute path keeps as many of its last directories as it takes to
 * differ from the others (/a/config.json and /b/config.json become
 * a/config.json and b/config.json), so points are told apart and the
 * regenerate line does not list one name twice.  out[i] are the caller's
 * to free. */
void tb_signoff_paths(char **out, const char *const *given, size_t n);

#endif
