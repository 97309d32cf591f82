import ChorusCore
import Foundation
import Testing
@testable import ChorusSQLite
import ChorusStore

/// SQLite only: what the store's behaviour rests on in this engine (the member cache and
/// its triggers, the schema's checks, query plans, ids after raw deletes). The behaviour
/// itself, on every engine, is in ChorusStoreTests.
@Suite struct SQLiteStoreTests {
    let now = Date(timeIntervalSince1970: 1_796_000_000)

    /// A database with two accounts (alice id 1, bob id 2) and alice's room "Flat 2B".
    func household() throws -> (TempDirectory, Database, room: Int64) {
        let directory = try TempDirectory()
        let db = try Database(path: directory.path())
        _ = try db.createAccount(name: "alice", passwordHash: "x", created: "2026-11-30T00:00:00Z")
        _ = try db.createAccount(name: "bob", passwordHash: "x", created: "2026-11-30T00:00:00Z")
        let room = try db.createRoom(name: "Flat 2B", ownerID: 1, created: "2026-11-30T00:00:00Z")
        return (directory, db, room)
    }

    /// Fan-out's member lists are cached, and always tell the truth: after adds and
    /// removes, inside a transaction that changed them, after a transaction or a savepoint
    /// that was rolled back, after cascades from deleting a room or a user, and after
    /// another connection's commit.
    @Test func memberListsStayTrueThroughTheCache() throws {
        let (directory, db, room) = try household()
        _ = try db.createAccount(name: "carol", passwordHash: "x", created: "2026-11-30T00:00:00Z")
        #expect(try db.memberIDs(ofRoom: room) == [1])
        try db.addMember(room: room, user: 2, role: .member, joined: "t")
        #expect(try db.memberIDs(ofRoom: room) == [1, 2])
        #expect(try db.memberIDs(ofRoom: room) == [1, 2])

        struct Undo: Error {}
        // A whole transaction rolled back after the changed list was read inside it.
        #expect(throws: Undo.self) {
            try db.transaction { () throws -> Void in
                try db.addMember(room: room, user: 3, role: .member, joined: "t")
                #expect(try db.memberIDs(ofRoom: room) == [1, 2, 3])
                throw Undo()
            }
        }
        #expect(try db.memberIDs(ofRoom: room) == [1, 2])
        // A savepoint rolled back inside a transaction that goes on and commits.
        try db.transaction { () throws -> Void in
            #expect(throws: Undo.self) {
                try db.savepoint { () throws -> Void in
                    try db.removeMember(room: room, user: 2)
                    #expect(try db.memberIDs(ofRoom: room) == [1])
                    throw Undo()
                }
            }
            #expect(try db.memberIDs(ofRoom: room) == [1, 2])
        }
        #expect(try db.memberIDs(ofRoom: room) == [1, 2])

        // Another connection's commit.
        let other = try Database(path: directory.path())
        try other.addMember(room: room, user: 3, role: .member, joined: "t")
        other.close()
        #expect(try db.memberIDs(ofRoom: room) == [1, 2, 3])

        // Cascades: a deleted user leaves every room; a deleted room has no members.
        try db.execute("DELETE FROM users WHERE id = 3")
        #expect(try db.memberIDs(ofRoom: room) == [1, 2])
        try db.deleteRoom(room)
        #expect(try db.memberIDs(ofRoom: room) == [])
    }

    /// A member's access to a room (its name, their role), which every chat line checks,
    /// is cached too and always tells the truth: after a role change, a rename, a removal,
    /// a rolled-back transaction, another connection's commit and the room's deletion.
    @Test func roomAccessStaysTrueThroughTheCache() throws {
        let (directory, db, room) = try household()
        let access = { (user: Int64) in try db.roomAccess(id: room, forUser: user) }
        try db.addMember(room: room, user: 2, role: .member, joined: "t")
        #expect(try access(2) == RoomAccess(id: room, name: "Flat 2B", role: .member))
        #expect(try access(2) == RoomAccess(id: room, name: "Flat 2B", role: .member))
        try db.setRole(room: room, user: 2, role: .admin)
        #expect(try access(2)?.role == .admin)
        try db.renameRoom(room, to: "Flat 3C")
        #expect(try access(1)?.name == "Flat 3C")
        #expect(try access(2)?.name == "Flat 3C")

        struct Undo: Error {}
        #expect(throws: Undo.self) {
            try db.transaction { () throws -> Void in
                try db.removeMember(room: room, user: 2)
                #expect(try access(2) == nil)
                throw Undo()
            }
        }
        #expect(try access(2)?.role == .admin)

        let other = try Database(path: directory.path())
        try other.removeMember(room: room, user: 2)
        other.close()
        #expect(try access(2) == nil)
        #expect(try access(1)?.role == .owner)
        try db.deleteRoom(room)
        #expect(try access(1) == nil)
    }

    /// Event ids are never reused, even after the log's rows are deleted.
    @Test func eventIDsAreNotReusedAfterDeletes() throws {
        let (_, db, _) = try household()
        let first = try db.appendEvent(room: 1, user: nil, name: "message", by: "alice", at: "t", payload: "{}", text: "x")
        try db.execute("DELETE FROM events")
        let second = try db.appendEvent(room: 1, user: nil, name: "message", by: "alice", at: "t", payload: "{}", text: "x")
        #expect(second > first)
    }

    /// Every query a command makes on a big table uses an index, not a full scan.
    @Test func queriesUseIndexes() throws {
        let (_, db, _) = try household()
        let queries: [(String, [Statement.Value])] = [
            ("SELECT user FROM members WHERE room = ?1", [1]),
            ("SELECT r.id FROM members m JOIN rooms r ON r.id = m.room WHERE m.user = ?1 AND lower(r.name) = lower(?2)", [1, "x"]),
            (TaskSQL.select(" WHERE t.room = ?1 AND t.done = 0"), [1]),
            (TaskSQL.select(" WHERE t.parent = ?1"), [1]),
            (TaskSQL.select(" WHERE t.owner = ?1 AND t.done = 0"), [1]),
            (TaskSQL.select(" WHERE t.assignee = ?1 AND t.done = 0"), [1]),
            ("SELECT id FROM messages WHERE room = ?1 AND id < ?2 ORDER BY id DESC LIMIT 50", [1, 100]),
            ("SELECT id FROM comments WHERE task = ?1 ORDER BY id", [1]),
            ("SELECT id FROM events WHERE room = ?1 AND id > ?2", [1, 0]),
            ("SELECT code FROM invites WHERE room = ?1", [1]),
            ("SELECT t.done_by, count(*) FROM tasks t WHERE t.room = ?1 AND t.done = 1 GROUP BY t.done_by", [1]),
            // SYNC's three sources (Database.events(forUser:after:limit:)).
            (EventSQL.select + " WHERE e.user = ?1 AND e.id > ?2 ORDER BY e.id LIMIT ?3", [1, 0, 10]),
            (EventSQL.select + " WHERE e.peer = ?1 AND e.id > ?2 ORDER BY e.id LIMIT ?3", [1, 0, 10]),
            (EventSQL.select + " WHERE e.room = ?1 AND e.user IS NULL AND e.id > ?2 AND e.id <= ?3 ORDER BY e.id LIMIT ?4", [1, 0, 9, 10]),
        ]
        for (sql, values) in queries {
            let plan = try db.prepare("EXPLAIN QUERY PLAN " + sql).bind(values).rowsText(column: 3)
            let scans = plan.filter { $0.hasPrefix("SCAN ") && !$0.contains("USING") }
            #expect(scans.isEmpty, "\(sql): \(plan)")
        }
    }
}

