import ChorusCore
import ChorusSQLite
import Foundation
import Testing

/// What a week of use found in text mode (issue 22, finding 7), through the real server:
/// each line as a person reads it.
@Suite struct WeekOfUseTests {
    /// Makes `name` a server admin in the database, as `chorusd admin grant` does.
    private func grantAdmin(_ name: String, on server: TestServer) throws {
        let database = try Database(path: server.configuration.databasePath)
        defer { database.close() }
        #expect(try database.setAdmin(name: name, true))
    }

    /// Notes print as lines under the task, each indented, never as a literal `\n`;
    /// other control characters stay escaped.
    @Test func notesPrintAsLines() throws {
        let server = try TestServer()
        let alice = try server.user("alice")
        let room = try alice.last("ROOM CREATE Flat").split(separator: "#")[1].prefix { $0.isNumber }
        try alice.call("TASK ADD \(room) Bins notes=\"green bin\\nthen the blue one\"")
        let lines = try alice.call("TASK SHOW 1")
        #expect(lines.contains("    notes: green bin"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("           then the blue") }, "\(lines)")
        #expect(!lines.contains { $0.contains("\\n") }, "\(lines)")
    }

    /// A grant shows in WHOAMI at once, without a new login.
    @Test func whoamiReadsAdminFresh() throws {
        let server = try TestServer()
        let root = try server.user("root")
        #expect(try root.last("WHOAMI") == "OK root")
        try grantAdmin("root", on: server)
        #expect(try root.last("WHOAMI") == "OK root (server admin)")
        try root.call("MODE json")
        #expect(object(try root.json("WHOAMI")["user"])["admin"] as? Bool == true)
    }

    /// HELP fits a terminal: no line over 78 columns, TASK ADD's options on continuation lines.
    @Test func helpFitsTheTerminal() throws {
        let server = try TestServer()
        let alice = try server.user("alice")
        for topic in ["HELP", "HELP TASK", "HELP TASK ADD"] {
            let lines = try alice.call(topic)
            let wide = lines.filter { $0.terminalColumns > 78 }
            #expect(wide.isEmpty, "\(topic): \(wide)")
        }
        let task = try alice.call("HELP TASK ADD")
        #expect(task.first?.hasPrefix("  TASK ADD R|me TITLE [") == true, "\(task)")
        #expect(task.contains { $0.hasPrefix("      [") && $0.contains("[remind=") }, "\(task)")
        #expect(task.dropLast().last == "      add a task to a room, or a personal one with me", "\(task)")
        #expect(task.contains { $0.contains("[remind=") }, "\(task)")
    }

    /// One of something is singular; ADMIN ROOMS is in columns like ROOMS.
    @Test func singularsAndAdminColumns() throws {
        let server = try TestServer()
        let root = try server.user("root")
        let alice = try server.user("alice")
        try alice.call("ROOM CREATE Flat")
        try grantAdmin("root", on: server)
        #expect(try root.last("ADMIN ROOMS") == "OK 1 room")
        #expect(try root.call("ADMIN USERS").contains { $0.contains(" 1 room ") })
        #expect(try root.call("ADMIN ROOMS").contains { $0.contains(" 1 member ") })
        try alice.call("TASK ADD 1 Essay start=today estimate=1")
        #expect(try alice.call("TASK SHOW 1").contains { $0.hasSuffix("estimate 1 day") })
        try alice.call("ROOM CREATE \"The long-named household of the big house\"")
        let rooms = try root.call("ADMIN ROOMS").dropLast()
        #expect(rooms.count == 2)
        let columns = rooms.map { line in line.range(of: " member").map { line.distance(from: line.startIndex, to: $0.lowerBound) } }
        #expect(columns[0] != nil && columns[0] == columns[1], "\(rooms)")
    }

    /// A behind task carries a mark in TASKS, as an overdue one does.
    @Test func behindTasksAreMarked() throws {
        let clock = ManualClock(Date())
        let server = try TestServer(clock: clock)
        let alice = try server.user("alice")
        try alice.call("ROOM CREATE Flat")
        try alice.call("TASK ADD 1 Essay start=today estimate=1")
        try alice.call("TASK ADD 1 Bins")
        let before = try alice.call("TASKS 1")
        #expect(!before.contains { $0.contains("behind") }, "\(before)")
        clock.advance(by: 3 * 86400)
        let lines = try alice.call("TASKS 1")
        #expect(lines.contains { $0.contains("Essay") && $0.hasSuffix("  behind") }, "\(lines)")
        #expect(!lines.contains { $0.contains("Bins") && $0.contains("behind") }, "\(lines)")
    }

    /// HISTORY dates the messages not from today; today's show the time alone.
    @Test func historyDatesOlderMessages() throws {
        let clock = ManualClock(Calendar.current.date(from: DateComponents(year: 2026, month: 12, day: 7, hour: 10))!)
        let server = try TestServer(clock: clock)
        let alice = try server.user("alice")
        try alice.call("ROOM CREATE Flat")
        try alice.call("SAY 1 from monday")
        clock.advance(by: 86400)
        try alice.call("SAY 1 from tuesday")
        let lines = try alice.call("HISTORY 1")
        #expect(lines.contains("  Mon 7 Dec 10:00 alice: from monday"), "\(lines)")
        #expect(lines.contains("  10:00 alice: from tuesday"), "\(lines)")
    }

    /// A LIMIT too large for a number says so, rather than that it is not positive.
    @Test func hugeLimitIsTooLarge() throws {
        let server = try TestServer()
        let alice = try server.user("alice")
        try alice.call("ROOM CREATE Flat")
        let history = try alice.last("HISTORY 1 100000000000000000000")
        #expect(history.hasPrefix("ERR 422 LIMIT 100000000000000000000 is too large"), "\(history)")
        let sync = try alice.last("SYNC 0 100000000000000000000")
        #expect(sync.contains("LIMIT 100000000000000000000 is too large"), "\(sync)")
    }
}
