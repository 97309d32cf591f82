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
#include <string.h>

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
// With ACME's tls-alpn-01 on (a non-NULL arg), `acme-tls/1` comes first: only an ACME
// validator offers it, and the client-hello hook below has already given that
// connection its challenge certificate (or refused it).
static const unsigned char copenssl_server_alpn[] = "\x06" "chorus" "\x08" "http/1.1";
static const unsigned char copenssl_acme_server_alpn[] = "\x0a" "acme-tls/1" "\x06" "chorus" "\x08" "http/1.1";
static inline int copenssl_alpn_select(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                                       const unsigned char *in, unsigned int inlen, void *arg) {
    (void)ssl;
    const unsigned char *list = arg ? copenssl_acme_server_alpn : copenssl_server_alpn;
    unsigned int list_length = arg ? sizeof(copenssl_acme_server_alpn) - 1 : sizeof(copenssl_server_alpn) - 1;
    unsigned char *chosen = NULL;
    unsigned char chosen_length = 0;
    if (SSL_select_next_proto(&chosen, &chosen_length, list, list_length, in, inlen) != OPENSSL_NPN_NEGOTIATED) {
        return SSL_TLSEXT_ERR_NOACK;
    }
    *out = chosen;
    *outlen = chosen_length;
    return SSL_TLSEXT_ERR_OK;
}
static inline void copenssl_ctx_select_alpn(SSL_CTX *ctx) {
    SSL_CTX_set_alpn_select_cb(ctx, copenssl_alpn_select, NULL);
}

// tls-alpn-01 (RFC 8737): `install` gives one SSL the challenge certificate for the name
// the client asked for (returns 1), or says there is none (0). `context` is the caller's.
typedef int (*copenssl_acme_install_fn)(SSL *ssl, const char *server_name, void *context);
typedef struct {
    copenssl_acme_install_fn install;
    void *context;
} copenssl_acme_hook;

/// Whether an ALPN extension body (RFC 7301 §3.1) offers `acme-tls/1`.
static inline int copenssl_offers_acme_tls(const unsigned char *body, size_t length) {
    if (length < 2 || (size_t)((body[0] << 8) | body[1]) != length - 2) return 0;
    for (size_t at = 2; at < length;) {
        size_t name_length = body[at];
        if (name_length == 0 || at + 1 + name_length > length) return 0;
        if (name_length == 10 && memcmp(body + at + 1, "acme-tls/1", 10) == 0) return 1;
        at += 1 + name_length;
    }
    return 0;
}

/// The host name of a server_name extension body (RFC 6066 §3) into `name` (NUL-ended);
/// 0 when there is none or it is malformed, empty, too long or holds a NUL.
static inline int copenssl_sni_host(const unsigned char *body, size_t length, char *name, size_t capacity) {
    if (length < 5 || (size_t)((body[0] << 8) | body[1]) != length - 2 || body[2] != 0) return 0;
    size_t name_length = (size_t)((body[3] << 8) | body[4]);
    if (name_length == 0 || name_length >= capacity || 5 + name_length > length) return 0;
    for (size_t i = 0; i < name_length; i++) {
        if (body[5 + i] == 0) return 0;
        name[i] = (char)body[5 + i];
    }
    name[name_length] = 0;
    return 1;
}

/// Runs before certificate selection: a hello offering `acme-tls/1` gets the challenge
/// certificate for its SNI name, or the handshake is refused; other hellos pass untouched.
static inline int copenssl_acme_client_hello(SSL *ssl, int *alert, void *arg) {
    const copenssl_acme_hook *hook = (const copenssl_acme_hook *)arg;
    const unsigned char *alpn = NULL;
    size_t alpn_length = 0;
    if (!SSL_client_hello_get0_ext(ssl, TLSEXT_TYPE_application_layer_protocol_negotiation, &alpn, &alpn_length)
        || !copenssl_offers_acme_tls(alpn, alpn_length)) {
        return SSL_CLIENT_HELLO_SUCCESS;
    }
    const unsigned char *sni = NULL;
    size_t sni_length = 0;
    char name[256];
    if (!SSL_client_hello_get0_ext(ssl, TLSEXT_TYPE_server_name, &sni, &sni_length)
        || !copenssl_sni_host(sni, sni_length, name, sizeof(name))
        || hook->install(ssl, name, hook->context) != 1) {
        *alert = SSL_AD_UNRECOGNIZED_NAME;
        return SSL_CLIENT_HELLO_ERROR;
    }
    return SSL_CLIENT_HELLO_SUCCESS;
}

/// Turns tls-alpn-01 on for `ctx`: the hook above, and `acme-tls/1` in the ALPN choice.
/// `hook` must outlive the context.
static inline void copenssl_ctx_answer_tls_alpn(SSL_CTX *ctx, copenssl_acme_hook *hook) {
    SSL_CTX_set_client_hello_cb(ctx, copenssl_acme_client_hello, hook);
    SSL_CTX_set_alpn_select_cb(ctx, copenssl_alpn_select, hook);
}

/// SSL_CTX_add0_chain_cert is a macro over SSL_CTX_ctrl; the context owns `x509` after.
static inline int copenssl_ctx_add0_chain_cert(SSL_CTX *ctx, X509 *x509) {
    return (int)SSL_CTX_add0_chain_cert(ctx, x509);
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
