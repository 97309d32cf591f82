import ChorusCore
import Foundation
import Testing
@testable import ChorusSQLite
import ChorusStore

/// Ids are never handed out twice (migration 8), on new files and on files made by
/// versions that let SQLite reuse the largest id.
@Suite struct NeverReusedIDsTests {
    let created = "2026-11-30T00:00:00Z"

    /// On a new file, deleting the newest room, task, message, comment and token and then
    /// making another gives each a new number.
    @Test func deletingTheNewestDoesNotFreeItsID() throws {
        let directory = try TempDirectory()
        let db = try Database(path: directory.path())
        let alice = try db.createAccount(name: "alice", passwordHash: "x", created: created).id
        let first = try db.createRoom(name: "Flat 2B", ownerID: alice, created: created)
        try db.deleteRoom(first)
        let second = try db.createRoom(name: "Stranger's flat", ownerID: alice, created: created)
        #expect(second > first)

        let task = try db.insertTask(TaskDraft(room: second, owner: nil, title: "Bins", creator: alice, created: created))
        try db.deleteTask(id: task)
        #expect(try db.insertTask(TaskDraft(room: second, owner: nil, title: "Dishes", creator: alice, created: created)) > task)

        let token = try db.createToken(user: alice, label: "bot", kind: .bot, digest: "d1", created: created).id
        _ = try db.revokeToken(user: alice, label: "bot")
        #expect(try db.createToken(user: alice, label: "bot", kind: .bot, digest: "d2", created: created).id > token)

        for table in ["users", "rooms", "tasks", "messages", "comments", "dms", "tokens", "events"] {
            let definition = try db.prepare("SELECT sql FROM sqlite_master WHERE name = ?1").row(.text(table)) { $0.text(0) }
            #expect(definition?.contains("AUTOINCREMENT") == true, "\(table)")
        }
    }

