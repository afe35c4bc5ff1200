/* pdf_pdfa.c: XMP metadata and the sRGB profile (pdf_pdfa.h). */
#include "pdf_pdfa.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pdf_text.h"

/* XML text: the sanitized string (pdf_text.h: no control characters,
 * valid UTF-8) with its markup characters escaped. */
static void S_xml(tb_buf *out, const char *s)
{
	tb_buf t;
	tb_buf_init(&t);
	tb_pdf_sanitize(&t, s, strlen(s));
	for (size_t i = 0; i < t.len; i++) {
		char c = t.ptr[i];
		switch (c) {
		case '&': tb_buf_puts(out, "&amp;"); break;
		case '<': tb_buf_puts(out, "&lt;"); break;
		case '>': tb_buf_puts(out, "&gt;"); break;
		case '"': tb_buf_puts(out, "&quot;"); break;
		default: tb_buf_putc(out, c); break;
		}
	}
	tb_buf_release(&t);
}

void tb_pdf_xmp(const tb_report_meta *m, const char *subject, const char *creator, tb_buf *out)
{
	tb_buf_puts(out, "<?xpacket begin=\"\xEF\xBB\xBF\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>\n"
	                 "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\">\n"
	                 "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">\n"
	                 "<rdf:Description rdf:about=\"\"\n"
	                 " xmlns:pdfaid=\"http://www.aiim.org/pdfa/ns/id/\"\n"
	                 " xmlns:dc=\"http://purl.org/dc/elements/1.1/\"\n"
	                 " xmlns:xmp=\"http://ns.adobe.com/xap/1.0/\"\n"
	                 " xmlns:pdf=\"http://ns.adobe.com/pdf/1.3/\">\n"
	                 "<pdfaid:part>2</pdfaid:part>\n"
	                 "<pdfaid:conformance>B</pdfaid:conformance>\n");
	if (m->title && m->title[0]) {
		tb_buf_puts(out, "<dc:title><rdf:Alt><rdf:li xml:lang=\"x-default\">");
		S_xml(out, m->title);
		tb_buf_puts(out, "</rdf:li></rdf:Alt></dc:title>\n");
	}
	if (m->author && m->author[0]) {
		tb_buf_puts(out, "<dc:creator><rdf:Seq><rdf:li>");
		S_xml(out, m->author);
		tb_buf_puts(out, "</rdf:li></rdf:Seq></dc:creator>\n");
	}
	tb_buf_puts(out, "<dc:description><rdf:Alt><rdf:li xml:lang=\"x-default\">");
	S_xml(out, subject);
	tb_buf_puts(out, "</rdf:li></rdf:Alt></dc:description>\n<xmp:CreatorTool>");
	S_xml(out, creator);
	tb_buf_puts(out, "</xmp:CreatorTool>\n");
	int y, mo, dd;
	if (m->date && sscanf(m->date, "%4d-%2d-%2d", &y, &mo, &dd) == 3 &&
	    y >= 0 && y <= 9999 && mo >= 1 && mo <= 12 && dd >= 1 && dd <= 31)
		tb_buf_printf(out, "<xmp:CreateDate>%04d-%02d-%02dT00:00:00Z</xmp:CreateDate>\n"
		                   "<xmp:ModifyDate>%04d-%02d-%02dT00:00:00Z</xmp:ModifyDate>\n",
		              y, mo, dd, y, mo, dd);
	tb_buf_puts(out, "</rdf:Description>\n</rdf:RDF>\n</x:xmpmeta>\n<?xpacket end=\"w\"?>");
}

/* ---- the profile: big-endian fields ---------------------------------- */

static void S_u32(tb_buf *b, uint32_t v)
{
	unsigned char c[4] = { (unsigned char)(v >> 24), (unsigned char)(v >> 16),
	                       (unsigned char)(v >> 8), (unsigned char)v };
	tb_buf_put(b, (const char *)c, 4);
}

static void S_u16(tb_buf *b, unsigned v)
{
	unsigned char c[2] = { (unsigned char)(v >> 8), (unsigned char)v };
	tb_buf_put(b, (const char *)c, 2);
}

static void S_sig(tb_buf *b, const char *s)
{
	tb_buf_put(b, s, 4);
}

static void S_s15(tb_buf *b, double v)
{
	S_u32(b, (uint32_t)(int32_t)lround(v * 65536.0));
}

static void S_pad4(tb_buf *b)
{
	while (b->len % 4)
		tb_buf_putc(b, '\0');
}

