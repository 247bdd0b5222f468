/*
 * sntrup761: Streamlined NTRU Prime key encapsulation, parameter set
 * sntrup761 (p = 761, q = 4591, w = 286), as specified in the NTRU Prime
 * round-3 NIST submission (the "sntrup761" of SUPERCOP-20201130, used by
 * OpenSSH's sntrup761x25519-sha512 and by SimpleX).
 *
 * Sizes: public key 1158 bytes, secret key 1763 bytes, ciphertext 1039
 * bytes, shared secret 32 bytes.
 *
 * Randomness is supplied by the caller through a callback, so the caller
 * decides where it comes from and tests can be deterministic.
 */
#ifndef SNTRUP761_H
#define SNTRUP761_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SNTRUP761_PUBLICKEYBYTES 1158
#define SNTRUP761_SECRETKEYBYTES 1763
#define SNTRUP761_CIPHERTEXTBYTES 1039
#define SNTRUP761_BYTES 32

/* Fills `len` bytes at `out` with uniformly random bytes. */
typedef void (*sntrup761_random_fn)(void *ctx, unsigned char *out, size_t len);

/* All return 0 on success. */

/* Generates a key pair. Returns -1 only if the random source is so broken
 * that no invertible polynomial was found in 1000 attempts (pk, sk are then
 * zero-filled). */
int sntrup761_keypair(unsigned char *pk, unsigned char *sk,
                      sntrup761_random_fn rnd, void *ctx);

/* Encapsulates to `pk`: writes a ciphertext `ct` and the shared secret `ss`.
 * Any 1158-byte string is accepted as a public key. */
int sntrup761_enc(unsigned char *ct, unsigned char *ss,
                  const unsigned char *pk,
                  sntrup761_random_fn rnd, void *ctx);

/* Decapsulates `ct` with `sk`. Implicit rejection: an invalid ciphertext
 * yields a pseudo-random shared secret derived from the secret key, so this
 * always writes `ss` and returns 0. */
int sntrup761_dec(unsigned char *ss, const unsigned char *ct,
                  const unsigned char *sk); /* implicit rejection: always writes ss, returns 0 */

#ifdef __cplusplus
}
#endif

#endif /* SNTRUP761_H */
