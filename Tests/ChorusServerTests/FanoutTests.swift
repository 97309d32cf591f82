import Foundation
import Testing

/// Live events: who gets which event, in what order, and none lost.
@Suite struct FanoutTests {
    /// Sessions are spread over several event loops. A command's OK goes out only once
    /// every other loop has written its events, so anyone who got "OK" can count on the
    /// others having been sent the change already; and nobody gets anything twice.
    @Test func theReplyWaitsForEveryLoop() throws {
        let server = try TestServer { $0.loops = 3 }
        let names = ["alice", "bob", "carol", "dave", "erin"]
        let devices = try names.map { try server.device($0) }
        let phone = try server.device("alice", label: "alice's phone", register: false)
        let room = id(try devices[0].ok("ROOM CREATE Co-op")["room"])
        for name in names.dropFirst() { try devices[0].add(name, to: room) }
        for device in devices + [phone] { _ = try device.drain() }
        let everyone = devices + [phone]
        // Busy loops are where a reply could overtake another loop's events: one client
        // per loop keeps its loop working through bursts of PINGs.
        let noise = try (0..<3).map { _ in try server.client() }
        let burst = Array(String(repeating: "PING\r\n", count: 200).utf8)
        for round in 0..<10 {
            for (index, speaker) in everyone.enumerated() {
                for client in noise { try client.connection.sendRaw(burst) }
                try speaker.ok("SAY \(room) round \(round) from \(index)")
                // drain() reads only up to a PING answered now: what is not there yet fails.
                for listener in everyone where listener !== speaker {
                    let heard = try listener.drain()
                    #expect(heard.count == 1, "\(listener.label) after \(speaker.label)'s SAY: \(heard)")
                    #expect(object(heard.first?["message"])["text"] as? String == "round \(round) from \(index)")
                }
                try speaker.expectQuiet("for its own SAY")
            }
        }
    }

    /// Two members pipeline bursts of chat at once, so their lines commit in the same
    /// batches and reach each loop as runs of events for the same room (written to each
    /// recipient in one piece): everyone else gets every line once, in order, in their
    /// own output mode; a sender's session gets the other's lines but none of its own,
    /// while the sender's other device gets them all.
    @Test func pipelinedBurstsReachEveryoneButTheirSenders() throws {
        let server = try TestServer { $0.loops = 2 }
        let phone = try server.device("alice", label: "alice's phone")
        let laptop = try server.device("alice", label: "alice's laptop", register: false)
        let bob = try server.device("bob")
        let carol = try server.device("carol")
        let dave = try server.user("dave")
        let room = id(try phone.ok("ROOM CREATE Burst")["room"])
        for name in ["bob", "carol", "dave"] { try phone.add(name, to: room) }
        for device in [phone, laptop, bob, carol] { _ = try device.drain() }
        _ = try dave.call("PING settle")
        while !dave.events.isEmpty { _ = try dave.nextEvent() }

        // Written in turns, a few lines at a time, so the two bursts mix in the batches.
        let count = 40
        let chunk = 5
        for start in stride(from: 0, to: count, by: chunk) {
            for (sender, who) in [(phone, "a"), (bob, "b")] {
                let lines = (start..<start + chunk).map { "SAY \(room) \(who)\($0)\r\n" }.joined()
                try sender.client.connection.sendRaw(Array(lines.utf8))
            }
        }
        for sender in [phone, bob] {
            for _ in 0..<count {
                let reply = try Device.decode(try sender.client.reply().last ?? "")
                #expect(reply["type"] as? String == "ok", "\(sender.label): \(reply)")
            }
        }

        let texts = { (events: [JSON]) in events.map { object($0["message"])["text"] as? String ?? "?" } }
        let alices = (0..<count).map { "a\($0)" }
        let bobs = (0..<count).map { "b\($0)" }
        let everything = try carol.drain()
        #expect(everything.count == 2 * count)
        #expect(texts(everything).filter { $0.hasPrefix("a") } == alices)
        #expect(texts(everything).filter { $0.hasPrefix("b") } == bobs)
        #expect(texts(try laptop.drain()) == texts(everything))
        #expect(texts(try phone.drain()) == bobs)
        #expect(texts(try bob.drain()) == alices)
        // Dave reads text lines: the same lines, in the same order.
        _ = try dave.call("PING barrier")
        // Each line ends with its event id, ` [#N]`; the message text comes before it.
        let shown = dave.events.map { line in
            let withoutID = line.range(of: " [#", options: .backwards).map { line[..<$0.lowerBound] } ?? Substring(line)
            return withoutID.split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "?"
        }
        #expect(shown == texts(everything))
    }

