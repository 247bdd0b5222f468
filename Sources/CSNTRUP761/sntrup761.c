/*
 * sntrup761 -- Streamlined NTRU Prime key encapsulation, parameter set
 * sntrup761.
 *
 * An implementation written from the NTRU Prime round-3 specification
 * (NIST PQC submission "NTRU Prime: round 3", 2020; the same "sntrup761" as
 * SUPERCOP-20201130 and OpenSSH's sntrup761x25519-sha512). The NTRU Prime
 * algorithm is in the public domain.
 *
 * Parameters: p = 761, q = 4591, w = 286;  R = Z[x]/(x^p - x - 1).
 *
 * Formats (all byte-compatible with the reference implementation):
 *   public key    1158 bytes  Rq_encode(h),  h = g/(3f) in R/q
 *   secret key    1763 bytes  Small_encode(f) (191) || Small_encode(1/g in R/3) (191)
 *                             || pk (1158) || rho (191) || Hash4(pk) (32)
 *   ciphertext    1039 bytes  Rounded_encode(Round(h*r)) (1007) || HashConfirm(r, pk) (32)
 *   shared secret   32 bytes  HashSession(1, r, ct), or HashSession(0, rho, ct)
 *                             on rejection (implicit rejection)
 * Hash_b(x) is the first 32 bytes of SHA-512(b || x).
 *
 * All computations on secret data are constant time: no secret-dependent
 * branches or memory indices (fixed-weight vectors are made with a sorting
 * network; inversions use a fixed number of "divsteps").
 *
 * The hot loops (inversions, multiplications) run over int8/int16 arrays in
 * fixed-size blocks so that clang and gcc auto-vectorise them at -O2.
 * The code assumes two's-complement integers with arithmetic right shift of
 * negative values (true for gcc and clang on every supported target).
 */

#include "sntrup761.h"
#include "sntrup761_sha512.h"

#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* parameters                                                          */

#define P 761
#define Q 4591
#define W 286
#define Q12 ((Q - 1) / 2) /* 2295 */

#define SMALL_BYTES ((P + 3) / 4) /* 191 */
#define RQ_BYTES 1158
#define ROUNDED_BYTES 1007
#define HASH_BYTES 32
#define CT_BYTES (ROUNDED_BYTES + HASH_BYTES)                    /* 1039 */
#define SK_BYTES (2 * SMALL_BYTES + RQ_BYTES + SMALL_BYTES + HASH_BYTES) /* 1763 */

#if RQ_BYTES != SNTRUP761_PUBLICKEYBYTES || CT_BYTES != SNTRUP761_CIPHERTEXTBYTES || \
    SK_BYTES != SNTRUP761_SECRETKEYBYTES
#error "size mismatch"
#endif

/* Marks a secret-derived value as public (here: whether a random g was
 * invertible in R/3, which only leads to a retry with fresh randomness).
 * A no-op; constant-time test harnesses (valgrind/ctgrind) may define it. */
#ifndef SNTRUP761_DECLASSIFY
#define SNTRUP761_DECLASSIFY(p, len) ((void)(p), (void)(len))
#endif

/* Loops are written over blocks of BLK elements; arrays are padded to NPAD. */
#define BLK 32
#define NPAD 768 /* >= P + 1, multiple of BLK */

typedef int8_t small;

/* ------------------------------------------------------------------ */
/* helpers                                                             */

static void wipe(void *p, size_t n)
{
    volatile unsigned char *v = (volatile unsigned char *)p;
    while (n--) *v++ = 0;
}

/* -1 if x != 0, else 0 (x any int32 except INT32_MIN) */
static inline int32_t nonzero_mask(int32_t x)
{
    return (int32_t)(0 - ((uint32_t)(x | -x) >> 31));
}

/* -1 if x < 0, else 0 */
static inline int32_t negative_mask(int32_t x)
{
    return x >> 31;
}

/* Returns x through a volatile variable, so that the optimiser cannot know
 * that a mask is 0 or -1 and turn the masking into a (secret-dependent)
 * branch, as clang otherwise does in r3_recip. Portable C, no asm. */
static inline int32_t ct_launder(int32_t x)
{
    volatile int32_t v = x;
    return v;
}

/* ------------------------------------------------------------------ */
/* arithmetic mod q, representatives in [-Q12, Q12]                    */

/* Exact canonical reduction of any int16: x - q*round(x/q), using
 * round(x/q) = round(x * 29235 / 2^27) (exact for all |x| < 2^15). */
static inline int16_t fq_red16(int16_t x)
{
    int16_t hi = (int16_t)(((int32_t)x * 29235) >> 16);
    int16_t t = (int16_t)((hi + 1024) >> 11);
    return (int16_t)(x - t * Q);
}

