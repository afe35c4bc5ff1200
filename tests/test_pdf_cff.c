/* test_pdf_cff.c: fonts with PostScript outlines (src/pdf_cff.c), on the
 * two fonts tests/mkcff.py made from DejaVu Sans: 115 glyphs, 'A' glyph
 * 34 and the space glyph 1 in both; the name-keyed one selects glyphs
 * by id, the CID-keyed one gives glyph g the CID 1000 + 115 - g. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pdf_cff.h"
#include "trainbudget/fileio.h"

#define S_NGLYPHS 115u
#define S_GID_A 34u
#define S_GID_SPACE 1u

static char *S_font(const char *mode, size_t *len)
{
	char path[128];
	snprintf(path, sizeof path, "tests/fixtures/fonts/cff-%s.otf", mode);
	char *d = tb_fileio_slurp(path, 1 << 20, len);
	cr_assert(d, "%s", path);
	return d;
}

/* The 'CFF ' table of an OpenType file, by its table directory. */
static const unsigned char *S_table(const char *font, size_t len, size_t *tlen)
{
	const unsigned char *p = (const unsigned char *)font;
	unsigned n = (unsigned)p[4] << 8 | p[5];
	for (unsigned i = 0; i < n; i++) {
		const unsigned char *r = p + 12 + 16 * (size_t)i;
		if (memcmp(r, "CFF ", 4) == 0) {
			size_t off = (size_t)r[8] << 24 | (size_t)r[9] << 16 | (size_t)r[10] << 8 | r[11];
			*tlen = (size_t)r[12] << 24 | (size_t)r[13] << 16 | (size_t)r[14] << 8 | r[15];
			cr_assert(off + *tlen <= len);
			return p + off;
		}
	}
	cr_assert_fail("no CFF table");
	return NULL;
}

/* The CFF table of test font `mode`, read; the font's bytes, to free. */
static char *S_parsed(const char *mode, tb_pdf_cff *c)
{
	size_t len, tlen;
	char *font = S_font(mode, &len);
	const unsigned char *t = S_table(font, len, &tlen);
	char why[160];
	cr_assert(tb_pdf_cff_parse(t, tlen, c, why, sizeof why), "%s", why);
	return font;
}

Test(pdf_cff, name_keyed_selects_by_glyph_id)
{
	tb_pdf_cff c;
	char *font = S_parsed("name", &c);
	cr_expect_not(c.cid_keyed);
	cr_expect_eq(c.nglyphs, S_NGLYPHS);
	unsigned cid[S_NGLYPHS];
	cr_assert(tb_pdf_cff_cids(&c, cid));
	cr_expect_eq(cid[S_GID_A], S_GID_A);
	cr_expect(tb_pdf_cff_inked(&c, S_GID_A));
	cr_expect_not(tb_pdf_cff_inked(&c, S_GID_SPACE), "a space is a width and endchar");
	cr_expect_not(tb_pdf_cff_inked(&c, S_NGLYPHS), "past the last glyph");
	free(font);
}

Test(pdf_cff, cid_keyed_reads_its_charset)
{
	tb_pdf_cff c;
	char *font = S_parsed("cid", &c);
	cr_expect(c.cid_keyed);
	cr_expect_str_eq(c.registry, "Adobe");
	cr_expect_str_eq(c.ordering, "Identity");
	cr_expect_eq(c.supplement, 0);
	unsigned cid[S_NGLYPHS];
	cr_assert(tb_pdf_cff_cids(&c, cid));
	cr_expect_eq(cid[0], 0);
	for (unsigned g = 1; g < S_NGLYPHS; g++)
		cr_expect_eq(cid[g], 1000 + S_NGLYPHS - g, "glyph %u", g);
	cr_expect(tb_pdf_cff_inked(&c, S_GID_A));
	cr_expect_not(tb_pdf_cff_inked(&c, S_GID_SPACE));
	free(font);
}

/* hb-subset renumbers the glyphs and keeps each one's CID: the CIDs the
 * subset gives are the original charset's. */
Test(pdf_cff, subset_keeps_the_cids)
{
	size_t len;
	char *font = S_font("cid", &len);
	const unsigned gids[] = {0, S_GID_A, 80, S_GID_SPACE};
	unsigned cids[4];
	tb_buf out;
	tb_buf_init(&out);
	const char *why = NULL;
	cr_assert(tb_pdf_cff_subset((const unsigned char *)font, len, gids, 4, &out, cids, &why),
	          "%s", why);
	for (unsigned i = 1; i < 4; i++)
		cr_expect_eq(cids[i], 1000 + S_NGLYPHS - gids[i], "glyph %u", gids[i]);
	cr_expect_eq(cids[0], 0);
	tb_pdf_cff c;
	char w[160];
	cr_assert(tb_pdf_cff_parse((const unsigned char *)out.ptr, out.len, &c, w, sizeof w), "%s", w);
	cr_expect_eq(c.nglyphs, 4, "the four glyphs asked for, nothing else");
	cr_expect(c.cid_keyed);
	cr_expect_lt(out.len, 2000, "%zu bytes", out.len);
	tb_buf_release(&out);
	free(font);
}

/* Whatever the bytes: every prefix of the table and every single byte
 * changed is refused or read within bounds (ASan watches), and a CID
 * given twice is refused. */
Test(pdf_cff, damaged_tables_stay_in_bounds)
{
	size_t len, tlen;
	char *font = S_font("cid", &len);
	const unsigned char *t = S_table(font, len, &tlen);
	unsigned cid[65536];
	char why[160];
	for (size_t n = 0; n < tlen; n += n < 64 ? 1 : 97) {
		unsigned char *cut = malloc(n ? n : 1);
		memcpy(cut, t, n);
		tb_pdf_cff c;
		if (tb_pdf_cff_parse(cut, n, &c, why, sizeof why)) {
			(void)tb_pdf_cff_cids(&c, cid);
			for (unsigned g = 0; g < c.nglyphs; g++)
				(void)tb_pdf_cff_inked(&c, g);
		}
		free(cut);
	}
	unsigned char *bad = malloc(tlen);
	for (size_t i = 0; i < tlen; i += 7) {
		memcpy(bad, t, tlen);
		bad[i] ^= 0xA5;
		tb_pdf_cff c;
		if (tb_pdf_cff_parse(bad, tlen, &c, why, sizeof why)) {
			if (c.nglyphs <= 65536)
				(void)tb_pdf_cff_cids(&c, cid);
			for (unsigned g = 0; g < c.nglyphs && g < 200; g++)
				(void)tb_pdf_cff_inked(&c, g);
		}
	}
	free(bad);
	tb_pdf_cff c;
	cr_assert(tb_pdf_cff_parse(t, tlen, &c, why, sizeof why));
	/* charset format 0: glyph 2's CID made glyph 1's */
	unsigned char *dup = malloc(tlen);
	memcpy(dup, t, tlen);
	cr_assert_eq(dup[c.charset], 0, "mkcff.py writes charset format 0");
	dup[c.charset + 3] = dup[c.charset + 1];
	dup[c.charset + 4] = dup[c.charset + 2];
	tb_pdf_cff d;
	cr_assert(tb_pdf_cff_parse(dup, tlen, &d, why, sizeof why));
	cr_expect_not(tb_pdf_cff_cids(&d, cid));
	free(dup);
	cr_expect_not(tb_pdf_cff_parse(t, 3, &c, why, sizeof why));
	cr_expect(strstr(why, "CFF version 1"), "%s", why);
	free(font);
}
