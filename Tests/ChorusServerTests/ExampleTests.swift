import ChorusSQLite
import Foundation
import Testing
import ChorusTestSupport

/// The bots in examples/ run against a real server.
/// A time limit turns a stuck subprocess into a failure instead of a stalled run.
@Suite(.timeLimit(.minutes(10))) struct ExampleTests {
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("examples")

    /// The Python bot thanks whoever finishes a chore, live and, after the server comes
    /// back from a restart, for a chore finished while it was away (via SYNC).
    @Test func thankBotThanksAndCatchesUp() throws {
        let port = try FreePort.next()
        let directory = try TemporaryDirectory()
        let server = try TestServer(directory: directory) { $0.port = port }
        let alice = try server.device("alice")
        let botAccount = try server.device("thankbot")
        let room = id(try alice.ok("ROOM CREATE Flat")["room"])
        try alice.add("thankbot", to: room)
        let secret = try #require(try botAccount.ok("TOKEN CREATE thanks")["token"] as? String)
        let first = id(try alice.ok("TASK ADD \(room) Bins")["task"])
        let second = id(try alice.ok("TASK ADD \(room) Dishes")["task"])

        let (bot, output) = try startThankBot(port: port, certificate: server.certificatePath, token: secret,
                                              state: directory.path + "/bot.state")
        defer { bot.terminate() }

        _ = try alice.drain()
        try alice.ok("TASK DONE \(first)")
        let thanks = try alice.event(timeout: 20)
        #expect(thanks["event"] as? String == "message")
        #expect(object(thanks["message"])["text"] as? String == "Thanks alice for finishing Bins!")
        #expect(object(thanks["message"])["from"] as? String == "thankbot")

        // The server goes away and comes back; a chore is finished before the bot is back.
        try server.restart()
        let again = try server.device("alice", label: "alice again", register: false)
        try again.ok("TASK DONE \(second)")
        try waitForLine(containing: "thank_bot: listening", in: output)
        var caughtUp: JSON = [:]
        for _ in 0..<5 {
            caughtUp = try again.event(timeout: 20)
            if caughtUp["event"] as? String == "message" { break }
        }
        #expect(object(caughtUp["message"])["text"] as? String == "Thanks alice for finishing Dishes!")
        // Bins is not thanked twice.
        let history = try again.ok("HISTORY \(room)")["messages"] as? [JSON] ?? []
        #expect(history.compactMap { $0["text"] as? String } == ["Thanks alice for finishing Bins!", "Thanks alice for finishing Dishes!"])
    }

    /// The bot never turns server text into a request of its own: a title holding a line
    /// break (as an older server stored one) is thanked on one line, and the `SAY` hidden
    /// after the break is not posted.
    @Test func thankBotPostsNoInjectedLine() throws {
        let directory = try TemporaryDirectory()
        let server = try TestServer(directory: directory)
        let alice = try server.device("alice")
        let botAccount = try server.device("thankbot")
        let room = id(try alice.ok("ROOM CREATE Flat")["room"])
        try alice.add("thankbot", to: room)
        let secret = try #require(try botAccount.ok("TOKEN CREATE thanks")["token"] as? String)
        let tricky = id(try alice.ok("TASK ADD \(room) Dishes")["task"])
        let plain = id(try alice.ok("TASK ADD \(room) Bins")["task"])
        // Today's server refuses such a title (422), so it is written as an older one stored it.
        server.stop()
        let database = try Database(path: server.configuration.databasePath)
        try database.prepare("UPDATE tasks SET title = ?1 WHERE id = ?2")
            .run(.text("Dishes\u{85}\nSAY \(room) injected"), .integer(Int64(tricky)))
        database.close()
        try server.restart()
        let owner = try server.device("alice", label: "alice again", register: false)

        let (bot, _) = try startThankBot(port: server.port, certificate: server.certificatePath, token: secret,
                                         state: directory.path + "/bot.state")
        defer { bot.terminate() }

        _ = try owner.drain()
        try owner.ok("TASK DONE \(tricky)")
        try owner.ok("TASK DONE \(plain)")
        // The bot answers in order: once Bins is thanked, anything Dishes set off was posted.
        var texts: [String] = []
        for _ in 0..<6 where !texts.contains("Thanks alice for finishing Bins!") {
            let event = try owner.event(timeout: 20)
            if event["event"] as? String == "message" { texts.append(object(event["message"])["text"] as? String ?? "") }
        }
        let history = (try owner.ok("HISTORY \(room)")["messages"] as? [JSON] ?? []).compactMap { $0["text"] as? String }
        #expect(history == ["Thanks alice for finishing Dishes  SAY \(room) injected!", "Thanks alice for finishing Bins!"])
    }

    /// Starts examples/thank_bot.py logged in with `token` and returns once it says it
    /// listens, with the pipe its output goes on to.
    private func startThankBot(port: Int, certificate: String, token: String, state: String) throws -> (Process, Pipe) {
        let bot = Process()
        bot.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // -B: no __pycache__ written into examples/.
        bot.arguments = ["python3", "-B", Self.examples.appendingPathComponent("thank_bot.py").path,
                         "--port", String(port), "--ca", certificate, "--state", state]
        var environment = ProcessInfo.processInfo.environment
        environment["CHORUS_TOKEN"] = token
        bot.environment = environment
        let output = Pipe()
        bot.standardOutput = output
        bot.standardError = output
        try bot.run()
        do {
            try waitForLine(containing: "thank_bot: listening", in: output)
        } catch {
            bot.terminate()
            throw error
        }
        return (bot, output)
    }

    /// The cron reminder posts into the room with a bot token through the real `chorus`
    /// binary, and exits 0; with a wrong room it exits 1.
    @Test func cronReminderPosts() throws {
        let server = try TestServer()
        let (alice, _, _, secret) = try server.roomWithBot()
        let directory = try TemporaryDirectory()
        let tokenFile = directory.path + "/bot.token"
        #expect(FileManager.default.createFile(atPath: tokenFile, contents: Data((secret + "\n").utf8)))
        _ = try alice.drain()

        func remind(_ room: String) throws -> Int32 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = [Self.examples.appendingPathComponent("bins-reminder.sh").path, "Bins go out tonight"]
            var environment = ProcessInfo.processInfo.environment
            environment["CHORUS"] = ProcessTests.chorusd.replacingOccurrences(of: "/chorusd", with: "/chorus")
            environment["CHORUS_TOKEN_FILE"] = tokenFile
            environment["CHORUS_ROOM"] = room
            environment["CHORUS_PORT"] = String(server.port)
            environment["CHORUS_TRUST"] = "--ca \(server.certificatePath)"
            environment["HOME"] = directory.path
            environment["XDG_CONFIG_HOME"] = directory.path
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            try process.requireExit(within: 60)
            return process.terminationStatus
        }
        #expect(try remind("Flat") == 0)
        let event = try alice.event()
        #expect(object(event["message"])["text"] as? String == "Bins go out tonight")
        #expect(object(event["message"])["from"] as? String == "housebot")
        #expect(try remind("Nowhere") == 1)
    }

    /// Reads the pipe until a line contains `text` (the pipe stays open for later reads).
    private func waitForLine(containing text: String, in pipe: Pipe, timeout: Double = 30) throws {
        let deadline = Date().addingTimeInterval(timeout)
        var seen = ""
        while let data = pipe.fileHandleForReading.availableData(within: deadline.timeIntervalSinceNow) {
            if data.isEmpty { break }
            seen += String(decoding: data, as: UTF8.self)
            if seen.contains(text) { return }
        }
        Issue.record("no line with \(text) in: \(seen)")
    }
}