/* Canonical reduction of |x| < 2^30. */
static inline int16_t fq_freeze32(int32_t x)
{
    int32_t t = (int32_t)(((int64_t)x * 935519 + ((int64_t)1 << 31)) >> 32);
    int32_t r = x - t * Q;
    r -= Q & negative_mask(Q12 - r);
    r += Q & negative_mask(r + Q12);
    return (int16_t)r;
}

/* For canonical c: round(c * 2^16 / q), the constant used by fq_mulc2. */
static inline int16_t fq_mulc_const(int16_t c)
{
    int32_t n = (int32_t)c * 65536 + Q12;
    int32_t t = (int32_t)(((int64_t)n * 935519) >> 32); /* floor(n/q) + {-1,0,1} */
    int32_t r = n - t * Q;
    int32_t m = negative_mask(r); /* r < 0 */
    t += m;
    r += Q & m;
    t -= negative_mask(Q - 1 - r); /* r >= q */
    return (int16_t)t;
}

/* high half of a signed 16x16-bit product */
static inline int16_t mulhi16(int16_t a, int16_t b)
{
    return (int16_t)(((int32_t)a * b) >> 16);
}

/* a*c - b*d mod q, for canonical c, d with cp = fq_mulc_const(c),
 * dp = fq_mulc_const(d), and any int16 a, b ("Shoup" multiplication by
 * precomputed constants, all in 16-bit lanes): a*c - q*floor(a*cp/2^16)
 * lies in (-0.25q, 1.25q), and in (-0.06q, 1.06q) when |a| < 1.5q; so the
 * result is in (-1.5q, 1.5q), and in (-1.12q, 1.12q) when |a|, |b| < 1.5q,
 * which keeps every coefficient in the divsteps below 1.5q in absolute value
 * without further reduction. */
static inline int16_t fq_mulc2(int16_t a, int16_t c, int16_t cp, int16_t b, int16_t d, int16_t dp)
{
    uint16_t t = (uint16_t)(mulhi16(a, cp) - mulhi16(b, dp));
    return (int16_t)(uint16_t)((uint32_t)(uint16_t)a * (uint16_t)c - (uint32_t)(uint16_t)b * (uint16_t)d -
                               (uint32_t)t * Q);
}

/* 1/a mod q (a nonzero mod q), by a^(q-2) */
static int16_t fq_recip(int16_t a)
{
    int32_t base = fq_freeze32(a);
    int32_t r = 1;
    int e = Q - 2;
    while (e) { /* public exponent */
        if (e & 1) r = fq_freeze32(r * base);
        base = fq_freeze32(base * base);
        e >>= 1;
    }
    return (int16_t)r;
}

/* ------------------------------------------------------------------ */
/* arithmetic mod 3, representatives -1, 0, 1                          */

/* x - 3*round(x/3), for |x| < 2^14 */
static inline small f3_freeze(int16_t x)
{
    return (small)(x - 3 * ((10923 * (int32_t)x + 16384) >> 15));
}

/* ------------------------------------------------------------------ */
/* polynomial multiplication                                           */

/* h = a*b in R/q; a canonical, b with coefficients in [-2, 2] */
static void rq_mult_small(int16_t h[P], const int16_t a[P], const small b[P])
{
    int16_t ap[NPAD];
    int16_t acc[2 * NPAD];
    int i, i0, j;

    memcpy(ap, a, P * sizeof(int16_t));
    memset(ap + P, 0, (NPAD - P) * sizeof(int16_t));
    memset(acc, 0, sizeof acc);

    /* int16 accumulation, reduced every 6 rows: 2295 + 6*2*2295 < 2^15 */
    for (i0 = 0; i0 < P; i0 += 6) {
        int iend = i0 + 6 < P ? i0 + 6 : P;
        int16_t *win;
        for (i = i0; i < iend; ++i) {
            int16_t bi = b[i];
            int16_t *row = acc + i;
            for (j = 0; j < NPAD; ++j) row[j] = (int16_t)(row[j] + bi * ap[j]);
        }
        win = acc + i0;
        for (j = 0; j < NPAD + 8; ++j) win[j] = fq_red16(win[j]);
    }

    /* x^p = x + 1 */
    h[0] = fq_red16((int16_t)(acc[0] + acc[P]));
    for (j = 1; j < P; ++j) h[j] = fq_red16((int16_t)(acc[j] + acc[j + P] + acc[j + P - 1]));

    wipe(acc, sizeof acc);
}

/* h = a*b in R/3; coefficients of a, b in [-2, 2] */
static void r3_mult(small h[P], const small a[P], const small b[P])
{
    int16_t bp[NPAD];
    int16_t acc[2 * NPAD];
    int i, j;

    for (j = 0; j < P; ++j) bp[j] = b[j];
    for (j = P; j < NPAD; ++j) bp[j] = 0;
    memset(acc, 0, sizeof acc);

    for (i = 0; i < P; ++i) {
        int16_t ai = a[i];
        int16_t *row = acc + i;
        for (j = 0; j < NPAD; ++j) row[j] = (int16_t)(row[j] + ai * bp[j]);
    }
    h[0] = f3_freeze((int16_t)(acc[0] + acc[P]));
    for (j = 1; j < P; ++j) h[j] = f3_freeze((int16_t)(acc[j] + acc[j + P] + acc[j + P - 1]));

    wipe(acc, sizeof acc);
    wipe(bp, sizeof bp);
}

