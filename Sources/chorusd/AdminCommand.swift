import ChorusServer
import ChorusSQLite
import Foundation

/// `chorusd admin grant|revoke NAME --data DIR` or `--postgres URL`: marks an account as
/// server admin, straight in the store (the server may be running: SQLite's busy timeout
/// waits; PostgreSQL's nodes see the flag at the account's next sign-in, as with SQLite).
enum AdminCommand {
    static func run(grant: Bool, name: String, store: StoreChoice) {
        let normalized = name.lowercased()
        let changed: Bool
        switch store {
        case .sqlite(let dataDirectory):
            // Not the queue: a missing file must not be made, and one connection is enough.
            let path = dataDirectory + "/chorus.sqlite"
            MovedMarker.refuseIfMoved(dataDirectory)
            guard FileManager.default.fileExists(atPath: path) else {
                fail("no database at \(path) (start chorusd with --data \(dataDirectory) first)")
            }
            do {
                let database = try Database(path: path)
                defer { database.close() }
                changed = try database.setAdmin(name: normalized, grant)
            } catch {
                fail("\(error)")
            }
        case .postgres:
            do {
                let executor = try store.open(node: "admin@" + NodeName.machineName())
                defer { executor.close() }
                changed = try executor.sync { try $0.setAdmin(name: normalized, grant) }
            } catch {
                fail(opening: error, store: store)
            }
        }
        guard changed else { fail("no account named \(normalized)") }
        Log.info(grant ? "admin granted" : "admin revoked", ["user": normalized, "by": "command line"])
        print("\(normalized) is \(grant ? "now" : "no longer") a server admin")
    }
}
