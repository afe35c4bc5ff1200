/* calibrate.h: the builder test.  A pilot run (a day on a few nodes)
 * measures what the step-time model can only assume for this cluster and
 * software: how much of the card's matmul, attention and HBM peaks it
 * reaches, how much of its links.  Each pilot is a scenario of its own
 * (its model, GPU count and layout, which may differ from the full run's)
 * with a measured step (measured.log or measured.step_time).
 *
 * With a step total alone the gap between the model and the pilot is laid
 * on the term most likely off: the compute efficiencies when compute is
 * most of the predicted step, else the link class its largest
 * communication runs on (NVLink inside a node, the network across).  The
 * factor is solved so that the model reproduces the pilot's median step;
 * the full run is then predicted with it (tb_inputs.calib, applied by
 * tb_perf_input_from), on the same card only.
 *
 * Pure: pilots come as loaded inputs; no I/O. */
#ifndef TB_CALIBRATE_H
#define TB_CALIBRATE_H

#include <stdbool.h>
#include <stdint.h>

#include "trainbudget/pilot.h"
#include "trainbudget/trace.h"

#define TB_CALIB_PILOTS_MAX 4
#define TB_CALIB_TERMS 3   /* compute, NVLink, network */

typedef enum { TB_CALIB_COMPUTE, TB_CALIB_NVLINK, TB_CALIB_NETWORK } tb_calib_term;

/* "compute", "nvlink", "network" */
const char *tb_calib_term_name(tb_calib_term t);

typedef struct tb_calib_pilot {
	char path[256], sha256[65];         /* the pilot scenario, as given */
	char log_path[256], log_sha256[65]; /* its measured.log; "" when none */
	tb_pilot_kind kind;                 /* TB_PILOT_STEP_TIME for measured.step_time */
	char card[32];
	int64_t gpus;
	double step_s, step_s_p10, step_s_p90; /* measured; the spread is the log's */
	double peak_memory_bytes;           /* measured; 0 when none */
	bool peak_is_reserved;
	/* the memory model for the pilot's layout, per GPU, line by line:
	 * weights, gradients, master weights, optimizer state, activations,
	 * the reserve (hardware.overhead), total; all 0 when unknown */
	bool memory_known;
	double memory_bytes[7];
	/* (estimate - peak) / peak when both are known, else 0 */
	double memory_error;
	double predicted_s;                 /* the model before calibration */
	double breakdown_s[10];             /* its terms (perf.h order), before */
	/* before, what a trace is set against: compute and recomputation;
	 * every collective, hidden or not */
	double predicted_compute_s, predicted_comm_s;
	double calibrated_s;                /* the model after: step_s unless clamped */
	tb_calib_term term;                 /* what the gap was laid on (with a trace: compute) */
	bool clamped;                       /* its factor hit a bound: the gap is elsewhere */
	/* every term this pilot fixed, achieved / tabled (a trace fixes the
	 * compute from its compute kernels and the links from its
	 * collectives; a step total, `term` alone) */
	bool fixed[TB_CALIB_TERMS];
	double factors[TB_CALIB_TERMS];
	/* its measured.trace, per step; has_trace false without one */
	bool has_trace;
	char trace_path[256], trace_sha256[65];
	tb_trace trace;
} tb_calib_pilot;

typedef struct tb_calib {
	bool known;
	char card[32];                      /* every pilot's, and the run's */
	int npilots;
	tb_calib_pilot pilots[TB_CALIB_PILOTS_MAX];
	/* multipliers on the card's tabled efficiencies, per term (1: as
	 * tabled): compute scales the matmul ceiling, the attention fraction
	 * and the HBM fraction; nvlink and network their achieved fractions */
	double factor[TB_CALIB_TERMS];
	double before[TB_CALIB_TERMS];      /* the card's figure each multiplies */
} tb_calib;

/* Adds one pilot, given as a checked scenario's inputs and their paths,
 * to c: predicts its written layout, solves the factor.  Returns false
 * with *why (static) when it cannot: no measured step, a shape the model
 * cannot time, another card than the pilots before. */
struct tb_inputs;
bool tb_calib_add(tb_calib *c, const struct tb_inputs *pilot, const char *path,
                  const char *sha256, const char **why);

/* The same from a step-time input of the pilot's written layout and its
 * measured median step (what tb_calib_add does after reading the
 * scenario; validate_perf calls it on published runs). */
struct tb_perf_input;
bool tb_calib_add_perf(tb_calib *c, const struct tb_perf_input *pilot, const char *card,
                       double step_s, const tb_trace *trace, const char **why);

/* A pilot's step line by line, the model before against the pilot: with
 * a trace, compute, communication and the optimizer apart, then the step;
 * without, the step alone.  Returns the rows written (at most 4). */
typedef struct tb_calib_row {
	const char *term;           /* "compute", "communication", "optimizer", "step" */
	double predicted_s, measured_s;
} tb_calib_row;
int tb_calib_rows(const tb_calib_pilot *p, tb_calib_row rows[4]);

/* "compute efficiency x0.78, network efficiency x0.61" for the terms p
 * fixed, " (at its bound)" after; into buf (cap bytes). */
void tb_calib_factors_text(const tb_calib_pilot *p, char *buf, size_t cap);

/* Multiplies the card's efficiencies in *hw by c's factors when `card` is
 * the pilots' card; nothing otherwise. */
struct tb_perf_hw;
void tb_calib_apply(const tb_calib *c, const char *card, struct tb_perf_hw *hw);

#endif
