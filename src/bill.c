/* bill.c: a run's bill (bill.h).  docs/formulas.md, "The bill", has the
 * rules and where their defaults come from. */
#include "trainbudget/bill.h"

#include <math.h>
#include <string.h>

bool tb_bill_any(const tb_bill_in *in)
{
	return in->reservation_s > 0 || in->ablations > 0 ||
	       (in->storage_price_per_byte_s > 0 && (in->storage_bytes > 0 || in->retained_bytes > 0));
}

double tb_bill_compute(const tb_bill_in *in, double price, double compute, double seconds,
                       tb_bill *out)
{
	tb_bill b;
	memset(&b, 0, sizeof b);
	double a = in->ablations > 0 ? in->ablations : 0;
	b.ablations = compute * a;
	b.compute = compute + b.ablations;
	b.used_s = seconds * (1 + a);
	b.total = b.compute;
	if (in->reservation_s > 0 && b.used_s > 0) {
		/* whole blocks: a run that outlasts one books the next */
		double n = ceil(b.used_s / in->reservation_s);
		b.blocks = n < 1 ? 1 : n > 1e9 ? 1000000000 : (int)n;
		b.booked_s = (double)b.blocks * in->reservation_s;
		b.reservation = in->gpus * b.booked_s / 3600 * price;
		b.idle = b.reservation > b.compute ? b.reservation - b.compute : 0;
		b.total = b.reservation > b.compute ? b.reservation : b.compute;
	}
	if (in->storage_price_per_byte_s > 0) {
		b.storage = in->storage_price_per_byte_s *
		            (in->storage_bytes * b.used_s + in->retained_bytes * in->retention_s);
		b.total += b.storage;
	}
	if (!isfinite(b.total) || b.total < 0)
		memset(&b, 0, sizeof b);
	if (out)
		*out = b;
	return b.total;
}
