/* record.h: the step-time model's held-out record per card and precision.
 *
 * For each card and matmul format, how far the model's predicted step
 * fell from the published step of the runs it was never fitted on
 * (tests/fixtures/runs.yaml): the median over the sources of each
 * source's median signed error, with the counts behind it.  Where that
 * median is beyond the 10% the model is held to, the estimate and the
 * report say so beside the prediction.  `make validate` writes the table
 * (docs/validation.md) and fails when record.c no longer holds it. */
#ifndef TB_RECORD_H
#define TB_RECORD_H

#include <stdbool.h>
#include <stddef.h>

#include "trainbudget/buf.h"
#include "trainbudget/inputs.h"

/* The bar a card's median is held to, as each source's is (issue 20). */
#define TB_RECORD_BAR 0.10

typedef struct tb_record {
	const char *card;  /* as in gpus.c */
	tb_dtype dtype;    /* as ceiling.h: TB_DTYPE_FP8, TB_DTYPE_FP4, TB_DTYPE_BF16 for 16 bits */
	int sources;       /* runs.yaml groups with held-out runs on the card in the format */
	int runs;          /* those held-out runs */
	int sources_within; /* sources whose median |error| is within TB_RECORD_BAR */
	/* the median over the sources of each one's median of
	 * (predicted - published) / published: negative where the model
	 * predicts shorter steps than were published */
	double median_err;
} tb_record;

size_t tb_record_count(void);
const tb_record *tb_record_at(size_t i);
/* NULL where no held-out run covers the card in that format. */
const tb_record *tb_record_find(const char *card, tb_dtype dtype);
/* The record of card g under precision p (the format tb_ceiling_dtype
 * picks), or NULL, also for an inline card that is not the table's
 * (tb_gpus_table_card). */
const tb_record *tb_record_for(const tb_gpu *g, tb_precision p);
/* tb_record_for's record when its median is beyond TB_RECORD_BAR, or
 * NULL: the one test the estimate and the report make. */
const tb_record *tb_record_off(const tb_gpu *g, tb_precision p);
/* The record to say beside a prediction for the run `in` on card g (the
 * scenario's card, or the card a plan's best layout runs on):
 * tb_record_off's, unless the run is calibrated on pilots of g, whose
 * band answers it instead.  The one decision the estimate, the report and
 * the plan share. */
const tb_record *tb_record_said(const tb_inputs *in, const tb_gpu *g);
/* Appends the record in words, a clause that starts "on CARD in FORMAT",
 * for the estimate's warning and the plan's paragraph alike. */
void tb_record_say(const tb_record *r, tb_buf *out);

#endif
