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
#include <openssl/core_names.h>
#include <openssl/param_build.h>

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

// ALPN (CONTRACT §9): the server's choice among what the client offers, in the server's
// order of preference: `chorus` for our own clients, then `http/1.1`. Never `h2`. With
// nothing in common the handshake goes on without ALPN (the first bytes decide then).
static const unsigned char copenssl_server_alpn[] = "\x06" "chorus" "\x08" "http/1.1";
static inline int copenssl_alpn_select(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                                       const unsigned char *in, unsigned int inlen, void *arg) {
    (void)ssl; (void)arg;
    unsigned char *chosen = NULL;
    unsigned char chosen_length = 0;
    if (SSL_select_next_proto(&chosen, &chosen_length, copenssl_server_alpn, sizeof(copenssl_server_alpn) - 1,
                              in, inlen) != OPENSSL_NPN_NEGOTIATED) {
        return SSL_TLSEXT_ERR_NOACK;
    }
    *out = chosen;
    *outlen = chosen_length;
    return SSL_TLSEXT_ERR_OK;
}
static inline void copenssl_ctx_select_alpn(SSL_CTX *ctx) {
    SSL_CTX_set_alpn_select_cb(ctx, copenssl_alpn_select, NULL);
}
/// The protocol ALPN chose on `ssl`, copied into `buffer` (NUL-terminated); 0 when none.
static inline unsigned int copenssl_alpn_selected(const SSL *ssl, char *buffer, unsigned int capacity) {
    const unsigned char *data = NULL;
    unsigned int length = 0;
    SSL_get0_alpn_selected(ssl, &data, &length);
    if (data == NULL || length == 0 || length >= capacity) return 0;
    for (unsigned int i = 0; i < length; i++) buffer[i] = (char)data[i];
    buffer[length] = 0;
    return length;
}

// EVP_PKEY_fromdata's selections are macros built from other macros; Swift sees these instead.
static const int COPENSSL_PKEY_PUBLIC_KEY = EVP_PKEY_PUBLIC_KEY;
static const int COPENSSL_PKEY_KEYPAIR = EVP_PKEY_KEYPAIR;

static const long COPENSSL_MODE_RELEASE_BUFFERS = SSL_MODE_RELEASE_BUFFERS;
static const long COPENSSL_MODE_PARTIAL_WRITE = SSL_MODE_ENABLE_PARTIAL_WRITE;
static const long COPENSSL_MODE_MOVING_BUFFER = SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER;
static const uint64_t COPENSSL_OP_NO_COMPRESSION = SSL_OP_NO_COMPRESSION;
static const uint64_t COPENSSL_OP_NO_RENEGOTIATION = SSL_OP_NO_RENEGOTIATION;
static const int COPENSSL_TLS1_2_VERSION = TLS1_2_VERSION;
static const int COPENSSL_TLS1_3_VERSION = TLS1_3_VERSION;
#endif
