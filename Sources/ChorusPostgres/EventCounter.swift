/// The one place event ids come from: the `event_counter` row, taken last.
///
/// A batch's events wait in memory with provisional ids (`BatchState`) and are stored
/// at its end by one statement that bumps the row by their number and inserts them all
/// (`store`). The bump takes the row's lock, held until the COMMIT just after, so another
/// node's batch waits only for that tail, and ids follow commit order with no gaps: a
/// rollback undoes the bump with the events. An event's audience is not read under this
/// lock but under the room's row lock (`PostgresStore.memberIDs`, ARCHITECTURE.md).
struct EventCounter {
    /// Bumps the counter by `$1` and stores the events given as parallel arrays, in order,
    /// under the ids that follow the old value; returns the new value and the transaction
    /// id (for a COMMIT whose answer is lost). `$9` holds each audience as an array literal.
    static let store = """
        WITH c AS (UPDATE event_counter SET last = last + $1::bigint RETURNING last),
        i AS (INSERT INTO events (id, room, user_id, name, by, at, payload, text, audience, peer, control, close_token, node)
              SELECT c.last - $1::bigint + e.ord, e.room, e.user_id, e.name, e.by, e.at, e.payload, e.text,
                     e.audience::bigint[], e.peer, e.control, e.close_token, $13
                FROM c, unnest($2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                               $9::text[], $10::bigint[], $11::boolean[], $12::bigint[])
                        WITH ORDINALITY AS e(room, user_id, name, by, at, payload, text, audience, peer, control, close_token, ord))
        SELECT last, pg_current_xact_id()::text FROM c
        """

    /// The newest id committed (or stored by this transaction). Every id at or below it
    /// is visible to any statement that starts afterwards: the transactions that took
    /// them held the row until they committed, in order.
    static let last = "SELECT last FROM event_counter"

    /// The parameters of `store` for `events`, written by `node`.
    static func parameters(_ events: ArraySlice<StagedEvent>, node: String) -> [PostgresValue] {
        [.int(Int64(events.count)),
         .array(events.map { $0.room.map(String.init) }),
         .array(events.map { $0.user.map(String.init) }),
         .array(events.map(\.name)),
         .array(events.map(\.by)),
         .array(events.map(\.at)),
         .array(events.map(\.payload)),
         .array(events.map(\.text)),
         .array(events.map { "{" + $0.audience.map(String.init).joined(separator: ",") + "}" }),
         .array(events.map { $0.peer.map(String.init) }),
         .array(events.map { $0.control ? "t" : "f" }),
         .array(events.map { $0.closeToken.map(String.init) }),
         .text(node)]
    }
}
