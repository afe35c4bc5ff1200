#include "pdf_write.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>

#include "pdf_deflate.h"
#include "trainbudget/sha256.h"
#include "trainbudget/xalloc.h"

void tb_pdfw_init(tb_pdfw *w, int deflate_level)
{
	memset(w, 0, sizeof *w);
	tb_buf_init(&w->out);
	w->level = deflate_level;
	/* the second line's high bytes mark the file as binary for transfers */
	tb_buf_puts(&w->out, "%PDF-1.5\n%\xE2\xE3\xCF\xD3\n");
	tb_buf_init(&w->pack);
}

void tb_pdfw_release(tb_pdfw *w)
{
	for (size_t i = 0; i < w->nlater; i++) {
		tb_buf_release(&w->later[i].dict);
		tb_buf_release(&w->later[i].data);
	}
	free(w->later);
	tb_buf_release(&w->out);
	tb_buf_release(&w->pack);
	for (size_t i = 0; i < sizeof w->zc / sizeof w->zc[0]; i++)
		libdeflate_free_compressor(w->zc[i]);
	free(w->offset);
	free(w->packed);
	free(w->pack_num);
	free(w->pack_end);
	memset(w, 0, sizeof *w);
}

unsigned tb_pdfw_alloc(tb_pdfw *w)
{
	if (w->nobj + 1 >= w->cap) {
		w->cap = w->cap ? w->cap * 2 : 64;
		w->offset = tb_xrealloc(w->offset, w->cap * sizeof *w->offset);
		w->packed = tb_xrealloc(w->packed, w->cap);
	}
	w->nobj++;
	w->offset[w->nobj] = 0;
	w->packed[w->nobj] = 0;
	return w->nobj;
}

static void S_begin(tb_pdfw *w, unsigned num)
{
	w->offset[num] = w->out.len;
	tb_buf_int(&w->out, num);
	tb_buf_puts(&w->out, " 0 obj\n");
}

void tb_pdfw_obj(tb_pdfw *w, unsigned num, const char *body, size_t len)
{
	if (w->npack == w->pack_cap) {
		w->pack_cap = w->pack_cap ? w->pack_cap * 2 : 256;
		w->pack_num = tb_xrealloc(w->pack_num, w->pack_cap * sizeof *w->pack_num);
		w->pack_end = tb_xrealloc(w->pack_end, w->pack_cap * sizeof *w->pack_end);
	}
	tb_buf_put(&w->pack, body, len);
	tb_buf_putc(&w->pack, '\n');
	w->offset[num] = w->npack;
	w->packed[num] = 1;
	w->pack_num[w->npack] = num;
	w->pack_end[w->npack++] = w->pack.len;
}

/* FlateDecode wants the zlib format; libdeflate writes it 1.6x faster
 * than zlib's compress2 at the same level on a report's streams, and 4%
 * smaller (README, "Libraries, and why") */
static struct libdeflate_compressor *S_deflater(tb_pdfw *w, int level)
{
	if (level < 1)
		level = 1;
	if (level > 12)
		level = 12;
	if (!w->zc[level])
		w->zc[level] = libdeflate_alloc_compressor(level);
	return w->zc[level];
}

void tb_pdfw_stream_deflated(tb_pdfw *w, unsigned num, const char *dict, const void *data,
                             size_t len, const unsigned char *z, size_t zlen)
{
	S_begin(w, num);
	tb_buf_printf(&w->out, "<< /Length %zu%s%s%s >>\nstream\n",
	              z ? zlen : len, z ? " /Filter /FlateDecode" : "",
	              dict[0] ? " " : "", dict);
	if (z)
		tb_buf_put(&w->out, z, zlen);
	else
		tb_buf_put(&w->out, data, len);
	tb_buf_puts(&w->out, "\nendstream\nendobj\n");
}

void tb_pdfw_stream(tb_pdfw *w, unsigned num, const char *dict,
                    const void *data, size_t len, bool deflate)
{
	unsigned char *z = NULL;
	size_t zlen = 0;
	struct libdeflate_compressor *c = deflate && len > 0 ? S_deflater(w, w->level) : NULL;
	if (c) {
		size_t cap = libdeflate_zlib_compress_bound(c, len);
		z = tb_xmalloc(cap);
		zlen = libdeflate_zlib_compress(c, data, len, z, cap);
		if (zlen == 0) {
			/* cannot happen at the bound: store the bytes as they are */
			free(z);
			z = NULL;
		}
	}
	tb_pdfw_stream_deflated(w, num, dict, data, len, z, zlen);
	free(z);
}