/* ------------------------------------------------------------------ */
/* inversion by constant-time divsteps (Bernstein-Yang)                */
/*
 * Polynomials are handled "reversed": F = x^p f(1/x) etc., so that a
 * divstep looks at the constant coefficients.  Start with
 *   f = reverse(x^p - x - 1) = 1 - x^(p-1) - x^p,  g = reverse(input),
 *   delta = 1, v = 0, r = 1
 * and run 2p-1 steps of
 *   v = x*v;
 *   if delta > 0 and g(0) != 0: swap (f,g), (v,r), delta = -delta
 *   delta += 1
 *   g = (f(0)*g - g(0)*f)/x;   r = f(0)*r - g(0)*v.
 * The input is invertible iff delta == 0 at the end, and then its inverse
 * is reverse_{p-1}(v) / f(0).
 *
 * Work saving (data-independent bounds only): before step n, v and r have
 * at most n+1 nonzero coefficients, and of f, g only the coefficients below
 * 2p-1-n can still influence the remaining steps and the final f(0).
 * f and g are stored in natural order (the division by x is an in-place
 * downward shift); v and r are stored reversed (logical index i at
 * NPAD-1-i), so that the multiplication by x is an in-place downward shift
 * too. Loops run over whole blocks; the extra lanes only touch coefficients
 * that cannot influence the result.
 */

/* Returns 1/(3*in) in R/q. Always succeeds for nonzero small input, as
 * x^p - x - 1 is irreducible mod q. */
static void rq_recip3(int16_t out[P], const small in[P])
{
    int16_t f[NPAD + BLK], g[NPAD + BLK], vv[NPAD + BLK], rr[NPAD + BLK];
    /* Per-step constants, replicated into arrays. With a scalar broadcast
     * from outside the loop, clang does the 16-bit products in 32-bit lanes
     * (2-3 times slower on SSE2); loaded from an array they stay 16-bit. */
    int16_t swv[BLK], f0v[BLK], g0v[BLK], f0c[BLK], g0c[BLK];
    int16_t scale;
    int32_t delta = 1;
    int n, i, b, k;

    memset(f, 0, sizeof f);
    memset(g, 0, sizeof g);
    memset(vv, 0, sizeof vv);
    memset(rr, 0, sizeof rr);
    f[0] = 1;
    f[P - 1] = -1;
    f[P] = -1;
    for (i = 0; i < P; ++i) g[i] = in[P - 1 - i];
    rr[NPAD - 1] = 1;

    for (n = 0; n < 2 * P - 1; ++n) {
        int16_t a0 = fq_red16(f[0]), b0 = fq_red16(g[0]);
        int32_t swap = ct_launder(negative_mask(-delta) & nonzero_mask(b0));
        int16_t f0 = (int16_t)(a0 ^ (swap & (a0 ^ b0)));
        int16_t g0 = (int16_t)(b0 ^ (swap & (a0 ^ b0)));
        int16_t f0cs = fq_mulc_const(f0), g0cs = fq_mulc_const(g0);
        int fglen = 2 * P - 2 - n < P ? 2 * P - 2 - n : P;
        int vrlen = n + 1 < P ? n + 1 : P;
        int fgblocks = (fglen + BLK - 1) / BLK;
        int vrblocks = (vrlen + BLK - 1) / BLK;

        delta ^= swap & (delta ^ -delta);
        delta += 1;
        f[0] = f0;
        for (k = 0; k < BLK; ++k) {
            swv[k] = (int16_t)swap;
            f0v[k] = f0;
            g0v[k] = g0;
            f0c[k] = f0cs;
            g0c[k] = g0cs;
        }

        /* Each block is done in two passes (swap; arithmetic), the form in
         * which both gcc and clang keep all the arithmetic in 16-bit vector
         * lanes (pmulhw/pmullw on x86). */
        for (b = 0; b < fgblocks; ++b) {
            int16_t *fb = f + b * BLK, *gb = g + b * BLK;
            for (k = 0; k < BLK; ++k) {
                int16_t t = (int16_t)(swv[k] & (fb[k + 1] ^ gb[k + 1]));
                fb[k + 1] ^= t;
                gb[k + 1] ^= t;
            }
            /* g = (f0*g - g0*f)/x */
            for (k = 0; k < BLK; ++k) gb[k] = fq_mulc2(gb[k + 1], f0v[k], f0c[k], fb[k + 1], g0v[k], g0c[k]);
        }
        for (b = NPAD - vrblocks * BLK; b < NPAD; b += BLK) {
            int16_t *vb = vv + b, *rb = rr + b;
            for (k = 0; k < BLK; ++k) { /* v = x*v (a shift down: reversed storage), swap */
                int16_t vi = vb[k + 1], ri = rb[k];
                int16_t t = (int16_t)(swv[k] & (vi ^ ri));
                vb[k] = (int16_t)(vi ^ t);
                rb[k] = (int16_t)(ri ^ t);
            }
            /* r = f0*r - g0*v */
            for (k = 0; k < BLK; ++k) rb[k] = fq_mulc2(rb[k], f0v[k], f0c[k], vb[k], g0v[k], g0c[k]);
        }
    }

    /* 1/(3 f(0)) */
    scale = fq_recip(fq_freeze32(3 * (int32_t)fq_red16(f[0])));
    /* out[i] = scale * v[p-1-i] = scale * vv[NPAD-P+i] */
    for (i = 0; i < P; ++i) out[i] = fq_freeze32((int32_t)scale * vv[NPAD - P + i]);

    wipe(f, sizeof f);
    wipe(g, sizeof g);
    wipe(vv, sizeof vv);
    wipe(rr, sizeof rr);
}

