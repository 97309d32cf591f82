@testable import ChorusPostgres
import ChorusTestSupport
import Foundation
import Testing

/// Step 9 gives every member a kept unread count, as SQLite's migration 15
/// (`UnreadMigrationTests`, the same rows and figures).
@Suite(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason),
       .timeLimit(.minutes(10)))
struct UnreadMigrationPostgresTests {
    @Test func step9CountsEveryMembersBacklogOnce() throws {
        let conninfo = try ThrowawayPostgres.sharedCluster().makeDatabase()
        do {
            let old = try PostgresConnection(conninfo)
            _ = try PostgresSchema.migrate(old, migrations: Array(PostgresMigrations.all.prefix(8)))
            try old.executeScript("""
                INSERT INTO users (id, name, password, created) VALUES (1, 'alice', 'h', 't'), (2, 'bob', 'h', 't'), (3, 'cy', 'h', 't');
                INSERT INTO rooms (id, name, created) VALUES (1, 'Flat', 't');
                INSERT INTO members (room, user_id, role, joined) VALUES (1, 1, 'owner', 't'), (1, 2, 'member', 't'), (1, 3, 'member', 't');
                INSERT INTO events (id, room, user_id, name, by, at, payload, text) VALUES
                  (1, 1, NULL, 'message', 'alice', 't', '{}', ''),
                  (2, 1, NULL, 'member.added', 'alice', 't', '{}', ''),
                  (3, 1, NULL, 'message', 'alice', 't', '{}', ''),
                  (4, 1, NULL, 'comment', 'bob', 't', '{}', ''),
                  (5, 1, NULL, 'task.added', 'bob', 't', '{}', ''),
                  (6, 1, 2, 'message', 'alice', 't', '{}', ''),
                  (7, 1, NULL, 'message', 'alice', 't', '{}', '');
                UPDATE event_counter SET last = 7;
                INSERT INTO memberships (room, user_id, first_event, last_event) VALUES (1, 3, 2, NULL);
                INSERT INTO read_markers (user_id, room, event) VALUES (2, 1, 3);
                """)
        }
        let queue = try PostgresQueue(conninfo: conninfo, node: "upgraded")
        defer { queue.close() }
        func unread() throws -> [Int] {
            try queue.sync { db in try [1, 2, 3].map { try db.room(id: 1, forUser: $0, now: Date())?.unread ?? -1 } }
        }
        #expect(try unread() == [1, 1, 3])
        _ = try queue.sync { try $0.appendEvent(room: 1, user: nil, name: "message", by: "bob", at: "t", payload: "{}", text: "", audience: []) }
        #expect(try unread() == [2, 1, 4])
        try queue.sync { try $0.setReadMarker(user: 3, room: 1, event: 4) }
        #expect(try unread() == [2, 1, 2])
    }
}
