import ChorusAddresses
import ChorusCore
import ChorusCrypto
import ChorusOutbound
@testable import ChorusServer
import ChorusSQLite
import ChorusTestSupport
import Foundation
import Testing

/// Notices pushed to a device while nobody is looking (CONTRACT §10), end to end: the real
/// server over TLS, a push-service stand-in over HTTPS on loopback (`--push-allow`,
/// `--push-ca`), which checks what a real push service checks (the VAPID signature
/// against `PUSH KEY`'s key, TTL, Urgency, Topic) and decrypts the body with the
/// browser's private key, as the browser would.
@Suite struct PushDeliveryTests {
    /// A browser's side of a subscription: the keys only it holds.
    struct Browser {
        let key: P256PrivateKey
        let auth: [UInt8]
        let endpoint: String

        init(endpoint: String) throws {
            key = try P256PrivateKey.generate()
            auth = Array(SecureRandom.bytes(16))
            self.endpoint = endpoint
        }

        var subscribeLine: String {
            "PUSH SUBSCRIBE \(endpoint) \(key.publicKey.base64URL) \(Base64URL.encode(auth)) phone"
        }

        /// The payload of a push the stand-in received, decrypted.
        func open(_ push: ScriptedHTTPSServer.Received) throws -> [String: Any] {
            let plain = try WebPushDecryption.decrypt(push.body, with: key, authSecret: auth)
            return try #require(try JSONSerialization.jsonObject(with: Data(plain)) as? [String: Any])
        }
    }

    /// The stand-in answers 201 to every push, and 410 to any for a path with "gone".
    static func pushService() throws -> ScriptedHTTPSServer {
        try ScriptedHTTPSServer { received, _ in
            received.target.contains("gone") ? .respond(status: 410) : .respond(status: 201)
        }
    }

    static func server(_ service: ScriptedHTTPSServer, clock: any ChorusCore.Clock = SystemClock()) throws -> TestServer {
        try TestServer(clock: clock) { configuration in
            configuration.pushAllow = [try! AddressBlock(parsing: "127.0.0.1/32")]
            configuration.pushCA = service.certificatePath
            configuration.noticeTiming = NoticeTiming(poll: 0.2, lease: 5)
        }
    }

    /// Waits for the stand-in to have received `count` pushes.
    static func pushes(_ service: ScriptedHTTPSServer, count: Int, within seconds: Double = 15) -> [ScriptedHTTPSServer.Received] {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let received = service.received
            if received.count >= count { return received }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return service.received
    }

    /// Checks what a push service checks of a push, and returns its payload.
    static func check(_ push: ScriptedHTTPSServer.Received, serverKey: String, browser: Browser, service: ScriptedHTTPSServer,
                      sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        #expect(push.method == "POST", sourceLocation: sourceLocation)
        #expect(push.header("Content-Encoding") == "aes128gcm", sourceLocation: sourceLocation)
        #expect(Int(push.header("TTL") ?? "") ?? 0 > 0, sourceLocation: sourceLocation)
        #expect(["very-low", "low", "normal", "high"].contains(push.header("Urgency") ?? ""), sourceLocation: sourceLocation)
        let claims = try VAPIDVerifier.verify(try #require(push.header("Authorization")), expectedKey: try P256PublicKey(base64URL: serverKey),
                                              audience: "https://127.0.0.1:\(service.port)", now: Date())
        #expect(claims.subject.hasPrefix("mailto:") || claims.subject.hasPrefix("https:"), sourceLocation: sourceLocation)
        return try browser.open(push)
    }