/* x in [-2, 2] -> x mod 3 in [-1, 1] */
static inline small f3_red2(small x)
{
    return (small)(x + (3 & -(x < -1)) - (3 & -(x > 1)));
}

/* out = 1/in in R/3; returns 0 if in is invertible, -1 otherwise */
static int r3_recip(small out[P], const small in[P])
{
    small f[NPAD + BLK], g[NPAD + BLK], vv[NPAD + BLK], rr[NPAD + BLK];
    /* per-step constants as arrays (see rq_recip3); products with f0 = +-1
     * and g0 in {-1,0,1} as sign flips and masks: there is no byte multiply
     * on x86:   f0*x = (x ^ fneg) - fneg,   g0*x = ((x & gz) ^ gneg) - gneg */
    small swv[BLK], fnegv[BLK], gzv[BLK], gnegv[BLK];
    int32_t delta = 1;
    int n, i, b, k;
    small f0;

    memset(f, 0, sizeof f);
    memset(g, 0, sizeof g);
    memset(vv, 0, sizeof vv);
    memset(rr, 0, sizeof rr);
    f[0] = 1;
    f[P - 1] = -1;
    f[P] = -1;
    for (i = 0; i < P; ++i) g[i] = f3_freeze(in[P - 1 - i]);
    rr[NPAD - 1] = 1;

    for (n = 0; n < 2 * P - 1; ++n) {
        /* f[0] is always +-1; g[0] in {-1,0,1} */
        small a0 = f[0], b0 = g[0];
        int32_t swap = ct_launder(negative_mask(-delta) & nonzero_mask(b0));
        small g0, fneg, gz, gneg;
        int fglen = 2 * P - 2 - n < P ? 2 * P - 2 - n : P;
        int vrlen = n + 1 < P ? n + 1 : P;
        int fgblocks = (fglen + BLK - 1) / BLK;
        int vrblocks = (vrlen + BLK - 1) / BLK;

        f0 = (small)(a0 ^ (swap & (a0 ^ b0)));
        g0 = (small)(b0 ^ (swap & (a0 ^ b0)));
        delta ^= swap & (delta ^ -delta);
        delta += 1;
        f[0] = f0;

        fneg = (small)ct_launder(negative_mask(f0));
        gz = (small)ct_launder(nonzero_mask(g0));
        gneg = (small)ct_launder(negative_mask(g0));
        for (k = 0; k < BLK; ++k) {
            swv[k] = (small)swap;
            fnegv[k] = fneg;
            gzv[k] = gz;
            gnegv[k] = gneg;
        }

        for (b = 0; b < fgblocks; ++b) {
            small *fb = f + b * BLK, *gb = g + b * BLK;
            for (k = 0; k < BLK; ++k) {
                small t = (small)(swv[k] & (fb[k + 1] ^ gb[k + 1]));
                fb[k + 1] ^= t;
                gb[k + 1] ^= t;
            }
            /* g = (f0*g - g0*f)/x */
            for (k = 0; k < BLK; ++k)
                gb[k] = f3_red2((small)(((gb[k + 1] ^ fnegv[k]) - fnegv[k]) -
                                        (((fb[k + 1] & gzv[k]) ^ gnegv[k]) - gnegv[k])));
        }
        for (b = NPAD - vrblocks * BLK; b < NPAD; b += BLK) {
            small *vb = vv + b, *rb = rr + b;
            for (k = 0; k < BLK; ++k) { /* v = x*v, swap */
                small vi = vb[k + 1], ri = rb[k];
                small t = (small)(swv[k] & (vi ^ ri));
                vb[k] = (small)(vi ^ t);
                rb[k] = (small)(ri ^ t);
            }
            /* r = f0*r - g0*v */
            for (k = 0; k < BLK; ++k)
                rb[k] = f3_red2((small)(((rb[k] ^ fnegv[k]) - fnegv[k]) -
                                        (((vb[k] & gzv[k]) ^ gnegv[k]) - gnegv[k])));
        }
    }

    /* 1/f(0) = f(0) in F3 */
    f0 = f[0];
    for (i = 0; i < P; ++i) out[i] = (small)(f0 * vv[NPAD - P + i]);

    wipe(f, sizeof f);
    wipe(g, sizeof g);
    wipe(vv, sizeof vv);
    wipe(rr, sizeof rr);
    return (int)nonzero_mask(delta);
}

