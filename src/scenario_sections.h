/* scenario_sections.h: the sections of a scenario file, one source file
 * each (scenario_model.c, scenario_training.c, scenario_hardware.c,
 * scenario_parallelism.c, scenario_plan.c, scenario_measured.c); internal
 * to the library.  Written on the located tree of yamltree.h.
 *
 * scenario.c owns the order: its section table lists every section once,
 * in the order their keys are checked and their values loaded, and its
 * check table the checks across sections that run once every section has
 * loaded cleanly.  A new section is a new file defining a
 * tb_scenario_section plus a line in that table; a new key is a name in
 * its section's key list plus the lines that read it.  The key lists also
 * drive the unknown-key check and --set, so a key read but not listed is
 * refused as unknown. */
#ifndef TB_SCENARIO_SECTIONS_H
#define TB_SCENARIO_SECTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trainbudget/scenario.h"
#include "yamltree.h"

/* A file a scenario names (model.hf_config, measured.log): relative to
 * the scenario's folder unless absolute or the scenario is built in;
 * owned by the caller. */
char *tb_scenario_dir_join(const char *scenario_path, const char *rel);

/* The bytes of the file key n names (owned, *len set), its path as
 * written in *rel (borrowed from n) and as read in *path (owned): relative
 * to the scenario, or to the working directory when the key came from
 * --set.  NULL after an error at the key: "cannot read NAME 'rel' (why);
 * expected WHAT path relative to the scenario file", `too_big` saying
 * what to do past `cap` bytes; `scalar` is what a non-string value
 * should have been. */
char *tb_scenario_read_named(tb_yaml_ctx *c, const tb_yaml_node *n, const char *key,
                             const char *name, const char *scalar, const char *what,
                             size_t cap, const char *too_big, const char **rel, char **path,
                             size_t *len);

/* A key that holds a mapping of keys of its own, such as hardware.gpu. */
typedef struct tb_scenario_subsection {
	const char *name;           /* "gpu" */
	const char *const *keys;
	size_t n;
	const char *expected;       /* what --set names for an unknown sub-key:
	                             * "a GPU field such as memory or bf16" */
} tb_scenario_subsection;

typedef struct tb_scenario_section {
	const char *name;           /* the top-level key: "training" */
	const char *const *keys;
	size_t n;
	const tb_scenario_subsection *subs;
	size_t nsubs;
	/* Sets the section's defaults in sc->inputs, then reads what the file
	 * gives (the section may be absent) from root, the whole scenario.
	 * Reports through c; returns false on a bad value that a check across
	 * sections would trip over. */
	bool (*load)(tb_yaml_ctx *c, const tb_yaml_node *root, tb_scenario *sc);
} tb_scenario_section;

extern const tb_scenario_section tb_scenario_section_model;       /* scenario_model.c */
extern const tb_scenario_section tb_scenario_section_training;    /* scenario_training.c */
extern const tb_scenario_section tb_scenario_section_hardware;    /* scenario_hardware.c */
extern const tb_scenario_section tb_scenario_section_parallelism; /* scenario_parallelism.c */
extern const tb_scenario_section tb_scenario_section_plan;        /* scenario_plan.c */
extern const tb_scenario_section tb_scenario_section_measured;    /* scenario_measured.c */

/* Records that a default was adapted (scenario.c): `value` and `deflt` as
 * printed, `why` a clause in printf form. */
#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
void tb_scenario_adapt(tb_scenario *sc, const char *key, const char *value, const char *deflt,
                       const char *why, ...);

/* For an error that names a value that would work: ": KEY A or B would
 * work" with the nearest whole numbers below `x` (at least `lo`) and above
 * it (at most `hi`) for which ok(v, arg) holds, or one of them, or ""
 * when none is found within 65,536 steps. */
void tb_scenario_near(char *out, size_t cap, const char *key, int64_t x, int64_t lo, int64_t hi,
                      bool (*ok)(int64_t v, const void *arg), const void *arg);
/* The test for tb_scenario_near when v must divide *(const int64_t *)arg. */
bool tb_scenario_divides(int64_t v, const void *arg);
/* The same for the multiples of `unit` nearest x (the larger at most hi). */
void tb_scenario_near_multiple(char *out, size_t cap, const char *key, int64_t x, int64_t unit,
                               int64_t hi);

/* Whether gradients of dtype g go with precision p (TB_GRAD_DEFAULT always
 * does): the rule training.grad_dtype is checked by (scenario_training.c),
 * for a precision the loader adapts. */
bool tb_scenario_grad_fits(tb_precision p, tb_grad_dtype g);

/* Checks across sections, run in scenario.c's order once every section
 * loaded cleanly.  Each returns false when the checks after it would only
 * repeat its error. */
typedef bool tb_scenario_check(tb_yaml_ctx *c, const tb_yaml_node *root, tb_scenario *sc);
tb_scenario_check tb_scenario_check_sequence;  /* scenario_training.c */
tb_scenario_check tb_scenario_check_layout;    /* scenario_parallelism.c */
tb_scenario_check tb_scenario_check_hardware;  /* scenario_hardware.c */
tb_scenario_check tb_scenario_check_tuning;    /* scenario_tuning.c */

/* A whole scenario's load on one tree (scenario.c's): the sections, then
 * the checks across them. */
typedef bool tb_scenario_loader(tb_yaml_ctx *c, const tb_yaml_node *root, tb_scenario *sc);
/* A scenario with `stages:` (scenario_stages.c): the scenario without them
 * loaded by `load` into sc, then each stage's tree into sc->stages; every
 * error at its own node. */
bool tb_scenario_load_stages(tb_yaml_ctx *c, const tb_yaml_node *root, tb_scenario *sc,
                             tb_scenario_loader *load);

/* training.method and its keys (scenario_tuning.c): defaults, then what
 * the training map tr (NULL: absent) gives. */
bool tb_scenario_load_tuning(tb_yaml_ctx *c, const tb_yaml_node *tr, tb_training *t);

#endif
