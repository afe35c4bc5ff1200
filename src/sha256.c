/* sha256.c: FIPS 180-4 SHA-256, small and dependency-free, so the hash
 * printed in every report needs no crypto library.  Where the CPU has the
 * x86 SHA extensions (Intel since Goldmont and Ice Lake, AMD since Zen),
 * the rounds run on them: a full report hashes its inputs and every file
 * it writes, 28M instructions of 181M in the portable rounds. */
#include "trainbudget/sha256.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define S_HAVE_SHA_NI 1
#include <cpuid.h>
#include <immintrin.h>
/* glibc (2.33 on) keeps what its start-up learned of the CPU: asked
 * there, the answer costs no CPUID, which a virtual machine traps (7-10
 * us each measured here, two of them in every run that hashed) */
#if defined(__has_include)
#if __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h>
#if defined(CPU_FEATURE_ACTIVE)
#define S_HAVE_GLIBC_CPU 1
#endif
#endif
#endif
#endif

static const uint32_t S_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t S_rotr(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

static void S_block(uint32_t h[8], const unsigned char *p)
{
	/* h is the state as FIPS 180-4 orders it: a to h */
	uint32_t w[64];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = S_rotr(w[i - 15], 7) ^ S_rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = S_rotr(w[i - 2], 17) ^ S_rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	uint32_t a = h[0], b = h[1], c = h[2], d = h[3];
	uint32_t e = h[4], f = h[5], g = h[6], k = h[7];
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = k + (S_rotr(e, 6) ^ S_rotr(e, 11) ^ S_rotr(e, 25)) +
		              ((e & f) ^ (~e & g)) + S_k[i] + w[i];
		uint32_t t2 = (S_rotr(a, 2) ^ S_rotr(a, 13) ^ S_rotr(a, 22)) +
		              ((a & b) ^ (a & c) ^ (b & c));
		k = g; g = f; f = e; e = d + t1;
		d = c; c = b; b = a; a = t1 + t2;
	}
	h[0] += a; h[1] += b; h[2] += c; h[3] += d;
	h[4] += e; h[5] += f; h[6] += g; h[7] += k;
}

static void S_blocks_portable(uint32_t h[8], const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		S_block(h, p + 64 * i);
}

#ifdef S_HAVE_SHA_NI
/* The same rounds on the SHA extensions: sha256rnds2 does two rounds on
 * the state held as ABEF and CDGH, sha256msg1 and sha256msg2 the message
 * schedule's sigma0 and sigma1 halves, four words at a time. */
__attribute__((target("sha,sse4.1")))
static void S_blocks_shani(uint32_t h[8], const unsigned char *p, size_t n)
{
	const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
	__m128i dcba = _mm_loadu_si128((const __m128i *)(const void *)h);
	__m128i hgfe = _mm_loadu_si128((const __m128i *)(const void *)(h + 4));
	__m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
	__m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
	__m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
	__m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);
	for (size_t blk = 0; blk < n; blk++, p += 64) {
		__m128i abef0 = abef, cdgh0 = cdgh, m[4];
		for (int j = 0; j < 4; j++)
			m[j] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 16 * j)),
			                        swap);
		for (int g = 0; g < 16; g++) {
			/* m[g % 4] holds w[4g..4g+3]: from the schedule past the
			 * first 16 words */
			if (g >= 4) {
				__m128i x = _mm_sha256msg1_epu32(m[g % 4], m[(g + 1) % 4]);
				x = _mm_add_epi32(x, _mm_alignr_epi8(m[(g + 3) % 4], m[(g + 2) % 4], 4));
				m[g % 4] = _mm_sha256msg2_epu32(x, m[(g + 3) % 4]);
			}
			__m128i wk = _mm_add_epi32(m[g % 4],
			                           _mm_loadu_si128((const __m128i *)(const void *)(S_k + 4 * g)));
			cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);
			abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(wk, 0x0E));
		}
		abef = _mm_add_epi32(abef, abef0);
		cdgh = _mm_add_epi32(cdgh, cdgh0);
	}
	__m128i feba = _mm_shuffle_epi32(abef, 0x1B);
	__m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
	_mm_storeu_si128((__m128i *)(void *)h, _mm_blend_epi16(feba, dchg, 0xF0));
	_mm_storeu_si128((__m128i *)(void *)(h + 4), _mm_alignr_epi8(dchg, feba, 8));
}

