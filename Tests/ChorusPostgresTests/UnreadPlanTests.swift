@testable import ChorusPostgres
import ChorusTestSupport
import Testing

/// ROOMS' unread counts on PostgreSQL (`PostgresStore.unreadCount`) can seek the room's
/// events past the marker through `events_by_room (room, id) WHERE user_id IS NULL`.
@Suite(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason),
       .timeLimit(.minutes(10)))
struct UnreadPlanTests {
    @Test func unreadCountsSeekTheRoomsEvents() throws {
        let conninfo = try ThrowawayPostgres.sharedCluster().makeDatabase()
        try PostgresQueue(conninfo: conninfo, node: "plan").close()
        let db = try PostgresConnection(conninfo)
        // A fresh database's tables are tiny, where a scan is cheapest: forbid scans so the
        // plan shows whether an index can serve the query at all.
        _ = try db.execute("SET enable_seqscan = off")
        let sql = "SELECT m.room, \(PostgresStore.unreadCount(parameter: 2)) FROM members m WHERE m.user_id = $1"
        let result = try db.query("EXPLAIN " + sql, [.int(1), PostgresStore.countedEventNames])
        let plan = (0..<result.rowCount).compactMap { result.row($0).string(0) }.joined(separator: "\n")
        #expect(plan.contains("events_by_room"), "\(plan)")
        #expect(plan.contains("read_markers_pkey"), "\(plan)")
        #expect(!plan.contains("Seq Scan on events"), "\(plan)")
    }
}
