@testable import ChorusServer
import ChorusLocking
import ChorusSQLite
import Foundation
import Testing

/// Calendar feeds (CONTRACT §9): CALENDAR LINK and UNLINK over real TLS, the ending rules,
/// and the feed itself as the web door gets it (`Hub.calendarFeed`, through
/// `Server.calendarFeed`, since the door's HTTP is not this suite's).
@Suite struct CalendarFeedTests {
    /// alice owns Flat 2B with bob in it; dave has a Den of his own.
    private func household() throws -> (server: TestServer, alice: Device, bob: Device, dave: Device, flat: Int) {
        let server = try TestServer()
        let alice = try server.device("alice")
        let bob = try server.device("bob")
        let dave = try server.device("dave")
        let flat = id(try alice.ok("ROOM CREATE Flat 2B")["room"])
        try alice.add("bob", to: flat)
        for device in [alice, bob, dave] { _ = try device.drain() }
        return (server, alice, bob, dave, flat)
    }

    @Test func linkGivesBothAddressesAndOnlyTheNewestWorks() throws {
        let (server, alice, _, dave, flat) = try household()
        try alice.ok("TASK ADD \(flat) \"Take out trash\" due=2026-12-05")
        let first = try alice.ok("CALENDAR LINK \(flat)")
        let url = try #require(first["url"] as? String)
        let secret = String(url.dropFirst("https://127.0.0.1:\(server.port)/calendar/".count).dropLast(4))
        #expect(url == "https://127.0.0.1:\(server.port)/calendar/\(secret).ics")
        #expect(secret.count == 48 && secret.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(first["webcal"] as? String == "webcal://127.0.0.1:\(server.port)/calendar/\(secret).ics")
        #expect(first["replaced"] as? Bool == false)
        let body = try #require(try server.feedBody(url))
        #expect(body.contains("BEGIN:VCALENDAR\r\n") && body.contains("SUMMARY:Take out trash\r\n"))
        #expect(body.contains("X-WR-CALNAME:Chorus: Flat 2B\r\n"))

        // Asking again: a new address, and the old one is 404 at once.
        let second = try alice.ok("CALENDAR LINK \"Flat 2B\"")
        #expect(second["replaced"] as? Bool == true)
        let newer = try #require(second["url"] as? String)
        #expect(newer != url)
        #expect(try server.feed(url) == .notFound)
        #expect(try server.feedBody(newer) != nil)

        // Outsiders get the room's usual 404; unlinking ends it, and says whether there was one.
        #expect(try dave.code("CALENDAR LINK \(flat)") == 404)
        #expect(try dave.code("CALENDAR UNLINK \(flat)") == 404)
        #expect(try alice.ok("CALENDAR UNLINK \(flat)")["ended"] as? Bool == true)
        #expect(try alice.ok("CALENDAR UNLINK \(flat)")["ended"] as? Bool == false)
        #expect(try server.feed(newer) == .notFound)
        // Malformed or unknown secrets are 404 too.
        #expect(try server.feed("https://x/calendar/nothex.ics") == .notFound)
        #expect(try server.feed("https://x/calendar/\(String(repeating: "0", count: 48)).ics") == .notFound)
    }

    @Test func textModeShowsBothLines() throws {
        let server = try TestServer()
        let alice = try server.user("alice")
        let lines = try alice.call("CALENDAR LINK me")
        #expect(lines.last?.hasPrefix("OK calendar address for your own tasks") == true, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("  url     https://127.0.0.1:\(server.port)/calendar/") && $0.hasSuffix(".ics") })
        #expect(lines.contains { $0.hasPrefix("  webcal  webcal://127.0.0.1:\(server.port)/calendar/") })
        #expect(try alice.last("CALENDAR UNLINK me") == "OK ended the calendar address for your own tasks")
        #expect(try alice.last("CALENDAR UNLINK me") == "OK there was no calendar address for your own tasks")
    }

