import Foundation

/// Where the interactive client stopped, per server and account, so the next start shows
/// what was said while it was away: one line per `host:port NAME ID` in
/// `$XDG_CONFIG_HOME/chorus/seen_events` (next to `known_hosts`). `ID` is an event id such
/// that everything up to it was shown (`EventCursor.last`). Not a secret (event ids are
/// numbers every member sees), but it says which accounts were used here, so 0600 all the same.
public struct SeenEventsFile {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// The file in the folder `known_hosts` is in.
    public init(environment: [String: String]) {
        let folder = (KnownHostsFile(environment: environment).path as NSString).deletingLastPathComponent
        self.init(path: folder + "/seen_events")
    }

    /// The saved id for `server` (`host:port`) and `account`, if any.
    public func lastSeen(server: String, account: String) -> Int64? {
        entries()[Self.key(server, account)]
    }

    /// Saves `id` for `server` and `account`, keeping the other lines: the whole file is
    /// written to a temporary one (0600) and renamed over, so a crash leaves the old file
    /// or the new one, never half of one. Two sessions saving at once: the last one wins.
    public func save(_ id: Int64, server: String, account: String) throws(ClientFailure) {
        var all = entries()
        all[Self.key(server, account)] = id
        let text = all.keys.sorted().map { "\($0) \(all[$0]!)\n" }.joined()
        try ClientFolder.make(holding: path)
        let temporary = path + ".\(getpid()).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw ClientFailure("cannot write \(temporary): \(String(cString: strerror(errno)))") }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard written == bytes.count, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw ClientFailure("cannot write \(path): \(reason)")
        }
    }

    /// `host:port NAME`: the line without its id.
    private static func key(_ server: String, _ account: String) -> String {
        "\(server) \(account)"
    }

    /// Every readable line, by key; the id is the last field (a name could hold a space).
    private func entries() -> [String: Int64] {
        guard let data = FileManager.default.contents(atPath: path) else { return [:] }
        var found: [String: Int64] = [:]
        for raw in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            guard let space = raw.lastIndex(of: " "), let id = Int64(raw[raw.index(after: space)...]), id >= 0 else { continue }
            let key = String(raw[..<space])
            guard key.contains(" ") else { continue }
            found[key] = id
        }
        return found
    }
}
