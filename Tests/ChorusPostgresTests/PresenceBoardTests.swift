import ChorusPostgres
import ChorusStore
import Foundation
import Testing
import ChorusTestSupport

/// `PostgresPresenceBoard` against a real database: nodes read each other's users and
/// their changes, a live node's name cannot be taken, a dead one's can, and a node whose
/// lease ran out is dropped with its backends ended, then writes itself back whole.
@Suite(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason),
       .timeLimit(.minutes(10)))
struct PresenceBoardTests {
    static let timing = PresenceTiming(heartbeat: 0.5, lease: 3)

    /// A fresh database with the schema (the queue makes it) and an admin connection.
    static func database() throws -> (conninfo: String, admin: PostgresConnection) {
        let conninfo = try ThrowawayPostgres.sharedCluster().makeDatabase()
        try PostgresQueue(conninfo: conninfo, node: "schema").close()
        return (conninfo, try PostgresConnection(conninfo))
    }

    static func board(_ node: String, _ conninfo: String, patience: Double = 2, timing: PresenceTiming = timing,
                      pids: @escaping @Sendable () -> [Int32] = { [] }) throws -> PostgresPresenceBoard {
        try PostgresPresenceBoard(conninfo: conninfo, node: node, timing: timing, patience: patience, otherBackendPIDs: pids)
    }

    static func report(_ users: [Int64: Int]) -> NodeReport {
        NodeReport(sessions: users.values.reduce(0, +), users: users, deliveredUpTo: nil)
    }

    static func users(of node: String, in round: PresenceRound) -> [Int64: Int]? {
        round.live.first { $0.node == node }?.users
    }

    /// The backends of `node`'s presence connection.
    static func presencePIDs(_ node: String, _ admin: PostgresConnection) throws -> [Int64] {
        try admin.query("SELECT pid FROM pg_stat_activity WHERE application_name = $1", [.text("chorusd \(node) presence")])
            .rows.compactMap { try $0.int64(0) }
    }

    @Test func nodesReadEachOthersUsersAndTheirChanges() throws {
        let (conninfo, _) = try Self.database()
        let a = try Self.board("a", conninfo)
        let b = try Self.board("b", conninfo)
        _ = try a.heartbeat(Self.report([1: 2, 2: 1]))
        var seen = try b.heartbeat(Self.report([3: 1]))
        #expect(seen.live.map(\.node) == ["a", "b"])
        #expect(Self.users(of: "a", in: seen) == [1: 2, 2: 1])
        #expect(seen.live.first { $0.node == "a" }?.sessions == 3)

        _ = try a.heartbeat(Self.report([1: 1]))
        seen = try b.heartbeat(Self.report([3: 1]))
        #expect(Self.users(of: "a", in: seen) == [1: 1], "a change must be read again")
        #expect(Self.users(of: "b", in: try a.heartbeat(Self.report([1: 1]))) == [3: 1])

        a.leave()
        seen = try b.heartbeat(Self.report([3: 1]))
        #expect(seen.live.map(\.node) == ["b"], "a node that left no longer counts")
        b.leave()
    }

    /// A second board for a live node's name is refused; once the holder's connections
    /// are gone (a killed process), the name is free at once, lease or not.
    @Test func aLiveNodesNameCannotBeTakenADeadOnesCan() throws {
        let (conninfo, admin) = try Self.database()
        let first = try Self.board("x", conninfo)
        _ = try first.heartbeat(Self.report([7: 1]))
        #expect {
            _ = try Self.board("x", conninfo, patience: 0.3)
        } throws: { error in
            (error as? StoreError)?.kind == .duplicate && "\(error)".contains("node name x is in use")
        }
        // The holder dies: its backend ends with it, its row stays behind.
        for pid in try Self.presencePIDs("x", admin) {
            _ = try admin.query("SELECT pg_terminate_backend($1::integer)", [.int(pid)])
        }
        let second = try Self.board("x", conninfo)
        let round = try second.heartbeat(Self.report([:]))
        #expect(Self.users(of: "x", in: round) == [:], "the former holder's users were dropped with its name")
        let stale = try admin.query("SELECT count(*) FROM presence WHERE node = 'x'").firstRow().int64(0)
        #expect(stale == 0)
        #expect(throws: (any Error).self, "the former holder no longer holds the name") {
            _ = try first.heartbeat(Self.report([7: 1]))
        }
        second.leave()
    }

    /// a's lease runs out (no heartbeat for over a second, the lease here): b drops it, its presence
    /// rows, and ends its connections, the presence one and the one it named (its tail's,
    /// here a stand-in). a's next heartbeat reconnects and writes all its users again.
    @Test func aNodeWhoseLeaseRanOutIsDroppedAndComesBackWhole() throws {
        let (conninfo, admin) = try Self.database()
        let tail = try PostgresConnection(conninfo)
        let tailPID = tail.backendPID
        let short = PresenceTiming(heartbeat: 0.2, lease: 1)
        let a = try Self.board("a", conninfo, timing: short) { [tailPID] }
        let b = try Self.board("b", conninfo, timing: short)
        _ = try a.heartbeat(Self.report([1: 1, 2: 3]))
        #expect(Self.users(of: "a", in: try b.heartbeat(Self.report([:]))) == [1: 1, 2: 3])

        _ = try b.heartbeat(Self.report([:]))
        Thread.sleep(forTimeInterval: 1.5)
        let round = try b.heartbeat(Self.report([:]))
        #expect(round.live.map(\.node) == ["b"])
        #expect(round.retired == [RetiredNode(node: "a", backendsEnded: 2)])
        #expect(try admin.query("SELECT count(*) FROM presence WHERE node = 'a'").firstRow().int64(0) == 0)
        #expect(throws: (any Error).self, "the named connection was ended") { try tail.query("SELECT 1") }

        _ = try a.heartbeat(Self.report([1: 1, 2: 3]))
        #expect(Self.users(of: "a", in: try b.heartbeat(Self.report([:]))) == [1: 1, 2: 3])
        a.leave()
        b.leave()
    }
}
