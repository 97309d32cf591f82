/// The accounts each copied event goes to, stored with it as a node does when it writes
/// one (`events.audience`, which other nodes' tails deliver from): whom SYNC returns it
/// to. A personal event's account and a DM's sender (`peer`); for a room event, the
/// members whose span in that room covers its id (`memberships`, as SYNC reads them).
struct ImportAudience {
    private struct Span {
        let user: Int64
        let first: Int64
        let last: Int64?
    }

    private var spans: [Int64: [Span]] = [:]
    private(set) var hasSpans = false

    /// A `memberships` row: room, user, first_event, last_event.
    mutating func addSpan(_ row: [PostgresValue]) {
        guard case .int(let room) = row[0], case .int(let user) = row[1], case .int(let first) = row[2] else { return }
        let last: Int64? = if case .int(let value) = row[3] { value } else { nil }
        spans[room, default: []].append(Span(user: user, first: first, last: last))
        hasSpans = true
    }

    /// For an event with these room, user and peer values, as a `bigint[]` literal.
    func audience(id: Int64, room: PostgresValue, user: PostgresValue, peer: PostgresValue) -> PostgresValue {
        var accounts: Set<Int64> = []
        if case .int(let account) = user { accounts.insert(account) }
        if case .int(let account) = peer { accounts.insert(account) }
        if case .null = user, case .int(let room) = room {
            for span in spans[room] ?? [] where span.first <= id && (span.last.map { id <= $0 } ?? true) {
                accounts.insert(span.user)
            }
        }
        return .bigintArray(accounts.sorted())
    }
}
