/* test_pdf_break.c: where a line may break without a space
 * (src/pdf_break.c, ICU's UAX #14 and UAX #29): between Thai, Lao and
 * Khmer words as the dictionaries find them, between ideographs (UAX #14's
 * ID class) but not next to the punctuation kinsoku forbids, and never
 * inside a grapheme cluster (before a mark, after a joiner or a virama). */
#include <criterion/criterion.h>
#include <string.h>

#include "pdf_break.h"

static unsigned char S_b[256];

static const unsigned char *S_breaks(const char *s)
{
	tb_pdf_breaks(s, strlen(s), S_b);
	return S_b;
}

/* "ภาษาไทยเป็นภาษา": the words phasa | thai | pen | phasa, three bytes a
 * character. */
Test(pdf_break, thai_words)
{
	const unsigned char *b = S_breaks("\xE0\xB8\xA0\xE0\xB8\xB2\xE0\xB8\xA9\xE0\xB8\xB2"
	                                  "\xE0\xB9\x84\xE0\xB8\x97\xE0\xB8\xA2"
	                                  "\xE0\xB9\x80\xE0\xB8\x9B\xE0\xB9\x87\xE0\xB8\x99"
	                                  "\xE0\xB8\xA0\xE0\xB8\xB2\xE0\xB8\xA9\xE0\xB8\xB2");
	cr_expect_eq(b[12], TB_PDF_BREAK_WORD, "before thai");
	cr_expect_eq(b[21], TB_PDF_BREAK_WORD, "before pen");
	cr_expect_eq(b[33], TB_PDF_BREAK_WORD, "before phasa");
	cr_expect_eq(b[3], TB_PDF_BREAK_CHAR, "inside a word: only to cut it");
	cr_expect_eq(b[27], TB_PDF_BREAK_NONE, "not before the mark U+0E47");
	cr_expect_eq(b[1], TB_PDF_BREAK_NONE, "never inside a character");
}

Test(pdf_break, ideographs)
{
	const unsigned char *b = S_breaks("\xE8\xAE\xAD\xE7\xBB\x83" "GPU"); /* xunlian GPU */
	cr_expect_eq(b[3], TB_PDF_BREAK_WORD);
	/* ID then AL: no rule joins them, so LB31 allows the break */
	cr_expect_eq(b[6], TB_PDF_BREAK_WORD, "an ideograph then a Latin letter");
	cr_expect_eq(b[7], TB_PDF_BREAK_CHAR, "inside GPU: AL x AL (LB28)");
}

/* Lao and Burmese are written without spaces too: ICU's dictionaries
 * find "phasa | lao" and "bama | sa". */
Test(pdf_break, lao_and_burmese_words)
{
	const unsigned char *b = S_breaks("\xE0\xBA\x9E\xE0\xBA\xB2\xE0\xBA\xAA\xE0\xBA\xB2"
	                                  "\xE0\xBA\xA5\xE0\xBA\xB2\xE0\xBA\xA7");
	cr_expect_eq(b[12], TB_PDF_BREAK_WORD, "before lao");
	cr_expect_eq(b[3], TB_PDF_BREAK_CHAR, "inside phasa: only to cut it");
	b = S_breaks("\xE1\x80\x97\xE1\x80\x99\xE1\x80\xAC\xE1\x80\x85\xE1\x80\xAC");
	cr_expect_eq(b[9], TB_PDF_BREAK_WORD, "before sa");
	cr_expect_eq(b[10], TB_PDF_BREAK_NONE, "never inside a character");
	cr_expect_eq(b[3], TB_PDF_BREAK_CHAR, "inside bama: only to cut it");
}

/* Latin words break at spaces only: UAX #14 would allow a break after
 * the hyphen of GPU-hours (LB21 then LB31), which a report keeps whole;
 * a number with its separators is one word in any case (LB25). */
Test(pdf_break, latin_words_stay_whole)
{
	const unsigned char *b = S_breaks("GPU-hours");
	for (int i = 1; i < 9; i++)
		cr_expect_eq(b[i], TB_PDF_BREAK_CHAR, "byte %d", i);
	b = S_breaks("1,234.5");
	for (int i = 1; i < 7; i++)
		cr_expect_eq(b[i], TB_PDF_BREAK_CHAR, "byte %d", i);
}

Test(pdf_break, never_inside_a_cluster)
{
	/* Devanagari "nda": na, virama, da: the conjunct stays whole */
	const unsigned char *b = S_breaks("\xE0\xA4\xA8\xE0\xA5\x8D\xE0\xA4\xA6");
	cr_expect_eq(b[3], TB_PDF_BREAK_NONE, "not before the virama");
	cr_expect_eq(b[6], TB_PDF_BREAK_NONE, "not after it");
	/* a woman technologist: woman, ZWJ, laptop */
	b = S_breaks("\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x92\xBB");
	cr_expect_eq(b[4], TB_PDF_BREAK_NONE);
	cr_expect_eq(b[7], TB_PDF_BREAK_NONE);
	/* Latin: q with a combining acute, then b */
	b = S_breaks("q\xCC\x81" "b");
	cr_expect_eq(b[1], TB_PDF_BREAK_NONE);
	cr_expect_eq(b[3], TB_PDF_BREAK_CHAR);
	b = S_breaks("abc");
	cr_expect_eq(b[0], TB_PDF_BREAK_NONE);
	cr_expect_eq(b[1], TB_PDF_BREAK_CHAR);
}

/* Kinsoku (UAX #14's CL, IS, CJ and OP classes among ideographs): a line
 * never starts with the full stop, the comma, a closing bracket or a
 * small kana, and never ends with an opening bracket. */
Test(pdf_break, chinese_and_japanese_punctuation)
{
	/* 训练，模型。「数据」 */
	const unsigned char *b = S_breaks("\xE8\xAE\xAD\xE7\xBB\x83\xEF\xBC\x8C\xE6\xA8\xA1\xE5\x9E\x8B"
	                                  "\xE3\x80\x82\xE3\x80\x8C\xE6\x95\xB0\xE6\x8D\xAE\xE3\x80\x8D");
	cr_expect_eq(b[3], TB_PDF_BREAK_WORD, "between two ideographs");
	cr_expect_eq(b[6], TB_PDF_BREAK_CHAR, "not before the comma");
	cr_expect_eq(b[9], TB_PDF_BREAK_WORD, "after it");
	cr_expect_eq(b[15], TB_PDF_BREAK_CHAR, "not before the full stop");
	cr_expect_eq(b[18], TB_PDF_BREAK_WORD, "after it, before the opening bracket");
	cr_expect_eq(b[21], TB_PDF_BREAK_CHAR, "not after the opening bracket");
	cr_expect_eq(b[27], TB_PDF_BREAK_CHAR, "not before the closing bracket");
	/* ちょっと: no line starts with the small yo or tsu */
	b = S_breaks("\xE3\x81\xA1\xE3\x82\x87\xE3\x81\xA3\xE3\x81\xA8");
	cr_expect_eq(b[3], TB_PDF_BREAK_CHAR);
	cr_expect_eq(b[6], TB_PDF_BREAK_CHAR);
	cr_expect_eq(b[9], TB_PDF_BREAK_WORD);
}