static void S_xyz(tb_buf *b, double x, double y, double z)
{
	S_sig(b, "XYZ ");
	S_u32(b, 0);
	S_s15(b, x);
	S_s15(b, y);
	S_s15(b, z);
}

#define S_TRC_POINTS 1024

void tb_pdf_icc_srgb(tb_buf *out)
{
	static const char desc[] = "sRGB IEC61966-2.1";
	static const char cprt[] = "No copyright, use freely";
	/* the tag data, each at a 4-byte boundary; offsets from the profile's
	 * start, after the header (128) and the table (4 + 12 x 9) */
	tb_buf d;
	tb_buf_init(&d);
	uint32_t base = 128 + 4 + 12 * 9;
	uint32_t off[7], len[7];
	/* desc: textDescriptionType */
	off[0] = base;
	S_sig(&d, "desc");
	S_u32(&d, 0);
	S_u32(&d, (uint32_t)sizeof desc);
	tb_buf_put(&d, desc, sizeof desc);
	S_u32(&d, 0);           /* Unicode: language, count */
	S_u32(&d, 0);
	S_u16(&d, 0);           /* ScriptCode: code, count, 67 bytes */
	tb_buf_putc(&d, '\0');
	for (int i = 0; i < 67; i++)
		tb_buf_putc(&d, '\0');
	len[0] = (uint32_t)d.len;
	S_pad4(&d);
	/* cprt: textType */
	off[1] = base + (uint32_t)d.len;
	S_sig(&d, "text");
	S_u32(&d, 0);
	tb_buf_put(&d, cprt, sizeof cprt);
	len[1] = base + (uint32_t)d.len - off[1];
	S_pad4(&d);
	/* wtpt (D65, as measured on the display), then the colorants adapted
	 * to D50 (Bradford), as the ICC's sRGB profiles carry them */
	static const double xyz[4][3] = {
		{ 0.9505, 1.0, 1.0891 },
		{ 0.4361, 0.2225, 0.0139 },
		{ 0.3851, 0.7169, 0.0971 },
		{ 0.1431, 0.0606, 0.7141 },
	};
	for (int i = 0; i < 4; i++) {
		off[2 + i] = base + (uint32_t)d.len;
		S_xyz(&d, xyz[i][0], xyz[i][1], xyz[i][2]);
		len[2 + i] = 20;
	}
	/* one curve for the three channels: sRGB's, linear below 0.04045 */
	off[6] = base + (uint32_t)d.len;
	S_sig(&d, "curv");
	S_u32(&d, 0);
	S_u32(&d, S_TRC_POINTS);
	for (int i = 0; i < S_TRC_POINTS; i++) {
		double v = (double)i / (S_TRC_POINTS - 1);
		double lin = v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
		S_u16(&d, (unsigned)lround(lin * 65535.0));
	}
	len[6] = base + (uint32_t)d.len - off[6];
	S_pad4(&d);

	uint32_t size = base + (uint32_t)d.len;
	size_t start = out->len;
	S_u32(out, size);
	S_u32(out, 0);                  /* CMM */
	S_u32(out, 0x02100000);         /* version 2.1 */
	S_sig(out, "mntr");
	S_sig(out, "RGB ");
	S_sig(out, "XYZ ");
	/* 1998-02-09 00:00:00, the sRGB profile's date: fixed, reproducible */
	static const unsigned when[6] = { 1998, 2, 9, 0, 0, 0 };
	for (int i = 0; i < 6; i++)
		S_u16(out, when[i]);
	S_sig(out, "acsp");
	for (int i = 0; i < 6; i++)     /* platform, flags, manufacturer, model, attributes */
		S_u32(out, 0);
	S_u32(out, 0);                  /* rendering intent: perceptual */
	S_s15(out, 0.9642);             /* the PCS illuminant, D50 */
	S_s15(out, 1.0);
	S_s15(out, 0.8249);
	S_u32(out, 0);                  /* creator */
	while (out->len - start < 128)
		tb_buf_putc(out, '\0');
	static const char *const tags[9] = {
		"desc", "cprt", "wtpt", "rXYZ", "gXYZ", "bXYZ", "rTRC", "gTRC", "bTRC",
	};
	static const int at[9] = { 0, 1, 2, 3, 4, 5, 6, 6, 6 };
	S_u32(out, 9);
	for (int i = 0; i < 9; i++) {
		S_sig(out, tags[i]);
		S_u32(out, off[at[i]]);
		S_u32(out, len[at[i]]);
	}
	tb_buf_put(out, d.ptr, d.len);
	tb_buf_release(&d);
}
