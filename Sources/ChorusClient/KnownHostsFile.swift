import Foundation

/// The servers a person has trusted on first use, like ssh's known_hosts: one line per
/// `host:port FINGERPRINT` in `$XDG_CONFIG_HOME/chorus/known_hosts` (or
/// `~/.config/chorus/known_hosts`). Lines starting with `#` and blank lines are ignored.
public struct KnownHostsFile {
    public struct Entry {
        public let fingerprint: PinnedFingerprint
        /// 1-based, so a warning can say which line to remove.
        public let line: Int
    }

    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// The file the environment points at.
    public init(environment: [String: String]) {
        let base: String
        if let xdg = environment["XDG_CONFIG_HOME"], !xdg.isEmpty {
            base = xdg
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            base = home + "/.config"
        }
        self.init(path: base + "/chorus/known_hosts")
    }

    /// `host:port`, with brackets around an IPv6 address so the port stays readable.
    public static func key(host: String, port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// The remembered fingerprint for `key`, if any (the last line wins, as it was added last).
    public func entry(for key: String) -> Entry? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        var found: Entry?
        for (index, raw) in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(raw).trimmingSpaces
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 2, fields[0] == key, let fingerprint = PinnedFingerprint(String(fields[1])) else { continue }
            found = Entry(fingerprint: fingerprint, line: index + 1)
        }
        return found
    }

    /// Appends a line, creating the folder (0700) and the file (0600) when needed.
    public func remember(_ fingerprint: PinnedFingerprint, for key: String) throws(ClientFailure) {
        try ClientFolder.make(holding: path)
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw ClientFailure("cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let bytes = Array("\(key) \(fingerprint)\n".utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw ClientFailure("cannot write \(path): \(String(cString: strerror(errno)))") }
    }
}
