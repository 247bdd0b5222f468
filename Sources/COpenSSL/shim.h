#ifndef COpenSSL_SHIM_H
#define COpenSSL_SHIM_H
#include <openssl/evp.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/bn.h>
#include <openssl/ssl.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>

/* HKDF-SHA512 (RFC 5869) in one call. OSSL_PARAM keeps pointers to its key names, which Swift's
   temporary C strings would not outlive, so the parameters are built here in C. Returns 1 on success. */
static inline int simplex_hkdf_sha512(const unsigned char *salt, size_t salt_len,
                                      const unsigned char *ikm, size_t ikm_len,
                                      const unsigned char *info, size_t info_len,
                                      unsigned char *out, size_t out_len) {
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, NULL);
    if (ctx == NULL) return 0;
    int ok = EVP_PKEY_derive_init(ctx) == 1
        && EVP_PKEY_CTX_set_hkdf_md(ctx, EVP_sha512()) == 1
        && (salt_len == 0 || EVP_PKEY_CTX_set1_hkdf_salt(ctx, salt, (int)salt_len) == 1)
        && EVP_PKEY_CTX_set1_hkdf_key(ctx, ikm, (int)ikm_len) == 1
        && (info_len == 0 || EVP_PKEY_CTX_add1_hkdf_info(ctx, info, (int)info_len) == 1)
        && EVP_PKEY_derive(ctx, out, &out_len) == 1;
    EVP_PKEY_CTX_free(ctx);
    return ok;
}
#endif
