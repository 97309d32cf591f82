import ChorusCore
@testable import ChorusServer
import Testing

/// The route table and the command table agree, so a verb with a row and no handler is
/// caught here rather than by a user's `ERR 500`.
@Suite struct RouteTableTests {
    /// Every row of the command table has a route that reads the shape the row builds and
    /// runs where the row's kind says: session and account verbs on the loop, household
    /// and admin verbs as database jobs.
    @Test func everyRowIsRouted() {
        let routes = Dictionary(RouteTable.all.map { ($0.verb, $0) }, uniquingKeysWith: { first, _ in first })
        for spec in CommandTable.all {
            guard let entry = routes[spec.name] else {
                Issue.record("\(spec.name) has a row and no route")
                continue
            }
            #expect(ObjectIdentifier(entry.commandType) == ObjectIdentifier(spec.commandType), "\(spec.name) builds \(spec.commandType), its route reads \(entry.commandType)")
            #expect(entry.fits(spec.kind), "\(spec.name) is a \(spec.kind) verb routed elsewhere")
        }
    }

    /// Every route has a row, and no row is routed twice.
    @Test func everyRouteHasOneRow() {
        let names = Set(CommandTable.all.map(\.name))
        let routed = RouteTable.all.map(\.verb)
        #expect(Set(routed).count == routed.count, "a row is routed twice")
        for verb in routed {
            #expect(names.contains(verb), "\(verb) is routed but has no row")
        }
    }

    /// A parsed line finds its row's route, and the database jobs carry the flags their
    /// handlers need.
    @Test func linesFindTheirRoutes() throws {
        func route(_ line: String) throws -> Route? {
            guard case .request(let request) = RequestParser.parse(line) else { throw ChorusError(400, line) }
            return RouteTable.route(for: request)
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
