#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/pem.h>
#include <openssl/bio.h>
#include <openssl/ec.h>

// OpenSSL spells these as macros over SSL_CTX_ctrl and friends; Swift imports functions only.
static inline int copenssl_ctx_set_min_proto(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}
static inline int copenssl_ctx_set_max_proto(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_max_proto_version(ctx, version);
}
static inline long copenssl_ctx_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}
static inline int copenssl_ctx_set_groups(SSL_CTX *ctx, const char *list) {
    return (int)SSL_CTX_set1_groups_list(ctx, list);
}
static inline int copenssl_set_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}
static inline EVP_PKEY *copenssl_ec_p256_key(void) {
    return EVP_EC_gen("P-256");
}
static inline long copenssl_bio_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}

static const long COPENSSL_MODE_RELEASE_BUFFERS = SSL_MODE_RELEASE_BUFFERS;
static const long COPENSSL_MODE_PARTIAL_WRITE = SSL_MODE_ENABLE_PARTIAL_WRITE;
static const long COPENSSL_MODE_MOVING_BUFFER = SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER;
static const uint64_t COPENSSL_OP_NO_COMPRESSION = SSL_OP_NO_COMPRESSION;
static const uint64_t COPENSSL_OP_NO_RENEGOTIATION = SSL_OP_NO_RENEGOTIATION;
static const int COPENSSL_TLS1_2_VERSION = TLS1_2_VERSION;
static const int COPENSSL_TLS1_3_VERSION = TLS1_3_VERSION;
#endif
