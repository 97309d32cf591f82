import CLinux
import Foundation
import Synchronization

/// The `--data` folder: created when missing (mode 0700 whatever the umask: it holds
/// password hashes and the event log), checked writable before anything else so the
/// error names the folder instead of a SQLite code, and locked for the life of the server.
enum DataDirectory {
    static func prepare(_ path: String) throws {
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        if files.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw StartupError("data folder \(path) is not a folder") }
        } else {
            do {
                // Cut by hand: Foundation's deletingLastPathComponent trapped on a one-letter
                // relative path (`--data d` crashed chorusd).
                let parent = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? ""
                if !parent.isEmpty { try files.createDirectory(atPath: parent, withIntermediateDirectories: true) }
            } catch {
                throw StartupError("cannot create data folder \(path): \(error.localizedDescription)")
            }
            // mkdir's mode passes through the umask, so set it again after.
            guard mkdir(path, 0o700) == 0 || errno == EEXIST, chmod(path, 0o700) == 0 else {
                throw StartupError("cannot create data folder \(path): \(String(cString: strerror(errno)))")
            }
        }
        guard access(path, W_OK | X_OK) == 0 else {
            throw StartupError("data folder \(path) is not writable")
        }
    }
}

/// An exclusive lock on the data folder, held while the server runs: a second server on
/// the same folder would keep caches and an event order of its own, so it must not start.
///
/// flock(2) on `chorusd.lock` in the folder. The kernel drops the lock when the process
/// ends however it ends, so a crash leaves no stale lock behind; the file's content (the
/// holder's pid) is only for people.
public final class DataFolderLock: Sendable {
    static let fileName = "chorusd.lock"
    private let fd: Atomic<Int32>

    /// Takes the lock or throws a `StartupError` saying who holds it.
    init(folder: String) throws {
        let path = folder + "/" + Self.fileName
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StartupError("cannot open \(path): \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let busy = errno == EWOULDBLOCK
            var holder = [UInt8](repeating: 0, count: 32)
            let count = pread(fd, &holder, holder.count, 0)
            let pid = String(decoding: holder.prefix(max(0, count)), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            Glibc.close(fd)
            if busy {
                throw StartupError("data folder \(folder) is in use by another chorusd\(pid.isEmpty ? "" : " (pid \(pid))")")
            }
            throw StartupError("cannot lock \(path): \(String(cString: strerror(errno)))")
        }
        _ = fchmod(fd, 0o600)
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pwrite(fd, pid, pid.count, 0)
        self.fd = Atomic(fd)
    }

    /// A lock on nothing, for a server whose store is not in a data folder (PostgreSQL,
    /// shared by several nodes on purpose): no folder is made or locked.
    public static func none() -> DataFolderLock { DataFolderLock(descriptor: -1) }

    private init(descriptor: Int32) {
        fd = Atomic(descriptor)
    }

    /// Lets go of the lock (shutdown); a later server on this folder may start.
    func release() {
        let fd = self.fd.exchange(-1, ordering: .acquiringAndReleasing)
        if fd >= 0 { Glibc.close(fd) }
    }

    deinit {
        release()
    }
}
