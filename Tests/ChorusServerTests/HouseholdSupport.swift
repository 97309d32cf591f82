import ChorusClient
import ChorusLocking
import Foundation
import Testing

/// A decoded JSON object from the wire.
typealias JSON = [String: Any]

/// One logged-in connection in JSON mode, with a label for failure messages. It checks,
/// for every event it reads, that event ids keep growing as this session sees them.
final class Device {
    let client: TestClient
    let user: String
    let label: String
    private(set) var lastEventID = 0
    /// The server stays up while any of its devices is in use.
    private let server: TestServer?

    init(client: TestClient, user: String, label: String, server: TestServer? = nil) throws {
        self.client = client
        self.user = user
        self.label = label
        self.server = server
        let mode = try client.json("MODE json")
        #expect(mode["mode"] as? String == "json", "\(label): MODE json → \(mode)")
    }

    /// The decoded reply to `line`, whatever it is.
    func send(_ line: String) throws -> JSON {
        try client.json(line)
    }

    /// The reply to `line`, which must be OK.
    @discardableResult
    func ok(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSON {
        let reply = try client.json(line)
        #expect(reply["type"] as? String == "ok", "\(label): \(line) → \(reply)", sourceLocation: sourceLocation)
        return reply
    }

    /// ROOM ADD that lands `name` in the room whoever they are: a housemate is added at once;
    /// a stranger is invited (CONTRACT §11) and accepts (`TestClient.acceptInvitation`).
    /// Their other sessions get `room.invited`, then `member.added`. Returns the ROOM ADD reply.
    @discardableResult
    func add(_ name: String, to room: Int, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSON {
        let reply = try ok("ROOM ADD \(room) \(name)", sourceLocation: sourceLocation)
        if reply["invited"] as? Bool == true {
            try client.acceptInvitation(as: name, to: String(room), sourceLocation: sourceLocation)
        }
        return reply
    }

    /// The error reply to `line`: its code and message (code 200 and "" when it was OK).
    func failure(_ line: String) throws -> (code: Int, message: String) {
        let reply = try client.json(line)
        if reply["type"] as? String == "ok" { return (200, "") }
        return (reply["code"] as? Int ?? -1, reply["message"] as? String ?? "")
    }

    /// 200 for OK, else the error code.
    func code(_ line: String) throws -> Int {
        try failure(line).code
    }

    /// Sends many lines at once and reads their replies in order (pipelining).
    func pipeline(_ lines: [String]) throws -> [JSON] {
        try client.connection.sendRaw(Array(lines.map { $0 + "\r\n" }.joined().utf8))
        return try lines.map { _ in
            let line = try client.reply().last ?? ""
            return try Self.decode(line)
        }
    }

    /// The next event, queued ones first. Its id must be larger than any this session saw before.
    func event(timeout: Double = 10, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSON {
        let event = try Self.decode(try client.nextEvent(timeout: timeout))
        #expect(event["type"] as? String == "event", "\(label): not an event: \(event)", sourceLocation: sourceLocation)
        if let id = event["id"] as? Int {
            #expect(id > lastEventID, "\(label): event id \(id) after \(lastEventID)", sourceLocation: sourceLocation)
            lastEventID = max(lastEventID, id)
        }
        return event
    }

    /// The next event, after the `room.invited` that comes first when this session's user
    /// was a stranger added with `add(_:to:)` (a housemate gets `member.added` alone).
    func eventAfterInvitation(timeout: Double = 10, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSON {
        let first = try event(timeout: timeout, sourceLocation: sourceLocation)
        return first["event"] as? String == "room.invited" ? try event(timeout: timeout, sourceLocation: sourceLocation) : first
    }

    /// Every event that reached this session before the reply to a PING sent now.
    ///
    /// Sound as a "nothing more came" check once the command that would have caused an
    /// event has been answered: the server hands out a command's events in the same loop
    /// turn as its reply, before it reads this PING.
    func drain(sourceLocation: SourceLocation = #_sourceLocation) throws -> [JSON] {
        let pong = try client.json("PING barrier")
        #expect(pong["pong"] as? String == "barrier", "\(label): \(pong)", sourceLocation: sourceLocation)
        var events: [JSON] = []
        while !client.events.isEmpty {
            events.append(try event(sourceLocation: sourceLocation))
        }
        return events
    }

    /// Checks that no event is waiting for this session.
    func expectQuiet(_ context: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let stray = try drain(sourceLocation: sourceLocation)
        #expect(stray.isEmpty, "\(label) should get nothing \(context), got \(stray)", sourceLocation: sourceLocation)
    }

    static func decode(_ line: String) throws -> JSON {
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? JSON else {
            throw LineClient.Failure("not a JSON object: \(line)")
        }
        return object
    }
}

let defaultPassword = "correct horse battery staple"

extension TestServer {
    /// A JSON-mode session of a new account (`register`) or a further one of an existing
    /// account, in JSON mode before it logs in, so whatever comes right after the login
    /// (live events of a busy room, held notices) comes as JSON too.
    func device(_ name: String, label: String? = nil, register: Bool = true) throws -> Device {
        let device = try Device(client: try client(), user: name, label: label ?? name, server: self)
        let reply = try device.ok("\(register ? "REGISTER" : "LOGIN") \(name) \"\(defaultPassword)\"")
        #expect(object(reply["user"])["name"] as? String == name, "\(register ? "REGISTER" : "LOGIN") \(name): \(reply)")
        return device
    }
}

/// After `issuer` got its reply: every session in `recipients` gets exactly one event named
/// `name`, by `by`, in `room`; the issuer and every session in `others` get nothing. Returns
/// the events as the recipients saw them, in the order of `recipients`.
@discardableResult
func expectFanout(_ name: String, by: String, room: Int?, issuer: Device, to recipients: [Device], notTo others: [Device],
                  sourceLocation: SourceLocation = #_sourceLocation) throws -> [JSON] {
    var seen: [JSON] = []
    for device in recipients {
        let event = try device.event(sourceLocation: sourceLocation)
        #expect(event["event"] as? String == name, "\(device.label) expected \(name), got \(event)", sourceLocation: sourceLocation)
        #expect(event["by"] as? String == by, "\(device.label): by in \(event)", sourceLocation: sourceLocation)
        #expect(event["id"] as? Int != nil, "\(device.label): a stored event has an id: \(event)", sourceLocation: sourceLocation)
        #expect((event["at"] as? String)?.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/) != nil,
                "\(device.label): at in \(event)", sourceLocation: sourceLocation)
        if let room {
            #expect(event["room"] as? Int == room, "\(device.label): room in \(event)", sourceLocation: sourceLocation)
        } else {
            #expect(event["room"] is NSNull, "\(device.label): room in \(event)", sourceLocation: sourceLocation)
        }
        seen.append(event)
    }
    for device in recipients {
        try device.expectQuiet("more than one \(name)", sourceLocation: sourceLocation)
    }
    try issuer.expectQuiet("for its own \(name) (it has the reply)", sourceLocation: sourceLocation)
    for device in others {
        try device.expectQuiet("for \(name)", sourceLocation: sourceLocation)
    }
    return seen
}

/// A nested object of a reply or event, e.g. `reply["room"]`.
func object(_ value: Any?) -> JSON {
    value as? JSON ?? [:]
}

/// The `id` of a nested object, e.g. `id(reply["task"])`; -1 when missing.
func id(_ value: Any?) -> Int {
    object(value)["id"] as? Int ?? -1
}

/// Digits replaced by `N`, to compare the shapes of two messages about different ids.
func shape(_ message: String) -> String {
    message.replacing(/[0-9]+/, with: "N")
}

extension TestServer {
    /// alice's room "Flat" with the account housebot in it, and a bot token "cron" for it.
    func roomWithBot() throws -> (alice: Device, bot: Device, room: Int, token: String) {
        let alice = try device("alice")
        let bot = try device("housebot")
        let room = id(try alice.ok("ROOM CREATE Flat")["room"])
        try alice.add("housebot", to: room)
        let token = try #require(try bot.ok("TOKEN CREATE cron")["token"] as? String)
        return (alice, bot, room, token)
    }
}

/// A device read on a thread of its own, counting the `message` events it gets until it
/// has `count` of them (or 30 s pass without an event): a member who keeps up while the
/// test floods the room.
final class MessageCounter: @unchecked Sendable {
    // Safety: after init only the counting thread touches the device; `counted` is locked.
    private let counted = Locked(0)
    private let done = DispatchSemaphore(value: 0)

    init(_ device: Device, until count: Int) {
        nonisolated(unsafe) let reader = device
        Thread { [counted, done] in
            defer { done.signal() }
            while counted.withLock({ $0 }) < count {
                guard let event = try? reader.event(timeout: 30) else { return }
                if event["event"] as? String == "message" { counted.withLock { $0 += 1 } }
            }
        }.start()
    }

    /// Whether the thread finished within `seconds`.
    func wait(seconds: Double) -> Bool { done.wait(timeout: .now() + seconds) == .success }

    var count: Int { counted.withLock { $0 } }
}

extension Device {
    /// Says `count` messages of about 4 KB in `room`, pipelined a hundred at a time; every
    /// one must be accepted.
    func flood(_ room: Int, count: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let text = String(repeating: "x", count: 3900)
        for batch in stride(from: 0, to: count, by: 100) {
            let replies = try pipeline((batch..<min(count, batch + 100)).map { "SAY \(room) \($0) \(text)" })
            #expect(replies.allSatisfy { $0["type"] as? String == "ok" }, sourceLocation: sourceLocation)
        }
    }
}
