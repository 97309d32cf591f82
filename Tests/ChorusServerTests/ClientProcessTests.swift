import ChorusClient
import ChorusCrypto
import Foundation
import Testing
import ChorusTestSupport

/// The `chorus` client as people and scripts run it: the real binary against an in-process
/// server, with its own HOME so the real known_hosts is never touched.
/// A time limit turns a stuck subprocess into a failure instead of a stalled run.
@Suite(.timeLimit(.minutes(10))) struct ClientProcessTests {
    static let password = "correct horse battery staple"

    // MARK: One-shot commands

    /// OK exits 0 and prints the reply; ERR exits 1; bad flags and unknown verbs exit 2 before connecting.
    @Test func oneShotExitStatuses() throws {
        let house = try Household()
        let whoami = try house.run(house.login("bob") + ["WHOAMI"])
        #expect(whoami.status == 0)
        #expect(whoami.stdout == "OK bob\n")

        let missing = try house.run(house.login("bob") + ["ROOM", "SHOW", "99"])
        #expect(missing.status == 1)
        #expect(missing.stdout.hasPrefix("ERR 404"))

        let unknown = try house.run(house.login("bob") + ["FROB", "it"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("unknown command FROB"))

        let usage = try house.run(house.connection + ["SAY"])
        #expect(usage.status == 2)
        #expect(usage.stderr.contains("usage: SAY R TEXT..."))

        let badFlag = try house.run(["--frobnicate"])
        #expect(badFlag.status == 2)
        #expect(badFlag.stderr.contains("unknown flag --frobnicate"))

        let help = try house.run(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("usage: chorus"))
    }

    /// A port nobody listens on is a connection problem: exit 2 with the reason on stderr.
    @Test func unreachableServerExits2() throws {
        let home = try TemporaryDirectory()
        let result = try ChorusRun.run(["--port", String(try FreePort.next()), "--insecure", "PING"], home: home.path)
        #expect(result.status == 2)
        #expect(result.stderr.contains("cannot connect to 127.0.0.1"))
        #expect(result.stdout.isEmpty)
    }

    /// A refused login exits 2 with the server's reason, and never shows the password.
    @Test func failedLoginExits2WithoutShowingThePassword() throws {
        let house = try Household()
        let wrong = "not the right password at all"
        try wrong.write(toFile: house.passwordFile, atomically: true, encoding: .utf8)
        let result = try house.run(house.login("bob") + ["WHOAMI"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("login failed: wrong name or password"))
        #expect(!result.stderr.contains(wrong) && !result.stdout.contains(wrong))

        // CHORUS_PASSWORD stands in for the file.
        let fromEnvironment = try house.run(house.connection + ["--user", "bob", "WHOAMI"],
                                            environment: ["CHORUS_PASSWORD": Self.password])
        #expect(fromEnvironment.status == 0)
        #expect(fromEnvironment.stdout == "OK bob\n")
    }

    /// A password or token file that group or others can read: one warning on stderr (as
    /// ssh gives for a key), and the login still works. Before, chorus said nothing.
    @Test func aCredentialsFileOthersCanReadIsWarnedAbout() throws {
        let house = try Household()
        let private_ = try house.run(house.login("bob") + ["WHOAMI"])
        #expect(private_.status == 0)
        #expect(private_.stderr.isEmpty, "\(private_.stderr)")

        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: house.passwordFile)
        let open = try house.run(house.login("bob") + ["WHOAMI"])
        #expect(open.status == 0)
        #expect(open.stdout == "OK bob\n")
        let warnings = open.stderr.split(separator: "\n").filter { $0.contains("warning") }
        #expect(warnings == ["chorus: warning: the password file \(house.passwordFile) can be read by other users (mode 644); make it yours alone: chmod 600 \(house.passwordFile)"])
        #expect(!open.stderr.contains(ClientProcessTests.password))

        let device = try Device(client: house.alice, user: "alice", label: "alice")
        let secret = try #require(try device.ok("TOKEN CREATE housebot")["token"] as? String)
        let tokenFile = house.home.path + "/token"
        try (secret + "\n").write(toFile: tokenFile, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: tokenFile)
        let token = try house.run(house.connection + ["--token-file", tokenFile, "WHOAMI"])
        #expect(token.status == 0)
        #expect(token.stderr.contains("warning: the token file \(tokenFile) can be read by other users (mode 640)"))
        #expect(!token.stderr.contains(secret))
    }

    /// One-shot `CALENDAR` writes the RFC 5545 file itself, to standard output or to
    /// `--output FILE`: CRLF line ends and no `OK` line, so `> alice.ics` is a calendar.
    @Test func oneShotCalendarWritesTheFile() throws {
        let house = try Household()
        _ = try house.alice.last("TASK ADD \(house.room) Bins due=2026-12-08 assign=bob")
        let shown = try house.run(house.login("bob") + ["CALENDAR", "me"])
        #expect(shown.status == 0)
        let text = shown.stdout
        #expect(text.hasPrefix("BEGIN:VCALENDAR\r\n"))
        #expect(text.hasSuffix("END:VCALENDAR\r\n"))
        #expect(text.contains("Bins"))
        #expect(!text.contains("OK "))
        #expect(!text.utf8.enumerated().contains { $0.element == 10 && ($0.offset == 0 || Array(text.utf8)[$0.offset - 1] != 13) },
                "a line ends in LF alone")
        let file = house.home.path + "/alice.ics"
        let written = try house.run(house.login("bob") + ["--output", file, "CALENDAR", "me"])
        #expect(written.status == 0)
        #expect(written.stdout.isEmpty)
        // DTSTAMP is when the file was made (METHOD:PUBLISH, RFC 5545 §3.8.7.2), so two
        // exports a second apart differ there and nowhere else.
        let withoutStamp = { (calendar: String) in
            calendar.components(separatedBy: "\r\n").filter { !$0.hasPrefix("DTSTAMP:") }
        }
        #expect(withoutStamp(try String(contentsOfFile: file, encoding: .utf8)) == withoutStamp(text))
        // A refusal is no file: it goes to standard error, and nothing is written.
        let refused = try house.run(house.login("bob") + ["--output", house.home.path + "/none.ics", "CALENDAR", "Nowhere"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("ERR 404"))
        #expect(!FileManager.default.fileExists(atPath: house.home.path + "/none.ics"))
    }

    /// `--json` prints the reply as one JSON line, for OK and ERR alike.
    @Test func jsonPrintsOneLine() throws {
        let house = try Household()
        let rooms = try house.run(house.login("bob") + ["--json", "ROOMS"])
        #expect(rooms.status == 0)
        let lines = rooms.stdout.split(separator: "\n")
        #expect(lines.count == 1)
        let object = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any]
        #expect(object?["type"] as? String == "ok")
        #expect((object?["rooms"] as? [[String: Any]])?.first?["name"] as? String == "Flat 2B")

        let missing = try house.run(house.login("bob") + ["--json", "TASK", "SHOW", "77"])
        #expect(missing.status == 1)
        let error = try JSONSerialization.jsonObject(with: Data(missing.stdout.utf8)) as? [String: Any]
        #expect(error?["code"] as? Int == 404)
    }

    /// Words become the line a person would type: text verbs verbatim, other words quoted as needed.
    @Test func wordsAreQuotedAsAShellUserMeansThem() throws {
        let house = try Household()
        let created = try house.run(house.login("alice") + ["ROOM", "CREATE", "Attic", "and", "cellar"])
        #expect(created.status == 0, "\(created)")
        #expect(try house.run(house.login("bob") + ["SAY", "Flat 2B", "Bins", "go", "out", "tonight"]).status == 0)
        #expect(try house.run(house.login("bob") + ["SAY", "Flat 2B", "\"quoted\"  stays", "back\\slash"]).status == 0)
        let task = try house.run(house.login("alice") + ["--json", "TASK", "ADD", "Flat 2B", "Take out trash",
                                                         "notes=two words, \"quoted\"", "points=2"])
        #expect(task.status == 0, "\(task)")
        let odd = try house.run(house.login("alice") + ["--json", "TASK", "ADD", "me", "x=y"])
        #expect(odd.status == 0, "\(odd)")

        let device = try Device(client: house.alice, user: "alice", label: "alice")
        let messages = try device.ok("HISTORY \(house.room)")["messages"] as? [[String: Any]] ?? []
        #expect(messages.compactMap { $0["text"] as? String } == ["Bins go out tonight", "\"quoted\"  stays back\\slash"])
        let rooms = try device.ok("ROOMS")["rooms"] as? [[String: Any]] ?? []
        #expect(rooms.contains { $0["name"] as? String == "Attic and cellar" })
        let added = try JSONSerialization.jsonObject(with: Data(task.stdout.utf8)) as? [String: Any]
        let shape = added?["task"] as? [String: Any]
        #expect(shape?["title"] as? String == "Take out trash")
        #expect(shape?["notes"] as? String == "two words, \"quoted\"")
        #expect(shape?["points"] as? Int == 2)
        let personal = try JSONSerialization.jsonObject(with: Data(odd.stdout.utf8)) as? [String: Any]
        #expect((personal?["task"] as? [String: Any])?["title"] as? String == "x=y")
    }

    /// The line builder's own rules, checked without a server.
    @Test func requestLinesFromWords() throws {
        #expect(try RequestLineBuilder.line(from: ["SAY", "Flat", "Bins", "go", "out", "tonight"]) == "SAY Flat Bins go out tonight")
        #expect(try RequestLineBuilder.line(from: ["say", "Flat 2B", "Bins tonight"]) == "SAY \"Flat 2B\" Bins tonight")
        #expect(try RequestLineBuilder.line(from: ["TASK", "add", "Flat 2B", "Take \"it\" out", "due=tomorrow", "notes=a b"])
            == "TASK ADD \"Flat 2B\" \"Take \\\"it\\\" out\" due=tomorrow notes=\"a b\"")
        #expect(try RequestLineBuilder.line(from: ["LOGIN", "ann", "pass=word with space"]) == "LOGIN ann \"pass=word with space\"")
        #expect(try RequestLineBuilder.line(from: ["@t1", "PING"]) == "@t1 PING")
        #expect(throws: ClientFailure.self) { try RequestLineBuilder.line(from: ["SAY", "Flat", "two\nlines"]) }
        #expect(throws: ClientFailure.self) { try RequestLineBuilder.line(from: ["ROOM", "FROB"]) }
    }

    // MARK: Certificates

    /// Without a terminal, an unknown certificate is refused (exit 2) with its fingerprint and how to trust it.
    @Test func unknownCertificateIsRefusedWithoutATerminal() throws {
        let server = try TestServer()
        let home = try TemporaryDirectory()
        let fingerprint = try CertificateFingerprint.sha256(pemFile: server.certificatePath)
        let result = try ChorusRun.run(["--port", String(server.port), "PING"], home: home.path)
        #expect(result.status == 2)
        #expect(result.stderr.contains(fingerprint))
        #expect(result.stderr.contains("--fingerprint"))
        #expect(result.stderr.contains("answer yes"))
        #expect(!FileManager.default.fileExists(atPath: home.path + "/.config/chorus/known_hosts"))
    }

    /// `--fingerprint` accepts the pinned certificate in any spelling and refuses any other.
    @Test func pinnedFingerprint() throws {
        let server = try TestServer()
        let home = try TemporaryDirectory()
        let fingerprint = try CertificateFingerprint.sha256(pemFile: server.certificatePath)
        let sloppy = fingerprint.replacingOccurrences(of: ":", with: "").lowercased()
        let pinned = try ChorusRun.run(["--port", String(server.port), "--fingerprint", sloppy, "PING", "pinned"], home: home.path)
        #expect(pinned.status == 0)
        #expect(pinned.stdout == "OK PONG pinned\n")

        let other = String(repeating: "AB:", count: 31) + "AB"
        let wrong = try ChorusRun.run(["--port", String(server.port), "--fingerprint", other, "PING"], home: home.path)
        #expect(wrong.status == 2)
        #expect(wrong.stderr.contains("does not match --fingerprint"))
        #expect(wrong.stderr.contains(fingerprint))

        let malformed = try ChorusRun.run(["--port", String(server.port), "--fingerprint", "abc", "PING"], home: home.path)
        #expect(malformed.status == 2)
    }

    /// `--ca` verifies the chain and the host name; another server's certificate fails.
    @Test func certificateAuthorityFile() throws {
        let server = try TestServer()
        let other = try TestServer()
        let home = try TemporaryDirectory()
        let byAddress = try ChorusRun.run(["--port", String(server.port), "--ca", server.certificatePath, "PING"], home: home.path)
        #expect(byAddress.status == 0)
        let byName = try ChorusRun.run(["--host", "localhost", "--port", String(server.port), "--ca", server.certificatePath, "PING"],
                                       home: home.path)
        #expect(byName.status == 0)
        let wrongCA = try ChorusRun.run(["--port", String(server.port), "--ca", other.certificatePath, "PING"], home: home.path)
        #expect(wrongCA.status == 2)
        #expect(wrongCA.stderr.contains("certificate verify failed"))
    }

    /// A remembered certificate connects; a CHANGED one for the same host:port is refused loudly.
    @Test func knownHostsTrustAndChangedCertificate() throws {
        let first = try TestServer()
        let second = try TestServer()
        let home = try TemporaryDirectory()
        let folder = home.path + "/.config/chorus"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let firstPrint = try CertificateFingerprint.sha256(pemFile: first.certificatePath)
        // The second server's address remembered with the first one's certificate: a change.
        let lines = "# servers I trust\n127.0.0.1:\(first.port) \(firstPrint)\n127.0.0.1:\(second.port) \(firstPrint)\n"
        try lines.write(toFile: folder + "/known_hosts", atomically: true, encoding: .utf8)

        let known = try ChorusRun.run(["--port", String(first.port), "PING"], home: home.path)
        #expect(known.status == 0)
        #expect(known.stdout == "OK PONG\n")

        let changed = try ChorusRun.run(["--port", String(second.port), "PING"], home: home.path)
        #expect(changed.status == 2)
        #expect(changed.stderr.contains("WARNING: the certificate of 127.0.0.1:\(second.port) has CHANGED"))
        #expect(changed.stderr.contains(try CertificateFingerprint.sha256(pemFile: second.certificatePath)))
        #expect(changed.stderr.contains("line 3"))
        #expect(changed.stdout.isEmpty)
    }

    /// At a terminal, first contact asks; "yes" remembers the certificate and later runs just connect.
    @Test func trustOnFirstUseAtATerminal() throws {
        let server = try TestServer()
        let home = try TemporaryDirectory()
        let terminal = try PseudoTerminal()
        let asking = try ChorusRun(["--port", String(server.port), "PING", "first"], home: home.path, standardInput: terminal.follower)
        #expect(asking.waitForOutput("(yes/no)", onErrors: true))
        terminal.type("yes\n")
        let result = asking.finish()
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "OK PONG first\n")
        let remembered = try String(contentsOfFile: home.path + "/.config/chorus/known_hosts", encoding: .utf8)
        let fingerprint = try CertificateFingerprint.sha256(pemFile: server.certificatePath)
        #expect(remembered == "127.0.0.1:\(server.port) \(fingerprint)\n")

        let later = try ChorusRun.run(["--port", String(server.port), "PING"], home: home.path)
        #expect(later.status == 0)
    }

    // MARK: Sessions

    /// With a pipe as standard input, lines are sent as read and a live event appears while
    /// idle; a line answered ERR makes the script end with status 1, as a one-shot would.
    @Test func pipedSessionShowsLiveEvents() throws {
        let house = try Household()
        let session = try ChorusRun(house.login("bob"), home: house.home.path, pipeInput: true)
        #expect(session.waitForOutput("OK logged in as bob"))
        #expect(try house.alice.last("SAY \(house.room) dinner at seven").hasPrefix("OK"))
        #expect(session.waitForOutput("alice in Flat 2B: dinner at seven"))
        session.type("WHOAMI")
        #expect(session.waitForOutput("OK bob"))
        session.type("ROOM SHOW 99")
        session.type("PING done")
        session.closeInput()
        let result = session.finish()
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("* chorus") == true)
        #expect(lines.dropLast().last?.hasPrefix("ERR 404") == true)
        #expect(lines.last == "OK PONG done")
        #expect(!result.stdout.contains("@chorus."), "the client's own requests stay hidden")

        // Every line answered OK: status 0.
        let clean = try ChorusRun(house.login("bob"), home: house.home.path, pipeInput: true)
        clean.type("WHOAMI")
        clean.type("ROOMS")
        clean.closeInput()
        let cleanResult = clean.finish()
        #expect(cleanResult.status == 0)
        #expect(cleanResult.stdout.contains("OK bob"))
    }

    /// At a terminal: a prompt and line editor; an event arriving mid-line is printed above
    /// the prompt, which comes back with the half-typed text; Ctrl-D on an empty line quits.
    @Test func terminalSessionKeepsTheHalfTypedLine() throws {
        let house = try Household()
        let terminal = try PseudoTerminal()
        let session = try ChorusRun(house.login("bob"), home: house.home.path, standardInput: terminal.follower,
                                    terminalOutput: true)
        #expect(terminal.wait { $0.contains("OK logged in as bob") && $0.hasSuffix("> \u{1B}[K") })
        terminal.type("WHO")
        #expect(terminal.wait { $0.hasSuffix("> WHO\u{1B}[K") })
        #expect(try house.alice.last("SAY \(house.room) hello terminal").hasPrefix("OK"))
        // Cleared prompt line, the event (with its id) in colour, then the prompt and "WHO" again.
        #expect(terminal.wait {
            $0.contains("\r\u{1B}[K\u{1B}[36m* ") && $0.contains("hello terminal [#") && $0.hasSuffix("]\u{1B}[0m\r\n\r> WHO\u{1B}[K")
        })
        terminal.type("AMI\r")
        #expect(terminal.wait { $0.contains("\u{1B}[32mOK bob\u{1B}[0m") })
        terminal.type("\u{04}")
        #expect(session.finish().status == 0)
    }

    /// `--json` sessions print JSON lines only: replies and events as the server sent them.
    @Test func jsonSessionPrintsJSONLines() throws {
        let house = try Household()
        let session = try ChorusRun(house.login("bob") + ["--json"], home: house.home.path, pipeInput: true)
        session.type("PING hello")
        #expect(session.waitForOutput("\"pong\":\"hello\""))
        #expect(try house.alice.last("SAY \(house.room) json please").hasPrefix("OK"))
        #expect(session.waitForOutput("json please"))
        session.closeInput()
        let result = session.finish()
        #expect(result.status == 0)
        for line in result.stdout.split(separator: "\n") {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any], "not JSON: \(line)")
        }
    }

    /// Stops the server under a connected session, has alice say `text` while the
    /// session cannot reach the server (the same data on another port, so only SYNC can
    /// bring it), then starts it again on `port` and waits for the session to reconnect.
    private func outage(of house: Household, port: Int, session: ChorusRun, saying text: String) throws {
        house.server.stop()
        #expect(session.waitForOutput("lost the connection", onErrors: true))
        house.server.configuration.port = 0
        try house.server.restart()
        let alice = try house.server.client()
        #expect(try alice.last("LOGIN alice \"\(Self.password)\"").hasPrefix("OK"))
        #expect(try alice.last("SAY \(house.room) \(text)").hasPrefix("OK"))
        house.server.stop()
        house.server.configuration.port = port
        try house.server.restart()
        #expect(session.waitForOutput("reconnected", onErrors: true))
    }

    /// A drop right after login, before the client has found where the event stream
    /// stands, still replays what was said while it was away: the interrupted search
    /// leaves a place to replay from.
    @Test func dropRightAfterLoginStillReplays() throws {
        let port = try FreePort.next()
        let house = try Household(server: try TestServer { $0.port = port })
        let session = try ChorusRun(house.login("bob"), home: house.home.path, pipeInput: true)
        #expect(session.waitForOutput("OK logged in as bob"))
        try outage(of: house, port: port, session: session, saying: "said during the outage")
        #expect(session.waitForOutput("said during the outage"))
        session.closeInput()
        let result = session.finish()
        #expect(result.stdout.components(separatedBy: "said during the outage").count == 2, "once in: \(result.stdout)")
    }

    /// After the server went away, the session reconnects with backoff, logs in again and
    /// shows, once each, the message made while it was away and the ones seen before.
    @Test func reconnectsAndReplaysWhatItMissed() throws {
        let port = try FreePort.next()
        let house = try Household(server: try TestServer { $0.port = port })
        let session = try ChorusRun(house.login("bob"), home: house.home.path, pipeInput: true)
        #expect(session.waitForOutput("OK logged in as bob"))
        #expect(try house.alice.last("SAY \(house.room) before the outage").hasPrefix("OK"))
        #expect(session.waitForOutput("before the outage"))
        try outage(of: house, port: port, session: session, saying: "while you were away")
        #expect(session.waitForOutput("while you were away"))
        let again = try house.server.client()
        #expect(try again.last("LOGIN alice \"\(Self.password)\"").hasPrefix("OK"))
        #expect(try again.last("SAY \(house.room) after the outage").hasPrefix("OK"))
        #expect(session.waitForOutput("after the outage"))
        session.type("WHOAMI")
        #expect(session.waitForOutput("OK bob"))
        session.closeInput()
        let result = session.finish()
        #expect(result.status == 0)
        for text in ["before the outage", "while you were away", "after the outage"] {
            #expect(result.stdout.components(separatedBy: text).count == 2, "\(text) once in: \(result.stdout)")
        }
    }

    /// A REGISTER typed into a session logs the client in as a LOGIN does: after a drop it
    /// comes back logged in as the new account and replays what that account missed.
    @Test func aRegisterTypedInASessionSurvivesAReconnect() throws {
        let port = try FreePort.next()
        let house = try Household(server: try TestServer { $0.port = port })
        let session = try ChorusRun(house.connection, home: house.home.path, pipeInput: true)
        #expect(session.waitForOutput("* chorus"))
        session.type("REGISTER carol \"\(Self.password)\"")
        #expect(session.waitForOutput("OK welcome carol"))
        let code = try house.alice.last("ROOM INVITE \(house.room)").split(separator: " ").last.map(String.init) ?? ""
        session.type("ROOM JOIN \(code)")
        #expect(session.waitForOutput("OK joined Flat 2B"))
        try outage(of: house, port: port, session: session, saying: "while carol was away")
        #expect(session.waitForOutput("while carol was away"))
        session.type("WHOAMI")
        #expect(session.waitForOutput("OK carol"))
        session.closeInput()
        #expect(session.finish().status == 0)
    }

    /// The server's store was restored from a backup while the session was away, losing
    /// events it had shown: its replay SYNC is past the end of the log. It starts over
    /// from the log's end, says once that history was restored, and shows what comes next.
    @Test func restoredHistoryRestartsTheCursorAndSaysSo() throws {
        let port = try FreePort.next()
        let house = try Household(server: try TestServer { $0.port = port })
        let data = house.server.configuration.dataDirectory
        let backup = house.home.path + "/backup"
        let session = try ChorusRun(house.login("bob"), home: house.home.path, pipeInput: true)
        #expect(session.waitForOutput("OK logged in as bob"))
        house.server.stop()
        #expect(session.waitForOutput("lost the connection", onErrors: true))
        try FileManager.default.copyItem(atPath: data, toPath: backup)
        try house.server.restart()
        #expect(session.waitForOutput("reconnected", onErrors: true))
        let alice = try house.server.client()
        #expect(try alice.last("LOGIN alice \"\(Self.password)\"").hasPrefix("OK"))
        for line in ["lost one", "lost two", "lost three"] {
            #expect(try alice.last("SAY \(house.room) \(line)").hasPrefix("OK"))
            #expect(session.waitForOutput(line))
        }
        // Time for the quiet SYNC that moves bob's cursor past what he was shown.
        Thread.sleep(forTimeInterval: 1)
        house.server.stop()
        #expect(session.wait(timeout: 20, onErrors: true) { $0.components(separatedBy: "lost the connection").count == 3 })
        try FileManager.default.removeItem(atPath: data)
        try FileManager.default.copyItem(atPath: backup, toPath: data)
        try house.server.restart()
        #expect(session.wait(timeout: 20, onErrors: true) { $0.contains("history was restored on the server") })
        let again = try house.server.client()
        #expect(try again.last("LOGIN alice \"\(Self.password)\"").hasPrefix("OK"))
        #expect(try again.last("SAY \(house.room) after the restore").hasPrefix("OK"))
        #expect(session.waitForOutput("after the restore"))
        session.closeInput()
        let result = session.finish()
        #expect(result.stderr.components(separatedBy: "history was restored").count == 2, "once in: \(result.stderr)")
    }

    /// A session remembers, per server and account, the newest event it showed; the next
    /// start shows what was said since, once each and in order, under one notice; the start
    /// after that shows none of it again.
    @Test func aNewSessionShowsWhatWasSaidWhileItWasAway() throws {
        let house = try Household()
        let first = try ChorusRun(house.login("bob"), home: house.home.path, pipeInput: true)
        #expect(first.waitForOutput("OK logged in as bob"))
        #expect(try house.alice.last("SAY \(house.room) seen before").hasPrefix("OK"))
        #expect(first.waitForOutput("seen before"))
        first.closeInput()
        #expect(first.finish().status == 0)
        let seen = try String(contentsOfFile: house.home.path + "/.config/chorus/seen_events", encoding: .utf8)
        #expect(seen.hasPrefix("127.0.0.1:\(house.server.port) bob "), "\(seen)")
        let mode = try FileManager.default.attributesOfItem(atPath: house.home.path + "/.config/chorus/seen_events")[.posixPermissions] as? Int
        #expect(mode == 0o600)

        #expect(try house.alice.last("SAY \(house.room) away one").hasPrefix("OK"))
        #expect(try house.alice.last("SAY \(house.room) away two").hasPrefix("OK"))
        let second = try ChorusRun(house.login("bob"), home: house.home.path, pipeInput: true)
        #expect(second.waitForOutput("away two"))
        second.closeInput()
        let back = second.finish()
        #expect(back.status == 0)
        #expect(back.stderr.components(separatedBy: "chorus: while you were away (since #").count == 2, "\(back.stderr)")
        #expect(!back.stdout.contains("seen before"))
        #expect(back.stdout.components(separatedBy: "away one").count == 2, "once in: \(back.stdout)")
        #expect(back.stdout.components(separatedBy: "away two").count == 2, "once in: \(back.stdout)")
        let one = back.stdout.range(of: "away one"), two = back.stdout.range(of: "away two")
        #expect(one != nil && two != nil && one!.lowerBound < two!.lowerBound)
        #expect(!back.stderr.contains("left out"))

        let third = try ChorusRun(house.login("bob"), home: house.home.path, pipeInput: true)
        third.type("PING done")
        third.closeInput()
        let again = third.finish()
        #expect(again.stdout.contains("OK PONG done"))
        #expect(!again.stdout.contains("away"), "\(again.stdout)")
        #expect(!again.stderr.contains("while you were away"))
    }

    /// More missed than the start-up replay shows: the newest 200, a line saying how many
    /// were left out and how to see them; `--no-replay` shows nothing of it.
    @Test func aLongAbsenceShowsTheNewestAndSaysWhatWasLeftOut() throws {
        let house = try Household(server: try TestServer { $0.rate = 10_000; $0.burst = 10_000 })
        let first = try ChorusRun(house.login("bob"), home: house.home.path, pipeInput: true)
        first.type("PING ready")
        first.closeInput()
        #expect(first.finish().status == 0)
        for number in 1...205 {
            #expect(try house.alice.last("SAY \(house.room) missed \(number).").hasPrefix("OK"))
        }
        let quiet = try ChorusRun(house.login("bob") + ["--no-replay"], home: house.home.path, pipeInput: true)
        quiet.type("PING quiet")
        quiet.closeInput()
        let skipped = quiet.finish()
        #expect(skipped.status == 0)
        #expect(!skipped.stdout.contains("missed 1."), "\(skipped.stdout)")
        #expect(!skipped.stderr.contains("while you were away"))

        // --no-replay still remembered where it stopped: put the place back to before the 205.
        let path = house.home.path + "/.config/chorus/seen_events"
        let line = try String(contentsOfFile: path, encoding: .utf8)
        let since = try #require(Int(line.split(separator: " ").last!.trimmingCharacters(in: .whitespacesAndNewlines)))
        try line.replacingOccurrences(of: " \(since)\n", with: " \(since - 205)\n").write(toFile: path, atomically: true, encoding: .utf8)
        let back = try ChorusRun(house.login("bob"), home: house.home.path, pipeInput: true)
        #expect(back.waitForOutput("missed 205."))
        back.closeInput()
        let result = back.finish()
        #expect(result.stderr.contains("chorus: 5 older events left out; SYNC \(since - 205) shows them"), "\(result.stderr)")
        #expect(!result.stdout.contains("missed 5."))
        #expect(result.stdout.contains("missed 6."))
        #expect(result.stdout.components(separatedBy: "missed ").count == 201)
    }

    /// While a reconnection waits on a network that says nothing (here a listener that
    /// takes the connection and never answers the TLS handshake), the session still reads
    /// the keys: a line typed meanwhile is acknowledged at once, not after the 30 s
    /// handshake timeout, and sent once the server is back.
    @Test func reconnectingLeavesTheKeyboardAnswered() throws {
        let port = try FreePort.next()
        let house = try Household(server: try TestServer { $0.port = port })
        let terminal = try PseudoTerminal()
        let session = try ChorusRun(house.login("bob"), home: house.home.path, standardInput: terminal.follower,
                                    terminalOutput: true)
        #expect(terminal.wait { $0.contains("OK logged in as bob") })
        house.server.stop()
        #expect(session.waitForOutput("lost the connection", onErrors: true))
        let silent = try SilentListener(port: port)
        #expect(silent.waitForClientHello(timeout: 20), "the session tried again")
        terminal.type("WHOAMI\r")
        #expect(session.wait(timeout: 10, onErrors: true) { $0.contains("the line will be sent after reconnecting") })
        silent.close()
        try house.server.restart()
        #expect(session.waitForOutput("reconnected", onErrors: true))
        #expect(terminal.wait { $0.contains("OK bob") })
        terminal.type("\u{04}")
        #expect(session.finish().status == 0)
    }

    /// A balancer with no node up takes the connection and hangs up during the TLS
    /// handshake: the session says it is reconnecting, in its own words, never OpenSSL's
    /// "unexpected eof" (before, the notice quoted it), and gets back once a node is up.
    @Test func aHangUpDuringTheHandshakeIsReconnectingNotOpenSSLText() throws {
        let port = try FreePort.next()
        let house = try Household(server: try TestServer { $0.port = port })
        let session = try ChorusRun(house.login("bob"), home: house.home.path, pipeInput: true)
        #expect(session.waitForOutput("OK logged in as bob"))
        house.server.stop()
        #expect(session.waitForOutput("lost the connection", onErrors: true))
        let balancer = try SilentListener(port: port)
        #expect(balancer.waitForClientHello(timeout: 20), "the session tried again")
        balancer.close()
        var notice = ""
        #expect(session.wait(timeout: 20, onErrors: true) { text in
            notice = text
            return text.contains("the connection closed during the TLS handshake); reconnecting in")
        }, "\(notice)")
        try house.server.restart()
        #expect(session.waitForOutput("reconnected", onErrors: true))
        session.closeInput()
        let result = session.finish()
        #expect(!result.stderr.contains("unexpected eof") && !result.stderr.contains("error:0A"), "\(result.stderr)")
    }

    /// The cursor's bookkeeping: events shown live before a drop are not replayed; missed ones are.
    @Test func eventCursorReplaysOnlyWhatWasMissed() throws {
        var cursor = EventCursor(last: 10)
        // Keys as live text lines give them: the id at the end.
        cursor.shownLive(key: "#\(try #require(ServerLine("* 18:04 bob in Flat: one [#11]").eventID))")
        cursor.shownLive(key: "#\(try #require(ServerLine("* 18:05 bob in Flat: one [#13]").eventID))")
        let body = ["  #11 18:04 bob in Flat: one", "  #12 18:04 alice in Flat: two", "  #13 18:05 bob in Flat: one"]
        let page = SyncPage(body: body.map(ServerLine.init), final: ServerLine("OK 3 events after #10 · more: SYNC 13"), after: 10)
        let missed = cursor.absorb(try #require(page), replaying: true)
        #expect(missed.map(\.display) == ["* 18:04 alice in Flat: two [#12]"])
        #expect(cursor.last == 13)

        let json = #"{"type":"ok","tag":"chorus.replay","events":[{"type":"event","event":"message","id":14,"text":"a,]}"},{"type":"event","event":"dm","id":15}],"more":false,"last":15}"#
        cursor.shownLive(key: "#15")
        let jsonPage = try #require(SyncPage(body: [], final: ServerLine(json), after: 13))
        #expect(cursor.absorb(jsonPage, replaying: true).map(\.display) == [#"{"type":"event","event":"message","id":14,"text":"a,]}"}"#])
        #expect(cursor.last == 15)
    }

    /// The newest-id search lands on the newest id, whatever the gaps.
    @Test func newestEventSearch() {
        for ids in [[], [1], [3, 9, 1000], Array(1...37), [5, 6, 7, 123_456_789]] as [[Int64]] {
            var search = NewestEventSearch()
            var queue = NewestEventSearch.growingProbes
            var rounds = 0
            while !queue.isEmpty, rounds < 500 {
                let after = queue.removeFirst()
                queue += search.record(after: after, first: ids.first { $0 > after })
                rounds += 1
            }
            #expect(search.result == (ids.last ?? 0), "ids \(ids)")
        }
    }

    /// A search cut short by a dropped connection still gives a place to replay from that
    /// is a real event no newer than the newest: nothing after it can be skipped.
    @Test func interruptedSearchLeavesASafeReplayFloor() {
        let ids: [Int64] = [3, 9, 40, 41, 300]
        var search = NewestEventSearch()
        #expect(search.replayFloor == nil)
        var answered = 0
        var floors: [Int64] = []
        var queue = NewestEventSearch.growingProbes
        while !queue.isEmpty, answered < 500 {
            let after = queue.removeFirst()
            queue += search.record(after: after, first: ids.first { $0 > after })
            answered += 1
            if let floor = search.replayFloor { floors.append(floor) }
        }
        #expect(!floors.isEmpty)
        #expect(floors.allSatisfy { ids.contains($0) && $0 <= 300 })
        #expect(floors == floors.sorted())
        #expect(search.replayFloor == 300)
    }

    /// Keys from raw terminal bytes drive the editor: arrows, Home/End, history, Ctrl-C.
    @Test func lineEditorKeys() {
        var decoder = KeyDecoder()
        let editor = LineEditor()
        func type(_ bytes: [UInt8]) -> [LineEditor.Outcome] { decoder.keys(from: bytes).map(editor.handle) }
        _ = type(Array("SAY 1 hé".utf8))
        _ = type([0x1B, 0x5B, 0x44, 0x7F]) // left, backspace
        #expect(editor.text == "SAY 1 é")
        _ = type([0x01] + Array("@t ".utf8) + [0x1B, 0x4F, 0x46] + Array("!".utf8)) // Ctrl-A, ESC O F (End)
        #expect(type([0x0D]) == [.submitted("@t SAY 1 é!")])
        editor.remember("@t SAY 1 é!")
        _ = type(Array("draft".utf8) + [0x1B, 0x5B, 0x41]) // up
        #expect(editor.text == "@t SAY 1 é!")
        _ = type([0x1B, 0x5B, 0x42]) // down
        #expect(editor.text == "draft")
        _ = type([0x03])
        #expect(editor.text == "")
        #expect(type([0x04]) == [.endOfInput])
    }

    /// The editor counts terminal columns, not characters: a CJK character or an emoji
    /// takes two, a combining mark none, so the cursor lands on the right cell and a long
    /// line scrolls before it would wrap.
    @Test func lineEditorCountsColumns() {
        let editor = LineEditor()
        for character in "ab界🍕e\u{301}" { _ = editor.handle(.character(character)) }
        #expect(editor.rendering(columns: 80) == "\r> ab界🍕e\u{301}\u{1B}[K")
        _ = editor.handle(.left)
        _ = editor.handle(.left)
        // Back over "🍕" (two columns) and "é" (one).
        #expect(editor.rendering(columns: 80) == "\r> ab界🍕e\u{301}\u{1B}[K\u{1B}[3D")

        // Ten columns of text, eight of room: the window holds the last three characters
        // and the cell for the cursor, not the last eight characters.
        let narrow = LineEditor()
        for character in "界界界界界" { _ = narrow.handle(.character(character)) }
        #expect(narrow.rendering(columns: 11) == "\r> 界界界\u{1B}[K")
        _ = narrow.handle(.home)
        #expect(narrow.rendering(columns: 11) == "\r> 界界界界\u{1B}[K\u{1B}[8D")
    }

    // MARK: Bot tokens

    /// `--token-file` and CHORUS_TOKEN log in with a bot token; a revoked one exits 2.
    @Test func tokenLogin() throws {
        let house = try Household()
        let device = try Device(client: house.alice, user: "alice", label: "alice")
        guard let secret = try device.ok("TOKEN CREATE housebot")["token"] as? String else {
            Issue.record("TOKEN CREATE gave no token")
            return
        }
        let tokenFile = house.home.path + "/token"
        try (secret + "\n").write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let byFile = try house.run(house.connection + ["--token-file", tokenFile, "WHOAMI"])
        #expect(byFile.status == 0, "\(byFile)")
        #expect(byFile.stdout.contains("alice"))
        let byEnvironment = try house.run(house.connection + ["--json", "WHOAMI"], environment: ["CHORUS_TOKEN": secret])
        #expect(byEnvironment.status == 0)
        #expect(byEnvironment.stdout.contains("\"name\":\"alice\""))

        try device.ok("TOKEN REVOKE housebot")
        let revoked = try house.run(house.connection + ["--token-file", tokenFile, "WHOAMI"])
        #expect(revoked.status == 2)
        #expect(revoked.stderr.contains("login failed"))
        #expect(!revoked.stderr.contains(secret))
    }
}
