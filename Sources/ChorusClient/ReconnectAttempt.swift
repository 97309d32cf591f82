import ChorusLocking
import Foundation

/// One reconnection attempt, made on a thread of its own. `LineClient` connects and
/// shakes hands blocking, and a network that drops packets silently keeps it waiting up
/// to the connect timeout (30 s); made on the session's thread, that froze the prompt,
/// the person's keys and Ctrl-C for as long. The session polls `descriptor` with its
/// other descriptors: it turns readable when the attempt is over, and `finish()` hands
/// back the connection or why there is none.
final class ReconnectAttempt {
    /// Readable once the attempt is over.
    let descriptor: Int32
    private let doneSignal: Int32
    private let outcome = Locked<Result<LineClient, ClientFailure>?>(nil)

    /// Starts the attempt; nil when no pipe can be made (the caller connects itself).
    init?(connector: ServerConnector) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return nil }
        descriptor = ends[0]
        doneSignal = ends[1]
        // Only the attempt's thread uses the connector until `finish()`: the session does
        // not connect while an attempt is out, and nobody is asked to trust a certificate
        // any more (`askToTrust` is nil once the session is established).
        nonisolated(unsafe) let connector = connector
        let thread = Thread { [outcome, doneSignal] in
            let result = Result { () throws(ClientFailure) -> LineClient in try connector.connect() }
            outcome.withLock { $0 = result }
            var byte: UInt8 = 1
            _ = write(doneSignal, &byte, 1)
        }
        thread.name = "chorus-reconnect"
        thread.start()
    }

    /// The attempt's result, once `descriptor` is readable; closes the pipe.
    func finish() -> Result<LineClient, ClientFailure> {
        var byte: UInt8 = 0
        _ = read(descriptor, &byte, 1)
        close(descriptor)
        close(doneSignal)
        return outcome.withLock { $0 } ?? .failure(ClientFailure("the reconnection attempt ended without a result", isTransient: true))
    }
}