    /// `after-restore`: every AUTOINCREMENT table's counter, used or not, moves past what a
    /// lost tail could have used, and the next room, task and event are numbered above it.
    @Test func afterRestoreMovesEveryCounter() throws {
        let directory = try TempDirectory()
        let db = try Database(path: directory.path())
        let alice = try db.createAccount(name: "alice", passwordHash: "x", created: created).id
        let room = try db.createRoom(name: "Flat 2B", ownerID: alice, created: created)
        let moves = try db.moveCountersAfterRestore()
        let moved = Dictionary(uniqueKeysWithValues: moves.map { ($0.counter, $0) })
        for table in ["users", "rooms", "tasks", "messages", "comments", "dms", "tokens", "events"] {
            #expect(moved[table] != nil, "\(table) not moved")
        }
        #expect(moved["rooms"] == CounterMove(counter: "rooms", from: room, to: room + RestoreRules.margin))
        #expect(moved["comments"]?.to == RestoreRules.margin)
        #expect(try db.createRoom(name: "Attic", ownerID: alice, created: created) == room + RestoreRules.margin + 1)
        #expect(try db.insertTask(TaskDraft(room: room, owner: nil, title: "Bins", creator: alice, created: created))
                == RestoreRules.margin + 1)
    }

    /// A file made by schema 7 keeps its rows, indexes and foreign keys through the
    /// rebuild, and ids deleted before it (known only from the event log) stay used.
    @Test func upgradingAnOldFileKeepsDataAndRetiresDeletedIDs() throws {
        let directory = try TempDirectory()
        let path = directory.path()
        do {
            let old = try Database(path: path, migrations: Array(Migrations.all.prefix(7)))
            let alice = try old.createAccount(name: "alice", passwordHash: "h", created: created).id
            let kept = try schema7Room(old, name: "Kept", owner: alice)
            let gone = try schema7Room(old, name: "Gone", owner: alice)
            let task = try old.insertTask(TaskDraft(room: kept, owner: nil, title: "Bins", creator: alice, created: created))
            let doomed = try old.insertTask(TaskDraft(room: gone, owner: nil, title: "Lost", creator: alice, created: created))
            _ = try old.insertMessage(room: kept, sender: alice, text: "hi", at: created)
            _ = try old.insertComment(task: task, sender: alice, text: "soon", at: created)
            _ = try old.appendEvent(room: gone, user: nil, name: "task.added", by: "alice", at: created,
                                    payload: #"{"room":\#(gone),"task":{"id":\#(doomed)}}"#, text: "added")
            _ = try old.appendEvent(room: gone, user: nil, name: "room.deleted", by: "alice", at: created,
                                    payload: #"{"room":\#(gone)}"#, text: "deleted")
            try old.deleteRoom(gone)
            #expect(try old.schemaVersion == 7)
            // Schema 7 reuses: the deleted room's number comes back.
            let reused = try schema7Room(old, name: "Reused", owner: alice)
            #expect(reused == gone)
            try old.deleteRoom(reused)
        }

        let db = try Database(path: path)
        #expect(try db.schemaVersion == Migrations.all.count)
        #expect(try db.account(named: "alice")?.passwordHash == "h")
        #expect(try db.strings("SELECT name FROM rooms") == ["Kept"])
        #expect(try db.strings("SELECT title FROM tasks") == ["Bins"])
        #expect(try db.strings("SELECT text FROM messages") == ["hi"])
        #expect(try db.strings("SELECT text FROM comments") == ["soon"])
        #expect(try db.strings("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'tasks' ORDER BY name")
            == ["tasks_behind_pending", "tasks_by_assignee", "tasks_by_creator", "tasks_by_done_by", "tasks_by_next",
                "tasks_by_owner", "tasks_by_parent", "tasks_by_room", "tasks_due_pending", "tasks_remind_pending"])
        #expect(try db.foreignKeyViolations().isEmpty)
        #expect(try db.prepare("PRAGMA foreign_keys").row { $0.int(0) } == 1)

        let alice = try #require(try db.account(named: "alice")).id
        #expect(try db.createRoom(name: "Next", ownerID: alice, created: created) == 3)
        #expect(try db.insertTask(TaskDraft(room: 1, owner: nil, title: "Next", creator: alice, created: created)) == 3)
        // Foreign keys still act after the rebuild: deleting a room takes its tasks along.
        try db.deleteRoom(1)
        #expect(try db.strings("SELECT title FROM tasks").isEmpty)
    }

    /// A `dm` event's `message.id` is a DM's id, not a chat line's: an old file's deleted
    /// DMs keep their numbers (the dms table has its own floor), and chat lines' counter is
    /// not pushed up by DM ids. Before, DM ids went into the messages floor and dms had none.
    @Test func directMessagesHaveTheirOwnFloor() throws {
        let directory = try TempDirectory()
        let path = directory.path()
        do {
            let old = try Database(path: path, migrations: Array(Migrations.all.prefix(7)))
            let alice = try old.createAccount(name: "alice", passwordHash: "h", created: created).id
            let bob = try old.createAccount(name: "bob", passwordHash: "h", created: created).id
            let room = try schema7Room(old, name: "Flat", owner: alice)
            let line = try old.insertMessage(room: room, sender: alice, text: "hi", at: created)
            try old.prepare("INSERT INTO events (room, user, name, by, at, payload, text) VALUES (?1, NULL, 'message', 'alice', ?2, ?3, 'hi')")
                .run(.integer(room), .text(created), .text(#"{"room":\#(room),"message":{"id":\#(line)}}"#))
            var last: Int64 = 0
            for text in ["one", "two", "three"] {
                last = try old.insertDM(sender: alice, recipient: bob, text: text, at: created)
                _ = try old.appendEvent(room: nil, user: bob, name: "dm", by: "alice", at: created,
                                        payload: #"{"message":{"id":\#(last)}}"#, text: text)
            }
            #expect(last == 3)
            // The newest two are gone from the table; only the log still names them.
            try old.execute("DELETE FROM dms WHERE id >= 2")
        }

        let db = try Database(path: path)
        let alice = try #require(try db.account(named: "alice")).id
        let bob = try #require(try db.account(named: "bob")).id
        #expect(try db.insertDM(sender: alice, recipient: bob, text: "four", at: created) == 4)
        #expect(try db.insertMessage(room: 1, sender: alice, text: "again", at: created) == 2)
    }
}

extension NeverReusedIDsTests {
    /// A room and its owner as a schema-7 file holds them, in that schema's SQL: today's
    /// `createRoom` and a `message` event also keep unread counts, a table schema 7 lacks.
    func schema7Room(_ db: Database, name: String, owner: Int64) throws -> Int64 {
        try db.prepare("INSERT INTO rooms (name, created) VALUES (?1, ?2)").run(.text(name), .text(created))
        let id = db.lastInsertRowID
        try db.prepare("INSERT INTO members (room, user, role, joined) VALUES (?1, ?2, 'owner', ?3)")
            .run(.integer(id), .integer(owner), .text(created))
        return id
    }
}
