/* test_bill.c: a run's bill (bill.h): the identity without rules, a
 * reservation billed as booked, ablations, and storage priced per
 * TB-month at Amazon S3 Standard's published $0.023 per GB-month. */
#include <criterion/criterion.h>
#include <math.h>

#include "trainbudget/bill.h"

Test(bill, nothing_booked_is_the_compute_to_the_bit)
{
	tb_bill_in in = { .gpus = 64, .price_per_gpu_hour = 2.5 };
	double c = 123456.789012345;
	tb_bill b;
	cr_expect(!tb_bill_any(&in));
	cr_expect(tb_bill_compute(&in, 2.5, c, 86400 * 3.3, &b) == c);
	cr_expect(b.total == c && b.reservation == 0 && b.idle == 0 && b.storage == 0);
}

/* The case: a 60-day reservation for a run that needs 31 is
 * billed 60 days, the 29 left idle. */
Test(bill, reservation_billed_as_booked)
{
	tb_bill_in in = { .gpus = 64, .reservation_s = 60 * 86400.0 };
	double t = 31 * 86400.0, price = 2;
	double compute = 64 * t / 3600 * price;
	tb_bill b;
	double total = tb_bill_compute(&in, price, compute, t, &b);
	cr_expect(total == 64 * 60 * 24 * 2.0, "%.2f", total);
	cr_expect(fabs(b.idle - 64 * 29 * 24 * 2.0) < 1e-6, "%.2f", b.idle);
	cr_expect(b.blocks == 1 && b.booked_s == 60 * 86400.0);
	/* 61 days book a second block */
	total = tb_bill_compute(&in, price, 64 * 61 * 24 * 2.0, 61 * 86400.0, &b);
	cr_expect(b.blocks == 2 && total == 64 * 120 * 24 * 2.0);
}

/* Billing by the hour: an hour's block is paying as used, rounded up. */
Test(bill, hourly_blocks_round_up)
{
	tb_bill_in in = { .gpus = 8, .reservation_s = 3600 };
	tb_bill b;
	double total = tb_bill_compute(&in, 3, 8 * 2.5 * 3, 2.5 * 3600, &b);
	cr_expect(total == 8 * 3 * 3.0, "%.2f", total);
}

Test(bill, ablations_share_the_gpu_time)
{
	tb_bill_in in = { .gpus = 64, .ablations = 0.2 };
	tb_bill b;
	double total = tb_bill_compute(&in, 2, 1000, 3600, &b);
	cr_expect(fabs(total - 1200) < 1e-9 && fabs(b.ablations - 200) < 1e-9);
	cr_expect(fabs(b.used_s - 4320) < 1e-9);
	/* under a reservation they use its idle tail first */
	in.reservation_s = 7200;
	total = tb_bill_compute(&in, 2, 64 * 2.0, 3600, &b);
	cr_expect(total == 64 * 2 * 2.0 && b.blocks == 1, "%.2f", total);
}

/* S3 Standard, us-east-1, first 50 TB: $0.023 per GB-month: 10 TB for a
 * month is $230, and kept a further 90 days of 1 TB is 0.023 x 1000 x
 * 90 / 30.4375. */
Test(bill, storage_per_tb_month)
{
	double month = 365.25 * 86400 / 12;
	tb_bill_in in = { .gpus = 1, .storage_bytes = 10e12, .retained_bytes = 1e12,
	                  .retention_s = 90 * 86400.0,
	                  .storage_price_per_byte_s = 23 / 1e12 / month };
	tb_bill b;
	tb_bill_compute(&in, 2, 0, month, &b);
	double want = 230 + 23 * 90 * 86400 / month;
	cr_expect(fabs(b.storage - want) < 1e-6, "%.6f %.6f", b.storage, want);
}

Test(bill, never_nan_or_negative)
{
	tb_bill_in in = { .gpus = 1e300, .reservation_s = 3600 };
	tb_bill b;
	double total = tb_bill_compute(&in, 1e300, 1, 1e300, &b);
	cr_expect(total == 0 && b.total == 0);
}
