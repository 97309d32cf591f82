#define _GNU_SOURCE
#include "CLinux.h"

int clinux_accept_nonblocking(int fd, struct sockaddr *addr, socklen_t *len) {
    return accept4(fd, addr, len, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

int clinux_errno(void) { return errno; }

static void shutdown_set(sigset_t *set) {
    sigemptyset(set);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGHUP);
}

int clinux_block_shutdown_signals(void) {
    sigset_t set;
    shutdown_set(&set);
    return pthread_sigmask(SIG_BLOCK, &set, NULL);
}

int clinux_shutdown_signalfd(void) {
    sigset_t set;
    shutdown_set(&set);
    return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}
