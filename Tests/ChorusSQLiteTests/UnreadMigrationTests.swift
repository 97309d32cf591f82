@testable import ChorusSQLite
import Testing

/// Migration 15 gives every member a kept unread count, counted once from the backlog
/// the way schema 14 counted on each ROOMS; from then on the count is kept as said.
@Suite struct UnreadMigrationTests {
    @Test func migration15CountsEveryMembersBacklogOnce() throws {
        let directory = try TempDirectory()
        let path = directory.path()
        do {
            // Schema 14's own SQL: the code of today writes columns it does not have.
            let old = try Database(path: path, migrations: Array(Migrations.all.prefix(14)))
            try old.execute("""
                INSERT INTO users (id, name, password, created) VALUES (1, 'alice', 'h', 't'), (2, 'bob', 'h', 't'), (3, 'cy', 'h', 't');
                INSERT INTO rooms (id, name, created) VALUES (1, 'Flat', 't');
                INSERT INTO members (room, user, role, joined) VALUES (1, 1, 'owner', 't'), (1, 2, 'member', 't'), (1, 3, 'member', 't');
                INSERT INTO events (id, room, user, name, by, at, payload, text) VALUES
                  (1, 1, NULL, 'message', 'alice', 't', '{}', ''),
                  (2, 1, NULL, 'member.added', 'alice', 't', '{}', ''),
                  (3, 1, NULL, 'message', 'alice', 't', '{}', ''),
                  (4, 1, NULL, 'comment', 'bob', 't', '{}', ''),
                  (5, 1, NULL, 'task.added', 'bob', 't', '{}', ''),
                  (6, 1, 2, 'message', 'alice', 't', '{}', ''),
                  (7, 1, NULL, 'message', 'alice', 't', '{}', '');
                INSERT INTO memberships (room, user, first_event, last_event) VALUES (1, 3, 2, NULL);
                INSERT INTO read_markers (user, room, event) VALUES (2, 1, 3);
                """)
        }
        let db = try Database(path: path)
        #expect(try db.schemaVersion == Migrations.all.count)
        func unread() throws -> [Int] {
            try [1, 2, 3].map { try db.room(id: 1, forUser: $0, now: .now)?.unread ?? -1 }
        }
        // alice: bob's comment. bob: alice's message after his marker (3). cy: all three
        // of others' words since joining at event 2; the personal event (6) never counts.
        #expect(try unread() == [1, 1, 3])
        _ = try db.appendEvent(room: 1, user: nil, name: "message", by: "bob", at: "t", payload: "{}", text: "")
        #expect(try unread() == [2, 1, 4])
        try db.setReadMarker(user: 3, room: 1, event: 4)
        #expect(try unread() == [2, 1, 2])
    }
}