    @Test func aDMAMentionAnAssignmentAndACommentArePushedAndDecrypt() throws {
        let service = try Self.pushService()
        let server = try Self.server(service)
        let ann = try server.device("ann")
        let bob = try server.device("bob")
        let flat = id(try ann.ok("ROOM CREATE Flat")["room"])
        try ann.add("bob", to: flat)
        let key = try #require(try ann.ok("PUSH KEY")["key"] as? String)
        let phone = try Browser(endpoint: service.url("/push/ann-phone"))
        try ann.ok(phone.subscribeLine)

        try bob.ok("DM ann the bins are yours this week")
        var received = Self.pushes(service, count: 1)
        try #require(received.count == 1, "one push for the DM")
        var payload = try Self.check(received[0], serverKey: key, browser: phone, service: service)
        #expect(payload["event"] as? String == "dm" && payload["title"] as? String == "bob wrote to you", "\(payload)")
        #expect(payload["body"] as? String == "the bins are yours this week" && payload["url"] is String, "\(payload)")
        #expect(received[0].header("Topic") == nil)

        try bob.ok("SAY \(flat) @ann can you buy milk?")
        received = Self.pushes(service, count: 2)
        payload = try Self.check(received[1], serverKey: key, browser: phone, service: service)
        #expect(payload["event"] as? String == "mention" && (payload["title"] as? String ?? "").contains("Flat"), "\(payload)")

        let bins = id(try bob.ok("TASK ADD \(flat) Bins assign=ann")["task"])
        received = Self.pushes(service, count: 3)
        payload = try Self.check(received[2], serverKey: key, browser: phone, service: service)
        #expect(payload["event"] as? String == "task.assigned" && (payload["title"] as? String ?? "").contains("Bins"), "\(payload)")
        #expect(payload["url"] as? String == "/#/tasks/\(bins)")
        #expect(received[2].header("Topic") == "task-\(bins)", "a task's pushes replace each other")

        try bob.ok("COMMENT \(bins) the blue one too")
        received = Self.pushes(service, count: 4)
        payload = try Self.check(received[3], serverKey: key, browser: phone, service: service)
        #expect(payload["event"] as? String == "comment" && (payload["body"] as? String ?? "").contains("the blue one too"), "\(payload)")

        // Her own lines never push to her; bob has no device.
        try ann.ok("SAY \(flat) @bob done, and @ann is me")
        try ann.ok("COMMENT \(bins) done")
        Thread.sleep(forTimeInterval: 1)
        #expect(service.received.count == 4, "nothing for ann's own lines")
        let used = (try ann.ok("PUSH LIST")["subscriptions"] as? [[String: Any]])?.first
        #expect(used?["last_used"] is String, "a push marks its subscription used: \(String(describing: used))")
        let metrics = try #require(server.server).metricsText()
        #expect(MetricsTests.value(metrics, "chorus_push_sent_total") == 4, "\(metrics)")
        #expect(MetricsTests.value(metrics, "chorus_push_failed_total") == 0)
    }

    /// A reminder comes due while ann has no session at all: it reaches her phone, its
    /// times in her zone.
    @Test func aReminderReachesAPhoneWhileNobodyIsConnected() throws {
        let service = try Self.pushService()
        // 09:00 UTC on 7 December is 22:00 in Auckland (UTC+13 in summer).
        let clock = ManualClock(ISO8601DateFormatter().date(from: "2026-12-07T09:00:00Z")!)
        let server = try Self.server(service, clock: clock)
        let ann = try server.device("ann")
        let flat = id(try ann.ok("ROOM CREATE Flat")["room"])
        let key = try #require(try ann.ok("PUSH KEY")["key"] as? String)
        let phone = try Browser(endpoint: service.url("/push/ann"))
        try ann.ok(phone.subscribeLine)
        try ann.ok("NOTIFY tz=Pacific/Auckland")
        let bins = id(try ann.ok("TASK ADD \(flat) Bins due=2026-12-07T23:00Z remind=+1h assign=ann")["task"])
        _ = try? ann.client.json("QUIT")

        clock.advance(by: 3601)
        let checked = DispatchSemaphore(value: 0)
        server.server?.checkNotices { checked.signal() }
        #expect(checked.wait(timeout: .now() + 10) == .success)
        let received = Self.pushes(service, count: 1)
        try #require(received.count == 1)
        let payload = try Self.check(received[0], serverKey: key, browser: phone, service: service)
        #expect(payload["event"] as? String == "task.reminder" && payload["title"] as? String == "Reminder: Bins", "\(payload)")
        #expect(payload["body"] as? String == "Due tomorrow 12:00 · @ann · Flat", "23:00 UTC is noon the next day in Auckland: \(payload)")
        #expect(received[0].header("Urgency") == "high" && received[0].header("Topic") == "task-\(bins)")
    }

    /// A reminder's push tells the due time in its reader's zone (`NOTIFY tz=`), as text mode does.
    @Test func aReminderPushSaysTheReadersTime() throws {
        let service = try Self.pushService()
        let clock = ManualClock(ReaderZoneTests.start)
        let server = try Self.server(service, clock: clock)
        let ann = try server.device("ann")
        let flat = id(try ann.ok("ROOM CREATE Flat")["room"])
        try ann.ok("NOTIFY tz=Pacific/Auckland")
        let key = try #require(try ann.ok("PUSH KEY")["key"] as? String)
        let phone = try Browser(endpoint: service.url("/push/ann"))
        try ann.ok(phone.subscribeLine)
        try ann.ok("TASK ADD \(flat) Bins due=2026-12-08T09:00:00Z remind=+1h assign=ann")
        _ = try? ann.client.json("QUIT")

        clock.advance(by: 3600)
        let checked = DispatchSemaphore(value: 0)
        server.server?.checkNotices { checked.signal() }
        #expect(checked.wait(timeout: .now() + 10) == .success)
        let received = Self.pushes(service, count: 1)
        try #require(received.count == 1)
        let payload = try Self.check(received[0], serverKey: key, browser: phone, service: service)
        // 09:00 UTC on the 8th is 22:00 that day in Auckland, where it is past midnight already.
        #expect((payload["body"] as? String ?? "").hasPrefix("Due today 22:00"), "\(payload)")
    }

