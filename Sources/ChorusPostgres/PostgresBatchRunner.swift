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
    /// After a slow failed reconnect, batches fail at once for this long instead of each
    /// waiting on another attempt: while PostgreSQL cannot be reached, commands get 503
    /// quickly.
    static let reconnectPause: TimeInterval = 0.5
    /// A failed reconnect faster than this (refused at once: nothing listening yet, or the
    /// server still starting or stopping) starts no pause: trying again costs the next
    /// batch as little, and the database may be back by then. Pausing after those refused
    /// the first write after a restart whenever another batch (the scheduler's) had been
    /// refused in the half second before it.
    static let slowReconnect: TimeInterval = 0.25

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
        /// BEGIN failed on a connection found broken: nothing of the batch reached the
        /// database, so it may run again on a fresh connection.
        case broken(any Error)
        case rerun(guarded: Bool, cause: PostgresError?)
        /// The connection broke during COMMIT: committed or not, the server knows.
        case unknown(PostgresCommitSettlement.Transaction, [(PostgresJobOutcome, (any Error)?)], FinalEventIDs)
    }

    /// Runs `batch` to its end, every completion called (a batch whose COMMIT's answer
    /// was lost waits in `held` instead), and says how it went.
    func run(_ batch: [PostgresJob]) -> StoreBatchReport {
        let started = DispatchTime.now().uptimeNanoseconds
        commitNanoseconds = nil
        let failure = runJobs(batch)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        return StoreBatchReport(jobs: batch.count, seconds: seconds, commitSeconds: commitNanoseconds.map { Double($0) / 1e9 },
                                failure: failure)
    }

    /// How long the last successful COMMIT took.
    private var commitNanoseconds: UInt64?

    /// Fails every job of `batch` with `error`, and gives its kind for the batch's report.
    private func fail(_ batch: [PostgresJob], _ error: any Error) -> StoreError.Kind {
        for job in batch { job.fail(error) }
        return (error as? StoreError)?.kind ?? (error as? PostgresError)?.storeError.kind ?? .failed
    }

    /// `run`'s body: nil when the batch committed, else why it failed as a whole.
    private func runJobs(_ batch: [PostgresJob]) -> StoreError.Kind? {
        // Failed first, then asked about: asking may take as long as a connect attempt,
        // and these commands are owed a quick 503.
        if let unsettled = held {
            let error = StoreError(.unavailable, message: "PostgreSQL has not said yet whether transaction "
                + "\(unsettled.xid) committed; waiting for it")
            let kind = fail(batch, error)
            settleHeld()
            return kind
        }
        var guarded = false
        var reruns = 0
        var freshConnectionTried = false
        while true {
            if let refusal = reconnectIfNeeded() { return fail(batch, refusal) }
            switch attempt(batch, guarded: guarded) {
            case .committed(let outcomes, let ids):
                for (outcome, override) in outcomes { outcome.deliver(override, ids) }
                return nil
            case .failed(let error):
                return fail(batch, error)
            case .broken(let error):
                // An idle connection learns the server restarted only when it is next used:
                // the first batch after an outage. One fresh try tells a database that is
                // back (the batch runs) from one that is still away (503).
                guard !freshConnectionTried else { return fail(batch, error) }
                freshConnectionTried = true
                if let refusal = reconnect() { return fail(batch, refusal) }
            case .rerun(let nowGuarded, let cause):
                reruns += 1
                countRerun()
                guard reruns <= Self.maxReruns else {
                    let error = StoreError(.unavailable, message: "the batch was rolled back \(reruns) times"
                        + (cause.map { ": \($0.message)" } ?? ""))
                    return fail(batch, error)
                }
                guarded = nowGuarded
            case .unknown(let transaction, let outcomes, let ids):
                held = Unsettled(transaction: transaction, outcomes: outcomes, ids: ids, batch: batch, since: Date())
                settleHeld(patience: PostgresCommitSettlement.patience)
                // The connection broke under the COMMIT: the database is out of reach for now.
                return .unavailable
            }
        }
    }

    // MARK: A COMMIT whose outcome is not known yet

    /// How long a batch whose COMMIT's answer was lost waits for PostgreSQL to say what
    /// became of it, before its jobs get 503 with the outcome unknown. Longer than a
    /// database restart takes: an OK only for a known commit, and no 503 for a write that
    /// may be stored (a client retrying it would store it twice) while there is hope.
    static let maxHold: TimeInterval = 120

    /// A batch whose COMMIT went out and whose answer never came back: its jobs wait for
    /// the answer while later batches get 503 (`run`), so nothing commits after it before
    /// it is settled and completions stay in commit order.
    private struct Unsettled {
        let transaction: PostgresCommitSettlement.Transaction
        var xid: String { transaction.xid }
        let outcomes: [(PostgresJobOutcome, (any Error)?)]
        let ids: FinalEventIDs
        let batch: [PostgresJob]
        let since: Date
    }

    private var held: Unsettled?

    /// True while a batch waits to learn its COMMIT's outcome: the worker then calls
    /// `settleHeld` every so often even with no new jobs.
    var holdsUnsettledBatch: Bool { held != nil }

    /// Asks PostgreSQL again what became of the held batch (reconnecting if need be) and
    /// completes its jobs once known, or with 503 after `maxHold`, when `givingUp`, or
    /// when asking again cannot tell.
    func settleHeld(patience: TimeInterval = 0.5, givingUp: Bool = false) {
        guard let unsettled = held else { return }
        let outcome = PostgresCommitSettlement.settle(unsettled.transaction, on: connection, patience: patience)
        let prefix = "the connection to PostgreSQL was lost during COMMIT; "
        switch outcome {
        case .committed:
            held = nil
            for (job, override) in unsettled.outcomes { job.deliver(override, unsettled.ids) }
        case .aborted:
            held = nil
            let error = StoreError(.unavailable, message: prefix + "transaction \(unsettled.xid) did not commit")
            for job in unsettled.batch { job.fail(error) }
        case .unknown(let why) where givingUp || Date().timeIntervalSince(unsettled.since) >= Self.maxHold,
             .unknowable(let why):
            held = nil
            let error = StoreError(.unavailable, message: prefix
                + "whether transaction \(unsettled.xid) committed is unknown (\(why))")
            for job in unsettled.batch { job.fail(error) }
        case .unknown:
            return
        }
    }

    /// Connects again when the connection broke, or configures it when a reconnect got no
    /// further than connecting; the error to fail the batch with if it cannot.
    private func reconnectIfNeeded() -> StoreError? {
        if connection.isConnected {
            guard connection.recoveryMark == nil else { return nil }
            do {
                try PostgresSession.configure(connection)
                return nil
            } catch {
                return StoreError(.unavailable, message: "cannot set up the PostgreSQL session: \((error as? PostgresError)?.message ?? "\(error)")")
            }
        }
        if let failed = lastFailedReconnect, Date().timeIntervalSince(failed) < Self.reconnectPause {
            return StoreError(.unavailable, message: "PostgreSQL is unreachable (reconnecting)", cause: "unreachable")
        }
        return reconnect()
    }

    /// Connects again now; the error to fail the batch with if it cannot, naming why (a
    /// password changed meanwhile is not a database that is down).
    private func reconnect() -> StoreError? {
        let started = Date()
        do {
            try connection.reset()
            try PostgresSession.configure(connection)
            lastFailedReconnect = nil
            return nil
        } catch {
            let now = Date()
            lastFailedReconnect = now.timeIntervalSince(started) >= Self.slowReconnect ? now : nil
            let failure = error as? PostgresError
            return StoreError(.unavailable, message: "PostgreSQL is unreachable: \(failure?.message ?? "\(error)")",
                              cause: failure?.cause ?? "unreachable")
        }
    }

    private func attempt(_ batch: [PostgresJob], guarded: Bool) -> Attempt {
        store.rerunCause = nil
        store.batch.reset()
        do {
            try connection.execute("BEGIN")
        } catch let error as PostgresError {
            let failure = error.storeError.doing("starting the batch")
            return error.kind == .unavailable || !connection.isConnected ? .broken(failure) : .failed(failure)
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
            let transaction = xid.map {
                PostgresCommitSettlement.Transaction(xid: $0, backend: connection.backendPID, recoveryMark: connection.recoveryMark,
                                                     eventIDs: store.batch.finals, node: store.node)
            }
            let committing = DispatchTime.now().uptimeNanoseconds
            do {
                try connection.execute("COMMIT")
                commitNanoseconds = DispatchTime.now().uptimeNanoseconds - committing
            } catch let error as PostgresError where !connection.isConnected {
                // Nothing written (no transaction id) means nothing to lose: the reads stand.
                guard let transaction else { return .committed(outcomes, ids) }
                _ = error
                return .unknown(transaction, outcomes, ids)
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
