import ChorusLocking
import ChorusTestSupport
import Dispatch
import Foundation
import Testing

/// Web Push on two `chorusd` nodes sharing one PostgreSQL: one VAPID key for the cluster,
/// even when both nodes are asked for it first at the same moment, and one account's
/// subscriptions seen from either node.
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
}
