import ChorusPostgres
import ChorusTestSupport
import Foundation
import Testing

/// Reminders and overdue notices on three `chorusd` nodes sharing one database
/// (CLUSTER.md tests 10 and 11): each due time is stored once and reaches each member
/// once, whichever node fires it, also when the firing node dies mid-transaction, when
/// every node was down at the due time, and for a member who logs in (on any node) while
/// it fires. Due times are moved in the database behind the nodes' backs, so only their
/// own checks (every second) can find them.
@Suite(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason),
       .timeLimit(.minutes(10)))
struct ClusterNoticeTests {
    static let overdueCount = "SELECT count(*) FROM events WHERE name = 'task.overdue'"

    /// ann on n0 owns a room with ben (n1) and cat (n2).
    static func household(_ cluster: TestCluster) throws -> (members: [Device], room: Int) {
        let ann = try cluster.device("ann", on: 0, register: true)
        let ben = try cluster.device("ben", on: 1, register: true)
        let cat = try cluster.device("cat", on: 2, register: true)
        let room = id(try ann.ok("ROOM CREATE Flat")["room"])
        for name in ["ben", "cat"] { try ann.add(name, to: room) }
        for member in [ann, ben, cat] { _ = try member.drain() }
        return ([ann, ben, cat], room)
    }

    static func addTasks(_ count: Int, by owner: Device, in room: Int) throws -> [Int] {
        try (0..<count).map { id(try owner.ok("TASK ADD \(room) \"chore \($0)\" due=2031-01-01")["task"]) }
    }

    static func expectOnce(_ seen: [Int: Int], _ tasks: [Int], _ who: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(seen.keys.sorted() == tasks.sorted(), "\(who) got notices for \(seen.keys.sorted())",
                sourceLocation: sourceLocation)
        #expect(seen.values.allSatisfy { $0 == 1 }, "\(who) got some twice: \(seen)", sourceLocation: sourceLocation)
    }

    /// 30 tasks come due at one second with every node's scheduler looking: each is stored
    /// once and each member, on each node, hears of each once.
    @Test func allSchedulersRacingStoreAndSendEachNoticeOnce() throws {
        let cluster = try TestCluster(nodes: 3)
        let (members, room) = try Self.household(cluster)
        let tasks = try Self.addTasks(30, by: members[0], in: room)
        try cluster.setDue(tasks, at: TestCluster.nowSeconds + 2)
        for member in members {
            Self.expectOnce(try member.notices("task.overdue", count: tasks.count), tasks, member.label)
        }
        #expect(try cluster.count(Self.overdueCount) == tasks.count)
        // Everyone was online: every node forgot the rows it delivered live.
        #expect(try cluster.waitForCount("SELECT count(*) FROM pending_notices", toBe: 0) == 0)
    }

    /// n0 alone is checking when the tasks come due (n1 and n2 are stopped); the test holds
    /// the event counter, so n0's check claims the tasks and then waits inside its
    /// transaction. n0 is SIGKILLed there; its transaction ends with nothing stored, and
    /// the survivors, resumed, send each notice once.
    @Test func aNodeKilledMidTransactionLeavesTheNoticesToASurvivor() throws {
        let cluster = try TestCluster(nodes: 3)
        let (members, room) = try Self.household(cluster)
        let tasks = try Self.addTasks(5, by: members[0], in: room)
        cluster.nodes[1].pause()
        cluster.nodes[2].pause()
        let holder = try PostgresConnection(cluster.database)
        defer { holder.close() }
        _ = try holder.execute("BEGIN")
        _ = try holder.query("SELECT last FROM event_counter FOR UPDATE")
        try cluster.setDue(tasks, at: TestCluster.nowSeconds - 1)

        let waiting = "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
        #expect(try cluster.waitForCount(waiting, toBe: 1) == 1, "n0's check should wait for the counter")
        let free = "SELECT count(*) FROM (SELECT id FROM tasks WHERE id = ANY($1::bigint[]) FOR UPDATE SKIP LOCKED) t"
        let ids = PostgresValue.text("{" + tasks.map(String.init).joined(separator: ",") + "}")
        #expect(try cluster.count(free, [ids]) == 0, "n0's transaction should hold every due task")

        cluster.nodes[0].kill()
        #expect(cluster.nodes[0].waitForExit() == 128 + SIGKILL)
        cluster.nodes[1].resume()
        cluster.nodes[2].resume()
        // The dead node's backend ends once it gets the counter and finds its client gone.
        _ = try holder.execute("ROLLBACK")

        for member in members[1...] {
            Self.expectOnce(try member.notices("task.overdue", count: tasks.count), tasks, member.label)
        }
        #expect(try cluster.count(Self.overdueCount) == tasks.count)
        #expect(try cluster.count(Self.overdueCount + " AND node = 'n0'") == 0)
    }

