/* Constant-time check with valgrind memcheck (the "ctgrind" method): all
 * secret bytes (randomness, secret key) are marked undefined; memcheck then
 * reports any branch or memory index that depends on them. */
#include <valgrind/memcheck.h>
#define SNTRUP761_DECLASSIFY(p, len) VALGRIND_MAKE_MEM_DEFINED((p), (len))
#include "sntrup761.c"
#include <stdio.h>

static uint64_t st = 88172645463325252ULL;
static void rnd_secret(void *ctx, unsigned char *out, size_t len)
{
    (void)ctx;
    for (size_t i = 0; i < len; i++) { st ^= st << 13; st ^= st >> 7; st ^= st << 17; out[i] = (unsigned char)st; }
    VALGRIND_MAKE_MEM_UNDEFINED(out, len);
}

int main(void)
{
    unsigned char pk[1158], sk[1763], ct[1039], ss[32], ss2[32];
    for (int it = 0; it < 3; it++) {
        sntrup761_keypair(pk, sk, rnd_secret, NULL);
        VALGRIND_MAKE_MEM_DEFINED(pk, sizeof pk);          /* public */
        sntrup761_enc(ct, ss, pk, rnd_secret, NULL);
        VALGRIND_MAKE_MEM_DEFINED(ct, sizeof ct);          /* public */
        VALGRIND_MAKE_MEM_UNDEFINED(sk, 382);              /* f, 1/g */
        VALGRIND_MAKE_MEM_UNDEFINED(sk + 382 + 1158, 191); /* rho */
        sntrup761_dec(ss2, ct, sk);
        ct[it * 100] ^= 1;                                 /* rejection path too */
        sntrup761_dec(ss2, ct, sk);
        VALGRIND_MAKE_MEM_DEFINED(ss, 32);
        VALGRIND_MAKE_MEM_DEFINED(ss2, 32);
    }
    sntrup761_dec(ss2, ct, sk);
    VALGRIND_MAKE_MEM_DEFINED(ss2, 32);
    printf("done\n");
    return 0;
}
