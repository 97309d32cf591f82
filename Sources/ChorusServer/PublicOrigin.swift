import ChorusLocking

/// The origin calendar links start with (`https://HOST:PORT`), known once the listener is
/// bound (`ServerConfiguration.calendarOrigin(port:)`); read by CALENDAR LINK.
final class PublicOrigin: Sendable {
    private let value = Locked("")

    var origin: String { value.withLock { $0 } }

    func set(_ origin: String) { value.withLock { $0 = origin } }
}
