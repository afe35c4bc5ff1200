/* sha256.h: FIPS 180-4 SHA-256, for the scenario hash in every report. */
#ifndef TB_SHA256_H
#define TB_SHA256_H

#include <stddef.h>

/* Writes 64 lowercase hex digits and a NUL to hex_out. */
void tb_sha256_hex(const void *data, size_t len, char hex_out[65]);

/* The same digest by the portable rounds whatever the CPU has, and the
 * name of the rounds tb_sha256_hex uses here ("x86 SHA extensions" or
 * "portable"): for tests and make bench. */
void tb_sha256_hex_portable(const void *data, size_t len, char hex_out[65]);
const char *tb_sha256_impl(void);

#endif
