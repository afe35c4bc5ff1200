/* goodput.h: the time a synchronous run loses to failures and checkpoints.
 *
 * A data-parallel training job stops whenever any of its nodes fails, rolls
 * back to its last checkpoint and restarts.  The model, first order in the
 * failure rate (Young 1974; Daly 2006):
 *
 *   lambda = r * nodes / 86400           failures per second of wall clock
 *   delta  = S / (nodes * b)             seconds to save one checkpoint
 *   tau    = given, or sqrt(2 delta M)   compute seconds between checkpoints
 *   l      = (tau + delta) / 2 + R       lost per failure: half a segment of
 *                                        rework on average, and the restart
 *   wall   = W (1 + delta / tau) / (1 - lambda l)
 *   f      = W / wall                    the goodput fraction
 *
 * with M = 1/lambda the job's mean time between failures, S the bytes a
 * checkpoint holds, b the write bandwidth of one node, R the restart time
 * and W the pure compute time.  Failures are a Poisson process; lambda l is
 * the fraction of wall clock lost to them, and at lambda l >= 1 a failure
 * arrives, on average, before the work it interrupted can be redone: the
 * run never finishes (`progress` false).  The first-order form is
 * pessimistic when lambda l is not small (the exact Poisson model grows as
 * e^(lambda l), this one as 1/(1 - lambda l)); below 0.1 they agree within
 * about half a percent of wall clock.
 *
 * Pure: no I/O, no allocation.  Every figure is finite whatever the inputs;
 * one that does not apply is 0 with a flag saying why. */
#ifndef TB_GOODPUT_H
#define TB_GOODPUT_H

#include <stdbool.h>

/* A node is one server: Llama 3 trained on Grand Teton servers of 8 GPUs
 * (Dubey et al. 2024, arXiv:2407.21783, Sec. 3.3.1), as DGX/HGX H100 and
 * A100 systems are. */
#define TB_GOODPUT_GPUS_PER_NODE 8

/* Unexpected interruptions of the Llama 3 405B pre-training: 419 in a
 * 54-day snapshot on 16,384 H100 (2,048 nodes), about 78% of them hardware
 * (Dubey et al. 2024, Sec. 3.3.4, Table 5): 3.79e-3 per node-day, a job
 * MTBF of 3.09 hours at that size.  Meta's research clusters measured 6.50
 * (RSC-1) and 2.34 (RSC-2) per 1,000 node-days (Kokolis et al. 2024,
 * arXiv:2410.21680); the 47 planned interruptions are left out, since a
 * planned stop saves a checkpoint first and loses no work. */
#define TB_GOODPUT_FAILURES_PER_NODE_DAY (419.0 / (54.0 * 2048.0))

/* Checkpoint write bandwidth per node: Llama 3's Tectonic storage sustains
 * 2 TB/s (7 TB/s peak) for the 2,048 nodes of the 16,384-GPU job (Dubey et
 * al. 2024, Sec. 3.3.1): 0.98 GB/s per node. */
#define TB_GOODPUT_WRITE_BYTES_PER_S_PER_NODE (2e12 / 2048.0)

/* Restart after a failure: detection, rescheduling, reloading the last
 * checkpoint.  Fully synchronous training at O(100K) GPUs stalls 10 minutes
 * per failure (Salpekar et al. 2026, arXiv:2602.00277, abstract). */
#define TB_GOODPUT_RESTART_S 600.0

typedef struct tb_goodput_in {
	double gpus;                    /* n, > 0 */
	double gpus_per_node;           /* 0: TB_GOODPUT_GPUS_PER_NODE */
	double failures_per_node_day;   /* r, >= 0; 0 = no failures */
	double checkpoint_bytes;        /* S: the model states a checkpoint saves */
	double write_bytes_per_s_per_node; /* b; 0 = the save is free */
	double restart_s;               /* R, >= 0 */
	double interval_s;              /* the user's tau; 0: Young's optimum */
	/* One optimizer step of compute: a checkpoint can only be taken
	 * between steps, so Young's optimum is never shorter.  0 = unknown. */
	double step_s;
	double compute_s;               /* W: the run's pure compute time, >= 0 */
} tb_goodput_in;

typedef struct tb_goodput {
	bool failures;                  /* lambda > 0 */
	bool progress;                  /* lambda l < 1: the run finishes */
	bool interval_from_user;
	bool interval_is_step;          /* Young's optimum was under one step */
	double gpus_per_node;           /* as used */
	double nodes;                   /* ceil(n / gpus per node) */
	double failure_rate_per_s;      /* lambda */
	double mtbf_s;                  /* 1 / lambda; 0 when there are no failures */
	double checkpoint_bytes;        /* S */
	double write_bytes_per_s;       /* nodes * b */
	double checkpoint_save_s;       /* delta */
	/* tau; 0 when no checkpoint is needed (no failures and none asked
	 * for) or a checkpoint is free (delta = 0, no step time known). */
	double checkpoint_interval_s;
	double restart_s;               /* R */
	double segment_s;               /* tau + delta: one interval and its save */
	double lost_per_failure_s;      /* l = segment / 2 + R */
	double checkpoint_overhead;     /* delta / tau */
	double failure_overhead;        /* lambda l, the share of wall clock lost */
	double fraction;                /* f = W / wall; 0 when !progress */
	/* Expected seconds, 0 when !progress: wall = compute + checkpoint + lost. */
	double compute_s;               /* W */
	double checkpoint_s;            /* W * delta / tau */
	double lost_s;                  /* expected_failures * l */
	double wall_s;
	double expected_failures;       /* lambda * wall */
} tb_goodput;

/* Computes the goodput model for in.  Writes only *out. */
void tb_goodput_compute(const tb_goodput_in *in, tb_goodput *out);

/* Young's optimum interval, sqrt(2 * save * mtbf) (Young 1974, CACM 17(9)):
 * the compute between checkpoints that loses the least time, to first
 * order.  0 when either argument is not positive and finite. */
double tb_goodput_young_interval_s(double save_s, double mtbf_s);

/* The bytes a checkpoint saves for `params` parameters: the weights, the
 * fp32 master weights and the optimizer state, at the bytes per parameter
 * the memory model counts (gradients are recomputed, never saved). */
double tb_goodput_checkpoint_bytes(double params, double weight_bytes_per_param,
                                   double master_bytes_per_param,
                                   double optimizer_bytes_per_param);

#endif
