/* FIPS 180-4 / NIST CSRC example vectors for SHA-256. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "trainbudget/sha256.h"

/* Both rounds, the ones this CPU uses and the portable ones, give the
 * published digest. */
static void S_check(const char *msg, size_t len, const char *want)
{
	char hex[65];
	tb_sha256_hex(msg, len, hex);
	cr_assert_str_eq(hex, want, "%s", tb_sha256_impl());
	tb_sha256_hex_portable(msg, len, hex);
	cr_assert_str_eq(hex, want, "portable");
}

Test(sha256, abc)
{
	S_check("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

Test(sha256, empty)
{
	S_check("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

Test(sha256, two_blocks_448_bits)
{
	const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	S_check(m, strlen(m), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

Test(sha256, million_a)
{
	size_t n = 1000000;
	char *m = malloc(n);
	cr_assert(m);
	memset(m, 'a', n);
	S_check(m, n, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(m);
}

Test(sha256, boundary_55_56_64)
{
	/* 55 bytes fit the length in one padded block; 56 need a second. */
	char m[64];
	memset(m, 'a', sizeof m);
	S_check(m, 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
	S_check(m, 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
	S_check(m, 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

/* Every length from 0 to 1,100 bytes of pseudo-random data: the rounds
 * this CPU uses agree with the portable ones (each whole block, each tail
 * and its padding). */
Test(sha256, both_rounds_agree_on_every_length)
{
	unsigned char buf[1100];
	uint32_t x = 2463534242u;
	for (size_t i = 0; i < sizeof buf; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		buf[i] = (unsigned char)x;
	}
	for (size_t n = 0; n <= sizeof buf; n++) {
		char a[65], b[65];
		tb_sha256_hex(buf, n, a);
		tb_sha256_hex_portable(buf, n, b);
		cr_assert_str_eq(a, b, "length %zu (%s)", n, tb_sha256_impl());
	}
}

/* Given in pieces (tb_sha256_update): the published digests, whatever the
 * pieces' sizes, and the digest so far read between pieces without
 * changing what follows (a PDF reads its /ID so, then its file's). */
Test(sha256, in_pieces_the_same_digest_and_the_digest_so_far)
{
	const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	size_t n = strlen(m);
	static const size_t cuts[] = { 1, 3, 7, 55, 56, 63, 64, 65 };
	for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
		tb_sha256 s;
		tb_sha256_init(&s);
		char hex[65];
		size_t at = 0;
		while (at < n) {
			size_t k = n - at < cuts[c] ? n - at : cuts[c];
			if (at < 3 && at + k > 3)
				k = 3 - at;     /* a stop after "abc" */
			tb_sha256_update(&s, m + at, k);
			at += k;
			if (at == 3) {
				tb_sha256_hex_so_far(&s, hex);
				cr_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
				                 "\"abc\" so far, pieces of %zu", cuts[c]);
			}
		}
		tb_sha256_hex_so_far(&s, hex);
		cr_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
		                 "pieces of %zu", cuts[c]);
	}

	/* nothing given, or no bytes: the empty message's digest */
	tb_sha256 e;
	tb_sha256_init(&e);
	tb_sha256_update(&e, NULL, 0);
	char ehex[65];
	tb_sha256_hex_so_far(&e, ehex);
	cr_assert_str_eq(ehex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");

	/* a million a's in uneven pieces */
	size_t big = 1000000;
	char *a = malloc(big);
	cr_assert(a);
	memset(a, 'a', big);
	tb_sha256 s;
	tb_sha256_init(&s);
	for (size_t at = 0, k = 1; at < big; at += k, k = k * 7 % 1013 + 1)
		tb_sha256_update(&s, a + at, big - at < k ? big - at : k);
	char hex[65];
	tb_sha256_hex_so_far(&s, hex);
	cr_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(a);
}
