/* test_pdf_draw.c: the content-stream writer's own rules (src/pdf_draw.c):
 * glyph codes in literal strings, read back as ISO 32000-1 7.3.4.2 says a
 * reader must, and settings the page already has left out. */
#include <criterion/criterion.h>
#include <string.h>

#include "pdf_doc.h"

/* A literal string's bytes as a reader takes them: a backslash escapes
 * the next byte (n, r, t, b, f by name), an unescaped carriage return
 * is a line feed, and parentheses must balance when not escaped.  Returns
 * the byte count, or -1 where the string would end early. */
static int S_read_literal(const char *s, size_t n, unsigned char *out)
{
	int k = 0, depth = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\\' && i + 1 < n) {
			unsigned char e = (unsigned char)s[++i];
			out[k++] = e == 'r' ? '\r' : e == 'n' ? '\n' : e == 't' ? '\t' : e;
		} else if (c == '\r') {
			out[k++] = '\n';
		} else if (c == '(') {
			depth++;
			out[k++] = c;
		} else if (c == ')') {
			if (depth-- == 0)
				return -1;
			out[k++] = c;
		} else {
			out[k++] = c;
		}
	}
	return k;
}

/* Every code reads back as itself, alone and between neighbours that
 * could pair with it (an opening parenthesis before a closing one). */
Test(pdf_draw, every_glyph_code_reads_back)
{
	tb_buf b;
	tb_buf_init(&b);
	for (unsigned cid = 0; cid < 65536; cid++) {
		tb_buf_truncate(&b, 0);
		tb_pdf_put_cid(&b, 0x2828);
		tb_pdf_put_cid(&b, cid);
		tb_pdf_put_cid(&b, 0x2929);
		unsigned char got[16];
		int n = S_read_literal(b.ptr, b.len, got);
		cr_assert_eq(n, 6, "code %04X: %d bytes", cid, n);
		cr_assert_eq(got[2] << 8 | got[3], cid, "code %04X read as %02X%02X", cid, got[2], got[3]);
		cr_assert(memchr(b.ptr, '\r', b.len) == NULL, "code %04X: a raw carriage return", cid);
	}
	tb_buf_release(&b);
}

/* A colour, a line width or a font the page has is not written again; a
 * new page starts with none of them. */
Test(pdf_draw, settings_the_page_has_are_left_out)
{
	tb_pdf_page p;
	memset(&p, 0, sizeof p);
	tb_buf_init(&p.c);
	tb_rgb grey = { 96, 96, 96 }, black = { 0, 0, 0 };
	tb_pdf_draw_fill_rgb(&p, grey);
	tb_pdf_draw_fill_rgb(&p, grey);
	tb_pdf_draw_stroke_rgb(&p, grey);
	tb_pdf_draw_stroke_rgb(&p, grey);
	tb_pdf_draw_line_width(&p, 0.6);
	tb_pdf_draw_line_width(&p, 0.6);
	tb_pdf_draw_fill_rgb(&p, black);
	tb_pdf_draw_fill_rgb(&p, grey);
	cr_expect_str_eq(p.c.ptr, "0.376 0.376 0.376 rg\n0.376 0.376 0.376 RG\n0.6 w\n0 0 0 rg\n"
	                          "0.376 0.376 0.376 rg\n");
	tb_buf_release(&p.c);
}
