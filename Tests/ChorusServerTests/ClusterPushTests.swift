import ChorusLocking
import ChorusPostgres
import ChorusTestSupport
import Dispatch
import Foundation
import Testing

/// Web Push on two `chorusd` nodes sharing one PostgreSQL: one VAPID key for the cluster,
/// even when both nodes are asked for it first at the same moment, one account's
/// subscriptions seen from either node, and a notice whose sending node dies pushed once
/// by the other.
@Suite(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason),
       .timeLimit(.minutes(10)))
struct ClusterPushTests {
    @Test func bothNodesSignWithOneKey() throws {
        let cluster = try TestCluster(nodes: 2)
        let ann = try cluster.device("ann", on: 0, register: true)
        let annElsewhere = try cluster.device("ann", on: 1)
        nonisolated(unsafe) let devices = [ann, annElsewhere]
        let keys = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { node in
            let key = (try? devices[node].ok("PUSH KEY")["key"] as? String) ?? nil
            keys.withLock { $0.append(key ?? "none") }
        }
        let both = keys.withLock { $0 }
        #expect(both.count == 2 && both[0] == both[1] && both[0] != "none", "\(both)")

        let phone = try PushCommandTests.browserSubscription()
        let made = object(try ann.ok("PUSH SUBSCRIBE \(phone.endpoint) \(phone.p256dh) \(phone.auth) phone")["subscription"])
        let listed = try annElsewhere.ok("PUSH LIST")["subscriptions"] as? [JSON] ?? []
        #expect(listed.map { $0["id"] as? Int } == [made["id"] as? Int])
    }

    /// A reminder comes due while n1 is stopped: n0 fires it, claims its push and sends it
    /// to a push service that does not answer; n0 is SIGKILLed there. n1, resumed, claims
    /// the row once n0's lease ends and sends it: the device gets it once, and the
    /// reminder itself was stored once.
    @Test func aReminderWhoseSenderDiesIsPushedOnceByTheOtherNode() throws {
        let answered = Locked(0)
        let service = try ScriptedHTTPSServer { _, index in
            if index == 0 { return .silence }
            answered.withLock { $0 += 1 }
            return .respond(status: 201)
        }
        let cluster = try TestCluster(nodes: 2, flags: ["--push-allow", "127.0.0.1/32", "--push-ca", service.certificatePath],
                                      environment: ["CHORUS_TEST_NOTICE_TIMING": "0.5,4"])
        let ann = try cluster.device("ann", on: 0, register: true)
        let room = id(try ann.ok("ROOM CREATE Flat")["room"])
        let task = id(try ann.ok("TASK ADD \(room) Bins assign=ann remind=2031-01-01")["task"])
        let phone = try PushDeliveryTests.Browser(endpoint: service.url("/push/ann"))
        try ann.ok(phone.subscribeLine)

        cluster.nodes[1].pause()
        _ = try cluster.sql.execute("UPDATE tasks SET remind_at = $1 WHERE id = $2", [.int(TestCluster.nowSeconds), .int(Int64(task))])
        let deadline = Date().addingTimeInterval(15)
        while service.received.isEmpty && Date() < deadline { usleep(50_000) }
        try #require(service.received.count == 1, "n0 should have tried the push")
        cluster.nodes[0].kill()
        #expect(cluster.nodes[0].waitForExit() == 128 + SIGKILL)
        cluster.nodes[1].resume()

        let sent = PushDeliveryTests.pushes(service, count: 2, within: 20)
        try #require(sent.count == 2, "n1 should send it once n0's claim ends")
        #expect(try phone.open(sent[1])["event"] as? String == "task.reminder")
        Thread.sleep(forTimeInterval: 3)
        #expect(answered.withLock { $0 } == 1 && service.received.count == 2, "pushed once, not again")
        #expect(try cluster.count("SELECT count(*) FROM events WHERE name = 'task.reminder'") == 1)
        #expect(try cluster.waitForCount("SELECT count(*) FROM notice_outbox", toBe: 0) == 0)
    }
}
