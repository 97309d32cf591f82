@testable import ChorusServer
import Foundation
import Testing

/// The ordering model (`EventOrder`): the store numbers events as it commits, and every
/// session sees a room's events in id order, whatever loop it is on.
@Suite struct EventOrderTests {
    /// Increasing ids pass (gaps allowed: rolled-back ids are never reused); a repeat or
    /// an older id is caught and does not move the mark.
    @Test func onlyIncreasingIDsPass() {
        var order = EventOrder()
        let step1 = order.deliver(3)
        #expect(step1)
        let step2 = order.deliver(7)
        #expect(step2)
        let step3 = order.deliver(7)
        #expect(!step3)
        let step4 = order.deliver(5)
        #expect(!step4)
        #expect(order.lastID == 7)
        let step5 = order.deliver(8)
        #expect(step5)
    }

    /// Three senders on three loops pipeline chat into one room whose members are spread
    /// over the loops: every member gets everyone else's lines in exactly id order, so
    /// all members share one order, the order the store committed them in.
    @Test func aRoomsEventsReachEveryLoopInIDOrder() throws {
        let server = try TestServer { $0.loops = 3 }
        let names = ["ann", "ben", "cat", "dan", "eve", "fay"]
        // Loops take new connections in turn: six members, two per loop.
        let members = try names.map { try server.device($0) }
        let room = id(try members[0].ok("ROOM CREATE Ordered")["room"])
        for name in names.dropFirst() { try members[0].add(name, to: room) }
        for member in members { _ = try member.drain() }

        let senders = [members[0], members[1], members[2]]
        let count = 30
        for start in stride(from: 0, to: count, by: 5) {
            for sender in senders {
                let lines = (start..<start + 5).map { "SAY \(room) \(sender.user) \($0)\r\n" }.joined()
                try sender.client.connection.sendRaw(Array(lines.utf8))
            }
        }
        var sent: [(id: Int, from: String)] = []
        for sender in senders {
            for _ in 0..<count {
                let reply = try Device.decode(try sender.client.reply().last ?? "")
                sent.append((id(reply["message"]), sender.user))
            }
        }
        let inIDOrder = sent.sorted { $0.id < $1.id }
        for member in members {
            let expected = inIDOrder.filter { $0.from != member.user }.map(\.id)
            var received: [Int] = []
            while received.count < expected.count {
                let event = try member.event()
                if event["event"] as? String == "message" { received.append(id(event["message"])) }
            }
            #expect(received == expected, "\(member.label) saw the room out of id order")
        }
    }
}
