import ChorusPostgres
import ChorusServer
import ChorusSQLite
import ChorusStore
import Foundation

/// `chorusd after-restore --data DIR | --postgres URL` (CONTRACT §12), run once after
/// restoring a backup: every id counter moved far past what the lost tail could have
/// handed out (`RestoreRules.counterAfterRestore`), so no id a client saw before the
/// loss names something else afterwards. One line per counter on standard output; a
/// refusal (the store in use, no store) is one line on standard error and exit 2.
enum AfterRestore {
    static func run(store: StoreChoice) {
        let moves: [CounterMove]
        switch store {
        case .sqlite(let dataDirectory):
            var configuration = ServerConfiguration()
            configuration.dataDirectory = dataDirectory
            let path = configuration.databasePath
            guard FileManager.default.fileExists(atPath: path) else {
                fail("no database at \(path): restore the backup there first (give --data the folder chorusd runs with)")
            }
            // Held to the end: a chorusd serving the folder would hand out ids meanwhile.
            let lock: DataFolderLock
            do {
                lock = try Server.lockDataFolder(of: configuration)
            } catch {
                fail("\(error): stop it first, after-restore needs the store at rest")
            }
            defer { withExtendedLifetime(lock) {} }
            do {
                let database = try Database(path: path)
                defer { database.close() }
                moves = try database.moveCountersAfterRestore()
            } catch {
                fail("cannot move the id counters in \(path): \(error)")
            }
        case .postgres(let conninfo):
            do {
                moves = try PostgresAfterRestore.run(conninfo: conninfo)
            } catch let refusal as PostgresAfterRestore.Refusal {
                fail(store.scrubbed("\(store.shown): \(refusal.description)"))
            } catch let failure as StoreError {
                fail(store.scrubbed("\(store.shown): \(failure.message)"))
            } catch {
                fail(store.scrubbed("\(store.shown): \(error)"))
            }
        }
        for move in moves {
            say("\(move.counter): highest id known \(move.from), new ids start above \(move.to)")
        }
        say("after-restore: moved \(moves.count) id counters in \(store.shown); start chorusd again")
    }
}