/* ------------------------------------------------------------------ */
/* encoding                                                            */

/* Encode(R, M) of the specification: R[i] < M[i] <= 2^14. Destroys R, M. */
static void encode(unsigned char *out, uint16_t *R, uint16_t *M, long len)
{
    while (len > 1) {
        long i;
        for (i = 0; i + 1 < len; i += 2) {
            uint32_t m = (uint32_t)M[i] * M[i + 1];
            uint32_t r = R[i] + (uint32_t)M[i] * R[i + 1];
            while (m >= 16384) { /* depends on public M only */
                *out++ = (unsigned char)r;
                r >>= 8;
                m = (m + 255) >> 8;
            }
            R[i / 2] = (uint16_t)r;
            M[i / 2] = (uint16_t)m;
        }
        if (len & 1) {
            R[i / 2] = R[len - 1];
            M[i / 2] = M[len - 1];
        }
        len = (len + 1) / 2;
    }
    if (len == 1) {
        uint32_t r = R[0], m = M[0];
        while (m > 1) {
            *out++ = (unsigned char)r;
            r >>= 8;
            m = (m + 255) >> 8;
        }
    }
}

/* x = quotient*m + remainder, m public with 1 < m < 2^16, x < 2^31,
 * without a data-dependent division. */
static inline uint32_t divmod_pub(uint32_t *rem, uint32_t x, uint32_t m, uint32_t minv)
{
    uint32_t qt = (uint32_t)(((uint64_t)x * minv) >> 32); /* floor(x/m) - {0,1} */
    uint32_t r = x - qt * m;
    uint32_t corr = (uint32_t)0 - ((m - 1 - r) >> 31); /* r >= m */
    qt -= corr;
    r -= m & corr;
    *rem = r;
    return qt;
}

#define DEC_MAXLEV 16

/* Decode(S, M) of the specification for len values all with modulus m0
 * (2 <= m0 <= 2^14). Output values are in [0, m0). Reads exactly as many
 * bytes as encode() writes. */
static void decode(uint16_t *out, const unsigned char *s, uint32_t m0, long len)
{
    uint16_t Mall[2 * P + DEC_MAXLEV];
    uint16_t Rall[2 * P + DEC_MAXLEV];
    long off[DEC_MAXLEV], n[DEC_MAXLEV], boff[DEC_MAXLEV];
    int lev = 0, k;
    long i;

    off[0] = 0;
    n[0] = len;
    boff[0] = 0;
    for (i = 0; i < len; ++i) Mall[i] = (uint16_t)m0;

    /* the modulus schedule and where each level's bytes start */
    while (n[lev] > 1) {
        const uint16_t *M = Mall + off[lev];
        uint16_t *M2 = Mall + off[lev] + n[lev];
        long nb = 0;
        for (i = 0; i + 1 < n[lev]; i += 2) {
            uint32_t m = (uint32_t)M[i] * M[i + 1];
            while (m >= 16384) {
                nb++;
                m = (m + 255) >> 8;
            }
            M2[i / 2] = (uint16_t)m;
        }
        if (n[lev] & 1) M2[i / 2] = M[n[lev] - 1];
        off[lev + 1] = off[lev] + n[lev];
        n[lev + 1] = (n[lev] + 1) / 2;
        boff[lev + 1] = boff[lev] + nb;
        lev++;
    }

    /* top level: one value */
    {
        uint32_t m = Mall[off[lev]], r = 0, t = 1, rem, minv;
        const unsigned char *sp = s + boff[lev];
        if (m > 1) {
            while (m > 1) {
                r += (uint32_t)(*sp++) * t;
                t <<= 8;
                m = (m + 255) >> 8;
            }
            m = Mall[off[lev]];
            minv = 0xffffffffu / m;
            divmod_pub(&rem, r, m, minv);
            Rall[off[lev]] = (uint16_t)rem;
        } else {
            Rall[off[lev]] = 0;
        }
    }

    for (k = lev - 1; k >= 0; --k) {
        const uint16_t *M = Mall + off[k];
        const uint16_t *R2 = Rall + off[k + 1];
        uint16_t *R = Rall + off[k];
        const unsigned char *sp = s + boff[k];
        uint32_t lastm0 = 0, inv0 = 0, lastm1 = 0, inv1 = 0;
        for (i = 0; i + 1 < n[k]; i += 2) {
            uint32_t ma = M[i], mb = M[i + 1];
            uint32_t m = ma * mb, r = 0, t = 1, x, r0, r1;
            while (m >= 16384) {
                r += (uint32_t)(*sp++) * t;
                t <<= 8;
                m = (m + 255) >> 8;
            }
            x = r + t * R2[i / 2];
            if (ma != lastm0) { lastm0 = ma; inv0 = 0xffffffffu / ma; }
            if (mb != lastm1) { lastm1 = mb; inv1 = 0xffffffffu / mb; }
            x = divmod_pub(&r0, x, ma, inv0);
            divmod_pub(&r1, x, mb, inv1);
            R[i] = (uint16_t)r0;
            R[i + 1] = (uint16_t)r1;
        }
        if (n[k] & 1) R[n[k] - 1] = R2[n[k + 1] - 1];
    }
    memcpy(out, Rall, (size_t)len * sizeof(uint16_t));
}

