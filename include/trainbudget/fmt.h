/* fmt.h: numbers for people, appended to a tb_buf.
 *
 *   tb_fmt_sci    4.20 × 10²¹     (3 significant digits by default)
 *   tb_fmt_bytes  1.12 TB         decimal (1e9) units, labelled GB
 *   tb_fmt_gib    71.0 GiB        binary (2^30) units, labelled GiB
 *   tb_fmt_count  6.74B  (and tb_fmt_grouped: 6,738,415,616)
 *   tb_fmt_days   2.3 days / 5.1 hours / 42 minutes
 *   tb_fmt_money  $12,345 / €1.2M
 *   tb_fmt_pct    35% / 2.7%
 *
 * Non-finite input never prints NaN or inf: it prints "n/a". The `ascii`
 * flag, where present, writes "4.20e21" instead of Unicode superscripts. */
#ifndef TB_FMT_H
#define TB_FMT_H

#include <stdbool.h>
#include "trainbudget/buf.h"

void tb_fmt_sig(tb_buf *b, double v, int sig);       /* 3 sig digits, plain */
void tb_fmt_sci(tb_buf *b, double v, int sig, bool ascii);
void tb_fmt_bytes(tb_buf *b, double bytes);
void tb_fmt_gib(tb_buf *b, double bytes);
void tb_fmt_count(tb_buf *b, double v);
void tb_fmt_grouped(tb_buf *b, double v);
void tb_fmt_days(tb_buf *b, double seconds);
void tb_fmt_money(tb_buf *b, double amount, const char *currency);
void tb_fmt_pct(tb_buf *b, double fraction);

#endif
