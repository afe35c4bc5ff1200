/* risk_int.h: the risk's parts its tests reach (risk.c). */
#ifndef TB_RISK_INT_H
#define TB_RISK_INT_H

#include "trainbudget/risk.h"

/* How many of v's n values fall in each of the TB_RISK_BINS bins of
 * `width` from lo: a value's bin is (int)((v - lo) / width), the last
 * bin taking the top end; every value in the first where width is not
 * positive. */
void tb_risk_bin_counts(const double *v, int n, double lo, double width,
                        int count[TB_RISK_BINS]);

#endif
