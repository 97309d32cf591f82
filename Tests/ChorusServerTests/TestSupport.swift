import ChorusClient
import ChorusCore
import ChorusCrypto
import ChorusServer
import ChorusSQLite
import ChorusStore
import Foundation
import ChorusLocking
import ChorusTestSupport
import Testing

extension TestServer {
    /// The store chorusd opens, SQLite in the data folder, with the configuration's size
    /// cap applied (`databasePageLimit`, which only tests set).
    static let sqlite: StoreOpener = { configuration in
        try DatabaseQueue(path: configuration.databasePath) { db in
            if let pages = configuration.databasePageLimit { try db.limitSize(toPages: pages) }
        }
    }
}

/// Shared with the other test targets (ChorusTestSupport).
typealias TemporaryDirectory = ChorusTestSupport.TemporaryDirectory

/// A real server on a free loopback port with its own data folder and certificate.
final class TestServer {
    let directory: TemporaryDirectory
    let certificatePath: String
    var configuration: ServerConfiguration
    private(set) var server: Server?

    let clock: any Clock
    /// The store each start opens (`HeldStore.opener` for tests that steer it).
    private let store: StoreOpener
    /// The feed each start gets, for a node sharing its log with others (nil: one process).
    private let feed: (@Sendable () throws -> any EventFeed)?

    init(directory: TemporaryDirectory? = nil, clock: any Clock = SystemClock(),
         configure: (inout ServerConfiguration) -> Void = { _ in }, store: @escaping StoreOpener = TestServer.sqlite,
         feed: (@Sendable () throws -> any EventFeed)? = nil) throws {
        self.clock = clock
        self.store = store
        self.feed = feed
        let directory = try directory ?? TemporaryDirectory()
        self.directory = directory
        certificatePath = directory.path + "/server.crt"
        let keyPath = directory.path + "/server.key"
        if !FileManager.default.fileExists(atPath: certificatePath) {
            _ = try SelfSignedCertificate.create(certificatePath: certificatePath, keyPath: keyPath)
        }
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.dataDirectory = directory.path + "/data"
        configuration.certificatePath = certificatePath
        configuration.keyPath = keyPath
        // Cheap hashes keep the suite fast; the default cost has its own test.
        configuration.scrypt = ScryptParameters(logN: 10)
        // Tests drive many commands quickly; the rate limit has its own tests.
        configuration.rate = 100_000
        configuration.burst = 100_000
        configure(&configuration)
        self.configuration = configuration
        server = try Server.start(configuration, store: store, clock: clock, feed: try feed?())
    }

    deinit {
        server?.shutDown()
    }

    var port: Int { server?.port ?? 0 }

    func stop() {
        server?.shutDown()
        server = nil
    }

    /// Starts again on the same data folder (a new port).
    /// On the same port. A bind refused as "Address already in use" is tried again for up
    /// to 5 s: clean-clone CI runs saw the port of a stopped test server held for a moment
    /// (by whom was not caught), and a restart that comes a little late proves the same.
    func restart() throws {
        stop()
        let deadline = Date().addingTimeInterval(5)
        while true {
            do {
                server = try Server.start(configuration, store: store, clock: clock, feed: try feed?())
                return
            } catch let error where "\(error)".contains("Address already in use") && Date() < deadline {
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
    }

    /// A connected client that has read the greeting.
    func client() throws -> TestClient {
        try TestClient(port: port, certificatePath: certificatePath)
    }

    /// A connected client logged in as a new account.
    func user(_ name: String, password: String = "correct horse battery staple") throws -> TestClient {
        let client = try client()
        let reply = try client.call("REGISTER \(name) \"\(password)\"")
        #expect(reply.last?.hasPrefix("OK") == true, "register \(name): \(reply)")
        return client
    }
}

/// A line client that knows where a reply ends, and keeps events that arrive between replies.
final class TestClient {
    let connection: LineClient
    let greeting: String
    var mode = "text"
    private(set) var events: [String] = []

    /// Where it connected, so a test can open another session to the same server or node.
    let port: Int
    let certificatePath: String

    init(port: Int, certificatePath: String) throws {
        self.port = port
        self.certificatePath = certificatePath
        connection = try LineClient(port: port, trust: .certificateFile(certificatePath))
        greeting = try connection.readLine() ?? ""
    }

    /// Sends one line and returns the reply's lines (body lines and the final line).
    @discardableResult
    func call(_ line: String, timeout: Double = 10) throws -> [String] {
        try connection.send(line)
        do {
            return try reply(timeout: timeout)
        } catch let failure as LineClient.Failure {
            // Named, so a test that fails here says which command went unanswered.
            throw LineClient.Failure("\(line.prefix(80)): \(failure)")
        }
    }

    /// Reads one whole reply, setting aside events that come before it.
    func reply(timeout: Double = 10) throws -> [String] {
        var lines: [String] = []
        while true {
            guard let line = try connection.readLine(timeout: timeout) else {
                throw LineClient.Failure("closed after \(lines)")
            }
            if isEvent(line) {
                events.append(line)
                continue
            }
            lines.append(line)
            if isFinal(line) { return lines }
        }
    }

    /// The final line of the reply to `line`.
    func last(_ line: String) throws -> String {
        try call(line).last ?? ""
    }

    /// The reply to `line` in JSON mode, decoded.
    func json(_ line: String) throws -> [String: Any] {
        let text = try last(line)
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw LineClient.Failure("not a JSON object: \(text)")
        }
        return object
    }

    func nextEvent(timeout: Double = 10) throws -> String {
        if !events.isEmpty { return events.removeFirst() }
        do {
            guard let line = try connection.readLine(timeout: timeout) else { throw LineClient.Failure("closed") }
            return line
        } catch let failure as LineClient.Failure {
            throw LineClient.Failure("waiting for an event: \(failure)")
        }
    }

    private func isEvent(_ line: String) -> Bool {
        line.hasPrefix("* ") || line.hasPrefix("{\"type\":\"event\"")
    }

    private func isFinal(_ line: String) -> Bool {
        var rest = Substring(line)
        if rest.hasPrefix("@"), let space = rest.firstIndex(of: " ") {
            rest = rest[rest.index(after: space)...]
        }
        return rest.hasPrefix("OK") || rest.hasPrefix("ERR ") || rest.hasPrefix("{")
    }
}

/// A clock the test moves by hand, so overdue, reminders and repeats need no sleeping.
final class ManualClock: Clock {
    private let current: Locked<Date>

