/* batch_sha256.h - SHA-256 (FIPS 180-4), to know a source from another. */
#ifndef BUTTERFLY_BATCH_SHA256_H
#define BUTTERFLY_BATCH_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define BATCH_SHA256_HEX 65   /* 64 hex digits and a NUL */

/* The SHA-256 of len bytes at data into out. */
void batch_sha256(const void *data, size_t len, uint8_t out[32]);

/* The same as 64 lower-case hex digits, NUL-terminated. */
void batch_sha256_hex(const void *data, size_t len, char out[BATCH_SHA256_HEX]);

#endif
