import CLinux
import COpenSSL
let epollProbe = epoll_create1(0)
