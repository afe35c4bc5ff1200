/* scenario.h: a scenario file, loaded, checked and turned into inputs.
 *
 * YAML (libyaml) -> a tree keeping each value's file:line:col -> --set
 * overrides applied on the tree -> checked tb_inputs.  Every problem goes
 * to the diagnostics list in one pass; on any error the load returns NULL. */
#ifndef TB_SCENARIO_H
#define TB_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include "trainbudget/buf.h"
#include "trainbudget/diag.h"
#include "trainbudget/inputs.h"
#include "trainbudget/signoff.h"

/* A default the loader changed to fit the rest of the scenario: a key the
 * user did not write must never make the scenario invalid (the default
 * global batch follows the data-parallel size, the default precision what
 * the GPU supports, the default sequence a learned position table).  The
 * reports list each among the assumptions. */
typedef struct tb_scenario_adapted {
	char key[32];       /* "training.global_batch" */
	char value[32];     /* as taken: "16384", "fp16-mixed" */
	char deflt[32];     /* the documented default it replaces: "1024" */
	char why[224];      /* one clause: "1,024 is not a multiple of ..." */
} tb_scenario_adapted;

#define TB_SCENARIO_ADAPTED_MAX 8

/* One stage of a staged run (`stages:`): the scenario with the stage's
 * training and parallelism keys over it, checked as a scenario of its
 * own. */
typedef struct tb_stage_def {
	char name[64];
	tb_inputs inputs;
} tb_stage_def;

typedef struct tb_scenario {
	char *path;         /* as given; "-" for standard input, "<builtin>" */
	char *name;         /* file stem: output files are NAME.md, NAME.pdf */
	char *title;
	char *author;       /* NULL when absent */
	char *date;         /* "YYYY-MM-DD" or NULL */
	char *notes;        /* Markdown, NULL when absent */
	char lang[36];      /* the documents' language, a BCP 47 tag: "en" unless `lang:` says */
	char *text;         /* the file verbatim */
	size_t text_len;
	char sha256[65];    /* of the file bytes, lowercase hex */
	char **sets;        /* the overrides applied, in order: "KEY=VALUE"
	                     * (--set) or "KEY" (--unset) */
	size_t nsets;
	/* What the numbers rest on: this file, the config.json it names (and
	 * a template or a sweep's configs, once added), each hashed from the
	 * bytes parsed; the overrides; their digest with the version
	 * (signoff.h). */
	tb_signoff signoff;
	tb_inputs inputs;
	/* Inputs the loader defaulted rather than the user gave, so a report
	 * can label them as assumptions. */
	bool price_assumed;     /* hardware.price_per_gpu_hour absent: 2.00 USD */
	bool gpu_assumed;       /* hardware.gpu absent: h100-sxm */
	tb_scenario_adapted adapted[TB_SCENARIO_ADAPTED_MAX];
	size_t nadapted;
	/* A staged run: its stages in order (owned; NULL and 0 without
	 * `stages:`).  `inputs` is then the scenario without them, on every
	 * stage's tokens together. */
	tb_stage_def *stages;
	int nstages;
} tb_scenario;

/* The default adapted for `key` ("training.precision"), or NULL. */
const tb_scenario_adapted *tb_scenario_adapted_find(const tb_scenario *sc, const char *key);

/* Loads `len` bytes of YAML named `path` (used in diagnostics, and to find
 * hf_config relative to it); applies `nsets` overrides in order: "KEY=VALUE"
 * sets a value (--set), "KEY" alone removes it (--unset; its default then
 * applies).  Setting model.preset, model.hf_config or model.params drops
 * the model keys given before it (a switch to another kind of model).
 * Returns a scenario the caller frees with tb_scenario_free, or NULL with
 * at least one error in d. */
tb_scenario *tb_scenario_load(const char *path, const char *text, size_t len,
                              const char *const *sets, size_t nsets,
                              tb_diags *d);

/* How a load ended, for a caller that loads one scenario many times with
 * one value varied (a sweep): INCONSISTENT when every key was valid on its
 * own and only a check across sections refused the combination (a batch
 * that does not split over the GPU count), INVALID for anything else. */
typedef enum {
	TB_SCENARIO_LOADED, TB_SCENARIO_INVALID, TB_SCENARIO_INCONSISTENT
} tb_scenario_status;

/* tb_scenario_load, saying how it ended in *status (NULL: not wanted). */
tb_scenario *tb_scenario_load_ex(const char *path, const char *text, size_t len,
                                 const char *const *sets, size_t nsets,
                                 tb_diags *d, tb_scenario_status *status);

/* One scenario's bytes parsed and hashed once, for a caller that loads
 * them many times with other overrides (each point of a sweep, each
 * proposal of a compared sweep): a load copies the parsed tree instead of
 * parsing and hashing 4 MiB again.  The text is copied.  A load from it is
 * tb_scenario_load_ex's, figure for figure and error for error. */
typedef struct tb_scenario_source tb_scenario_source;
tb_scenario_source *tb_scenario_source_new(const char *path, const char *text, size_t len);
tb_scenario *tb_scenario_load_source(const tb_scenario_source *s, const char *const *sets,
                                     size_t nsets, tb_diags *d, tb_scenario_status *status);
void tb_scenario_source_free(tb_scenario_source *s);

/* Reads `path` ("-" = standard input) and calls tb_scenario_load. */
tb_scenario *tb_scenario_load_file(const char *path,
                                   const char *const *sets, size_t nsets,
                                   tb_diags *d);

/* The built-in question: "can we train a 7B model on 100B tokens in a
 * month with 64 H100s?"  Borrowed, static YAML text. */
const char *tb_scenario_default_text(void);

/* Appends an override (--set, --unset or --sweep) as a published report
 * shows it: "KEY=VALUE" or "KEY" (an unset), each absolute model.hf_config
 * path by tb_signoff_path (its file name: never where files sit on the
 * author's machine). */
void tb_scenario_public_override(tb_buf *b, const char *set);
/* Adds an input read outside the scenario (a report's --template) from
 * the bytes that will be parsed, and recomputes sc->signoff.digest. */
void tb_scenario_add_input(tb_scenario *sc, tb_input_kind kind, const char *path,
                           const void *data, size_t len);
/* The same from a hash taken elsewhere (a sweep's point read a config
 * again); false, changing nothing, when that path is listed with other
 * bytes: the file changed while the run read it. */
bool tb_scenario_add_input_hash(tb_scenario *sc, tb_input_kind kind, const char *path,
                                const char *hex_sha256);

/* --calibrate: reads each pilot scenario (as a scenario of its own, no
 * overrides: those are the run's), lays its measured step on the term
 * most likely off (calibrate.h) into sc->inputs.calib, and adds the pilot
 * file and its logs and traces to the inputs sc's digest covers.  False
 * with errors in d, naming the pilot: unreadable, malformed, without a
 * measured step, on another card than sc. */
bool tb_scenario_calibrate(tb_scenario *sc, const char *const *pilots, size_t n, tb_diags *d);
/* The --sweep specifications as given, which the digest covers. */
void tb_scenario_set_sweeps(tb_scenario *sc, const char *const *sweeps, size_t n);

void tb_scenario_free(tb_scenario *s);

#endif