static void rq_encode(unsigned char *s, const int16_t h[P])
{
    uint16_t R[P], M[P];
    int i;
    for (i = 0; i < P; ++i) {
        R[i] = (uint16_t)(h[i] + Q12);
        M[i] = Q;
    }
    encode(s, R, M, P);
}

static void rq_decode(int16_t h[P], const unsigned char *s)
{
    uint16_t R[P];
    int i;
    decode(R, s, Q, P);
    for (i = 0; i < P; ++i) h[i] = (int16_t)(R[i] - Q12);
}

static void rounded_encode(unsigned char *s, const int16_t c[P])
{
    uint16_t R[P], M[P];
    int i;
    for (i = 0; i < P; ++i) {
        R[i] = (uint16_t)((((int32_t)c[i] + Q12) * 10923) >> 15); /* (c+Q12)/3 */
        M[i] = (Q + 2) / 3;
    }
    encode(s, R, M, P);
}

static void rounded_decode(int16_t c[P], const unsigned char *s)
{
    uint16_t R[P];
    int i;
    decode(R, s, (Q + 2) / 3, P);
    for (i = 0; i < P; ++i) c[i] = (int16_t)(R[i] * 3 - Q12);
}

static void small_encode(unsigned char *s, const small f[P])
{
    int i;
    for (i = 0; i < P / 4; ++i) {
        const small *x = f + 4 * i;
        s[i] = (unsigned char)((x[0] + 1) | ((x[1] + 1) << 2) | ((x[2] + 1) << 4) | ((x[3] + 1) << 6));
    }
    s[P / 4] = (unsigned char)(f[P - 1] + 1);
}

static void small_decode(small f[P], const unsigned char *s)
{
    int i, j;
    for (i = 0; i < P / 4; ++i)
        for (j = 0; j < 4; ++j) f[4 * i + j] = (small)(((s[i] >> (2 * j)) & 3) - 1);
    f[P - 1] = (small)((s[P / 4] & 3) - 1);
}

/* ------------------------------------------------------------------ */
/* random polynomials                                                  */

static inline uint32_t load_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static void random_u32(uint32_t *L, sntrup761_random_fn rnd, void *ctx)
{
    unsigned char buf[4 * P];
    int i;
    rnd(ctx, buf, sizeof buf);
    for (i = 0; i < P; ++i) L[i] = load_le32(buf + 4 * i);
    wipe(buf, sizeof buf);
}

/* constant-time compare-exchange: (a, b) = (min, max) */
static inline void cswap_u32(uint32_t *a, uint32_t *b)
{
    uint32_t x = *a, y = *b;
    /* y < x (unsigned), as the borrow of y - x */
    uint32_t lt = ((~y & x) | ((~y | x) & (y - x))) >> 31;
    uint32_t t = (x ^ y) & (0 - lt);
    *a = x ^ t;
    *b = y ^ t;
}

/* cswap_u32 on (a[k], b[k]) for k < 8, with a and b not overlapping;
 * through local copies, so that compilers vectorise it without alias checks */
static inline void cswap_u32_x8(uint32_t *a, uint32_t *b)
{
    uint32_t x[8], y[8];
    int k;
    memcpy(x, a, sizeof x);
    memcpy(y, b, sizeof y);
    for (k = 0; k < 8; ++k) cswap_u32(&x[k], &y[k]);
    memcpy(a, x, sizeof x);
    memcpy(b, y, sizeof y);
}

/* Batcher's merge-exchange sort (Knuth, TAOCP 5.2.2 algorithm M): a sorting
 * network, so the sequence of compare-exchanges depends only on n. */
