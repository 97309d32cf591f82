import ChorusPostgres
import ChorusServer
import ChorusSQLite
import ChorusStore

/// What a serving node hands `Server.start`, by engine.
struct ServingParts: Sendable {
    /// Opens the store (SQLite's, once the data folder is locked) or hands over the one
    /// already open (PostgreSQL's).
    let opener: StoreOpener
    /// How this node learns of other nodes' events; none for SQLite, whose one process
    /// delivers in memory.
    let feed: (any EventFeed)?
    /// Where this node holds its name and shares who is online; none for SQLite.
    let presence: (any PresenceBoard)?
}

extension StoreChoice {
    /// SQLite: the store is opened by the server once it holds the data folder's lock, as
    /// always. PostgreSQL: the store (schema made or upgraded), the tail's feed and the
    /// presence board, each on a connection of its own, are opened here and now, so a
    /// failure is worded without the password and before any socket is bound; the board
    /// takes the node's name, so a second live node of that name stops here.
    func serving(node: String, presence timing: PresenceTiming) throws(StartupError) -> ServingParts {
        guard case .postgres(let conninfo) = self else {
            return ServingParts(opener: { configuration in try DatabaseQueue(path: configuration.databasePath) },
                                feed: nil, presence: nil)
        }
        let queue: PostgresQueue
        let feed: PostgresEventFeed
        let board: PostgresPresenceBoard
        do {
            queue = try PostgresQueue(conninfo: conninfo, node: node)
        } catch {
            throw failedToOpen(error)
        }
        do {
            feed = try PostgresEventFeed(conninfo: conninfo, node: node)
        } catch {
            queue.close()
            throw failedToOpen(error)
        }
        do {
            board = try PostgresPresenceBoard(conninfo: conninfo, node: node, timing: timing) { [queue, feed] in
                [queue.backendPID, feed.backendPID]
            }
        } catch {
            feed.close()
            queue.close()
            if let taken = error as? StoreError, taken.kind == .duplicate { throw StartupError(taken.message) }
            throw failedToOpen(error)
        }
        return ServingParts(opener: { _ in queue }, feed: feed, presence: board)
    }

    /// One line naming the store and why, password masked; unreachable when it was.
    func failedToOpen(_ error: any Error) -> StartupError {
        StartupError("cannot open \(shown): \(scrubbed("\(error)"))", unreachable: StoreError.isUnreachable(error))
    }
}
