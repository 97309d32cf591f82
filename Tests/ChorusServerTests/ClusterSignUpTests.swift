import ChorusPostgres
import ChorusTestSupport
import Foundation
import Testing

/// `--register-rate` on two `chorusd` nodes sharing one PostgreSQL database: every node
/// counts an address's sign-ups together, in the account's own transaction under the
/// address's lock, so REGISTERs racing on both nodes cannot pass the limit.
@Suite(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason),
       .timeLimit(.minutes(10)))
struct ClusterSignUpTests {
    /// 12 REGISTERs from 127.0.0.1 at once, 6 on each node, with a rate of 3: exactly 3
    /// accounts, 9 answers of 429; a node started afterwards still refuses the address.
    @Test func parallelSignUpsOnTwoNodesGetTheRate() throws {
        let database = try ThrowawayPostgres.sharedCluster().makeDatabase()
        let flags = ["--register-rate", "3", "--exempt", "192.0.2.0/24"]
        let first = try ChorusNode.start(postgres: database, name: "a", flags: flags)
        let second = try ChorusNode.start(postgres: database, name: "b", flags: flags, certificateOf: first)
        let nodes = [first, second]
        let clients = try (0..<12).map { index in
            try TestClient(port: nodes[index % 2].port, certificatePath: first.certificatePath)
        }
        for (index, client) in clients.enumerated() {
            try client.connection.send("REGISTER racer\(index) \"\(TestCluster.password)\"")
        }
        let codes = try clients.map { ClusterThrottleTests.code(try $0.reply().last ?? "") }
        #expect(codes.filter { $0 == 200 }.count == 3, "\(codes)")
        #expect(codes.filter { $0 == 429 }.count == 9, "\(codes)")

        let sql = try PostgresConnection(database)
        defer { sql.close() }
        func count(_ query: String) throws -> Int64 { try sql.query(query).firstRow().int64(0) ?? -1 }
        #expect(try count("SELECT count(*) FROM users") == 3)
        #expect(try count("SELECT count(*) FROM registrations WHERE address = '127.0.0.1'") == 3)

        let third = try ChorusNode.start(postgres: database, name: "c", flags: flags, certificateOf: first)
        let late = try TestClient(port: third.port, certificatePath: first.certificatePath)
        #expect(try late.last("REGISTER latecomer \"\(TestCluster.password)\"").hasPrefix("ERR 429 "))
        for node in nodes + [third] { node.kill() }
    }
}