    /// A reply never overtakes an event committed before its command: a member whose chat
    /// lines commit in the same batches as someone else's sees each earlier line of theirs
    /// before the `OK` for its own (events wait to be copied until the turn's writes, and
    /// a reply first writes what is waiting).
    @Test func repliesFollowEarlierEvents() throws {
        let server = try TestServer { $0.loops = 1 }
        let bob = try server.device("bob")
        let carol = try server.device("carol")
        let room = id(try bob.ok("ROOM CREATE Order")["room"])
        try bob.add("carol", to: room)
        for device in [bob, carol] { _ = try device.drain() }

        let count = 40
        for start in stride(from: 0, to: count, by: 4) {
            for (sender, who) in [(bob, "b"), (carol, "c")] {
                let lines = (start..<start + 4).map { "SAY \(room) \(who)\($0)\r\n" }.joined()
                try sender.client.connection.sendRaw(Array(lines.utf8))
            }
        }
        var heardBefore: [(own: Int, heard: Set<Int>)] = []
        for _ in 0..<count {
            let reply = try Device.decode(try carol.client.reply().last ?? "")
            let heard = try carol.client.events.map { id(try Device.decode($0)["message"]) }
            heardBefore.append((id(reply["message"]), Set(heard)))
        }
        for _ in 0..<count { _ = try bob.client.reply() }
        let bobsLines = try carol.drain().map { id($0["message"]) }
        #expect(bobsLines.count == count)
        for (own, heard) in heardBefore {
            let earlier = Set(bobsLines.filter { $0 < own })
            #expect(earlier.isSubset(of: heard), "carol's OK for message \(own) came before bob's \(earlier.subtracting(heard).sorted())")
        }
    }