void tb_pdfw_stream_later(tb_pdfw *w, unsigned num, const char *dict, const void *data,
                          size_t len, int level)
{
	w->later = tb_xgrow(w->later, &w->later_cap, w->nlater + 1, sizeof *w->later, 16);
	tb_pdfw_later *l = &w->later[w->nlater++];
	l->num = num;
	l->level = level;
	tb_buf_init(&l->dict);
	tb_buf_init(&l->data);
	tb_buf_puts(&l->dict, dict);
	tb_buf_put(&l->data, data, len);
	/* offered now, so a free thread deflates it while this one goes on */
	if (w->helper)
		l->job = tb_pdf_helper_add(w->helper, l->data.ptr, l->data.len, level);
}

static void S_write_later(tb_pdfw *w, const tb_pdfw_later *l)
{
	if (w->helper) {
		size_t zlen = 0;
		const unsigned char *z = tb_pdf_helper_take(w->helper, l->job, &zlen);
		tb_pdfw_stream_deflated(w, l->num, l->dict.ptr, l->data.ptr, l->data.len, z, zlen);
		return;
	}
	int level = w->level;
	w->level = l->level;
	tb_pdfw_stream(w, l->num, l->dict.ptr, l->data.ptr, l->data.len, true);
	w->level = level;
}

