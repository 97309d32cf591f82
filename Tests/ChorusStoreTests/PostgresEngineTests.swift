import ChorusStore
import ChorusTestSupport
import Testing

/// The PostgreSQL engine as the suites use it. Where PostgreSQL is missing, every
/// PostgreSQL case of the other suites is cancelled, silently in the console; this suite's
/// skip is where the reason shows.
@Suite(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason))
struct PostgresEngineTests {
    /// A folder stands for one database: reopening it, and a second store on it, see the
    /// same data; another folder sees none of it.
    @Test func aFolderIsOneDatabase() throws {
        let store = try StoreFixture(.postgres)
        _ = try store.run { try $0.createAccount(name: "alice", passwordHash: "h", created: "t") }
        try store.reopen()
        #expect(try store.run { try $0.accountCount() } == 1)
        let other = try store.openAnother()
        defer { other.close() }
        #expect(try other.sync { try $0.account(named: "alice")?.name } == "alice")
        let stranger = try StoreFixture(.postgres)
        #expect(try stranger.run { try $0.accountCount() } == 0)
    }
}
