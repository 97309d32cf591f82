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
    static let append = """
        WITH next AS (UPDATE event_counter SET last = last + 1 RETURNING last)
        INSERT INTO events (id, room, user_id, name, by, at, payload, text)
        SELECT last, $1, $2, $3, $4, $5, $6, $7 FROM next
        RETURNING id
        """

    /// The newest id committed (or written by this transaction). Every id at or below it
    /// is visible to any statement that starts afterwards: the transactions that took
    /// them held the row until they committed, in order.
    static let last = "SELECT last FROM event_counter"
}