static void sort_u32(uint32_t *x, long n)
{
    long top = 1, p, q, r, d, j, i;
    if (n < 2) return;
    while (2 * top < n) top *= 2;
    for (p = top; p > 0; p >>= 1) {
        q = top;
        r = 0;
        d = p;
        for (;;) {
            long end = n - d;
            for (j = r; j < end; j += 2 * p) {
                long lim = j + p < end ? j + p : end;
                i = j;
                if (d >= 8)
                    for (; i + 8 <= lim; i += 8) cswap_u32_x8(&x[i], &x[i + d]);
                for (; i < lim; ++i) cswap_u32(&x[i], &x[i + d]);
            }
            if (q == p) break;
            d = q - p;
            q >>= 1;
            r = p;
        }
    }
}

/* Short_random: a uniformly random small polynomial of weight w, made by
 * sorting 32-bit random keys tagged with the coefficients (4 bytes of
 * randomness per coefficient, as the reference does). */
static void short_random(small out[P], sntrup761_random_fn rnd, void *ctx)
{
    uint32_t L[P];
    int i;
    random_u32(L, rnd, ctx);
    for (i = 0; i < W; ++i) L[i] &= ~(uint32_t)1;               /* low bits 0 or 2: -1 or +1 */
    for (i = W; i < P; ++i) L[i] = (L[i] & ~(uint32_t)3) | 1;   /* low bits 1: 0 */
    sort_u32(L, P);
    for (i = 0; i < P; ++i) out[i] = (small)((L[i] & 3) - 1);
    wipe(L, sizeof L);
}

/* Small_random: independent uniform coefficients in {-1, 0, 1} */
static void small_random(small out[P], sntrup761_random_fn rnd, void *ctx)
{
    uint32_t L[P];
    int i;
    random_u32(L, rnd, ctx);
    for (i = 0; i < P; ++i) out[i] = (small)((((L[i] & 0x3fffffff) * 3) >> 30) - 1);
    wipe(L, sizeof L);
}

/* ------------------------------------------------------------------ */
/* hashing                                                             */

/* out = first 32 bytes of SHA-512(b || in) */
static void hash_prefix(unsigned char out[HASH_BYTES], unsigned char b, const unsigned char *in, size_t len)
{
    sntrup761_sha512_ctx c;
    unsigned char h[64];
    sntrup761_sha512_init(&c);
    sntrup761_sha512_update(&c, &b, 1);
    sntrup761_sha512_update(&c, in, len);
    sntrup761_sha512_final(&c, h);
    memcpy(out, h, HASH_BYTES);
    wipe(h, sizeof h);
}

/* HashConfirm(r, pk) = Hash_2(Hash_3(r_enc) || Hash_4(pk)) */
static void hash_confirm(unsigned char out[HASH_BYTES], const unsigned char r_enc[SMALL_BYTES],
                         const unsigned char cache[HASH_BYTES])
{
    unsigned char x[2 * HASH_BYTES];
    hash_prefix(x, 3, r_enc, SMALL_BYTES);
    memcpy(x + HASH_BYTES, cache, HASH_BYTES);
    hash_prefix(out, 2, x, sizeof x);
    wipe(x, sizeof x);
}

/* HashSession(b, y, z) = Hash_b(Hash_3(y) || z), z the whole ciphertext */
static void hash_session(unsigned char out[HASH_BYTES], unsigned char b, const unsigned char y[SMALL_BYTES],
                         const unsigned char z[CT_BYTES])
{
    sntrup761_sha512_ctx c;
    unsigned char h3[HASH_BYTES], h[64];
    hash_prefix(h3, 3, y, SMALL_BYTES);
    sntrup761_sha512_init(&c);
    sntrup761_sha512_update(&c, &b, 1);
    sntrup761_sha512_update(&c, h3, HASH_BYTES);
    sntrup761_sha512_update(&c, z, CT_BYTES);
    sntrup761_sha512_final(&c, h);
    memcpy(out, h, HASH_BYTES);
    wipe(h3, sizeof h3);
    wipe(h, sizeof h);
}

/* ------------------------------------------------------------------ */
/* core encryption                                                     */

/* c_enc = Rounded_encode(Round(h*r)) */
static void encrypt_core(unsigned char c_enc[ROUNDED_BYTES], const small r[P], const int16_t h[P])
{
    int16_t hr[P];
    int i;
    rq_mult_small(hr, h, r);
    for (i = 0; i < P; ++i) hr[i] = (int16_t)(hr[i] - f3_freeze(hr[i])); /* nearest multiple of 3 */
    rounded_encode(c_enc, hr);
    wipe(hr, sizeof hr);
}