    /// NOTIFY's choices decide: a kind turned off is not pushed, push off pushes nothing,
    /// and quiet hours hold a notice until they end.
    @Test func choicesAndQuietHoursDecide() throws {
        let service = try Self.pushService()
        // 23:00 in Europe/London, inside 22:00-07:00.
        var london = Calendar(identifier: .gregorian)
        london.timeZone = TimeZone(identifier: "Europe/London")!
        let late = london.date(from: DateComponents(year: 2026, month: 12, day: 7, hour: 23))!
        let clock = ManualClock(late)
        let server = try Self.server(service, clock: clock)
        let ann = try server.device("ann")
        let bob = try server.device("bob")
        let flat = id(try ann.ok("ROOM CREATE Flat")["room"])
        try ann.add("bob", to: flat)
        let phone = try Browser(endpoint: service.url("/push/ann"))
        try ann.ok(phone.subscribeLine)

        let set = object(try ann.ok("NOTIFY kinds=dm,reminder quiet=22:00-07:00 tz=Europe/London")["notify"])
        #expect(set["kinds"] as? [String] == ["reminder", "dm"] && set["quiet"] as? String == "22:00-07:00", "\(set)")
        #expect(set["tz"] as? String == "Europe/London" && set["push"] as? Bool == true && set["email"] is NSNull, "\(set)")
        try bob.ok("SAY \(flat) @ann hello")
        try bob.ok("DM ann late one")
        Thread.sleep(forTimeInterval: 1)
        #expect(service.received.isEmpty, "a mention is off, and the DM waits for 07:00")

        clock.advance(by: 8 * 3600)
        let received = Self.pushes(service, count: 1)
        try #require(received.count == 1, "the DM goes once the quiet hours end")
        #expect(try phone.open(received[0])["event"] as? String == "dm")

        try ann.ok("NOTIFY push=off")
        try bob.ok("DM ann are you there")
        Thread.sleep(forTimeInterval: 1)
        #expect(service.received.count == 1, "push off")
    }

