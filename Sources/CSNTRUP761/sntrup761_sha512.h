/*
 * Internal SHA-512 (FIPS 180-4) used by sntrup761. Not part of the public API.
 */
#ifndef SNTRUP761_SHA512_H
#define SNTRUP761_SHA512_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t h[8];
    uint64_t nbytes;          /* total bytes absorbed (inputs < 2^61 bytes) */
    unsigned char buf[128];
    size_t buflen;
} sntrup761_sha512_ctx;

void sntrup761_sha512_init(sntrup761_sha512_ctx *c);
void sntrup761_sha512_update(sntrup761_sha512_ctx *c, const unsigned char *in, size_t len);
void sntrup761_sha512_final(sntrup761_sha512_ctx *c, unsigned char out[64]);
/* One-shot: out = SHA-512(in[0..len-1]). */
void sntrup761_sha512(unsigned char out[64], const unsigned char *in, size_t len);

#endif
