/* SHA-256 (FIPS 180-4), for the OpenMP backend's object cache: an object
 * is loaded only when its bytes hash to what was recorded when it was
 * stored. */
#ifndef LBP_SHA256_H
#define LBP_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define LBP_SHA256_BYTES 32

typedef struct {
    uint32_t h[8];
    uint64_t length; /* bytes hashed so far */
    unsigned char block[64];
    size_t used; /* bytes of block filled */
} lbp_sha256;

void lbp_sha256_init(lbp_sha256 *s);
void lbp_sha256_update(lbp_sha256 *s, const void *bytes, size_t len);
void lbp_sha256_final(lbp_sha256 *s, unsigned char digest[LBP_SHA256_BYTES]);
/* The three in one, for bytes in memory. */
void lbp_sha256_of(const void *bytes, size_t len, unsigned char digest[LBP_SHA256_BYTES]);

#endif