extension SQLiteStoreTests {
    /// ROOMS reads each unread count by key (`Database.unreadOfMember`); a READ's walk
    /// over the events its move passes (`Database.countedSaid`) seeks into the room's
    /// events through `events_by_room` and finds the joining by index: no scan.
    @Test func unreadCountsAreReadByKeyAndWalkedBySeeking() throws {
        let (_, db, _) = try household()
        let rooms = try db.prepare("EXPLAIN QUERY PLAN SELECT m.room, \(Database.unreadOfMember) FROM members m WHERE m.user = ?1")
            .bind([1]).rowsText(column: 3)
        #expect(rooms.contains { $0.contains("USING PRIMARY KEY (user=? AND room=?)") }, "the count, by key: \(rooms)")
        let walk = "SELECT " + Database.countedSaid(room: "?1", user: "?2", after: "?3", upTo: "?4", firstName: 5)
        let plan = try db.prepare("EXPLAIN QUERY PLAN " + walk).bind([1, 1, 0, 100] + Database.countedEventValues).rowsText(column: 3)
        #expect(plan.contains { $0.contains("events_by_room") && $0.contains("rowid>? AND rowid<?") }, "\(plan)")
        #expect(plan.contains { $0.contains("memberships_by_user") }, "\(plan)")
        for sql in [rooms, plan] {
            let scans = sql.filter { $0.hasPrefix("SCAN ") && !$0.contains("USING") && $0 != "SCAN CONSTANT ROW" }
            #expect(scans.isEmpty, "\(sql)")
        }
    }

    /// The schema itself rejects values outside the allowed ones (STRICT and CHECK).
    @Test func schemaRejectsBadValues() throws {
        let (_, db, _) = try household()
        let insert = "INSERT INTO users (name, password, admin, created) VALUES (?1, 'h', ?2, 't')"
        let check = #expect(throws: StoreError.self) { try db.prepare(insert).run("a", 2) }
        #expect(check?.kind == .constraint)
        let strict = #expect(throws: StoreError.self) { try db.prepare(insert).run("b", "yes") }
        #expect(strict?.kind == .constraint)
    }

    /// Looking an account up by name searches the unique index instead of scanning.
    @Test func lookupByNameUsesIndex() throws {
        let (_, db, _) = try household()
        let plan = try db.prepare("EXPLAIN QUERY PLAN " + AccountSQL.byName).rows("alice") { $0.text(3) }
        #expect(plan.count == 1)
        #expect(plan.allSatisfy { $0.hasPrefix("SEARCH users USING") && $0.contains("INDEX") && $0.contains("(name=?)") })
    }
}

extension Statement {
    /// Every row's column as text, after `bind`.
    func rowsText(column: Int32) throws -> [String] {
        var result: [String] = []
        while try step() { result.append(try currentRow.text(column)) }
        return result
    }
}
