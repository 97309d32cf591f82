import CPostgres

/// LISTEN/NOTIFY without blocking in libpq: the caller polls `socket` (with whatever
/// else it waits on) and, when it is readable, takes what arrived.
extension PostgresConnection {
    /// One NOTIFY that reached this session.
    struct Notification {
        let channel: String
        /// The server process that sent it: this session's own when it notified itself.
        let senderPID: Int32
    }

    /// The connection's socket, -1 when there is none.
    var socket: Int32 { handle.map { PQsocket($0) } ?? -1 }

    /// Reads what the server has sent without waiting, and returns the notifications it
    /// held. Throws when the connection turns out broken.
    func takeNotifications() throws -> [Notification] {
        guard let handle, PQstatus(handle) == CONNECTION_OK else { throw Self.lost }
        guard PQconsumeInput(handle) == 1 else {
            throw PostgresError(sqlState: nil, connectionLost: true,
                                message: "reading notifications: \(Self.oneLine(String(cString: PQerrorMessage(handle))))")
        }
        var taken: [Notification] = []
        while let notify = PQnotifies(handle) {
            taken.append(Notification(channel: String(cString: notify.pointee.relname), senderPID: notify.pointee.be_pid))
            PQfreemem(notify)
        }
        return taken
    }
}
