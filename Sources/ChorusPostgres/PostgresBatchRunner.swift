import CPostgres
import ChorusStore
import Foundation

/// Runs one batch of jobs as one transaction on the queue's thread: the group commit,
/// the reruns, and what a lost connection means for each job.
///
/// Jobs first run bare, as on SQLite: a SAVEPOINT costs two round trips per job, and
/// nearly every job that fails does so before it writes. When one fails after writing (or
/// leaves the transaction aborted, as any failed statement does in PostgreSQL), the batch
/// is rolled back and run again with a SAVEPOINT per job, so that job alone keeps nothing.
/// A deadlock (40P01) or serialization failure (40001) rolls back and reruns the batch.
final class PostgresBatchRunner {
    /// Reruns of one batch before its jobs are told the database is unavailable.
    static let maxReruns = 8
    /// After a failed reconnect, batches fail at once for this long instead of each
    /// waiting on another attempt: while PostgreSQL is down, commands get 503 quickly.
    static let reconnectPause: TimeInterval = 0.5

    let connection: PostgresConnection
    let store: PostgresStore
    /// Told of each rerun as it starts, before any of the batch's completions.
    private let countRerun: () -> Void
    private var lastFailedReconnect: Date?

    init(connection: PostgresConnection, store: PostgresStore, countRerun: @escaping () -> Void) {
        self.connection = connection
        self.store = store
        self.countRerun = countRerun
    }

    private enum Attempt {
        case committed([(PostgresJobOutcome, (any Error)?)], FinalEventIDs)
        case failed(any Error)
        case rerun(guarded: Bool, cause: PostgresError?)
        /// The connection broke during COMMIT: committed or not, the server knows.
        case unknown(xid: String, backend: Int32, [(PostgresJobOutcome, (any Error)?)], FinalEventIDs)
    }

    /// Runs `batch` to its end, every completion called.
    func run(_ batch: [PostgresJob]) {
        var guarded = false
        var reruns = 0
        while true {
            if let refusal = reconnectIfNeeded() {
                for job in batch { job.fail(refusal) }
                return
            }
            switch attempt(batch, guarded: guarded) {
            case .committed(let outcomes, let ids):
                for (outcome, override) in outcomes { outcome.deliver(override, ids) }
                return
            case .failed(let error):
                for job in batch { job.fail(error) }
                return
            case .rerun(let nowGuarded, let cause):
                reruns += 1
                countRerun()
                guard reruns <= Self.maxReruns else {
                    let error = StoreError(.unavailable, message: "the batch was rolled back \(reruns) times"
                        + (cause.map { ": \($0.message)" } ?? ""))
                    for job in batch { job.fail(error) }
                    return
                }
                guarded = nowGuarded
            case .unknown(let xid, let backend, let outcomes, let ids):
                switch PostgresCommitSettlement.settle(xid: xid, formerBackend: backend, on: connection) {
                case .committed:
                    for (outcome, override) in outcomes { outcome.deliver(override, ids) }
                case .aborted:
                    let error = StoreError(.unavailable, message: "the connection to PostgreSQL was lost during COMMIT; "
                        + "transaction \(xid) did not commit")
                    for job in batch { job.fail(error) }
                case .unknown(let why):
                    let error = StoreError(.unavailable, message: "the connection to PostgreSQL was lost during COMMIT; "
                        + "whether transaction \(xid) committed is unknown (\(why))")
                    for job in batch { job.fail(error) }
                }
                return
            }
        }
    }

    /// Connects again when the connection broke; the error to fail the batch with if it cannot.
    private func reconnectIfNeeded() -> StoreError? {
        guard !connection.isConnected else { return nil }
        if let failed = lastFailedReconnect, Date().timeIntervalSince(failed) < Self.reconnectPause {
            return StoreError(.unavailable, message: "PostgreSQL is unreachable (reconnecting)")
        }
        do {
            try connection.reset()
            try PostgresSession.configure(connection)
            lastFailedReconnect = nil
            return nil
        } catch {
            lastFailedReconnect = Date()
            let reason = (error as? PostgresError)?.message ?? "\(error)"
            return StoreError(.unavailable, message: "PostgreSQL is unreachable: \(reason)")
        }
    }

    private func attempt(_ batch: [PostgresJob], guarded: Bool) -> Attempt {
        store.rerunCause = nil
        store.batch.reset()
        do {
            try connection.execute("BEGIN")
        } catch let error as PostgresError {
            return .failed(error.storeError.doing("starting the batch"))
        } catch {
            return .failed(error)
        }
        var outcomes: [(PostgresJobOutcome, (any Error)?)] = []
        outcomes.reserveCapacity(batch.count)
        do {
            for job in batch {
                if guarded { try connection.execute("SAVEPOINT chorus_job") }
                let mark = store.batch.mark
                let writesBefore = store.writes
                let outcome = job.perform(store)
                guard connection.isConnected else { return .failed(lost(outcome.error)) }
                if let cause = store.rerunCause {
                    rollBack()
                    return .rerun(guarded: guarded, cause: cause)
                }
                let aborted = connection.transactionStatus == PQTRANS_INERROR
                if !guarded {
                    if aborted || (outcome.error != nil && store.writes != writesBefore) {
                        rollBack()
                        return .rerun(guarded: true, cause: nil)
                    }
                    outcomes.append((outcome, nil))
                    continue
                }
                if outcome.error != nil || aborted {
                    try connection.execute("ROLLBACK TO SAVEPOINT chorus_job")
                    store.batch.rollBack(to: mark)
                }
                try connection.execute("RELEASE SAVEPOINT chorus_job")
                // A job that caught a failed statement and carried on lost what it did
                // after it: it must not be told it succeeded.
                let swallowed: (any Error)? = aborted && outcome.error == nil
                    ? StoreError(.failed, message: "a statement failed inside the job and its error was not passed on")
                    : nil
                outcomes.append((outcome, swallowed))
            }
            // The counter, taken last: its lock is held only from here to COMMIT.
            let xid = try store.storeStagedEvents()
                ?? connection.query("SELECT pg_current_xact_id_if_assigned()::text").firstRow().string(0)
            let ids = store.batch.finalIDs
            let backend = connection.backendPID
            do {
                try connection.execute("COMMIT")
            } catch let error as PostgresError where !connection.isConnected {
                // Nothing written (no transaction id) means nothing to lose: the reads stand.
                guard let xid else { return .committed(outcomes, ids) }
                _ = error
                return .unknown(xid: xid, backend: backend, outcomes, ids)
            }
            return .committed(outcomes, ids)
        } catch let error as PostgresError {
            if !connection.isConnected { return .failed(lost(error)) }
            if error.sqlState == "40P01" || error.sqlState == "40001" {
                rollBack()
                return .rerun(guarded: guarded, cause: error)
            }
            rollBack()
            return .failed(error.storeError.doing("committing the batch"))
        } catch {
            rollBack()
            return .failed(error)
        }
    }

    private func lost(_ error: (any Error)?) -> StoreError {
        StoreError(.unavailable, message: "the connection to PostgreSQL was lost; the batch was not committed"
            + (error.map { ": \($0)" } ?? ""))
    }

    private func rollBack() {
        if connection.isConnected { _ = try? connection.execute("ROLLBACK") }
    }
}
