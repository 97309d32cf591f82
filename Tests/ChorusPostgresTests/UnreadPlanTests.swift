@testable import ChorusPostgres
import ChorusTestSupport
import Testing

/// On PostgreSQL, ROOMS reads each unread count by key (`PostgresStore.unreadOfMember`),
/// and a READ's walk over the events its move passes (`PostgresStore.countedSaid`) can
/// seek the room's events through `events_by_room (room, id) WHERE user_id IS NULL`.
@Suite(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason),
       .timeLimit(.minutes(10)))
struct UnreadPlanTests {
    @Test func unreadCountsAreReadByKeyAndWalkedBySeeking() throws {
        let conninfo = try ThrowawayPostgres.sharedCluster().makeDatabase()
        try PostgresQueue(conninfo: conninfo, node: "plan").close()
        let db = try PostgresConnection(conninfo)
        // A fresh database's tables are tiny, where a scan is cheapest: forbid scans so the
        // plan shows whether an index can serve the query at all.
        _ = try db.execute("SET enable_seqscan = off")
        let rooms = try db.query("EXPLAIN SELECT m.room, \(PostgresStore.unreadOfMember) FROM members m WHERE m.user_id = $1", [.int(1)])
        let roomsPlan = (0..<rooms.rowCount).compactMap { rooms.row($0).string(0) }.joined(separator: "\n")
        #expect(roomsPlan.contains("read_markers_pkey"), "\(roomsPlan)")
        #expect(!roomsPlan.contains("on events"), "ROOMS reads no event: \(roomsPlan)")
        let walk = "SELECT " + PostgresStore.countedSaid(room: "$1::bigint", user: "$2::bigint", after: "$3::bigint", upTo: "$4::bigint", names: "$5")
        let result = try db.query("EXPLAIN " + walk, [.int(1), .int(1), .int(0), .int(100), PostgresStore.countedEventNames])
        let plan = (0..<result.rowCount).compactMap { result.row($0).string(0) }.joined(separator: "\n")
        #expect(plan.contains("events_by_room"), "\(plan)")
        #expect(!plan.contains("Seq Scan on events"), "\(plan)")
    }
}
