import Glibc

/// Certificate and key files must be regular files. OpenSSL opens a path with a blocking
/// `open` and `read`: a named pipe there (`mkfifo certs/server.crt`) would hold the thread
/// that asked — the main thread, at SIGHUP, which then never sees SIGTERM — and a device
/// could hand it anything. So the file is looked at first without reading it.
public enum RegularFile {
    /// Throws one line naming `what`, `path` and what it is instead, unless `path` is a
    /// regular file this process can open (symbolic links followed, as certbot's are).
    public static func check(_ path: String, what: String) throws(NetError) {
        var status = stat()
        guard stat(path, &status) == 0 else { throw NetError.system("cannot read \(what) \(path)") }
        try requireRegular(status, path: path, what: what)
        // Opened without blocking, and looked at again through the descriptor: the name
        // may have been swapped for a pipe since `stat`.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw NetError.system("cannot read \(what) \(path)") }
        defer { close(descriptor) }
        guard fstat(descriptor, &status) == 0 else { throw NetError.system("cannot read \(what) \(path)") }
        try requireRegular(status, path: path, what: what)
    }

    private static func requireRegular(_ status: stat, path: String, what: String) throws(NetError) {
        let type = status.st_mode & S_IFMT
        guard type != S_IFREG else { return }
        let kind = switch type {
        case S_IFIFO: "a named pipe"
        case S_IFDIR: "a directory"
        case S_IFCHR, S_IFBLK: "a device"
        case S_IFSOCK: "a socket"
        default: "not a file"
        }
        throw NetError("cannot read \(what) \(path): it is \(kind), not a regular file")
    }
}
