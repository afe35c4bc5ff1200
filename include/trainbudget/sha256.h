/* sha256.h: FIPS 180-4 SHA-256, for the scenario hash in every report. */
#ifndef TB_SHA256_H
#define TB_SHA256_H

#include <stddef.h>

/* Writes 64 lowercase hex digits and a NUL to hex_out. */
void tb_sha256_hex(const void *data, size_t len, char hex_out[65]);

#endif