    /// A household of three with a second device: every change reaches every other session of every member exactly once, never the issuing session or an outsider.
    @Test func everyChangeReachesExactlyTheRightSessions() throws {
        let server = try TestServer()
        let phone = try server.device("alice", label: "alice's phone")
        let laptop = try server.device("alice", label: "alice's laptop", register: false)
        let bob = try server.device("bob")
        let carol = try server.device("carol")
        let dave = try server.device("dave", label: "dave (outsider)")

        // ROOM CREATE: the owner's other device hears about it.
        let room = id(try phone.ok("ROOM CREATE Flat 2B")["room"])
        for event in try expectFanout("member.added", by: "alice", room: room, issuer: phone, to: [laptop], notTo: [bob, carol, dave]) {
            #expect(event["user"] as? String == "alice")
            #expect(event["role"] as? String == "owner")
        }

        // ROOM ADD of someone who shares no room with alice: only they hear of it, invited.
        #expect(try phone.ok("ROOM ADD \(room) bob")["invited"] as? Bool == true)
        for event in try expectFanout("room.invited", by: "alice", room: room, issuer: phone, to: [bob], notTo: [laptop, carol, dave]) {
            #expect(event["name"] as? String == "Flat 2B")
            #expect(event["invited_by"] as? String == "alice")
        }
        // ROOM ACCEPT: the room hears of its new member.
        try bob.ok("ROOM ACCEPT \(room)")
        for event in try expectFanout("member.added", by: "bob", room: room, issuer: bob, to: [phone, laptop], notTo: [carol, dave]) {
            #expect(event["user"] as? String == "bob")
            #expect(event["role"] as? String == "member")
        }
        #expect(try laptop.ok("ROOM ADD \(room) carol")["invited"] as? Bool == true)
        try expectFanout("room.invited", by: "alice", room: room, issuer: laptop, to: [carol], notTo: [phone, bob, dave])
        try carol.ok("ROOM ACCEPT \"Flat 2B\"")
        for event in try expectFanout("member.added", by: "carol", room: room, issuer: carol, to: [phone, laptop, bob], notTo: [dave]) {
            #expect(event["user"] as? String == "carol")
        }

        // TASK ADD
        let added = object(try bob.ok("TASK ADD \(room) \"Take out trash\" due=tomorrow")["task"])
        let task = added["id"] as? Int ?? -1
        for event in try expectFanout("task.added", by: "bob", room: room, issuer: bob, to: [phone, laptop, carol], notTo: [dave]) {
            let shown = object(event["task"])
            #expect(shown["id"] as? Int == task)
            #expect(shown["title"] as? String == "Take out trash")
            #expect(shown["creator"] as? String == "bob")
            #expect(shown["due"] as? String == added["due"] as? String)
        }

        // TASK ASSIGN
        try carol.ok("TASK ASSIGN \(task) bob")
        for event in try expectFanout("task.updated", by: "carol", room: room, issuer: carol, to: [phone, laptop, bob], notTo: [dave]) {
            #expect(object(event["task"])["id"] as? Int == task)
            #expect(object(event["task"])["assignee"] as? String == "bob")
        }

        // TASK PROGRESS
        try bob.ok("TASK PROGRESS \(task) 40")
        for event in try expectFanout("task.updated", by: "bob", room: room, issuer: bob, to: [phone, laptop, carol], notTo: [dave]) {
            #expect(object(event["task"])["progress"] as? Int == 40)
        }

        // TASK DONE
        try bob.ok("TASK DONE \(task)")
        for event in try expectFanout("task.done", by: "bob", room: room, issuer: bob, to: [phone, laptop, carol], notTo: [dave]) {
            #expect(object(event["task"])["status"] as? String == "done")
            #expect(object(event["task"])["progress"] as? Int == 100)
        }

        // TASK REOPEN: the issuer's other device gets it.
        try phone.ok("TASK REOPEN \(task)")
        for event in try expectFanout("task.reopened", by: "alice", room: room, issuer: phone, to: [laptop, bob, carol], notTo: [dave]) {
            #expect(object(event["task"])["status"] as? String == "open")
        }

        // TASK EDIT
        try laptop.ok("TASK EDIT \(task) notes=\"blue bin\"")
        for event in try expectFanout("task.updated", by: "alice", room: room, issuer: laptop, to: [phone, bob, carol], notTo: [dave]) {
            #expect(object(event["task"])["notes"] as? String == "blue bin")
        }

        // COMMENT
        let comment = object(try carol.ok("COMMENT \(task) the bin is full")["comment"])
        for event in try expectFanout("comment", by: "carol", room: room, issuer: carol, to: [phone, laptop, bob], notTo: [dave]) {
            let shown = object(event["comment"])
            #expect(shown["id"] as? Int == comment["id"] as? Int)
            #expect(shown["task"] as? Int == task)
            #expect(shown["from"] as? String == "carol")
            #expect(shown["text"] as? String == "the bin is full")
        }

        // SAY
        let message = object(try bob.ok("SAY \(room) who took my milk?")["message"])
        for event in try expectFanout("message", by: "bob", room: room, issuer: bob, to: [phone, laptop, carol], notTo: [dave]) {
            let shown = object(event["message"])
            #expect(shown["id"] as? Int == message["id"] as? Int)
            #expect(shown["room"] as? Int == room)
            #expect(shown["from"] as? String == "bob")
            #expect(shown["text"] as? String == "who took my milk?")
        }

        // ROOM RENAME
        try laptop.ok("ROOM RENAME \(room) Flat 2C")
        for event in try expectFanout("room.renamed", by: "alice", room: room, issuer: laptop, to: [phone, bob, carol], notTo: [dave]) {
            #expect(event["name"] as? String == "Flat 2C")
        }

        // ROOM ROLE
        try phone.ok("ROOM ROLE \(room) bob admin")
        for event in try expectFanout("member.role", by: "alice", room: room, issuer: phone, to: [laptop, bob, carol], notTo: [dave]) {
            #expect(event["user"] as? String == "bob")
            #expect(event["role"] as? String == "admin")
        }

        // ROOM REMOVE: the removed user hears it, and nothing of the room after that.
        try bob.ok("ROOM REMOVE \(room) carol")
        for event in try expectFanout("member.removed", by: "bob", room: room, issuer: bob, to: [phone, laptop, carol], notTo: [dave]) {
            #expect(event["user"] as? String == "carol")
        }
        try phone.ok("SAY \(room) carol moved out")
        try expectFanout("message", by: "alice", room: room, issuer: phone, to: [laptop, bob], notTo: [carol, dave])
        #expect(try carol.code("TASK SHOW \(task)") == 404)

        // Back in (asked again, since carol shares no other room), then ROOM LEAVE: everyone
        // left in the room hears it, the leaver's session has the reply.
        try laptop.ok("ROOM ADD \(room) carol")
        try expectFanout("room.invited", by: "alice", room: room, issuer: laptop, to: [carol], notTo: [phone, bob, dave])
        try carol.ok("ROOM ACCEPT \(room)")
        try expectFanout("member.added", by: "carol", room: room, issuer: carol, to: [phone, laptop, bob], notTo: [dave])
        try carol.ok("ROOM LEAVE \(room)")
        for event in try expectFanout("member.removed", by: "carol", room: room, issuer: carol, to: [phone, laptop, bob], notTo: [dave]) {
            #expect(event["user"] as? String == "carol")
        }

        // TASK DELETE
        try bob.ok("TASK DELETE \(task)")
        for event in try expectFanout("task.deleted", by: "bob", room: room, issuer: bob, to: [phone, laptop], notTo: [carol, dave]) {
            #expect(event["task"] as? Int == task)
        }

        // ROOM DELETE
        try phone.ok("ROOM DELETE \(room)")
        for event in try expectFanout("room.deleted", by: "alice", room: room, issuer: phone, to: [laptop, bob], notTo: [carol, dave]) {
            #expect(event["room"] as? Int == room)
        }
        #expect(try bob.code("ROOM SHOW \(room)") == 404)
    }

