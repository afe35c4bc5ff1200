/* ceiling.h: the best MFU anyone has published per card and precision,
 * counted with causal attention (tb_perf_causal_mfu_scale).
 *
 * A predicted MFU above it is not impossible, but nothing public backs it:
 * the estimate, the report and the plan say so and name the run.  The
 * figures are the highest of the scored rows of tests/fixtures/runs.yaml,
 * on the step-time model's own FLOP count over the precision's dense
 * peak; `make validate` fails when they no longer are. */
#ifndef TB_CEILING_H
#define TB_CEILING_H

#include <stdbool.h>
#include <stddef.h>

#include "trainbudget/inputs.h"

typedef struct tb_ceiling {
	const char *card;   /* as in gpus.c */
	/* the matmuls' format: TB_DTYPE_FP8 or TB_DTYPE_FP4 on that peak,
	 * TB_DTYPE_BF16 for every 16-bit run */
	tb_dtype dtype;
	double mfu;
	const char *run;    /* the runs.yaml id */
	const char *source; /* the publication, in words */
} tb_ceiling;

size_t tb_ceiling_count(void);
const tb_ceiling *tb_ceiling_at(size_t i);
/* NULL where no scored run exists for the card and format (TB_DTYPE_FP8,
 * TB_DTYPE_FP4, or TB_DTYPE_BF16 for 16 bits). */
const tb_ceiling *tb_ceiling_find(const char *card, tb_dtype dtype);
/* The format in words: "fp8", "fp4", "16 bits". */
const char *tb_ceiling_format(const tb_ceiling *c);
const char *tb_ceiling_format_dtype(tb_dtype d);
/* The ceiling of card g under precision p (fp8 or fp4 where the precision
 * multiplies so and the card has that peak; else 16 bits), or NULL, also
 * for an inline card that is not the table's (tb_gpus_table_card). */
const tb_ceiling *tb_ceiling_for(const tb_gpu *g, tb_precision p);
/* The format card g runs precision p's matmuls in, as the tables hold it:
 * TB_DTYPE_FP8 or TB_DTYPE_FP4 where the precision multiplies so and the
 * card has that peak, else TB_DTYPE_BF16 (also for a NULL card). */
tb_dtype tb_ceiling_dtype(const tb_gpu *g, tb_precision p);
/* tb_ceiling_for's ceiling when `mfu` is above it, or NULL: the one test
 * every estimate, report and plan makes. */
const tb_ceiling *tb_ceiling_above(const tb_gpu *g, tb_precision p, double mfu);

#endif
