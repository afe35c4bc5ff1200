/* buf.h: a growable byte buffer, always NUL-terminated (git's strbuf).
 * Storage is the caller's: tb_buf_init / tb_buf_release.  Allocation
 * failure aborts (xalloc.h), so appends cannot fail. */
#ifndef TB_BUF_H
#define TB_BUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct tb_buf {
	char *ptr;      /* NUL-terminated; never NULL after init */
	size_t len;
	size_t cap;
} tb_buf;

void tb_buf_init(tb_buf *b);
void tb_buf_release(tb_buf *b);
void tb_buf_grow(tb_buf *b, size_t extra);
void tb_buf_put(tb_buf *b, const void *data, size_t len);
void tb_buf_puts(tb_buf *b, const char *s);
void tb_buf_putc(tb_buf *b, char c);
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void tb_buf_printf(tb_buf *b, const char *fmt, ...);
void tb_buf_vprintf(tb_buf *b, const char *fmt, va_list ap);
/* v as printf's "%.*f" with `decimals` writes it.  tb_fixed_str
 * formats by hand where that is exact: 0 to 9 decimals, |v x 10^decimals|
 * <= 1e12, and the scaled value more than a hair from a half or exactly
 * on one.  It returns the length written to `out` (NUL-terminated), or 0
 * where printf must decide.  tb_buf_fixed falls back to printf itself:
 * the same bytes, in a tenth of the instructions. */
#define TB_FIXED_MAX 40
size_t tb_fixed_str(char out[TB_FIXED_MAX], double v, int decimals);
void tb_buf_fixed(tb_buf *b, double v, int decimals);
void tb_buf_truncate(tb_buf *b, size_t len);
/* Hands the string to the caller (free()); b is left empty and initialised. */
char *tb_buf_detach(tb_buf *b, size_t *len_out);

#endif
