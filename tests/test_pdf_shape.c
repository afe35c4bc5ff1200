/* test_pdf_shape.c: complex text into glyphs (src/pdf_shape.c), against
 * the Unicode Bidirectional Algorithm's rules (UAX #9), the Arabic
 * presentation forms DejaVu's own character map names for the joined
 * letters, and Devanagari's pre-base vowel sign.  The fonts are Debian's:
 * DejaVu (fonts-dejavu-core) and Lohit Devanagari (fonts-lohit-deva). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "pdf_doc.h"

static tb_pdf_doc S_st;
static tb_diags S_d;

static void S_setup(void)
{
	memset(&S_st, 0, sizeof S_st);
	tb_diags_init(&S_d);
	S_st.d = &S_d;
	S_st.font_dir = "/usr/share/fonts/truetype/dejavu";
	tb_pdf_fontset_init(&S_st, NULL);
}

static void S_teardown(void)
{
	tb_pdf_fontset_release(&S_st);
	tb_pdf_cells_release(&S_st.cells);
	tb_diags_release(&S_d);
}

TestSuite(pdf_shape, .init = S_setup, .fini = S_teardown);

static const tb_pdf_shaped *S_shape(const char *s, int dir)
{
	S_st.cells.n = 0;
	tb_pdf_cells_add(&S_st.cells, 0, s, strlen(s));
	tb_pdf_shape(&S_st, &S_st.cells, dir, &S_st.shaped);
	cr_assert(!S_st.failed, "shaping \"%s\" failed", s);
	return &S_st.shaped;
}

/* The logical cells of the glyphs, in the order drawn. */
static char *S_order(const tb_pdf_shaped *sh)
{
	static char out[256];
	size_t n = 0;
	for (size_t i = 0; i < sh->n && n + 4 < sizeof out; i++)
		n += (size_t)snprintf(out + n, sizeof out - n, "%s%u", i ? " " : "",
		                      (unsigned)sh->v[i].cell);
	out[n] = '\0';
	return out;
}

/* The regular face's glyph for a code point, by its character map. */
static unsigned S_cmap(uint32_t cp)
{
	return tb_pdf_font_glyph(tb_pdf_fontset_at(&S_st, TB_PDF_FACE_REGULAR), cp);
}

Test(pdf_shape, simple_text_keeps_the_one_glyph_path)
{
	tb_pdf_cells c = {0};
	tb_pdf_cells_add(&c, 0, "GPU-hours \xC3\x97 10\xC2\xB2 \xE2\x89\xA4 \xE2\x82\xAC" "5", 17);
	cr_expect(tb_pdf_shape_simple(&c));
	c.n = 0;
	tb_pdf_cells_add(&c, 0, "\xD7\x90", 2); /* alef: right to left */
	cr_expect(!tb_pdf_shape_simple(&c));
	c.n = 0;
	tb_pdf_cells_add(&c, 0, "e\xCC\x81", 3); /* e and a combining acute */
	cr_expect(!tb_pdf_shape_simple(&c));
	tb_pdf_cells_release(&c);
}

/* P2-P3: the first strong character sets the paragraph's direction. */
Test(pdf_shape, paragraph_direction)
{
	cr_expect_eq(tb_pdf_shape_dir("123 \xD7\x90\xD7\x91", 8), TB_PDF_DIR_RTL);
	cr_expect_eq(tb_pdf_shape_dir("abc \xD7\x90", 6), TB_PDF_DIR_LTR);
	cr_expect_eq(tb_pdf_shape_dir("\xD8\xA8 abc", 6), TB_PDF_DIR_RTL); /* AL */
	cr_expect_eq(tb_pdf_shape_dir("", 0), TB_PDF_DIR_LTR);
	cr_expect_eq(tb_pdf_shape_dir("1,234.5 %", 9), TB_PDF_DIR_LTR);
}

/* UAX #9 on Hebrew in a left-to-right line: the RTL run reverses; a
 * number inside it keeps its order with its separators (W4: "1,234.5"
 * is one number, not "5.234,1"); the percent sign stays with its number
 * (W5); trailing spaces stay at the end (L1). */
Test(pdf_shape, numbers_keep_their_order_in_right_to_left_text)
{
	/* alef bet 12 gimel: cells 0 1 2 3 4 5 6 */
	cr_expect_str_eq(S_order(S_shape("\xD7\x90\xD7\x91 12 \xD7\x92", TB_PDF_DIR_LTR)),
	                 "6 5 3 4 2 1 0");
	/* "mem 1,234.5": the number's seven cells in order, left of mem */
	const tb_pdf_shaped *sh = S_shape("\xD7\x9E 1,234.5", TB_PDF_DIR_AUTO);
	cr_expect_str_eq(S_order(sh), "2 3 4 5 6 7 8 1 0");
	/* "vav-10% mem": 10% whole, right of the hyphen */
	cr_expect_str_eq(S_order(S_shape("\xD7\x95-10% \xD7\x9E", TB_PDF_DIR_AUTO)),
	                 "6 5 2 3 4 1 0");
	/* Latin first: an LTR line, the Hebrew word reversed in place */
	cr_expect_str_eq(S_order(S_shape("ab \xD7\x90\xD7\x91 ", TB_PDF_DIR_AUTO)),
	                 "0 1 2 4 3 5");
}

/* N0: a bracket pair around right-to-left text takes its direction, and
 * each bracket is drawn mirrored (the glyph of its pair). */
