/* Malformed-input safety: run under -fsanitize=address,undefined.
 * usage: malformed_input N */
#include "sntrup761.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t st = 0x1234567887654321ULL;
static uint64_t xr(void) { st ^= st << 13; st ^= st >> 7; st ^= st << 17; return st; }
static void rnd_cb(void *ctx, unsigned char *out, size_t len) { (void)ctx; for (size_t i = 0; i < len; i++) out[i] = (unsigned char)xr(); }
static void fill(unsigned char *p, size_t n, int mode)
{
    for (size_t i = 0; i < n; i++) p[i] = mode == 0 ? (unsigned char)xr() : mode == 1 ? 0xff : mode == 2 ? 0x00 : (unsigned char)(0xf0 | (xr() & 0x0f));
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 300;
    /* exact-size heap buffers so that ASan sees any overread */
    unsigned char *pk = malloc(SNTRUP761_PUBLICKEYBYTES), *sk = malloc(SNTRUP761_SECRETKEYBYTES);
    unsigned char *ct = malloc(SNTRUP761_CIPHERTEXTBYTES), *ss = malloc(SNTRUP761_BYTES), *ss2 = malloc(SNTRUP761_BYTES);
    unsigned char *gpk = malloc(SNTRUP761_PUBLICKEYBYTES), *gsk = malloc(SNTRUP761_SECRETKEYBYTES);
    long dec_garbage = 0, enc_garbage = 0, dec_garbage_sk = 0, roundtrip = 0;
    if (sntrup761_keypair(pk, sk, rnd_cb, NULL) != 0) return 1;
    for (int it = 0; it < n; it++) {
        int mode = it < 12 ? it % 4 : 0;
        if (it % 50 == 0) { if (sntrup761_keypair(pk, sk, rnd_cb, NULL) != 0) return 1; }
        /* 1. decapsulation of garbage ciphertexts */
        fill(ct, SNTRUP761_CIPHERTEXTBYTES, mode);
        if (sntrup761_dec(ss, ct, sk) != 0) return 2;
        dec_garbage++;
        /* 2. encapsulation to a garbage "public key", then decapsulation
         *    of that ciphertext with a real key (rejection path) */
        fill(gpk, SNTRUP761_PUBLICKEYBYTES, mode);
        if (sntrup761_enc(ct, ss, gpk, rnd_cb, NULL) != 0) return 3;
        if (sntrup761_dec(ss2, ct, sk) != 0) return 4;
        enc_garbage++;
        /* 3. (beyond the brief) garbage secret keys must not crash either */
        fill(gsk, SNTRUP761_SECRETKEYBYTES, mode);
        fill(ct, SNTRUP761_CIPHERTEXTBYTES, 0);
        if (sntrup761_dec(ss2, ct, gsk) != 0) return 5;
        dec_garbage_sk++;
        /* 4. genuine round trip still works in the same binary */
        if (sntrup761_enc(ct, ss, pk, rnd_cb, NULL) != 0) return 6;
        sntrup761_dec(ss2, ct, sk);
        if (memcmp(ss, ss2, 32) != 0) { printf("round trip failed\n"); return 7; }
        roundtrip++;
    }
    printf("sanitizer fuzz OK: dec(garbage ct)=%ld enc(garbage pk)+dec=%ld dec(garbage sk)=%ld roundtrips=%ld\n",
           dec_garbage, enc_garbage, dec_garbage_sk, roundtrip);
    free(pk); free(sk); free(ct); free(ss); free(ss2); free(gpk); free(gsk);
    return 0;
}
