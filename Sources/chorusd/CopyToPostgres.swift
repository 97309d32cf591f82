import ChorusNet
import ChorusPostgres
import ChorusServer
import ChorusStore
import Foundation

/// `chorusd copy-to-postgres --data DIR --postgres URL` (CONTRACT §8): the whole SQLite
/// store into an empty PostgreSQL database, ids kept, in one transaction on each side.
/// Progress per table on standard error, a summary line on standard output; any failure
/// one line on standard error and exit 2, with the database left empty.
enum CopyToPostgres {
    /// Rows read from SQLite and handed on at a time.
    static let chunk = 5000
    /// Seconds between progress lines for one table.
    static let progressInterval = 2.0

    static func run(dataDirectory: String, store: StoreChoice) {
        guard case .postgres(let conninfo) = store else { fail("copy-to-postgres needs --postgres URL") }
        var configuration = ServerConfiguration()
        configuration.dataDirectory = dataDirectory
        let path = configuration.databasePath
        // A folder already moved once would be copied into a second household.
        MovedMarker.refuseIfMoved(dataDirectory)
        guard FileManager.default.fileExists(atPath: path) else {
            fail("no database at \(path): nothing to copy (give --data the folder chorusd ran with)")
        }
        // Held to the end: no chorusd can start on the store while it is being copied.
        let lock: DataFolderLock
        do {
            lock = try Server.lockDataFolder(of: configuration)
        } catch {
            fail("\(error): stop it first, the copy needs the store at rest")
        }
        defer { withExtendedLifetime(lock) {} }

        let started = Date()
        let snapshot: SQLiteSnapshot
        do {
            snapshot = try SQLiteSnapshot(path: path)
        } catch {
            fail("cannot read \(path): \(Self.words(error))")
        }
        defer { snapshot.close() }
        let target: PostgresImport
        do {
            target = try PostgresImport(conninfo: conninfo)
            try target.begin()
        } catch {
            fail(store.scrubbed("\(store.shown): \(Self.words(error))"))
        }
        defer { target.close() }

        var copied = 0
        do {
            for table in PostgresImport.tables {
                copied += try copy(table, from: snapshot, to: target)
            }
            let outcome = try target.finish(floors: try snapshot.sequenceFloors())
            // Committed: from now on the SQLite copy is the old one, and must say so.
            do {
                try MovedMarker.write(in: dataDirectory, destination: store.shown)
            } catch {
                fail("copied to \(store.shown), but cannot write \(MovedMarker.path(in: dataDirectory)) (\(error.localizedDescription)): "
                    + "move \(dataDirectory) away so no chorusd serves the old copy")
            }
            let seconds = max(Date().timeIntervalSince(started), 0.001)
            say("copied \(copied) rows (\(PostgresImport.tables.count) tables) from \(path) to \(store.shown) in "
                + String(format: "%.1f s, %.0f rows/s", seconds, Double(copied) / seconds)
                + "; the next event id is \(outcome.lastEventID + 1)")
        } catch {
            target.close()
            fail(store.scrubbed("copying to \(store.shown) failed, nothing was kept: \(Self.words(error))"))
        }
    }

    /// One table, with a progress line at its end and every few seconds on a long one.
    private static func copy(_ table: ImportedTable, from snapshot: SQLiteSnapshot, to target: PostgresImport) throws -> Int {
        let total = try snapshot.count(table)
        var done = 0
        var lastShown = Date()
        try snapshot.read(table, chunk: chunk) { rows in
            try target.insert(table, rows: rows)
            done += rows.count
            if Date().timeIntervalSince(lastShown) >= progressInterval, done < total {
                progress("\(table.name): \(done)/\(total) rows")
                lastShown = Date()
            }
        }
        progress("\(table.name): \(done)/\(total) rows")
        return done
    }

    private static func progress(_ line: String) {
        LogWriter.standardError.write("copy-to-postgres: \(line)")
    }

    /// A failure's own words: a refusal or store error as it reads, without its type.
    private static func words(_ error: any Error) -> String {
        if let refusal = error as? PostgresImport.Refusal { return refusal.description }
        if let failure = error as? StoreError { return failure.message }
        return "\(error)"
    }
}