    /// Leaving or being removed ends the room's link, never the `me` one; the `me` feed
    /// then shows nothing of the room; a deleted room takes its links along.
    @Test func leavingARoomEndsItsLinkAndItsPartOfMe() throws {
        let (server, alice, bob, dave, flat) = try household()
        try alice.ok("TASK ADD \(flat) \"Bob's chore\" due=2026-12-05 assign=bob")
        let den = id(try dave.ok("ROOM CREATE Den")["room"])
        try dave.ok("TASK ADD \(den) \"Dave's secret\" due=2026-12-05 assign=dave")
        try bob.ok("TASK ADD me Dentist due=2026-12-07")
        let room = try #require(try bob.ok("CALENDAR LINK \(flat)")["url"] as? String)
        let me = try #require(try bob.ok("CALENDAR LINK me")["url"] as? String)
        let before = try #require(try server.feedBody(me))
        #expect(before.contains("Bob's chore") && before.contains("Dentist") && !before.contains("Dave's secret"))

        try bob.ok("ROOM LEAVE \(flat)")
        #expect(try server.feed(room) == .notFound)
        let after = try #require(try server.feedBody(me))
        #expect(!after.contains("Bob's chore") && !after.contains("Flat 2B") && after.contains("Dentist"))

        // Removed: the same.
        try alice.add("bob", to: flat)
        let again = try #require(try bob.ok("CALENDAR LINK \(flat)")["url"] as? String)
        #expect(try server.feedBody(again) != nil)
        try alice.ok("ROOM REMOVE \(flat) bob")
        #expect(try server.feed(again) == .notFound)

        // The room deleted: its owner's link goes with it.
        let owners = try #require(try alice.ok("CALENDAR LINK \(flat)")["url"] as? String)
        try alice.ok("ROOM DELETE \(flat)")
        #expect(try server.feed(owners) == .notFound)
    }

