import ChorusServer
import ChorusSQLite
import Foundation

/// `chorusd admin grant|revoke NAME --data DIR`: marks an account as server admin,
/// straight in the database (the server may be running; SQLite's busy timeout waits).
enum AdminCommand {
    static func run(grant: Bool, name: String, dataDirectory: String) {
        let path = dataDirectory + "/chorus.sqlite"
        guard FileManager.default.fileExists(atPath: path) else {
            fail("no database at \(path) (start chorusd with --data \(dataDirectory) first)")
        }
        do {
            let database = try Database(path: path)
            defer { database.close() }
            let normalized = name.lowercased()
            guard try database.setAdmin(name: normalized, grant) else {
                fail("no account named \(normalized)")
            }
            Log.info("admin: command line \(grant ? "granted" : "revoked") server admin for \(normalized)")
            print("\(normalized) is \(grant ? "now" : "no longer") a server admin")
        } catch {
            fail("\(error)")
        }
    }
}
