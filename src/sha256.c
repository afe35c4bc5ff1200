/* PLACEHOLDER: replaced by its owner; see include/trainbudget/. */
#include "trainbudget/sha256.h"
#include <string.h>
void tb_sha256_hex(const void *d, size_t l, char h[65]) { (void)d; (void)l; memset(h, '0', 64); h[64] = 0; }
