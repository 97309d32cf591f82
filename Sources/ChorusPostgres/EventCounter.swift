/// The one place event ids come from: the `event_counter` row.
///
/// Each `appendEvent` bumps the row and inserts the event in one statement. The bump
/// takes the row's lock, held until the batch's COMMIT, so another node's batch waits for
/// it and ids follow commit order with no gaps: a rollback (the batch's, or one job's
/// savepoint) undoes the bump with the event. The lock is taken at the batch's first
/// event, not last as CLUSTER.md prefers: the server renders an event with its id inside
/// the job, so the id must be known when `appendEvent` returns (ARCHITECTURE.md, "The
/// PostgreSQL store"). Moving the lock to the end means changing only this type and the
/// seam.
struct EventCounter {
    /// Bumps the counter and stores the event under the new id, in one round trip.
    /// `$8` is the audience as an array literal (`PostgresValue.bigintArray`), `$9` the node.
    static let append = """
        WITH next AS (UPDATE event_counter SET last = last + 1 RETURNING last)
        INSERT INTO events (id, room, user_id, name, by, at, payload, text, audience, node)
        SELECT last, $1, $2, $3, $4, $5, $6, $7, $8::bigint[], $9 FROM next
        RETURNING id
        """

    /// A session control: sessions of the accounts `$1` (reason `$2`) or of token `$3`
    /// close; `$4` is the node. No room, user or peer, so SYNC never returns it.
    static let appendControl = """
        WITH next AS (UPDATE event_counter SET last = last + 1 RETURNING last)
        INSERT INTO events (id, name, at, payload, text, audience, control, close_token, node)
        SELECT last, 'session.close', '', '{}', $2, $1::bigint[], true, $3, $4 FROM next
        RETURNING id
        """

    /// Takes the row's lock without bumping it, before an event's audience is read: the
    /// next statement then sees every commit that took an id before this transaction's,
    /// so a member removed (or added) by an earlier id is left out (or in), as SYNC's spans
    /// have it. The lock would be taken by the event a moment later anyway.
    static let hold = "SELECT last FROM event_counter FOR UPDATE"

    /// The newest id committed (or written by this transaction). Every id at or below it
    /// is visible to any statement that starts afterwards: the transactions that took
    /// them held the row until they committed, in order.
    static let last = "SELECT last FROM event_counter"
}
