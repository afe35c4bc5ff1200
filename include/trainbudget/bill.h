/* bill.h: what a run is billed, beside what its compute costs: a
 * reservation booked in blocks (the bill is what is booked, the unused
 * tail idle), ablations and evaluation as a share of the run's GPU time,
 * and checkpoint storage priced per TB-month while the run lasts and
 * after it.  One function maps a run's compute cost and wall clock to its
 * bill, so the expected figures, the confidence figures and the budget's
 * verdict all bill alike (risk.c applies it to every simulated run).
 *
 * Pure: no I/O.  With nothing booked, no ablations and no storage the bill
 * is the compute cost, to the bit. */
#ifndef TB_BILL_H
#define TB_BILL_H

#include <stdbool.h>

typedef struct tb_bill_in {
	double gpus;
	double price_per_gpu_hour;      /* the scenario's, for the expected run's bill */
	double reservation_s;           /* booking block; 0: pay as used */
	double ablations;               /* extra GPU time, a fraction of the run's */
	/* storage: bytes held while the run lasts, bytes kept after it and
	 * for how long, at a price per byte-second */
	double storage_bytes, retained_bytes, retention_s;
	double storage_price_per_byte_s;
} tb_bill_in;

typedef struct tb_bill {
	double compute;                 /* the run's compute, ablations included */
	double ablations;               /* of which ablations */
	double reservation;             /* what is booked; 0 when nothing is */
	double idle;                    /* booked but unused; 0 when nothing is */
	double storage;
	double total;                   /* booked (or compute) + storage */
	double booked_s;                /* wall clock booked; 0 when nothing is */
	double used_s;                  /* the run's wall clock with ablations */
	int blocks;                     /* reservation blocks booked */
} tb_bill;

/* The bill of a run whose compute costs `compute` over `seconds` of wall
 * clock at `price` per GPU-hour; parts in *out when out != NULL.  Returns
 * the total; 0 when the inputs are not finite. */
double tb_bill_compute(const tb_bill_in *in, double price, double compute, double seconds,
                       tb_bill *out);

/* Whether a bill adds anything to the compute cost. */
bool tb_bill_any(const tb_bill_in *in);

/* A month as storage is priced: a twelfth of 365.25 days. */
#define TB_BILL_MONTH_S (365.25 * 86400 / 12)

#endif
