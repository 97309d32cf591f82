import Foundation
import Testing

/// Room chat history, and what survives a restart.
@Suite struct ChatTests {
    private func texts(_ reply: JSON) -> [String] {
        (reply["messages"] as? [JSON] ?? []).map { $0["text"] as? String ?? "" }
    }

    private func messageIDs(_ reply: JSON) -> [Int] {
        (reply["messages"] as? [JSON] ?? []).map { $0["id"] as? Int ?? -1 }
    }

    /// HISTORY gives the newest 50 oldest first, caps a page at 200, and before=ID pages back through 250 messages with no gap or overlap.
    @Test func historyPages() throws {
        let server = try TestServer()
        let phone = try server.device("alice", label: "alice's phone")
        let laptop = try server.device("alice", label: "alice's laptop", register: false)
        let bob = try server.device("bob")
        let room = id(try phone.ok("ROOM CREATE Flat 2B")["room"])
        try phone.add("bob", to: room)

        // 250 messages from three sessions, one after another.
        let all = (1...250).map { String(format: "m%03d", $0) }
        var sent: [Int] = []
        for (device, slice) in [(phone, all[0..<84]), (laptop, all[84..<167]), (bob, all[167..<250])] {
            let replies = try device.pipeline(slice.map { "SAY \(room) \($0)" })
            for reply in replies {
                #expect(reply["type"] as? String == "ok", "\(reply)")
                sent.append(id(reply["message"]))
            }
        }
        #expect(sent == sent.sorted())
        #expect(Set(sent).count == 250)

        let latest = try bob.ok("HISTORY \(room)")
        #expect(texts(latest) == Array(all[200..<250]))
        #expect(latest["more"] as? Bool == true)
        let first = (latest["messages"] as? [JSON])?.first ?? [:]
        #expect(first["from"] as? String == "bob")
        #expect(first["room"] as? Int == room)

        let capped = try bob.ok("HISTORY \(room) 500")
        #expect(texts(capped) == Array(all[50..<250]))
        #expect(capped["more"] as? Bool == true)
        #expect(texts(try bob.ok("HISTORY \(room) 3")) == ["m248", "m249", "m250"])

        // Paging back 60 at a time: 60, 60, 60, 60, then the last 10.
        var collected: [Int] = []
        var before: Int?
        var pages: [Int] = []
        while pages.count < 10 {
            let page = try bob.ok("HISTORY \(room) 60" + (before.map { " before=\($0)" } ?? ""))
            let ids = messageIDs(page)
            pages.append(ids.count)
            collected = ids + collected
            before = ids.first
            if page["more"] as? Bool != true { break }
        }
        #expect(pages == [60, 60, 60, 60, 10])
        #expect(collected == sent)
        #expect(texts(try bob.ok("HISTORY \(room) 60 before=\(sent[0])")).isEmpty)
        #expect(try bob.code("HISTORY \(room) 0") == 422)
        #expect(try bob.code("HISTORY \(room) 10 before=soon") == 422)
    }

    /// After a restart on the same data, rooms, members, tasks, comments and messages are all there, and new event ids are larger than before.
    @Test func everythingSurvivesARestart() throws {
        let server = try TestServer()
        var alice = try server.device("alice")
        var bob = try server.device("bob")
        let room = id(try alice.ok("ROOM CREATE Flat 2B")["room"])
        try alice.add("bob", to: room)
        try alice.ok("ROOM ROLE \(room) bob admin")
        let parent = id(try alice.ok("TASK ADD \(room) \"Clean the flat\" due=2031-01-31")["task"])
        let child = id(try bob.ok("TASK ADD \(room) Kitchen parent=\(parent) points=2 assign=bob")["task"])
        try bob.ok("TASK PROGRESS \(child) 30")
        let personal = id(try alice.ok("TASK ADD me \"Call mum\" notes=\"after 6\"")["task"])
        try alice.ok("COMMENT \(parent) start with the oven")
        try alice.ok("SAY \(room) first")
        try bob.ok("SAY \(room) second")
        _ = try bob.drain()
        _ = try alice.drain()
        let lastBefore = max(alice.lastEventID, bob.lastEventID)
        #expect(lastBefore > 0)

        let roomBefore = object(try alice.ok("ROOM SHOW \(room)")["room"])
        let parentBefore = object(try alice.ok("TASK SHOW \(parent)")["task"])
        let historyBefore = try alice.ok("HISTORY \(room)")

        try server.restart()
        alice = try server.device("alice", register: false)
        bob = try server.device("bob", register: false)

        let roomAfter = object(try alice.ok("ROOM SHOW \(room)")["room"])
        #expect(roomAfter["name"] as? String == "Flat 2B")
        #expect(roomAfter["progress"] as? Int == roomBefore["progress"] as? Int)
        let members = (roomAfter["members"] as? [JSON] ?? []).map { "\($0["name"] as? String ?? "")=\($0["role"] as? String ?? "")" }
        #expect(members == ["alice=owner", "bob=admin"])

        let parentAfter = object(try bob.ok("TASK SHOW \(parent)")["task"])
        for key in ["title", "due", "progress", "status", "creator", "created"] {
            #expect(String(describing: parentAfter[key]) == String(describing: parentBefore[key]), "\(key)")
        }
        #expect(parentAfter["progress"] as? Int == 30)
        let subtask = (parentAfter["subtasks"] as? [JSON])?.first ?? [:]
        #expect(subtask["id"] as? Int == child)
        #expect(subtask["assignee"] as? String == "bob")
        #expect(subtask["points"] as? Int == 2)
        let comments = (parentAfter["comments"] as? [JSON] ?? []).map { $0["text"] as? String ?? "" }
        #expect(comments == ["start with the oven"])
        #expect(object(try alice.ok("TASK SHOW \(personal)")["task"])["notes"] as? String == "after 6")
        #expect(try bob.code("TASK SHOW \(personal)") == 404)

        let historyAfter = try bob.ok("HISTORY \(room)")
        #expect(texts(historyAfter) == ["first", "second"])
        #expect(messageIDs(historyAfter) == messageIDs(historyBefore))

        // Live events carry on, with ids past everything before the restart.
        try alice.ok("SAY \(room) third")
        let event = try bob.event()
        #expect(event["event"] as? String == "message")
        #expect((event["id"] as? Int ?? 0) > lastBefore)
        #expect(object(event["message"])["text"] as? String == "third")
        #expect(messageIDs(try bob.ok("HISTORY \(room)")).count == 3)
    }
}
