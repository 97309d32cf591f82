import Foundation

/// `MOVED` in a data folder: `copy-to-postgres` leaves it once the copy committed, so no
/// chorusd serves the old SQLite copy by mistake (a lost `CHORUS_POSTGRES` in a unit file
/// would otherwise split a household in two, CONTRACT §12). It names the database with
/// any password masked, and when; deleting it is the one way to use the folder again.
struct MovedMarker: Equatable {
    static let fileName = "MOVED"

    /// The database it went to, password masked.
    let destination: String
    /// When, RFC 3339 in UTC.
    let when: String

    static func path(in folder: String) -> String { folder + "/" + fileName }

    /// The file's text: a line a person reads, then `key=value` lines this reads back.
    var text: String {
        """
        # chorusd copy-to-postgres moved this store; chorusd refuses to serve this folder.
        # To serve this old SQLite copy anyway (the PostgreSQL one is then a second household), delete this file.
        to=\(destination)
        at=\(when)

        """
    }

    /// The marker in `folder`, nil when there is none. An unreadable one still counts.
    static func read(in folder: String) -> MovedMarker? {
        let path = path(in: folder)
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            fields[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return MovedMarker(destination: fields["to"] ?? "another store", when: fields["at"] ?? "an unknown time")
    }

    /// Writes the marker (to a temporary name, then renamed, so it is whole or absent).
    static func write(in folder: String, destination: String, at date: Date = Date()) throws {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        let marker = MovedMarker(destination: destination, when: formatter.string(from: date))
        let path = path(in: folder)
        try marker.text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// The one line chorusd stops with on a moved folder.
    func refusal(folder: String) -> String {
        "\(folder) was moved to \(destination) at \(when) by copy-to-postgres: start chorusd with --postgres "
            + "(or CHORUS_POSTGRES) for it; to serve this old SQLite copy anyway, delete \(Self.path(in: folder))"
    }

    /// Stops with exit 2 when `folder` is marked.
    static func refuseIfMoved(_ folder: String) {
        if let marker = read(in: folder) { fail(marker.refusal(folder: folder)) }
    }
}
