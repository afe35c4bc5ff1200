/* PLACEHOLDER: replaced by its owner; see include/trainbudget/. */
#include "trainbudget/fmt.h"
void tb_fmt_sig(tb_buf *b, double v, int sig) { tb_buf_printf(b, "%.*g", sig, v); }
void tb_fmt_sci(tb_buf *b, double v, int sig, bool ascii) { (void)ascii; tb_buf_printf(b, "%.*e", sig - 1, v); }
void tb_fmt_bytes(tb_buf *b, double v) { tb_buf_printf(b, "%.3g GB", v / 1e9); }
void tb_fmt_gib(tb_buf *b, double v) { tb_buf_printf(b, "%.3g GiB", v / 1073741824.0); }
void tb_fmt_count(tb_buf *b, double v) { tb_buf_printf(b, "%.3g", v); }
void tb_fmt_grouped(tb_buf *b, double v) { tb_buf_printf(b, "%.0f", v); }
void tb_fmt_days(tb_buf *b, double s) { tb_buf_printf(b, "%.3g days", s / 86400); }
void tb_fmt_money(tb_buf *b, double v, const char *c) { tb_buf_printf(b, "%.0f %s", v, c); }
void tb_fmt_pct(tb_buf *b, double f) { tb_buf_printf(b, "%.3g%%", f * 100); }