    /// A 410 from the push service ends the subscription; a dead push service holds
    /// nobody: commands keep their pace while its pushes time out.
    @Test func goneEndsTheSubscription() throws {
        let service = try Self.pushService()
        let server = try Self.server(service)
        let ann = try server.device("ann")
        let bob = try server.device("bob")
        let flat = id(try ann.ok("ROOM CREATE Flat")["room"])
        try ann.add("bob", to: flat)
        try ann.ok(try Browser(endpoint: service.url("/push/gone")).subscribeLine)
        #expect((try ann.ok("PUSH LIST")["subscriptions"] as? [Any])?.count == 1)
        try bob.ok("DM ann hello")
        #expect(Self.pushes(service, count: 1).count == 1)
        let deadline = Date().addingTimeInterval(10)
        var left = 1
        while Date() < deadline, left > 0 {
            left = (try ann.ok("PUSH LIST")["subscriptions"] as? [Any])?.count ?? -1
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(left == 0, "410 ended it")
        #expect(MetricsTests.value(try #require(server.server).metricsText(), "chorus_push_subscriptions_ended_total") == 1)
    }

    @Test func aSilentPushServiceHoldsNobody() throws {
        let silent = try ScriptedHTTPSServer { _, _ in .silence }
        let server = try Self.server(silent)
        let ann = try server.device("ann")
        let bob = try server.device("bob")
        let flat = id(try ann.ok("ROOM CREATE Flat")["room"])
        try ann.add("bob", to: flat)
        for index in 0..<3 {
            try ann.ok(try Browser(endpoint: silent.url("/push/\(index)")).subscribeLine.replacingOccurrences(of: " phone", with: " p\(index)"))
        }
        let started = Date()
        for index in 0..<20 { try bob.ok("DM ann line \(index)") }
        try ann.ok("SAY \(flat) still here")
        #expect(Date().timeIntervalSince(started) < 5, "the commands did not wait for the push service")
        #expect(Self.pushes(silent, count: 2, within: 5).count >= 2, "the pushes were tried")
    }

    /// chorusd stopped (SIGTERM) while its pushes wait on a push service that never
    /// answers: it exits within its shutdown limit (10 s; the sends would hold it 30 s),
    /// saying so, with status 0.
    @Test func aShutdownDoesNotWaitForASilentPushService() throws {
        let silent = try ScriptedHTTPSServer { _, _ in .silence }
        let chorusd = try LogProcessTests.LoggedDaemon(["--push-allow", "127.0.0.1/32", "--push-ca", silent.certificatePath])
        let ann = try chorusd.device("ann")
        let bob = try chorusd.device("bob")
        try ann.add("bob", to: id(try ann.ok("ROOM CREATE Flat")["room"]))
        for index in 0..<3 {
            try ann.ok(try Browser(endpoint: silent.url("/push/\(index)")).subscribeLine.replacingOccurrences(of: " phone", with: " p\(index)"))
        }
        for index in 0..<5 { try bob.ok("DM ann line \(index)") }
        #expect(Self.pushes(silent, count: 3, within: 15).count >= 3, "the pushes were in flight")
        let stopped = Date()
        chorusd.daemon.send(SIGTERM)
        let exited = chorusd.daemon.waitForExit(timeout: 25)
        #expect(exited, "chorusd did not exit")
        guard exited else { return chorusd.daemon.send(SIGKILL) }
        let took = Date().timeIntervalSince(stopped)
        #expect(took < 20, "took \(took) s")
        #expect(chorusd.daemon.process.terminationStatus == 0)
        #expect(chorusd.waitForLine(containing: ["shutdown did not finish in time", "seconds=10"], timeout: 10) != nil, "\(chorusd.stderr.text)")
    }

    @Test func notifyRefusesUnknownKindsZonesAndWindows() throws {
        let server = try TestServer()
        let ann = try server.device("ann")
        let shown = object(try ann.ok("NOTIFY")["notify"])
        #expect(shown["push"] as? Bool == true && shown["email"] is NSNull && shown["quiet"] is NSNull, "\(shown)")
        #expect(shown["kinds"] as? [String] == ["reminder", "overdue", "behind", "assigned", "comment", "dm", "mention"], "\(shown)")
        #expect(shown["tz"] as? String == TimeZone.current.identifier)
        #expect(try ann.failure("NOTIFY kinds=dm,gossip").code == 422)
        #expect(try ann.failure("NOTIFY tz=Mars/Olympus").code == 422)
        #expect(try ann.failure("NOTIFY tz=EST").code == 422)
        #expect(try ann.failure("NOTIFY quiet=22:00-25:00").code == 422)
        #expect(try ann.failure("NOTIFY quiet=7-9").code == 422)
        #expect(try ann.failure("NOTIFY push=maybe").code == 422)
        #expect(try ann.failure("NOTIFY email=on").code == 409, "no proven address")
        #expect(try ann.failure("NOTIFY EMAIL ann@example.org").code == 503, "no --smtp")
        #expect(object(try ann.ok("NOTIFY quiet=off kinds=")["notify"])["kinds"] as? [String] == [])
    }

    /// Someone who can no longer read a task hears nothing of it: a creator removed from
    /// the room gets no comment push, and a disabled account gets nothing at all (its
    /// devices' subscriptions end).
    @Test func nobodyOutsideTheRoomOrDisabledIsPushed() throws {
        let service = try Self.pushService()
        let server = try Self.server(service)
        let ann = try server.device("ann")
        let bob = try server.device("bob")
        let flat = id(try ann.ok("ROOM CREATE Flat")["room"])
        try ann.add("bob", to: flat)
        let bins = id(try bob.ok("TASK ADD \(flat) Bins")["task"])
        try bob.ok(try Browser(endpoint: service.url("/push/bob")).subscribeLine)
        try ann.ok("ROOM REMOVE \(flat) bob")
        try ann.ok("COMMENT \(bins) who made this?")
        try ann.ok("SAY \(flat) @bob are you there")
        Thread.sleep(forTimeInterval: 1)
        #expect(service.received.isEmpty, "bob left: nothing of the room reaches him")

        let cat = try server.device("cat")
        try ann.add("cat", to: flat)
        try cat.ok(try Browser(endpoint: service.url("/push/cat")).subscribeLine)
        try ann.ok("DM cat one")
        #expect(Self.pushes(service, count: 1).count == 1)
        let database = try Database(path: server.configuration.databasePath)
        #expect(try database.setAdmin(name: "ann", true))
        database.close()
        try ann.ok("ADMIN DISABLE cat")
        try ann.ok("DM ann hello me")
        try? ann.ok("DM cat two")
        Thread.sleep(forTimeInterval: 1)
        #expect(service.received.count == 1, "a disabled account gets nothing")
    }
}