    /// Every node is down when the tasks come due. Started again together, they fire them
    /// once, held for everyone (nobody is online); each member gets each at login, on a
    /// node other than before.
    @Test func aDueThatPassedWhileEveryNodeWasDownFiresOnceAtStart() throws {
        let cluster = try TestCluster(nodes: 3)
        let (members, room) = try Self.household(cluster)
        let tasks = try Self.addTasks(4, by: members[0], in: room)
        cluster.killAll()
        try cluster.setDue(tasks, at: TestCluster.nowSeconds - 5)
        try cluster.startAll(3)

        #expect(try cluster.waitForCount(Self.overdueCount, toBe: tasks.count) == tasks.count)
        for (index, name) in ["ann", "ben", "cat"].enumerated() {
            let member = try cluster.device(name, on: (index + 1) % 3)
            Self.expectOnce(try member.notices("task.overdue", count: tasks.count), tasks, member.label)
        }
        #expect(try cluster.waitForCount("SELECT count(*) FROM pending_notices", toBe: 0) == 0)
        #expect(try cluster.count(Self.overdueCount) == tasks.count, "a later check fired one again")
    }

    /// bob, offline, logs in on n0, n1 or n2 at the moment a notice fires: at ann's commit
    /// on n0 (a due set in the past), or at a scheduler's check. Each time he gets it
    /// exactly once, from the login's held notices or live, and nothing is left held.
    @Test func offlineNoticesReachALoginOnAnyNodeOnceAlsoRacingTheFiring() throws {
        let cluster = try TestCluster(nodes: 3)
        let ann = try cluster.device("ann", on: 0, register: true)
        _ = try cluster.device("bob", on: 1, register: true).client.call("QUIT")
        let room = id(try ann.ok("ROOM CREATE Flat")["room"])
        try ann.add("bob", to: room)
        let login = "LOGIN bob \"\(TestCluster.password)\""

        for round in 0..<9 {
            let task = id(try ann.ok("TASK ADD \(room) \"round \(round)\" due=2031-01-01")["task"])
            let node = cluster.nodes[round % 3]
            let bob = try Device(client: try TestClient(port: node.port, certificatePath: node.certificatePath), user: "bob",
                                 label: "bob@n\(round % 3) round \(round)")
            if round.isMultiple(of: 2) {
                try ann.client.connection.send("TASK EDIT \(task) due=2020-01-01")
                try bob.client.connection.send(login)
                #expect(try Device.decode(try ann.client.reply().last ?? "")["type"] as? String == "ok")
            } else {
                try cluster.setDue([task], at: TestCluster.nowSeconds)
                try bob.client.connection.send(login)
            }
            #expect(try Device.decode(try bob.client.reply().last ?? "")["type"] as? String == "ok", "\(bob.label)")
            let seen = try bob.notices("task.overdue", count: 1, timeout: 10, settle: 0.5)
            #expect(seen == [task: 1], "\(bob.label): \(seen)")
            _ = try bob.client.call("QUIT")
        }
        let bobID = try cluster.count("SELECT id FROM users WHERE name = 'bob'")
        #expect(try cluster.waitForCount("SELECT count(*) FROM pending_notices WHERE user_id = $1", [.int(Int64(bobID))],
                                         toBe: 0) == 0)
        let last = try cluster.device("bob", on: 2)
        Thread.sleep(forTimeInterval: 1.5)
        try last.expectQuiet("at a login after every notice reached him")
    }
}
