/* pilot.h: what a pilot run leaves behind, read.
 *
 * A careful team runs the job for a day on a few nodes before the month on
 * the cluster, and sets what it measured against the estimate.  This
 * module reads the training log that run wrote: a Megatron-LM or
 * Megatron-Bridge log (`elapsed time per iteration (ms)`, `throughput per
 * GPU (TFLOP/s/GPU)`, the `memory (MB)` lines), a torchtitan log (`tps`,
 * `tflops`, `mfu`, `memory: ..GiB`), or a plain list of step times.  The
 * kind is detected from the lines themselves.  The first tenth of the
 * timed lines (at least one) is the warm-up and is left out; the median of
 * the rest is the step, its 10th and 90th percentiles the spread.
 *
 * Pure: the caller reads the file (with a size cap) and hands the bytes
 * over; the memory used is bounded by TB_PILOT_SAMPLES_MAX whatever the
 * file holds.  A number that does not parse is an error located at its
 * line and column, like a scenario's. */
#ifndef TB_PILOT_H
#define TB_PILOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trainbudget/diag.h"

/* Timed lines kept: the last this many of a longer log. */
#define TB_PILOT_SAMPLES_MAX 65536

typedef enum {
	TB_PILOT_NONE,
	TB_PILOT_MEGATRON_LOG,
	TB_PILOT_TORCHTITAN_LOG,
	TB_PILOT_STEP_TIME
} tb_pilot_kind;

/* "megatron_log", "torchtitan_log", "step_time" (the JSON contract's
 * names); "" for none. */
const char *tb_pilot_kind_name(tb_pilot_kind k);

typedef struct tb_pilot_log {
	tb_pilot_kind kind;
	int64_t lines;              /* timed lines found */
	int64_t samples;            /* of which used, after the warm-up */
	/* the median step and its 10th and 90th percentiles, seconds; 0 where
	 * the log gives tokens per second instead (torchtitan): the caller
	 * turns those into a step with its batch and GPU count */
	double step_s, step_s_p10, step_s_p90;
	/* torchtitan's tokens per second per GPU: median, 10th and 90th
	 * percentiles; 0 elsewhere */
	double tokens_per_s_per_gpu, tps_p10, tps_p90;
	double tflops_per_gpu;      /* the median the log prints; 0 when it prints none */
	double mfu;                 /* torchtitan's, as a fraction; 0 when absent */
	/* the largest peak the log prints, bytes; 0 when none.  Reserved
	 * (torchtitan's, Megatron's max reserved when no max allocated is
	 * printed) includes the caching allocator's reserve. */
	double peak_memory_bytes;
	bool peak_is_reserved;
} tb_pilot_log;

/* Reads `len` bytes of `text` (a log named `path` in diagnostics) into
 * *out.  Returns 0, or -1 with errors in d (a malformed number, no timed
 * line of a known kind, too few to leave the warm-up out). */
int tb_pilot_parse(const char *path, const char *text, size_t len, tb_pilot_log *out,
                   tb_diags *d);

#endif