Test(pdf_shape, bracket_pairs_face_their_text)
{
	/* "mem (bet)": cells 0 1 2 3 4 */
	const tb_pdf_shaped *sh = S_shape("\xD7\x9E (\xD7\x91)", TB_PDF_DIR_LTR);
	cr_assert_eq(sh->n, 5);
	cr_expect_str_eq(S_order(sh), "4 3 2 1 0");
	cr_expect_eq(sh->v[0].gid, S_cmap('('), "the closing bracket, leftmost, draws as '('");
	cr_expect_eq(sh->v[2].gid, S_cmap(')'), "the opening bracket draws as ')'");
}

/* Arabic joins: beh beh beh is final, medial, initial from the left,
 * the glyphs DejaVu maps U+FE90, U+FE92 and U+FE91 (Arabic Presentation
 * Forms-B) to; lam alef is one ligature (U+FEFC, final after beh) for
 * two characters; Persian peh joins too. */
Test(pdf_shape, arabic_letters_join)
{
	const tb_pdf_shaped *sh = S_shape("\xD8\xA8\xD8\xA8\xD8\xA8", TB_PDF_DIR_AUTO);
	cr_assert_eq(sh->n, 3);
	cr_expect_eq(sh->v[0].gid, S_cmap(0xFE90));
	cr_expect_eq(sh->v[1].gid, S_cmap(0xFE92));
	cr_expect_eq(sh->v[2].gid, S_cmap(0xFE91));
	sh = S_shape("\xD8\xA8\xD9\x84\xD8\xA7", TB_PDF_DIR_AUTO); /* beh lam alef */
	cr_assert_eq(sh->n, 2);
	cr_expect_eq(sh->v[0].gid, S_cmap(0xFEFC));
	cr_expect_eq(sh->v[0].cell, 1);
	cr_expect_eq(sh->v[0].ncells, 2);
	cr_expect_eq(sh->v[1].gid, S_cmap(0xFE91));
	sh = S_shape("\xD9\xBE\xD9\xBE", TB_PDF_DIR_AUTO); /* peh peh */
	cr_assert_eq(sh->n, 2);
	cr_expect_neq(sh->v[0].gid, S_cmap(0x067E), "final peh is not the isolated form");
	cr_expect_neq(sh->v[1].gid, S_cmap(0x067E), "initial peh is not the isolated form");
	cr_expect_neq(sh->v[0].gid, sh->v[1].gid);
}

/* A mark sits on its letter: no advance of its own, and the cluster's
 * text goes with one glyph. */
Test(pdf_shape, marks_sit_on_their_letters)
{
	const tb_pdf_shaped *sh = S_shape("\xD8\xA8\xD9\x90", TB_PDF_DIR_AUTO); /* beh kasra */
	cr_assert_eq(sh->n, 2);
	int marks = 0, texts = 0;
	for (size_t i = 0; i < sh->n; i++) {
		marks += sh->v[i].adv == 0;
		texts += sh->v[i].text;
		cr_expect_eq(sh->v[i].ncells, 2);
	}
	cr_expect_eq(marks, 1);
	cr_expect_eq(texts, 1);
	/* Latin: e and a combining acute become the precomposed glyph; q,
	 * which has none, gets the accent moved onto it */
	sh = S_shape("e\xCC\x81", TB_PDF_DIR_AUTO);
	cr_assert_eq(sh->n, 1);
	cr_expect_eq(sh->v[0].gid, S_cmap(0xE9));
	cr_expect_eq(sh->v[0].ncells, 2);
	sh = S_shape("q\xCC\x81", TB_PDF_DIR_AUTO);
	cr_assert_eq(sh->n, 2);
	cr_expect_eq(sh->v[1].adv, 0);
	cr_expect(sh->v[1].dx != 0 || sh->v[1].dy != 0);
}

/* Devanagari (Lohit): the vowel sign i is drawn before its consonant,
 * one cluster of two characters, and the run says its text. */
Test(pdf_shape, devanagari_vowel_sign_before_its_consonant)
{
	const tb_pdf_shaped *sh = S_shape("\xE0\xA4\x95\xE0\xA4\xBF", TB_PDF_DIR_AUTO); /* ki */
	cr_assert_eq(sh->n, 2);
	tb_pdf_font *f = tb_pdf_fontset_at(&S_st, sh->v[0].font);
	cr_expect_eq(sh->v[0].gid, tb_pdf_font_glyph(f, 0x093F), "the sign i comes first");
	cr_expect_eq(sh->v[0].cell, 0);
	cr_expect_eq(sh->v[0].ncells, 2);
	cr_expect(sh->nruns == 1 && sh->runs[0].reordered);
}

/* The shaper kerns: A then V draw closer than their advances. */
Test(pdf_shape, kerning)
{
	const tb_pdf_shaped *sh = S_shape("AV\xCC\x81", TB_PDF_DIR_AUTO);
	cr_assert(sh->n >= 2);
	cr_expect_lt(sh->v[0].adv, sh->v[0].w);
}

/* A character no font draws stops the document with its name. */
Test(pdf_shape, a_character_no_font_draws_is_refused)
{
	tb_pdf_options none = { .paper = TB_PAPER_A4, .fallback_fonts = (const char *const[]){NULL} };
	tb_pdf_fontset_release(&S_st);
	memset(S_st.fonts, 0, sizeof S_st.fonts);
	tb_pdf_fontset_init(&S_st, &none);
	S_st.cells.n = 0;
	tb_pdf_cells_add(&S_st.cells, 0, "\xE0\xA4\x95 \xD7\x90", 6); /* ka, alef */
	tb_pdf_shape(&S_st, &S_st.cells, TB_PDF_DIR_AUTO, &S_st.shaped);
	cr_expect(S_st.failed);
	cr_expect(S_d.n >= 1);
}