static bool S_cpu_has_sha(void)
{
#ifdef S_HAVE_GLIBC_CPU
	return CPU_FEATURE_ACTIVE(SHA) && CPU_FEATURE_ACTIVE(SSSE3) && CPU_FEATURE_ACTIVE(SSE4_1);
#else
	unsigned a, b, c, d;
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(b & (1u << 29)))
		return false;
	/* SSSE3 and SSE4.1 for the shuffles and blends */
	return __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 9)) && (c & (1u << 19));
#endif
}
#endif

typedef void (*S_blocks_fn)(uint32_t h[8], const unsigned char *p, size_t n);

static S_blocks_fn S_pick(void)
{
#ifdef S_HAVE_SHA_NI
	if (S_cpu_has_sha())
		return S_blocks_shani;
#endif
	return S_blocks_portable;
}

static const uint32_t S_h0[8] = {
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

/* The digest of h after `len` bytes, the last len % 64 of them in part:
 * the padding and the length, then the state as hex. */
static void S_finish(S_blocks_fn blocks, const uint32_t h0[8], const unsigned char *part,
                     uint64_t len, char hex_out[65])
{
	uint32_t h[8];
	memcpy(h, h0, sizeof h);
	size_t left = (size_t)(len % 64);
	unsigned char tail[128];
	memset(tail, 0, sizeof tail);
	if (left)
		memcpy(tail, part, left);
	tail[left] = 0x80;
	size_t tlen = left + 1 + 8 <= 64 ? 64 : 128;
	uint64_t bits = len * 8;
	for (int i = 0; i < 8; i++)
		tail[tlen - 1 - i] = (unsigned char)(bits >> (8 * i));
	blocks(h, tail, tlen / 64);
	static const char hexd[] = "0123456789abcdef";
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 8; j++)
			hex_out[i * 8 + j] = hexd[(h[i] >> (28 - 4 * j)) & 0xf];
	hex_out[64] = '\0';
}

static void S_hex(S_blocks_fn blocks, const void *data, size_t len, char hex_out[65])
{
	uint32_t h[8];
	memcpy(h, S_h0, sizeof h);
	size_t whole = len / 64;
	if (whole)
		blocks(h, data, whole);
	S_finish(blocks, h, (const unsigned char *)data + 64 * whole, len, hex_out);
}

static S_blocks_fn S_blocks(void)
{
	/* chosen once; a race between threads writes the same value */
	static S_blocks_fn blocks;
	S_blocks_fn f = __atomic_load_n(&blocks, __ATOMIC_RELAXED);
	if (!f) {
		f = S_pick();
		__atomic_store_n(&blocks, f, __ATOMIC_RELAXED);
	}
	return f;
}

void tb_sha256_hex(const void *data, size_t len, char hex_out[65])
{
	S_hex(S_blocks(), data, len, hex_out);
}

void tb_sha256_init(tb_sha256 *s)
{
	memcpy(s->h, S_h0, sizeof s->h);
	s->len = 0;
}

void tb_sha256_update(tb_sha256 *s, const void *data, size_t len)
{
	if (len == 0)           /* data may then be NULL: nothing to copy */
		return;
	const unsigned char *p = data;
	size_t have = (size_t)(s->len % 64);
	s->len += len;
	if (have) {
		size_t take = 64 - have < len ? 64 - have : len;
		memcpy(s->part + have, p, take);
		p += take;
		len -= take;
		if (have + take < 64)
			return;
		S_blocks()(s->h, s->part, 1);
	}
	size_t whole = len / 64;
	if (whole)
		S_blocks()(s->h, p, whole);
	if (len % 64)
		memcpy(s->part, p + 64 * whole, len % 64);
}

void tb_sha256_hex_so_far(const tb_sha256 *s, char hex_out[65])
{
	S_finish(S_blocks(), s->h, s->part, s->len, hex_out);
}

void tb_sha256_hex_portable(const void *data, size_t len, char hex_out[65])
{
	S_hex(S_blocks_portable, data, len, hex_out);
}

const char *tb_sha256_impl(void)
{
	return S_pick() == S_blocks_portable ? "portable" : "x86 SHA extensions";
}
