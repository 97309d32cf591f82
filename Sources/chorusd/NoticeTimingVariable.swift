import ChorusServer

/// `CHORUS_TEST_NOTICE_TIMING=POLL,LEASE` (seconds): dispatchers that look more often and
/// claims that end sooner than the standard 5 s and 120 s, so a test of a node dying
/// with notices claimed runs in seconds. For tests only, like `PresenceTimingVariable`.
enum NoticeTimingVariable {
    static let name = "CHORUS_TEST_NOTICE_TIMING"

    struct Invalid: Error {
        let message: String
    }

    static func timing(environment: [String: String]) throws(Invalid) -> NoticeTiming {
        guard let text = environment[name], !text.isEmpty else { return .standard }
        let parts = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let poll = parts[0], let lease = parts[1], poll > 0, lease >= 1, poll <= 3600, lease <= 86_400 else {
            throw Invalid(message: "\(name) must be POLL,LEASE in seconds (POLL > 0, LEASE >= 1), not \(text)")
        }
        return NoticeTiming(poll: poll, lease: lease)
    }
}
