/* trace.h: a pilot run's PyTorch profiler trace, read (measured.trace).
 *
 * torch.profiler's export_chrome_trace writes Chrome trace JSON: a list of
 * events, or an object whose "traceEvents" holds them.  The complete
 * events ("ph": "X", a duration in microseconds) are summed by category:
 * GEMM, attention, elementwise, optimizer, and each collective (all-reduce,
 * reduce-scatter, all-gather, all-to-all, send/recv).  GPU kernels ("cat":
 * "kernel") are used where the trace has any; a CPU-only trace is read
 * from its operators, its GEMMs the leaf aten::mm, addmm, bmm and baddbmm
 * (the operators that call them are not counted twice).  Each figure is
 * per step, over the trace's ProfilerStep#N events, and per GPU: a rank's
 * trace holds its process's operators and its device's kernels, and a
 * merged trace's devices are averaged.
 *
 * The file is read as a stream of parser events: memory is bounded
 * whatever its size.  Pure: the caller reads the bytes. */
#ifndef TB_TRACE_H
#define TB_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trainbudget/diag.h"

/* Processes told apart; later ones are counted with the last. */
#define TB_TRACE_RANKS_MAX 64

typedef enum {
	TB_TRACE_GEMM, TB_TRACE_ATTENTION, TB_TRACE_ELEMENTWISE, TB_TRACE_OPTIMIZER,
	TB_TRACE_ALL_REDUCE, TB_TRACE_REDUCE_SCATTER, TB_TRACE_ALL_GATHER,
	TB_TRACE_ALL_TO_ALL, TB_TRACE_SEND_RECV, TB_TRACE_IDLE,
	TB_TRACE_TERMS
} tb_trace_term;

/* "gemm", "attention", "elementwise", "optimizer", "all_reduce",
 * "reduce_scatter", "all_gather", "all_to_all", "send_recv", "idle": the
 * JSON keys of calibration.pilots[].terms_s. */
const char *tb_trace_term_name(int term);

typedef struct tb_trace {
	bool gpu;                   /* from GPU kernels; false: CPU operators */
	int ranks;                  /* GPUs with kernels (1 for a CPU trace) */
	int64_t steps;              /* ProfilerStep events */
	int64_t events;             /* complete events read */
	double step_s;              /* the mean ProfilerStep */
	double terms_s[TB_TRACE_TERMS]; /* per step and GPU */
	double compute_s;           /* GEMM + attention + elementwise */
	double comm_s;              /* every collective */
} tb_trace;

/* Reads `len` bytes of `text` (a trace named `path` in diagnostics).
 * Returns 0, or -1 with an error in d: not JSON, no complete event, no
 * step to divide by. */
int tb_trace_parse(const char *path, const char *text, size_t len, tb_trace *out,
                   tb_diags *d);

#endif