    /// Thirty members in one room each receive all twenty messages from three senders, in one shared order, none lost and none twice.
    @Test func thirtyMembersReceiveTwentyMessagesInOrder() throws {
        let server = try TestServer()
        let names = (0..<30).map { String(format: "member%02d", $0) }
        let owner = try server.device(names[0])
        let room = id(try owner.ok("ROOM CREATE Big house")["room"])
        let code = try owner.ok("ROOM INVITE \(room) uses=30")["code"] as? String ?? ""
        var members = [owner]
        for name in names.dropFirst() {
            let member = try server.device(name)
            try member.ok("ROOM JOIN \(code)")
            members.append(member)
        }
        // Everyone has seen every join before the messages start.
        for member in members { _ = try member.drain() }

        // Three senders pipeline their messages at the same time: 7 + 7 + 6.
        let senders = [members[3], members[11], members[29]]
        let counts = [7, 7, 6]
        for (sender, count) in zip(senders, counts) {
            let lines = (1...count).map { "SAY \(room) \(sender.user) says \($0)" }
            try sender.client.connection.sendRaw(Array(lines.map { $0 + "\r\n" }.joined().utf8))
        }
        var sent: [(id: Int, from: String, text: String)] = []
        for (sender, count) in zip(senders, counts) {
            for _ in 0..<count {
                let reply = try Device.decode(try sender.client.reply().last ?? "")
                let message = object(reply["message"])
                sent.append((message["id"] as? Int ?? -1, sender.user, message["text"] as? String ?? ""))
            }
        }
        #expect(sent.count == 20)
        #expect(Set(sent.map(\.id)).count == 20)
        let order = sent.sorted { $0.id < $1.id }

        var sequences: [[String]] = []
        for member in members {
            let expected = order.filter { $0.from != member.user }
            var received: [JSON] = []
            while received.count < expected.count {
                let event = try member.event()
                if event["event"] as? String == "message" { received.append(event) }
            }
            let stray = try member.drain().filter { $0["event"] as? String == "message" }
            #expect(stray.isEmpty, "\(member.label) got more messages: \(stray)")
            let texts = received.map { object($0["message"])["text"] as? String ?? "" }
            #expect(texts == expected.map(\.text), "\(member.label) got \(texts)")
            #expect(received.map { object($0["message"])["id"] as? Int ?? -1 } == expected.map(\.id))
            sequences.append(texts)
        }
        // Each sender's own messages arrive in the order sent.
        for sender in senders {
            let own = sequences[0].filter { $0.hasPrefix(sender.user + " ") }
            #expect(own == (1...own.count).map { "\(sender.user) says \($0)" })
        }
    }
}
