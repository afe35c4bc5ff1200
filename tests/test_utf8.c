/* tb_utf8_seq: well-formed UTF-8 as RFC 3629 (Sec. 4) and the Unicode
 * Standard's Table 3-7 define it, byte ranges per lead byte, nothing looser. */
#include <criterion/criterion.h>
#include <string.h>

#include "utf8.h"

static size_t seq(const char *s, size_t n, uint32_t *cp)
{
	return tb_utf8_seq((const unsigned char *)s, n, cp);
}

Test(utf8, well_formed_sequences)
{
	uint32_t cp = 0;
	cr_expect_eq(seq("A", 1, &cp), 1);
	cr_expect_eq(cp, 'A');
	cr_expect_eq(seq("", 1, &cp), 1, "a NUL is one ASCII byte");
	cr_expect_eq(seq("\xC2\x80", 2, &cp), 2);
	cr_expect_eq(cp, 0x80);
	cr_expect_eq(seq("\xC3\x97", 2, &cp), 2);           /* × */
	cr_expect_eq(cp, 0xD7);
	cr_expect_eq(seq("\xE2\x82\xAC", 3, &cp), 3);       /* € */
	cr_expect_eq(cp, 0x20AC);
	cr_expect_eq(seq("\xEF\xBF\xBD", 3, &cp), 3);
	cr_expect_eq(cp, 0xFFFD);
	cr_expect_eq(seq("\xF0\x9F\x98\x80", 4, &cp), 4);   /* U+1F600 */
	cr_expect_eq(cp, 0x1F600);
	cr_expect_eq(seq("\xF4\x8F\xBF\xBF", 4, &cp), 4);
	cr_expect_eq(cp, 0x10FFFF);
	cr_expect_eq(seq("\xE2\x82\xAC", 3, NULL), 3, "the code point is optional");
}

Test(utf8, ill_formed_sequences)
{
	static const char *const bad[] = {
		"\x80", "\xBF",                 /* stray continuation */
		"\xC0\xAF", "\xC1\xBF",         /* overlong two-byte */
		"\xE0\x80\xAF", "\xE0\x9F\xBF", /* overlong three-byte */
		"\xF0\x80\x80\xAF",             /* overlong four-byte */
		"\xED\xA0\x80", "\xED\xBF\xBF", /* surrogates */
		"\xF4\x90\x80\x80",             /* past U+10FFFF */
		"\xF5\x80\x80\x80", "\xFF",     /* no such lead byte */
		"\xE2\x82", "\xE2\x82" "A",     /* cut short */
		"\xC3",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		uint32_t cp = 7;
		cr_expect_eq(seq(bad[i], strlen(bad[i]) + 1, &cp), 0, "case %zu", i);
		cr_expect_eq(cp, 7, "case %zu leaves the code point", i);
	}
	cr_expect_eq(seq("\xE2\x82\xAC", 2, NULL), 0, "n cuts it short");
	cr_expect_eq(seq("A", 0, NULL), 0, "nothing to read");
}
