#ifndef CLINUX_H
#define CLINUX_H
// Linux system calls Swift's Glibc module does not expose cleanly.
// No _GNU_SOURCE here: it changes glibc's struct layouts (fd_set) and would then clash
// with the same headers seen through COpenSSL. shim.c defines it for itself.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <signal.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <pthread.h>

// accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC, which Swift cannot spell as one constant.
int clinux_accept_nonblocking(int fd, struct sockaddr *addr, socklen_t *len);
// The calling thread's errno (Swift cannot read the TLS variable directly on all setups).
int clinux_errno(void);
// Names the calling thread for the kernel (top -H, /proc/PID/task/*/comm); at most 15
// characters are kept. Foundation's Thread.name does not reach the kernel on Linux.
void clinux_set_thread_name(const char *name);
// Catches SIGTERM, SIGINT and SIGHUP with a handler that only writes the signal's
// number as one byte to a pipe, and returns the pipe's read end (-1 on failure).
// Unlike a signal mask plus signalfd, this works whichever thread the kernel picks,
// including threads a runtime started before main (sanitizers do).
int clinux_shutdown_signal_pipe(void);
#endif
