import ChorusLocking
import ChorusPostgres
import ChorusSQLite
import ChorusStore
import ChorusTestSupport
import Foundation
import Testing

/// A store engine the behaviour suites run on. Every suite in this target takes each
/// engine in `all` as an argument, so a new engine inherits the whole suite by being
/// listed here.
struct StoreEngine: Sendable, CustomTestStringConvertible {
    let name: String
    /// Opens (creating) the engine's store in `folder`; opening the same folder again,
    /// or while it is open, gives the same data.
    let open: @Sendable (_ folder: String) throws -> any StoreExecutor

    var testDescription: String { name }

    static let sqlite = StoreEngine(name: "SQLite") { folder in try DatabaseQueue(path: folder + "/chorus.sqlite") }

    /// A database of the folder's own on the shared throwaway server, made on first open.
    /// Where the PostgreSQL server programs are missing the case is skipped, saying why
    /// (under CI=true `canRun` is true, and the missing server fails the test instead).
    static let postgres = StoreEngine(name: "PostgreSQL") { folder in
        guard ThrowawayPostgres.canRun else { try Test.cancel(ThrowawayPostgres.skipReason) }
        return try PostgresQueue(conninfo: try PostgresDatabases.database(for: folder), node: "store-tests")
    }

    static let all: [StoreEngine] = [.sqlite, .postgres]
}

/// Which throwaway database stands for which test folder.
enum PostgresDatabases {
    private static let byFolder = Locked<[String: String]>([:])

    static func database(for folder: String) throws -> String {
        try byFolder.withLock { known in
            if let conninfo = known[folder] { return conninfo }
            let conninfo = try ThrowawayPostgres.sharedCluster().makeDatabase()
            known[folder] = conninfo
            return conninfo
        }
    }
}

/// One engine's store in a fresh folder for one test, closed and removed after it.
final class StoreFixture {
    let engine: StoreEngine
    private let folder: URL
    private(set) var executor: any StoreExecutor

    init(_ engine: StoreEngine) throws {
        self.engine = engine
        folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("chorus-store-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        executor = try engine.open(folder.path)
    }

    deinit {
        executor.close()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Runs `body` as one unit of work and returns its result once committed. Checks go
    /// outside `body`: it runs on the executor's thread.
    func run<T: Sendable>(_ body: @escaping @Sendable (any Store) throws -> T) throws -> T {
        try executor.sync(body)
    }

    /// Closes the store and opens it again on the same folder.
    func reopen() throws {
        executor.close()
        executor = try engine.open(folder.path)
    }

    /// A second store open on the same data, as another process would see it.
    func openAnother() throws -> any StoreExecutor {
        try engine.open(folder.path)
    }

    /// Two accounts, alice and bob, and alice's room "Flat 2B".
    func household() throws -> Household {
        try run { db in
            let alice = try db.createAccount(name: "alice", passwordHash: "x", created: "2026-11-30T00:00:00Z").id
            let bob = try db.createAccount(name: "bob", passwordHash: "x", created: "2026-11-30T00:00:00Z").id
            let room = try db.createRoom(name: "Flat 2B", ownerID: alice, created: "2026-11-30T00:00:00Z")
            return Household(alice: alice, bob: bob, room: room)
        }
    }
}

struct Household: Sendable {
    let alice: Int64
    let bob: Int64
    let room: Int64
}

/// Collects values from completions running on the executor's thread.
final class Collected<T: Sendable>: Sendable {
    let items = Locked<[T]>([])

    func append(_ item: T) { items.withLock { $0.append(item) } }
    var all: [T] { items.withLock { $0 } }
}

/// A fixed linear congruential sequence: the same "random" mix on every run.
struct FixedSequence {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func below(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }
}
