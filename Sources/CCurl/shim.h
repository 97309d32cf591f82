#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H
#include <curl/curl.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, and Swift cannot call a C variadic
// function: one typed wrapper per kind of argument libcurl takes.
static inline CURLcode ccurl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_set_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
/// Strings (copied by libcurl), objects and the `clientp`/`userdata` pointers handed to callbacks.
static inline CURLcode ccurl_set_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}
/// CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION share this shape.
static inline CURLcode ccurl_set_write_callback(CURL *handle, CURLoption option, curl_write_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}
/// CURLOPT_READFUNCTION: where an upload (a mail message) is read from.
static inline CURLcode ccurl_set_read_callback(CURL *handle, curl_read_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_READFUNCTION, callback);
}
static inline CURLcode ccurl_set_opensocket_callback(CURL *handle, curl_opensocket_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, callback);
}
static inline CURLcode ccurl_get_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode ccurl_get_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

/// The address libcurl is about to connect to, as 4 or 16 bytes in network order into
/// `out` (room for 16); its length, or 0 for a family that is neither IPv4 nor IPv6.
/// Done in C because `struct curl_sockaddr` ends in a `struct sockaddr` that is really as
/// large as `addrlen` says, which Swift's imported layout does not know.
static inline int ccurl_sockaddr_ip(const struct curl_sockaddr *address, unsigned char *out) {
    if (address->family == AF_INET && address->addrlen >= sizeof(struct sockaddr_in)) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)(const void *)&address->addr;
        memcpy(out, &v4->sin_addr, 4);
        return 4;
    }
    if (address->family == AF_INET6 && address->addrlen >= sizeof(struct sockaddr_in6)) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)(const void *)&address->addr;
        memcpy(out, &v6->sin6_addr, 16);
        return 16;
    }
    return 0;
}

/// The socket libcurl would have opened itself, with close-on-exec so a child process
/// started by another thread never inherits it.
static inline curl_socket_t ccurl_open_socket(const struct curl_sockaddr *address) {
    return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

static const curl_socket_t CCURL_SOCKET_BAD = CURL_SOCKET_BAD;
static const long CCURL_GLOBAL_DEFAULT = CURL_GLOBAL_DEFAULT;
#endif
