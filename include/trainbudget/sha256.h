/* sha256.h: FIPS 180-4 SHA-256, for the scenario hash in every report. */
#ifndef TB_SHA256_H
#define TB_SHA256_H

#include <stddef.h>
#include <stdint.h>

/* Writes 64 lowercase hex digits and a NUL to hex_out. */
void tb_sha256_hex(const void *data, size_t len, char hex_out[65]);

/* The same digest of bytes given in pieces: the digest of what was given
 * so far can be read and more given after it (a PDF's /ID is the hash of
 * the file before its trailer, the manifest's of the whole file: one
 * pass makes both). */
typedef struct tb_sha256 {
	uint32_t h[8];
	uint64_t len;           /* bytes given */
	unsigned char part[64]; /* the last len % 64 of them */
} tb_sha256;
void tb_sha256_init(tb_sha256 *s);
void tb_sha256_update(tb_sha256 *s, const void *data, size_t len);
void tb_sha256_hex_so_far(const tb_sha256 *s, char hex_out[65]);

/* The same digest by the portable rounds whatever the CPU has, and the
 * name of the rounds tb_sha256_hex uses here ("x86 SHA extensions" or
 * "portable"): for tests and make bench. */
void tb_sha256_hex_portable(const void *data, size_t len, char hex_out[65]);
const char *tb_sha256_impl(void);

#endif