    /// A new password ends every link of the account; so does ADMIN DISABLE.
    @Test func passwordAndDisableEndEveryLink() throws {
        let (server, alice, bob, _, flat) = try household()
        let links = try [bob.ok("CALENDAR LINK \(flat)"), bob.ok("CALENDAR LINK me")].map { try #require($0["url"] as? String) }
        try bob.ok("PASSWORD \"\(defaultPassword)\" \"a much better passphrase\"")
        for link in links { #expect(try server.feed(link) == .notFound) }

        let kept = try #require(try bob.ok("CALENDAR LINK me")["url"] as? String)
        let database = try Database(path: server.configuration.databasePath)
        #expect(try database.setAdmin(name: "alice", true))
        database.close()
        try alice.ok("ADMIN DISABLE bob")
        #expect(try server.feed(kept) == .notFound)
        try alice.ok("ADMIN ENABLE bob")
        #expect(try server.feed(kept) == .notFound)
    }

    /// SEQUENCE grows with each edit; the ETag is the same until the body changes, and
    /// Last-Modified moves only then, deleting a task included.
    @Test func etagAndSequenceFollowTheTasks() throws {
        let (server, alice, _, _, flat) = try household()
        let task = id(try alice.ok("TASK ADD \(flat) Trash due=2026-12-05")["task"])
        let other = id(try alice.ok("TASK ADD \(flat) Dishes due=2026-12-06T18:00")["task"])
        let url = try #require(try alice.ok("CALENDAR LINK \(flat)")["url"] as? String)
        guard case .feed(let body, let etag, let modified) = try server.feed(url) else { Issue.record("no feed"); return }
        #expect(etag == CalendarFeeds.etag(of: body) && etag.hasPrefix("\"") && etag.hasSuffix("\""))
        // TASK ADD stores the row, then its options (the due date) as its first change.
        #expect(String(decoding: body, as: UTF8.self).contains("SEQUENCE:1\r\n"))
        Thread.sleep(forTimeInterval: 1.1)
        guard case .feed(let same, let sameTag, let sameModified) = try server.feed(url) else { Issue.record("no feed"); return }
        #expect(same == body && sameTag == etag && sameModified == modified)

        try alice.ok("TASK EDIT \(task) title=\"Trash out\"")
        try alice.ok("TASK DONE \(task)")
        guard case .feed(let edited, let editedTag, let editedModified) = try server.feed(url) else { Issue.record("no feed"); return }
        let text = String(decoding: edited, as: UTF8.self)
        #expect(editedTag != etag && editedModified > modified)
        #expect(text.contains("SUMMARY:✓ Trash out\r\n") && text.contains("SEQUENCE:3\r\n"))

        Thread.sleep(forTimeInterval: 1.1)
        try alice.ok("TASK DELETE \(other)")
        guard case .feed(let fewer, let fewerTag, let fewerModified) = try server.feed(url) else { Issue.record("no feed"); return }
        #expect(fewerTag != editedTag && fewerModified > editedModified)
        #expect(!String(decoding: fewer, as: UTF8.self).contains("Dishes"))
    }

    @Test func publicURLMakesTheLinks() throws {
        let server = try TestServer { $0.publicURL = ServerConfiguration.publicOrigin(parsing: "https://chores.example.org:8443/") }
        let alice = try server.device("alice")
        let reply = try alice.ok("CALENDAR LINK me")
        #expect((reply["url"] as? String)?.hasPrefix("https://chores.example.org:8443/calendar/") == true)
        #expect((reply["webcal"] as? String)?.hasPrefix("webcal://chores.example.org:8443/calendar/") == true)
    }

    @Test func publicURLIsValidated() {
        #expect(ServerConfiguration.publicOrigin(parsing: "https://chores.example.org") == "https://chores.example.org")
        #expect(ServerConfiguration.publicOrigin(parsing: "https://chores.example.org:8443/") == "https://chores.example.org:8443")
        #expect(ServerConfiguration.publicOrigin(parsing: "https://[2001:db8::1]:7667") == "https://[2001:db8::1]:7667")
        for bad in ["http://chores.example.org", "https://", "https://a.example/calendar", "https://u:p@a.example",
                    "https://a.example/?x=1", "https://a.example/#top", "chores.example.org", "https://a.example:0"] {
            #expect(ServerConfiguration.publicOrigin(parsing: bad) == nil, "\(bad)")
        }
        var configuration = ServerConfiguration()
        configuration.host = "192.0.2.7"
        #expect(configuration.calendarOrigin(port: 7667) == "https://192.0.2.7:7667")
        configuration.host = "::1"
        #expect(configuration.calendarOrigin(port: 7667) == "https://[::1]:7667")
        configuration.host = "0.0.0.0"
        #expect(configuration.calendarOrigin(port: 7667) == "https://\(ListeningNames.machineName() ?? "localhost"):7667")
    }

    /// The ETag is the body's digest: equal bodies, equal tags; any changed byte, a new one.
    @Test func etagChangesExactlyWhenTheBodyDoes() {
        let body = Array("BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n".utf8)
        #expect(CalendarFeeds.etag(of: body) == CalendarFeeds.etag(of: Array(body)))
        for index in body.indices {
            var changed = body
            changed[index] ^= 0x01
            #expect(CalendarFeeds.etag(of: changed) != CalendarFeeds.etag(of: body))
        }
        #expect(CalendarFeeds.etag(of: body + [0x20]) != CalendarFeeds.etag(of: body))
    }
}

extension CalendarFeedAnswer: Equatable {
    public static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.notFound, .notFound), (.unavailable, .unavailable): true
        case (.feed(let a, let b, let c), .feed(let d, let e, let f)): a == d && b == e && c == f
        default: false
        }
    }
}

extension TestServer {
    /// What the web door would get for a link's address.
    func feed(_ url: String) throws -> CalendarFeedAnswer {
        let secret = String(url.split(separator: "/").last?.dropLast(4) ?? "")
        let answer = Locked<CalendarFeedAnswer?>(nil)
        let done = DispatchSemaphore(value: 0)
        let server = try #require(self.server)
        server.calendarFeed(secret: secret) { found in
            answer.withLock { $0 = found }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        return try #require(answer.withLock { $0 })
    }

    /// The feed's text, nil when it is not served.
    func feedBody(_ url: String) throws -> String? {
        guard case .feed(let body, _, _) = try feed(url) else { return nil }
        return String(decoding: body, as: UTF8.self)
    }
}
