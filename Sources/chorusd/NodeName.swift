import Foundation

/// The node's name (`--node`), which logs, `ADMIN STATS` and presence show: one word of
/// letters, digits and `. - _ : [ ] @`, at most 64 characters.
enum NodeName {
    static let maxLength = 64
    private static let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_:[]@")

    static func isValid(_ name: String) -> Bool {
        !name.isEmpty && name.count <= maxLength && name.allSatisfy { allowed.contains($0) }
    }

    /// The default, `HOST:PORT`. A wildcard host (0.0.0.0, ::) would name every machine
    /// alike, so the machine's host name stands for it. With port 0 the port is not
    /// known until after the store opens, so the process id stands for it: `HOST:0-pidN`.
    static func fallback(host: String, port: Int, hostName: String = machineName(),
                         pid: Int32 = getpid()) -> String {
        let wildcard = host.isEmpty || host == "0.0.0.0" || host == "::" || host == "[::]"
        var place = wildcard ? hostName : host
        if place.contains(":") && !place.hasPrefix("[") { place = "[\(place)]" }
        let name = port == 0 ? "\(place):0-pid\(pid)" : "\(place):\(port)"
        // A host name with other characters still gives a valid name.
        return String(name.map { allowed.contains($0) ? $0 : "-" }.prefix(maxLength))
    }

    static func machineName() -> String {
        var buffer = [UInt8](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self)
        return name.isEmpty ? "localhost" : name
    }
}