    init(_ start: Date) {
        current = Locked(start)
    }

    func now() -> Date { current.withLock { $0 } }

    func advance(by seconds: Double) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}

/// A plain TCP connection to the server, with no TLS: for tests of what the server does
/// with sockets that never handshake. Returns the descriptor (the caller closes it).
func rawConnection(port: Int) -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    let connected = withLoopbackAddress(port: port) { connect(fd, $0, $1) }
    #expect(connected == 0, "cannot connect to port \(port)")
    return fd
}

/// 127.0.0.1:`port`, handed to `body` as the `sockaddr` and length that bind and connect take.
func withLoopbackAddress<Result>(port: Int, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
}

extension TestClient {
    /// ROOM ADD R NAME from this session, in text or JSON mode, accepted by NAME when it
    /// was an invitation (a stranger: CONTRACT §11). Returns ROOM ADD's final line.
    @discardableResult
    func add(_ name: String, to room: String, password: String = "correct horse battery staple",
             sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let reply = try last("ROOM ADD \(room) \(name)")
        #expect(reply.hasPrefix("OK") || reply.contains(#""type":"ok""#), "ROOM ADD \(room) \(name) → \(reply)",
                sourceLocation: sourceLocation)
        if reply.hasPrefix("OK invited") || reply.contains(#""invited":true"#) {
            try acceptInvitation(as: name, to: room, password: password, sourceLocation: sourceLocation)
        }
        return reply
    }

    /// Accepts `name`'s invitation to `room` from a session of theirs opened for it on the
    /// same server or node, then closed.
    func acceptInvitation(as name: String, to room: String, password: String = "correct horse battery staple",
                          sourceLocation: SourceLocation = #_sourceLocation) throws {
        let invitee = try TestClient(port: port, certificatePath: certificatePath)
        defer { invitee.connection.close() }
        let login = try invitee.last("LOGIN \(name) \"\(password)\"")
        #expect(login.hasPrefix("OK"), "\(name) logging in to accept: \(login)", sourceLocation: sourceLocation)
        let accepted = try invitee.last("ROOM ACCEPT \(room)")
        #expect(accepted.hasPrefix("OK"), "\(name): ROOM ACCEPT \(room) → \(accepted)", sourceLocation: sourceLocation)
        // This session is a member, so it hears of the acceptance (as an event, where the ROOM
        // ADD of a housemate was its own reply): taken here, other events left in order.
        let heard = takeEvent(timeout: 20) { line in
            line.contains(#""event":"member.added""#) ? line.contains(#""user":"\#(name)""#) : line.contains(" \(name) joined ")
        }
        #expect(heard != nil, "no member.added for \(name) after ROOM ACCEPT \(room)", sourceLocation: sourceLocation)
    }

    /// The first event, queued or arriving within `timeout`, that `matches`; the others stay
    /// queued in their order. Nil when none came.
    func takeEvent(timeout: Double = 10, matching matches: (String) -> Bool) -> String? {
        if let index = events.firstIndex(where: matches) { return events.remove(at: index) }
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            // A timeout throws: nothing matching came.
            guard let line = try? connection.readLine(timeout: max(0.01, deadline.timeIntervalSinceNow)) else { return nil }
            if matches(line) { return line }
            events.append(line)
        }
        return nil
    }
}
