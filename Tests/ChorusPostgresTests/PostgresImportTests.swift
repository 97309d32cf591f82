@testable import ChorusPostgres
import ChorusStore
import Foundation
import Testing
import ChorusTestSupport

/// The PostgreSQL end of `copy-to-postgres` on its own: COPY's text format, the
/// held-back self references, identities and the counter above SQLite's floors, the
/// audience from the spans, and a refusal that writes nothing.
@Suite(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason), .timeLimit(.minutes(10)))
struct PostgresImportTests {
    static func table(_ name: String) -> ImportedTable {
        PostgresImport.tables.first { $0.name == name }!
    }

    /// Text that COPY's format must escape comes back byte for byte; NULL stays NULL and
    /// an empty string stays empty.
    @Test func copyKeepsEveryCharacterAndNull() throws {
        let db = try PostgresConnection(try ThrowawayPostgres.sharedCluster().makeDatabase())
        try db.execute("CREATE TABLE item (n bigint, t text, d double precision, b boolean)")
        let texts = ["tab\there", "new\nline", "cr\rlf", "back\\slash", "\\N", "\\.", "", "Küche 🧹 家事", "\"quoted\" 'single'",
                     "\\\\t not a tab"]
        var rows: [[PostgresValue]] = texts.enumerated().map { [.int(Int64($0.offset)), .text($0.element), .double(0.1), .bool(true)] }
        rows.append([.int(99), .null, .null, .null])
        #expect(try db.copyIn("item", columns: ["n", "t", "d", "b"], rows: rows) == Int64(rows.count))
        let back = try db.query("SELECT n, t, d, b FROM item ORDER BY n").rows
        for (index, text) in texts.enumerated() {
            #expect(back[index].string(1) == text)
            #expect(try back[index].double(2) == 0.1 && back[index].bool(3) == true)
        }
        #expect(back.last?.isNull(1) == true && back.last?.isNull(3) == true)
        // A failed COPY leaves the connection usable.
        #expect(throws: PostgresError.self) { try db.copyIn("item", columns: ["n"], rows: [[.text("not a number")]]) }
        #expect(try db.query("SELECT count(*) FROM item").firstRow().int64(0) == Int64(rows.count))
    }

    /// A subtask and a repeat's next occurrence that come later in id order; ids and the
    /// counter continue above SQLite's floors; each event's audience is whom SYNC gives it.
    @Test func referencesFloorsAndAudienceAreSet() throws {
        let conninfo = try ThrowawayPostgres.sharedCluster().makeDatabase()
        let copy = try PostgresImport(conninfo: conninfo)
        try copy.begin()
        let at = PostgresValue.text("2026-01-01T00:00:00Z")
        try copy.insert(Self.table("users"), rows: [Int64(1), 2, 3].map { [.int($0), .text("u\($0)"), "x", false, false, at] })
        try copy.insert(Self.table("rooms"), rows: [[.int(5), "Flat", at]])
        let task = { (id: Int64, parent: PostgresValue, next: PostgresValue) -> [PostgresValue] in
            [.int(id), 5, nil, "t", nil, false, 0, nil, 1, nil, nil, nil, 1, parent, nil, nil, nil, at, nil, nil,
             nil, nil, nil, false, false, false, nil, next, nil, 0, nil]
        }
        try copy.insert(Self.table("tasks"), rows: [task(7, 9, 8), task(8, nil, nil), task(9, nil, nil)])
        // bob (2) was in the room for events 10 to 11, ann (1) from 10 on; cat (3) never.
        try copy.insert(Self.table("memberships"), rows: [[5, 1, 10, nil], [5, 2, 10, 11]])
        let event = { (id: Int64, room: PostgresValue, user: PostgresValue, peer: PostgresValue) -> [PostgresValue] in
            [.int(id), room, user, peer, "e", nil, at, "{}", "text"]
        }
        try copy.insert(Self.table("events"), rows: [event(10, 5, nil, nil), event(12, 5, nil, nil),
                                                     event(13, nil, 3, 1), event(14, nil, 2, nil)])
        let outcome = try copy.finish(floors: ["rooms": 6, "tasks": 4, "events": 20, "users": 3])
        copy.close()
        #expect(outcome.lastEventID == 20 && outcome.nextIDs["rooms"] == 7 && outcome.nextIDs["tasks"] == 10)
        #expect(outcome.nextIDs["messages"] == 1)

        let db = try PostgresConnection(conninfo)
        let tasks = try db.query("SELECT id, parent, next_task FROM tasks ORDER BY id").rows
        #expect(try tasks.map { [try $0.int64(0), try $0.int64(1), try $0.int64(2)] } == [[7, 9, 8], [8, nil, nil], [9, nil, nil]])
        // Setting a held-back parent is no edit: no revision (calendar SEQUENCE) moved.
        #expect(try db.query("SELECT max(revision) FROM tasks").firstRow().int64(0) == 0)
        #expect(try db.query("INSERT INTO rooms (name, created) VALUES ('n', '') RETURNING id").firstRow().int64(0) == 7)
        #expect(try db.query("INSERT INTO messages (room, sender, text, at) VALUES (5, 1, '', '') RETURNING id").firstRow()
            .int64(0) == 1)
        #expect(try db.query("SELECT last FROM event_counter").firstRow().int64(0) == 20)
        let audiences = try db.query("SELECT audience::text FROM events ORDER BY id").rows.map { $0.string(0) }
        #expect(audiences == ["{1,2}", "{1}", "{1,3}", "{2}"])
    }

    /// Data in any copied table: refused before anything is written, the schema untouched.
    @Test func aDatabaseWithDataIsRefused() throws {
        let conninfo = try ThrowawayPostgres.sharedCluster().makeDatabase()
        let db = try PostgresConnection(conninfo)
        try PostgresSchema.migrate(db)
        try db.execute("INSERT INTO rooms (id, name, created) VALUES (1, 'kept', '')")
        let copy = try PostgresImport(conninfo: conninfo)
        #expect(throws: PostgresImport.Refusal.self) { try copy.begin() }
        copy.close()
        #expect(try db.query("SELECT count(*) FROM rooms").firstRow().int64(0) == 1)
    }

    /// A failure half way (here a name twice) rolls everything back: the database is left
    /// empty with its schema, and the next run goes through.
    @Test func aFailedCopyLeavesTheDatabaseEmptyForARerun() throws {
        let conninfo = try ThrowawayPostgres.sharedCluster().makeDatabase()
        let at = PostgresValue.text("2026-01-01T00:00:00Z")
        let first = try PostgresImport(conninfo: conninfo)
        try first.begin()
        try first.insert(Self.table("users"), rows: [[1, "ann", "x", false, false, at]])
        try first.insert(Self.table("rooms"), rows: [[1, "Flat", at]])
        #expect(throws: StoreError.self) { try first.insert(Self.table("users"), rows: [[2, "ann", "x", false, false, at]]) }
        first.close()
        let db = try PostgresConnection(conninfo)
        #expect(try db.query("SELECT (SELECT count(*) FROM users) + (SELECT count(*) FROM rooms)").firstRow().int64(0) == 0)
        let again = try PostgresImport(conninfo: conninfo)
        try again.begin()
        try again.insert(Self.table("users"), rows: [[1, "ann", "x", false, false, at]])
        _ = try again.finish(floors: [:])
        again.close()
        #expect(try db.query("SELECT count(*) FROM users").firstRow().int64(0) == 1)
    }
}