/* r = Decrypt(c, f, 1/g): weight-w small, or (1,...,1,0,...,0) on failure */
static void decrypt_core(small r[P], const int16_t c[P], const small f[P], const small v[P])
{
    int16_t cf[P];
    small e[P], ev[P];
    int32_t weight = 0, mask;
    int i;

    rq_mult_small(cf, c, f);
    for (i = 0; i < P; ++i) e[i] = f3_freeze(fq_red16((int16_t)(3 * cf[i])));
    r3_mult(ev, e, v);
    for (i = 0; i < P; ++i) weight += ev[i] & 1;
    mask = ct_launder(nonzero_mask(weight - W)); /* 0 if weight w, else -1 */
    for (i = 0; i < W; ++i) r[i] = (small)(((ev[i] ^ 1) & ~mask) ^ 1);
    for (i = W; i < P; ++i) r[i] = (small)(ev[i] & ~mask);

    wipe(cf, sizeof cf);
    wipe(e, sizeof e);
    wipe(ev, sizeof ev);
}

/* ct = Rounded_encode(Round(h*r)) || HashConfirm(r, pk);  r_enc = Small_encode(r) */
static void hide(unsigned char ct[CT_BYTES], unsigned char r_enc[SMALL_BYTES], const small r[P],
                 const unsigned char *pk, const unsigned char cache[HASH_BYTES])
{
    int16_t h[P];
    small_encode(r_enc, r);
    rq_decode(h, pk);
    encrypt_core(ct, r, h);
    hash_confirm(ct + ROUNDED_BYTES, r_enc, cache);
}

/* ------------------------------------------------------------------ */
/* KEM                                                                 */

int sntrup761_keypair(unsigned char *pk, unsigned char *sk, sntrup761_random_fn rnd, void *ctx)
{
    small g[P], v[P], f[P];
    int16_t finv[P], h[P];
    int attempt;

    for (attempt = 0;; ++attempt) {
        if (attempt == 1000) { /* broken random source */
            memset(pk, 0, RQ_BYTES);
            memset(sk, 0, SK_BYTES);
            wipe(g, sizeof g);
            wipe(v, sizeof v);
            return -1;
        }
        int bad;
        small_random(g, rnd, ctx);
        bad = r3_recip(v, g);
        SNTRUP761_DECLASSIFY(&bad, sizeof bad);
        if (bad == 0) break;
    }
    short_random(f, rnd, ctx);
    rq_recip3(finv, f);
    rq_mult_small(h, finv, g); /* h = g/(3f) */

    rq_encode(pk, h);
    small_encode(sk, f);
    small_encode(sk + SMALL_BYTES, v);
    memcpy(sk + 2 * SMALL_BYTES, pk, RQ_BYTES);
    rnd(ctx, sk + 2 * SMALL_BYTES + RQ_BYTES, SMALL_BYTES); /* rho */
    hash_prefix(sk + 3 * SMALL_BYTES + RQ_BYTES, 4, pk, RQ_BYTES);

    wipe(g, sizeof g);
    wipe(v, sizeof v);
    wipe(f, sizeof f);
    wipe(finv, sizeof finv);
    return 0;
}

int sntrup761_enc(unsigned char *ct, unsigned char *ss, const unsigned char *pk, sntrup761_random_fn rnd,
                  void *ctx)
{
    small r[P];
    unsigned char r_enc[SMALL_BYTES];
    unsigned char cache[HASH_BYTES];

    hash_prefix(cache, 4, pk, RQ_BYTES);
    short_random(r, rnd, ctx);
    hide(ct, r_enc, r, pk, cache);
    hash_session(ss, 1, r_enc, ct);

    wipe(r, sizeof r);
    wipe(r_enc, sizeof r_enc);
    return 0;
}

int sntrup761_dec(unsigned char *ss, const unsigned char *ct, const unsigned char *sk)
{
    const unsigned char *pk = sk + 2 * SMALL_BYTES;
    const unsigned char *rho = pk + RQ_BYTES;
    const unsigned char *cache = rho + SMALL_BYTES;
    small f[P], v[P], r[P];
    int16_t c[P];
    unsigned char r_enc[SMALL_BYTES];
    unsigned char cnew[CT_BYTES];
    uint32_t diff = 0;
    unsigned char mask;
    int i;

    small_decode(f, sk);
    small_decode(v, sk + SMALL_BYTES);
    rounded_decode(c, ct);
    decrypt_core(r, c, f, v);
    hide(cnew, r_enc, r, pk, cache);

    for (i = 0; i < CT_BYTES; ++i) diff |= (uint32_t)(ct[i] ^ cnew[i]);
    mask = (unsigned char)ct_launder(nonzero_mask((int32_t)diff)); /* 0xff if the ciphertext was not genuine */
    for (i = 0; i < SMALL_BYTES; ++i) r_enc[i] ^= (unsigned char)(mask & (r_enc[i] ^ rho[i]));
    hash_session(ss, (unsigned char)(1 + (int8_t)mask) /* 1 or 0 */, r_enc, ct);

    wipe(f, sizeof f);
    wipe(v, sizeof v);
    wipe(r, sizeof r);
    wipe(r_enc, sizeof r_enc);
    wipe(cnew, sizeof cnew);
    return 0;
}
