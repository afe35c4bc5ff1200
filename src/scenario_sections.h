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

#include "trainbudget/scenario.h"
#include "yamltree.h"

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

/* Checks across sections, run in scenario.c's order once every section
 * loaded cleanly.  Each returns false when the checks after it would only
 * repeat its error. */
typedef bool tb_scenario_check(tb_yaml_ctx *c, const tb_yaml_node *root, tb_scenario *sc);
tb_scenario_check tb_scenario_check_layout;    /* scenario_parallelism.c */
tb_scenario_check tb_scenario_check_hardware;  /* scenario_hardware.c */

#endif
