import ChorusPostgres
import ChorusServer
import ChorusSQLite
import ChorusStore
import Foundation

/// Where chorusd keeps everything, decided once from the flags: the one place that picks
/// the engine, so serving, `admin` and later tools open the store alike.
enum StoreChoice: Sendable, Equatable {
    /// SQLite's `chorus.sqlite` in the data folder, which chorusd locks (the default).
    case sqlite(dataDirectory: String)
    /// A PostgreSQL database (a libpq URI or `key=value` string) that every node given it
    /// shares; the data folder is then neither made nor locked and holds nothing.
    case postgres(conninfo: String)

    /// The environment variable that stands for `--postgres` when the flag is not given.
    static let environmentVariable = "CHORUS_POSTGRES"

    /// `--postgres` when given, else a non-empty `CHORUS_POSTGRES`, else SQLite in `dataDirectory`.
    static func pick(postgres: String?, dataDirectory: String, environment: [String: String]) -> StoreChoice {
        if let conninfo = postgres ?? environment[environmentVariable].flatMap({ $0.isEmpty ? nil : $0 }) {
            return .postgres(conninfo: conninfo)
        }
        return .sqlite(dataDirectory: dataDirectory)
    }

    /// What logs and errors may say about it: the password masked.
    var shown: String {
        switch self {
        case .sqlite(let folder): "SQLite in \(folder)"
        case .postgres(let conninfo): "PostgreSQL \(ConninfoRedaction.redacted(conninfo))"
        }
    }

    /// Opens the store for `node` (PostgreSQL keeps it with the node's sessions). For
    /// SQLite the data folder must be locked first. A failure is one line naming the store
    /// and the reason, with no password in it.
    func open(node: String) throws(StartupError) -> any StoreExecutor {
        do {
            switch self {
            case .sqlite(let folder):
                return try DatabaseQueue(path: folder + "/chorus.sqlite")
            case .postgres(let conninfo):
                return try PostgresQueue(conninfo: conninfo, node: node)
            }
        } catch {
            throw failedToOpen(error)
        }
    }

    /// `message` with any password of this store masked.
    func scrubbed(_ message: String) -> String {
        guard case .postgres(let conninfo) = self else { return message }
        return ConninfoRedaction.scrubbed(message, conninfo: conninfo)
    }
}
