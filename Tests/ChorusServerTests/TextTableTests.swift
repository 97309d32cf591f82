import Foundation
import Testing

/// Text-mode tables line up in terminal columns with wide characters and emoji, and cut
/// titles between whole characters: TASKS, ROOMS, ROOM SHOW and STATS.
@Suite struct TextTableTests {
    static let family = "👨‍👩‍👧‍👦"  // one picture, two columns, eleven UTF-16 units
    static let flag = "🇯🇵"
    /// 7 columns: 🏠 (2), 🇯🇵 (2), a space, 家 (2).
    static let home = "🏠🇯🇵 家"

    @Test func tablesLineUpInTerminalColumns() throws {
        let server = try TestServer()
        let alice = try server.user("alice")
        _ = try server.user("bob")
        #expect(try alice.last("ROOM CREATE Flat 2B").hasPrefix("OK created"))
        #expect(try alice.last("ROOM CREATE \(Self.home)").hasPrefix("OK created"))
        let home = try alice.call("ROOMS").first { $0.contains(Self.home) }.flatMap { $0.split(separator: "#").dropFirst().first?.prefix { $0.isNumber } }
        try alice.add("bob", to: String(home ?? ""))
        let emojiTitle = String(repeating: Self.family + Self.flag, count: 7)  // 28 columns
        for line in ["TASK ADD \"Flat 2B\" 牛乳を買う assign=alice",
                     "TASK ADD \"\(Self.home)\" \"\(emojiTitle)\" assign=alice",
                     "TASK ADD \"Flat 2B\" \"Take out trash\" assign=alice"] {
            #expect(try alice.last(line).hasPrefix("OK added"), "\(line)")
        }

        let tasks = try alice.call("TASKS")
        #expect(tasks.last == "OK 3 tasks")
        let rows = tasks.dropLast()
        for row in rows { #expect(!row.contains("\u{FFFD}"), "\(row)") }
        func row(_ title: String) -> String { rows.first { $0.contains(title) } ?? "" }
        // Id in 6 columns, title in 24, room in 12, then the bar: the same 48 columns before it on every row.
        #expect(row("牛乳を買う").hasPrefix("  #1    牛乳を買う" + String(repeating: " ", count: 14) + "  Flat 2B     " + "  ["),
                "\(row("牛乳を買う"))")
        // 28 columns of pictures become 22 whole ones, "…" and a space where the next did not fit.
        let cut = String(repeating: Self.family + Self.flag, count: 5) + Self.family + "… "
        #expect(row(Self.family).hasPrefix("  #2    " + cut + "  " + Self.home + String(repeating: " ", count: 5) + "  ["),
                "\(row(Self.family))")
        #expect(row("Take out trash").hasPrefix("  #3    Take out trash" + String(repeating: " ", count: 10) + "  Flat 2B     " + "  ["))

        let rooms = try alice.call("ROOMS")
        #expect(rooms.last == "OK 2 rooms")
        let homeRow = rooms.first { $0.contains(Self.home) } ?? ""
        #expect(homeRow.hasPrefix("  #2    " + Self.home + String(repeating: " ", count: 17) + "  ["), "\(homeRow)")

        let show = try alice.call("ROOM SHOW \"\(Self.home)\"")
        #expect(show.first?.hasPrefix("  \(Self.home) (#2)  [") == true, "\(show)")
        #expect(show.contains("    alice" + String(repeating: " ", count: 15) + "  owner   online"), "\(show)")
        #expect(show.contains("    bob" + String(repeating: " ", count: 17) + "  member  "), "\(show)")

        let stats = try alice.call("STATS \"\(Self.home)\"")
        #expect(stats.first?.hasPrefix("  \(Self.home) (#2)  [") == true, "\(stats)")
        let table = stats.dropFirst().dropLast()
        #expect(table.count == 3, "\(stats)")
        #expect(Set(table.map(\.count)).count == 1, "rows of different widths: \(stats)")
        for line in show + stats { #expect(!line.contains("\u{FFFD}"), "\(line)") }
    }

    /// STATS never cuts a member's name: its first column is as wide as the longest name
    /// in the room, and every row lines up. Before, names over 15 columns were cut.
    @Test func statsShowsWholeNamesInAnAlignedColumn() throws {
        let server = try TestServer()
        let alice = try server.user("alice")
        let long = "bartholomew.longname-housemate"  // 30 characters, within the 32 allowed
        _ = try server.user(long)
        #expect(try alice.last("ROOM CREATE Flat 2B").hasPrefix("OK created"))
        try alice.add(long, to: "\"Flat 2B\"")
        let stats = try alice.call("STATS \"Flat 2B\"")
        let table = Array(stats.dropFirst().dropLast())
        #expect(table.count == 3, "\(stats)")
        #expect(table.contains { $0.hasPrefix("    \(long) ") }, "\(stats)")
        #expect(table.contains { $0.hasPrefix("    alice" + String(repeating: " ", count: long.count - 5 + 1)) }, "\(stats)")
        #expect(table.first?.hasPrefix("    member" + String(repeating: " ", count: long.count - 6 + 1)) == true, "\(stats)")
        #expect(Set(table.map(\.count)).count == 1, "rows of different widths: \(stats)")
        for line in stats { #expect(!line.contains("…"), "\(line)") }
    }
}
