import ChorusCore
@testable import ChorusServer
import Testing

/// The route table and the command table agree, so a verb with a row and no handler is
/// caught here rather than by a user's `ERR 500`.
@Suite struct RouteTableTests {
    /// Every row of the command table has a route, and it runs where the row's kind says:
    /// session and account verbs on the loop, household and admin verbs as database jobs.
    @Test func everyRowIsRouted() {
        let routes = Dictionary(RouteTable.all.map { (ObjectIdentifier($0.commandType), $0) }, uniquingKeysWith: { first, _ in first })
        for spec in CommandTable.all {
            guard let entry = routes[ObjectIdentifier(spec.commandType)] else {
                Issue.record("\(spec.name) has a row and no route")
                continue
            }
            #expect(entry.fits(spec.kind), "\(spec.name) is a \(spec.kind) verb routed elsewhere")
        }
    }

    /// Every route has a row, and no command type is routed twice or built by two rows.
    @Test func everyRouteHasOneRow() {
        let rows = CommandTable.all.map { ObjectIdentifier($0.commandType) }
        let routed = RouteTable.all.map { ObjectIdentifier($0.commandType) }
        #expect(Set(rows).count == rows.count, "two rows build the same command type")
        #expect(Set(routed).count == routed.count, "a command type is routed twice")
        for entry in RouteTable.all {
            #expect(rows.contains(ObjectIdentifier(entry.commandType)), "\(entry.commandType) is routed but no row builds it")
        }
    }

    /// What a parsed line finds is the route of its own type, and the database jobs carry
    /// the flags their handlers need.
    @Test func linesFindTheirRoutes() throws {
        func route(_ line: String) throws -> Route? {
            guard case .request(let request) = RequestParser.parse(line) else { throw ChorusError.syntax(line) }
            return RouteTable.route(for: request.command)
        }
        guard case .onLoop? = try route("PING") else { Issue.record("PING is answered on the loop"); return }
        guard case .databaseJob(let done)? = try route("TASK DONE 3"), case .databaseJob(let show)? = try route("ROOM SHOW 3"),
              case .databaseJob(let housemate)? = try route("TASKS @bob"), case .databaseJob(let say)? = try route("SAY 3 hi")
        else { Issue.record("household verbs are database jobs"); return }
        #expect(done.touchesTasks && !done.needsLoopState)
        #expect(show.needsLoopState && !show.touchesTasks)
        #expect(!housemate.touchesTasks && !say.touchesTasks && !say.needsLoopState)
    }
}
