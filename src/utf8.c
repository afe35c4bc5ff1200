#include "utf8.h"

#include "trainbudget/buf.h"

size_t tb_utf8_seq(const unsigned char *s, size_t n, uint32_t *cp)
{
	if (n == 0)
		return 0;
	unsigned c = s[0];
	size_t len;
	uint32_t v, min;
	if (c < 0x80) {
		len = 1; v = c; min = 0;
	} else if (c >= 0xC2 && c <= 0xDF) {
		len = 2; v = c & 0x1F; min = 0x80;
	} else if (c >= 0xE0 && c <= 0xEF) {
		len = 3; v = c & 0x0F; min = 0x800;
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4; v = c & 0x07; min = 0x10000;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3Fu);
	}
	if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
		return 0;
	if (cp)
		*cp = v;
	return len;
}

int tb_utf8_invisible(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9F) || cp == 0x061C || cp == 0x200E || cp == 0x200F ||
	       (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

char *tb_utf8_shown(const char *s, size_t n)
{
	tb_buf b;
	tb_buf_init(&b);
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		uint32_t cp = 0;
		size_t k = tb_utf8_seq(u + i, n - i, &cp);
		if (k == 0 || cp < 0x20 || cp == 0x7F || tb_utf8_invisible(cp)) {
			tb_buf_putc(&b, '?');
			i += k ? k : 1;
			continue;
		}
		tb_buf_put(&b, s + i, k);
		i += k;
	}
	return tb_buf_detach(&b, NULL);
}
