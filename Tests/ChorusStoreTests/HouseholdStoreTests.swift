import ChorusCore
import Foundation
import Testing
@testable import ChorusStore

/// Rooms, tasks, chat and the event log on a real SQLite file.
@Suite struct HouseholdStoreTests {
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

    /// The creator is the owner; adding twice is a 409; members are listed owner first.
    @Test func roomsAndMembers() throws {
        let (_, db, room) = try household()
        try db.addMember(room: room, user: 2, role: .member, joined: "t")
        #expect(throws: ChorusError.conflict("already a member")) { try db.addMember(room: room, user: 2, role: .member, joined: "t") }
        #expect(try db.members(ofRoom: room).map(\.name) == ["alice", "bob"])
        #expect(try db.role(ofUser: 1, inRoom: room) == .owner)
        #expect(try db.rooms(ofUser: 2, now: now).map(\.name) == ["Flat 2B"])
        #expect(try db.room(id: room, forUser: 3, now: now) == nil)
        #expect(try db.roomIDs(named: "flat 2b", forUser: 1) == [room])
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

    /// Deleting a room removes its members, tasks, subtasks, comments, messages and invites.
    @Test func deletingARoomCascades() throws {
        let (_, db, room) = try household()
        let task = try db.insertTask(TaskDraft(room: room, owner: nil, title: "Trash", creator: 1, created: "t"))
        var sub = TaskDraft(room: room, owner: nil, title: "Bag", creator: 1, created: "t")
        sub.parent = task
        _ = try db.insertTask(sub)
        _ = try db.insertComment(task: task, sender: 1, text: "hi", at: "t")
        _ = try db.insertMessage(room: room, sender: 1, text: "hello", at: "t")
        try db.createInvite(code: "AAAA-BBBB-CCCC-DDDD", room: room, createdBy: 1, usesLeft: 1, expires: nil, created: "t")
        try db.deleteRoom(room)
        for table in ["members", "tasks", "comments", "messages", "invites", "rooms"] {
            #expect(try db.integer("SELECT count(*) FROM \(table)") == 0, "\(table)")
        }
    }

    /// A parent's progress is computed from its subtasks, weighted by points.
    @Test func parentProgressRollsUp() throws {
        let (_, db, room) = try household()
        let parent = try db.insertTask(TaskDraft(room: room, owner: nil, title: "Clean", creator: 1, created: "t"))
        var first = TaskDraft(room: room, owner: nil, title: "Kitchen", creator: 1, created: "t")
        first.parent = parent
        first.points = 3
        let kitchen = try db.insertTask(first)
        var second = first
        second.title = "Bath"
        second.points = 1
        _ = try db.insertTask(second)
        var record = try #require(try db.task(id: kitchen))
        record.finish(by: (1, "alice"), at: "2026-11-30T00:00:00Z")
        try db.updateTask(record)
        #expect(try db.task(id: parent)?.computedProgress == 75)
        #expect(try db.task(id: kitchen)?.computedProgress == nil)
    }

    /// A room's progress bar and open count, summed by SQLite, agree with the definition
    /// over the tasks themselves (`RoomProgress.percent(of:)`): top-level tasks open or
    /// finished in the last week, weighted by points, parents by their subtasks. Checked
    /// on a random mix, and with every task worth no points.
    @Test func roomProgressMatchesItsDefinition() throws {
        let (_, db, room) = try household()
        let now = Date(timeIntervalSince1970: 1_796_000_000)
        var state: UInt64 = 11
        func below(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var parents: [Int64] = []
        for round in 0..<2 {
            for _ in 0..<300 {
                var draft = TaskDraft(room: room, owner: nil, title: "chore", creator: 1, created: "t")
                draft.points = round == 0 ? below(4) : 0
                if !parents.isEmpty && below(3) == 0 { draft.parent = parents[below(parents.count)] }
                let id = try db.insertTask(draft)
                if draft.parent == nil && below(4) == 0 { parents.append(id) }
                var record = try #require(try db.task(id: id))
                switch below(4) {
                case 0: record.finish(by: (1, "alice"), at: Timestamp.rfc3339(now.addingTimeInterval(-Double(below(14)) * 86400)))
                case 1: record.progress = below(101)
                default: break
                }
                try db.updateTask(record)
            }
            let weekAgo = Timestamp.rfc3339(now.addingTimeInterval(-7 * 86400))
            let counted = try db.tasks(in: .room(room), done: nil)
                .filter { $0.parent == nil && (!$0.done || ($0.doneAt ?? "") >= weekAgo) }
            let shown = try #require(try db.room(id: room, forUser: 1, now: now))
            #expect(shown.progress == RoomProgress.percent(of: counted), "round \(round)")
            #expect(shown.open == counted.filter { !$0.done }.count)
            #expect(counted.count > 100 && shown.progress > 0 && shown.progress < 100, "a mix worth checking")
            if round == 0 { try db.execute("DELETE FROM tasks") ; parents = [] }
        }
    }

    /// Removing a member hands their chores in that room back to nobody.
    @Test func removingAMemberUnassignsTheirTasks() throws {
        let (_, db, room) = try household()
        try db.addMember(room: room, user: 2, role: .member, joined: "t")
        var draft = TaskDraft(room: room, owner: nil, title: "Trash", creator: 1, created: "t")
        draft.assignee = 2
        let task = try db.insertTask(draft)
        try db.removeMember(room: room, user: 2)
        #expect(try db.task(id: task)?.assignee == nil)
    }

    /// HISTORY pages: newest first from the database, returned oldest first.
    @Test func historyPages() throws {
        let (_, db, room) = try household()
        for index in 1...10 { _ = try db.insertMessage(room: room, sender: 1, text: "m\(index)", at: "t") }
        #expect(try db.history(room: room, limit: 3, beforeID: nil).map(\.text) == ["m8", "m9", "m10"])
        #expect(try db.history(room: room, limit: 3, beforeID: 8).map(\.text) == ["m5", "m6", "m7"])
    }

    /// Event ids grow strictly and are never reused after deletes.
    @Test func eventIDsGrow() throws {
        let (_, db, _) = try household()
        let first = try db.appendEvent(room: 1, user: nil, name: "message", by: "alice", at: "t", payload: "{}", text: "x")
        try db.execute("DELETE FROM events")
        let second = try db.appendEvent(room: 1, user: nil, name: "message", by: "alice", at: "t", payload: "{}", text: "x")
        #expect(second > first)
    }

    /// SYNC's page, read source by source through indexes, is exactly what the definition
    /// says: every event after `after` that is addressed to the user (personal, DM either
    /// way) or belongs to a room while the user was in it, in id order, `limit` at most.
    /// Checked against that definition as one query over the whole log, on a random mix
    /// of rooms, personal events, DMs, and members coming and going (several spans each).
    @Test func syncPagesMatchTheirDefinition() throws {
        let (_, db, _) = try household()
        _ = try db.createAccount(name: "carol", passwordHash: "x", created: "2026-11-30T00:00:00Z")
        _ = try db.createRoom(name: "Den", ownerID: 3, created: "t")
        _ = try db.createRoom(name: "Attic", ownerID: 2, created: "t")
        // A fixed linear congruential sequence: the same mix on every run.
        var state: UInt64 = 7
        func below(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var open: Set<[Int64]> = []
        for _ in 0..<3_000 {
            let user = Int64(below(3) + 1), room = Int64(below(3) + 1)
            switch below(10) {
            case 0:
                let event = try db.appendEvent(room: room, user: nil, name: "member", by: nil, at: "t", payload: "{}", text: "")
                if open.remove([room, user]) != nil {
                    try db.closeMembership(room: room, user: user, atEvent: event)
                } else {
                    open.insert([room, user])
                    try db.openMembership(room: room, user: user, fromEvent: event)
                }
            case 1:
                _ = try db.appendEvent(room: nil, user: user, name: "task.added", by: nil, at: "t", payload: "{}", text: "")
            case 2:
                let event = try db.appendEvent(room: nil, user: user, name: "dm", by: nil, at: "t", payload: "{}", text: "")
                try db.setEventPeer(event: event, peer: user % 3 + 1)
            default:
                _ = try db.appendEvent(room: room, user: nil, name: "message", by: nil, at: "t", payload: "{}", text: "")
            }
        }
        let newest = try db.lastEventID()
        let definition = try db.prepare("""
            SELECT e.id FROM events e WHERE e.id > ?2 AND (
              e.user = ?1 OR e.peer = ?1
              OR (e.user IS NULL AND e.room IS NOT NULL AND EXISTS (
                    SELECT 1 FROM memberships m WHERE m.user = ?1 AND m.room = e.room
                      AND e.id >= m.first_event AND (m.last_event IS NULL OR e.id <= m.last_event))))
            ORDER BY e.id LIMIT ?3
            """)
        var pages = 0
        for user in Int64(1)...3 {
            for after in [0, 1, newest / 3, newest / 2, newest - 5, newest] {
                for limit in [1, 7, 101, 501] {
                    let expected = try definition.rows(.integer(user), .integer(after), .init(limit)) { $0.int(0) }
                    let got = try db.events(forUser: user, after: after, limit: limit).map(\.id)
                    #expect(got == expected, "user \(user) after \(after) limit \(limit)")
                    if !expected.isEmpty { pages += 1 }
                }
            }
        }
        #expect(pages > 50, "the mix gave most users something to see")
    }

    /// Every query a command makes on a big table uses an index, not a full scan.
    @Test func queriesUseIndexes() throws {
        let (_, db, _) = try household()
        let queries: [(String, [Statement.Value])] = [
            ("SELECT user FROM members WHERE room = ?1", [1]),
            ("SELECT r.id FROM members m JOIN rooms r ON r.id = m.room WHERE m.user = ?1 AND lower(r.name) = lower(?2)", [1, "x"]),
            (TaskSQL.select + " WHERE t.room = ?1 AND t.done = 0", [1]),
            (TaskSQL.select + " WHERE t.parent = ?1", [1]),
            (TaskSQL.select + " WHERE t.owner = ?1 AND t.done = 0", [1]),
            (TaskSQL.select + " WHERE t.assignee = ?1 AND t.done = 0", [1]),
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

extension Statement {
    /// Every row's column as text, after `bind`.
    func rowsText(column: Int32) throws -> [String] {
        var result: [String] = []
        while try step() { result.append(try currentRow.text(column)) }
        return result
    }
}