void tb_pdfw_uint(tb_buf *b, size_t v)
{
	char d[24];
	size_t n = 0;
	do
		d[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (n)
		tb_buf_putc(b, d[--n]);
}

void tb_pdfw_ref(tb_buf *b, unsigned num)
{
	tb_pdfw_uint(b, num);
	tb_buf_put(b, " 0 R", 4);
}

/* Objects a stream packs: a reader inflates a whole stream to reach one
 * of them, so each stays small. */
#define S_PACK_MAX 200

static void S_be(tb_buf *b, uint64_t v, int bytes)
{
	for (int i = bytes - 1; i >= 0; i--)
		tb_buf_putc(b, (char)(v >> (8 * i)));
}

void tb_pdfw_finish(tb_pdfw *w, unsigned root, unsigned info, tb_buf *out,
                    char sha256_hex[65])
{
	/* the object streams: "num offset" pairs, then the bodies */
	size_t nstreams = (w->npack + S_PACK_MAX - 1) / S_PACK_MAX;
	unsigned *stream_num = tb_xcalloc(nstreams ? nstreams : 1, sizeof *stream_num);
	for (size_t k = 0; k < nstreams; k++)
		stream_num[k] = tb_pdfw_alloc(w);
	unsigned xref_num = tb_pdfw_alloc(w);
	tb_buf head, body;
	tb_buf_init(&head);
	tb_buf_init(&body);
	for (size_t k = 0; k < nstreams; k++) {
		size_t a = k * S_PACK_MAX, b = a + S_PACK_MAX < w->npack ? a + S_PACK_MAX : w->npack;
		size_t from = a ? w->pack_end[a - 1] : 0;
		tb_buf_truncate(&head, 0);
		tb_buf_truncate(&body, 0);
		for (size_t i = a; i < b; i++) {
			size_t start = i ? w->pack_end[i - 1] : 0;
			tb_pdfw_uint(&head, w->pack_num[i]);
			tb_buf_putc(&head, ' ');
			tb_pdfw_uint(&head, start - from);
			tb_buf_putc(&head, ' ');
		}
		tb_buf_put(&body, head.ptr, head.len);
		tb_buf_put(&body, w->pack.ptr + from, w->pack_end[b - 1] - from);
		char dict[64];
		snprintf(dict, sizeof dict, "/Type /ObjStm /N %zu /First %zu", b - a, head.len);
		/* level 1: the structure tree is most of it; level 6 ran 3.8M
		 * instructions more on the demo's PDF for 2% fewer bytes */
		tb_pdfw_stream_later(w, stream_num[k], dict, body.ptr, body.len, 1);
	}
	tb_buf_release(&head);
	for (size_t i = 0; i < w->nlater; i++)
		S_write_later(w, &w->later[i]);

	/* the cross-reference stream: type 1 (offset) or 2 (stream, index)
	 * per object, in 1 + 4 + 2 bytes */
	tb_sha256 hash;
	tb_sha256_init(&hash);
	tb_sha256_update(&hash, w->out.ptr, w->out.len);
	char id[65];
	tb_sha256_hex_so_far(&hash, id);
	id[32] = '\0';
	size_t xref = w->out.len;
	w->offset[xref_num] = xref;
	tb_buf_truncate(&body, 0);
	S_be(&body, 0, 1);
	S_be(&body, 0, 4);
	S_be(&body, 65535, 2);
	for (unsigned i = 1; i <= w->nobj; i++) {
		if (w->packed[i]) {
			S_be(&body, 2, 1);
			S_be(&body, stream_num[w->offset[i] / S_PACK_MAX], 4);
			S_be(&body, w->offset[i] % S_PACK_MAX, 2);
		} else {
			S_be(&body, 1, 1);
			S_be(&body, w->offset[i], 4);
			S_be(&body, 0, 2);
		}
	}
	tb_buf dict;
	tb_buf_init(&dict);
	tb_buf_printf(&dict, "/Type /XRef /Size %u /W [1 4 2] /Root %u 0 R", w->nobj + 1, root);
	if (info)
		tb_buf_printf(&dict, " /Info %u 0 R", info);
	tb_buf_printf(&dict, " /ID [<%s> <%s>]", id, id);
	tb_pdfw_stream(w, xref_num, dict.ptr, body.ptr, body.len, true);
	tb_buf_printf(&w->out, "startxref\n%zu\n%%%%EOF\n", xref);
	tb_buf_release(&dict);
	tb_buf_release(&body);
	free(stream_num);
	if (sha256_hex) {
		tb_sha256_update(&hash, w->out.ptr + xref, w->out.len - xref);
		tb_sha256_hex_so_far(&hash, sha256_hex);
	}
	if (out->len == 0) {
		/* moved, not copied: 100 KB of fresh pages less */
		tb_buf t = *out;
		*out = w->out;
		w->out = t;
	} else {
		tb_buf_put(out, w->out.ptr, w->out.len);
		tb_buf_truncate(&w->out, 0);
	}
}

/* "%.3f" without its trailing zeros, "-0" as "0".  Most of a PDF's bytes
 * are these numbers, and printf was most of its instructions: the
 * thousandths come from tb_buf_fixed_trim, which rounds as printf does. */
void tb_pdfw_num(tb_buf *b, double v)
{
	if (!isfinite(v))
		v = 0;
	/* far beyond any page, and within what readers take for a real
	 * (Acrobat's limit is about 3.4e38) */
	if (fabs(v) > 1e9)
		v = v < 0 ? -1e9 : 1e9;
	tb_buf_fixed_trim(b, v, 3);     /* |v x 1000| <= 1e12: always in range */
}

/* The next code point of valid UTF-8 at s (advancing *i). */
static uint32_t S_next(const unsigned char *s, size_t len, size_t *i)
{
	uint32_t c = s[*i];
	size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
	if (*i + n > len) {
		*i = len;
		return 0xFFFD;
	}
	if (n == 2)
		c &= 0x1F;
	else if (n == 3)
		c &= 0x0F;
	else if (n == 4)
		c &= 0x07;
	for (size_t k = 1; k < n; k++)
		c = (c << 6) | (s[*i + k] & 0x3F);
	*i += n;
	return c;
}

void tb_pdfw_text(tb_buf *b, const char *s, size_t len)
{
	bool ascii = true;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7E)
			ascii = false;
	if (ascii) {
		tb_buf_putc(b, '(');
		for (size_t i = 0; i < len; i++) {
			if (s[i] == '(' || s[i] == ')' || s[i] == '\\')
				tb_buf_putc(b, '\\');
			tb_buf_putc(b, s[i]);
		}
		tb_buf_putc(b, ')');
		return;
	}
	tb_buf_puts(b, "<FEFF");
	size_t i = 0;
	while (i < len) {
		uint32_t c = S_next((const unsigned char *)s, len, &i);
		if (c >= 0x10000) {
			c -= 0x10000;
			tb_buf_hex4(b, 0xD800 + (c >> 10));
			tb_buf_hex4(b, 0xDC00 + (c & 0x3FF));
		} else {
			tb_buf_hex4(b, c);
		}
	}
	tb_buf_putc(b, '>');
}

void tb_pdfw_name(tb_buf *b, const char *s)
{
	for (; *s; s++) {
		char c = *s;
		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')
			tb_buf_putc(b, c);
	}
}
