#define _GNU_SOURCE
#include "CLinux.h"
#include <string.h>

int clinux_accept_nonblocking(int fd, struct sockaddr *addr, socklen_t *len) {
    return accept4(fd, addr, len, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

int clinux_errno(void) { return errno; }

void clinux_set_thread_name(const char *name) {
    char shortened[16];
    strncpy(shortened, name, sizeof shortened - 1);
    shortened[sizeof shortened - 1] = 0;
    pthread_setname_np(pthread_self(), shortened);
}

static int shutdown_pipe_write = -1;

static void shutdown_signal_handler(int signo) {
    int saved = errno;
    unsigned char byte = (unsigned char)signo;
    // write(2) is async-signal-safe; a full pipe just drops the byte (a signal is pending already).
    (void)!write(shutdown_pipe_write, &byte, 1);
    errno = saved;
}

int clinux_shutdown_signal_pipe(void) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return -1;
    fcntl(fds[1], F_SETFL, O_NONBLOCK);
    shutdown_pipe_write = fds[1];
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = shutdown_signal_handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    if (sigaction(SIGTERM, &action, NULL) != 0 || sigaction(SIGINT, &action, NULL) != 0 ||
        sigaction(SIGHUP, &action, NULL) != 0) {
        return -1;
    }
    // A parent may have started us with these blocked (libdispatch's worker threads block
    // signals, and a child inherits the mask): unblock them here, for this thread and the
    // threads it starts, or they would stay pending forever.
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    return fds[0];
}
