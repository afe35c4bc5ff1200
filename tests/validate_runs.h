/* validate_runs.h: the published runs (validate_runs.c) that
 * validate_perf.c fits and scores and validate_plan.c searches: the rows
 * of runs.yaml, each made a step-time case. */
#ifndef TB_VALIDATE_RUNS_H
#define TB_VALIDATE_RUNS_H

#include <stdbool.h>
#include <stddef.h>

#include "trainbudget/inputs.h"
#include "trainbudget/perf.h"

#define TB_VRUNS_ROWS_MAX 512

typedef enum { TB_VRUNS_FIT, TB_VRUNS_HELD, TB_VRUNS_NOT_SCORED } tb_vruns_set;

typedef struct tb_vruns_case tb_vruns_case;

struct tb_vruns_case {
	char id[40];
	char group[48];
	tb_vruns_set set;
	tb_perf_input in;
	double published_s;     /* step time from the published figure */
	double eval_s;          /* the forward-only step of the same batch the
	                         * source logs (MLPerf's evaluation), or NAN */
	double mem_gib;         /* the peak memory a GPU the source prints, GiB
	                         * (the allocator's reserved peak), or NAN */
	char basis[160];        /* how the published figure became a step time */
	char assumed[200];      /* what the row does not publish */
	char why_not[160];      /* TB_VRUNS_NOT_SCORED: why */
	tb_inputs inputs;       /* the run as a scenario, for the layout search */
	bool dropless_stated;   /* a mixture the source says routed dropless */
};

/* The cases of the original set (kind not generic), in file order. */
extern tb_vruns_case tb_vruns_cases[TB_VRUNS_ROWS_MAX];
extern int tb_vruns_ncases;
/* The modern runs (kind: generic rows), in file order. */
extern tb_vruns_case tb_vruns_modern[TB_VRUNS_ROWS_MAX];
extern int tb_vruns_nmodern;
/* The rows tb_vruns_load read, cases or not. */
extern int tb_vruns_nrows;

/* The bytes of the file at path, NUL-terminated, their count in *len;
 * owned by the caller, NULL when it cannot be read. */
char *tb_vruns_slurp(const char *path, size_t *len);
/* Reads text as a sequence of flat mappings into the rows; -1 when it is
 * not one. */
int tb_vruns_load(const char *text, size_t len);
/* Makes every row a case and sets the original set's fit and held-out
 * halves. */
void tb_vruns_build(void);
/* Sets the modern runs' fit rows (after tb_vruns_build). */
void tb_vruns_modern_split(void);

#endif
