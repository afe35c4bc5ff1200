/* utf8.h: the one definition of well-formed UTF-8 the library checks text
 * against (diagnostics, templates, published paths, JSON strings). */
#ifndef TB_UTF8_H
#define TB_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* The length, 1 to 4, of the well-formed UTF-8 sequence at s (at most n
 * bytes; an ASCII byte, NUL included, is 1), and its code point in *cp
 * when cp is not NULL; 0 when n is 0 or the sequence is not well formed:
 * a stray continuation byte, an overlong form, a surrogate, a code point
 * past U+10FFFF, or a sequence cut short (by n or by a byte that does not
 * continue it, so a NUL-terminated string is never read past its end). */
size_t tb_utf8_seq(const unsigned char *s, size_t n, uint32_t *cp);

/* Code points a terminal acts on or that reorder what is shown: the C1
 * controls (U+009B is a CSI on its own) and the bidirectional controls
 * ("Trojan Source", CVE-2021-42574).  Never shown raw. */
int tb_utf8_invisible(uint32_t cp);

/* The first n bytes of s as a report may show them: each byte that is not
 * well-formed UTF-8, each C0 control, DEL and each tb_utf8_invisible code
 * point becomes '?'.  The one rule for names and paths that reach a
 * published file or a terminal (a scenario's stem, --name, an input's
 * path).  Returns a copy the caller frees. */
char *tb_utf8_shown(const char *s, size_t n);

#endif
