import Foundation

/// One node of `--servers`: a host (name, IPv4, or IPv6 without its brackets) and a port.
struct ServerAddress: Sendable, Equatable, CustomStringConvertible {
    let host: String
    let port: Int

    /// `HOST:PORT`, with an IPv6 host in brackets so the port stays readable.
    var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// `--servers HOST:PORT,HOST:PORT,...`: the nodes a run spreads its sessions over. The same
/// node may be listed twice (two connection lists on one server, as the tests use).
enum ServerList {
    static func parse(_ text: String) throws -> [ServerAddress] {
        // Not split(separator:): that drops empty items, and "a:1,,b:2" is a typo to report.
        let items = text.split(separator: ",", omittingEmptySubsequences: false)
        return try items.enumerated().map { position, item in
            let trimmed = Substring(item.trimmingCharacters(in: .whitespaces))
            guard !trimmed.isEmpty else {
                throw BenchFailure("--servers: item \(position + 1) of \(items.count) is empty (give HOST:PORT,HOST:PORT,...)")
            }
            return try address(trimmed)
        }
    }

    /// `HOST:PORT` or `[IPV6]:PORT`.
    private static func address(_ item: Substring) throws -> ServerAddress {
        let host: Substring
        let portText: Substring
        if item.hasPrefix("[") {
            guard let close = item.firstIndex(of: "]") else {
                throw BenchFailure("--servers: \(item) has no closing ']'")
            }
            host = item[item.index(after: item.startIndex)..<close]
            let rest = item[item.index(after: close)...]
            guard rest.hasPrefix(":") else { throw BenchFailure("--servers: \(item) has no port (give [ADDRESS]:PORT)") }
            portText = rest.dropFirst()
        } else {
            guard let colon = item.lastIndex(of: ":") else {
                throw BenchFailure("--servers: \(item) has no port (give HOST:PORT)")
            }
            host = item[..<colon]
            portText = item[item.index(after: colon)...]
            guard !host.contains(":") else {
                throw BenchFailure("--servers: write the IPv6 address in \(item) in brackets: [ADDRESS]:PORT")
            }
        }
        guard !host.isEmpty else { throw BenchFailure("--servers: \(item) has no host (give HOST:PORT)") }
        guard !portText.isEmpty else { throw BenchFailure("--servers: \(item) has no port (give HOST:PORT)") }
        guard let port = Int(portText), (1...65535).contains(port) else {
            throw BenchFailure("--servers: the port in \(item) must be a whole number in 1...65535, not \(portText)")
        }
        return ServerAddress(host: String(host), port: port)
    }
}
