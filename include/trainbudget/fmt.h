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
 * flag, where present, writes "4.20e21" instead of Unicode superscripts.
 * A rounded zero never prints as "-0".  Values are rounded before the unit
 * is chosen: 999.7e9 bytes is "1.00 TB", never "1000 GB".
 *
 * The rules, in full:
 *   sig    `sig` significant digits (<= 0 means 3), trailing zeros kept:
 *          "0.350", "80.0", "123000"; zero is "0".
 *   sci    plain (as sig) when the decimal exponent is -3..3 ("123",
 *          "0.350"); otherwise "4.20 × 10²¹" / "1.50 × 10⁻⁵", or with
 *          ascii "4.20e21" / "1.50e-5".
 *   bytes  B kB MB GB TB PB EB, 3 significant digits; whole bytes plain
 *          ("512 B").  Negative bytes print "n/a" (never a negative memory
 *          figure).  gib: the same with B KiB MiB GiB TiB PiB EiB.
 *   count  plain below 1000 ("8", "12.5"), then 3 significant digits with
 *          k M B T: "12.0k", "4.00M", "6.74B", "1.40T".
 *   grouped  rounded to a whole number: "6,738,415,616".
 *   days   >= 1 day "23.4 days" (one decimal; whole and grouped from 100
 *          days: "1,234 days"); >= 1 hour "5.1 hours"; >= 1 minute
 *          "42 minutes" / "1 minute"; below, 2 significant digits of
 *          seconds: "8.3 s", "42 s", "0.35 s".  Negative: "n/a".
 *   money  USD "$", EUR "€", GBP "£" before the figure, any other code
 *          after it ("1,234 CHF"); NULL or "" means USD.  Below 1,000: two
 *          decimals ("$2.50"); 1,000 up to 1e9: whole units grouped
 *          ("$12,345,679": what someone signs should be exact to the
 *          unit); from 1e9: 3 significant digits with B/T ("$1.23B").
 *          Negative amounts: "-$1,234".  tb_fmt_money_ref takes the style
 *          from a reference amount instead: the amounts of a line share
 *          one style.
 *   pct    a fraction (0.35) in percent: from 10% whole percents ("35%",
 *          "100%"); below 10% two significant digits ("2.7%", "2.0%",
 *          "0.35%").
 *   beyond the largest unit (1000 EB, 1000T, $1000T, a million days) the
 *          figure goes to the sci form: "2.00 × 10²¹ B", "1.00 × 10³⁰",
 *          "$1.00 × 10³⁰", "1.00 × 10⁷ days". */
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
/* Money in the style of the largest amount it is shown with (`ref`; the
 * amount itself when larger), so the amounts of one line or one table read
 * alike: with a largest of $1,500, 15.65 prints "$16"; with $1.20B,
 * 950,000,000 prints "$0.950B".  B or T follow ref, 3 significant digits. */
void tb_fmt_money_ref(tb_buf *b, double amount, const char *currency, double ref);
void tb_fmt_pct(tb_buf *b, double fraction);
/* A probability estimated by sampling: "94%", and never a certainty it
 * cannot show: "over 99%", "under 1%". */
void tb_fmt_prob(tb_buf *b, double p);

/* Display width of UTF-8 text in a terminal: one column per code point,
 * right for everything these functions write (×, superscripts, €, £). */
size_t tb_fmt_width(const char *s);

/* Words of s after column `col` of the current line, wrapped at 78
 * columns onto lines indented by `indent`, then a line end. */
void tb_fmt_wrap(tb_buf *o, const char *s, size_t indent, size_t col);

#endif
