import ChorusNet
import ChorusProtocol
import ChorusStore

/// The bounded label values `/metrics` uses: every series a scrape can show is known
/// here, so no client can grow the set.

/// How a session reaches the server.
public enum SessionTransport: String, CaseIterable, Sendable {
    case line
    case websocket
}

/// How a login proved who it is: `LOGIN` (a password) or `AUTH` (a bot token).
enum LoginMethod: String, CaseIterable, Sendable {
    case password
    case token
}

/// How a login ended: in, refused, or refused by the throttle (429).
enum LoginResult: String, CaseIterable, Sendable {
    case ok
    case failed
    case throttled
}

/// A command's verb for `chorus_commands_total`: a row of the command table (by its
/// name, as `RouteTable` routes it), or `other` for a line no row took.
struct CommandVerb: Sendable, Equatable {
    let index: Int

    /// Every row's name, then `other`.
    static let names: [String] = {
        var seen: Set<String> = []
        return RouteTable.all.map(\.verb).filter { seen.insert($0).inserted } + ["other"]
    }()
    private static let byName: [String: Int] = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })

    static let other = CommandVerb(index: names.count - 1)

    /// The row named `verb` (`Request.verb`), or `other`.
    init(_ verb: String) { index = Self.byName[verb] ?? Self.other.index }

    private init(index: Int) { self.index = index }

    var name: String { Self.names[index] }
}

/// A reply's status code for `chorus_commands_total`: the codes the protocol's catalogue
/// uses, and `other` for any else.
enum ReplyCodeLabel {
    static let codes = [200, 400, 401, 403, 404, 409, 413, 422, 429, 500, 503]
    static var count: Int { codes.count + 1 }

    static func index(of code: Int) -> Int { codes.firstIndex(of: code) ?? codes.count }

    static func name(at index: Int) -> String { index < codes.count ? String(codes[index]) : "other" }
}

extension StoreError.Kind {
    /// Every kind, for `chorus_store_errors_total`.
    static let all: [StoreError.Kind] = [.duplicate, .constraint, .notFound, .full, .unavailable, .failed]

    /// Its label value.
    var label: String {
        switch self {
        case .duplicate: "duplicate"
        case .constraint: "constraint"
        case .notFound: "not_found"
        case .full: "full"
        case .unavailable: "unavailable"
        case .failed: "failed"
        }
    }
}

extension Reply {
    /// Its status code: 200 for OK, else the error's.
    var code: Int {
        switch status {
        case .ok: 200
        case .error(let error): error.code
        }
    }
}
