import ChorusServer

/// `CHORUS_TEST_NOTICE_TIMING=POLL,LEASE` (seconds): dispatchers that look more often and
/// claims that end sooner than the standard 5 s and 120 s, so a test of a node dying
/// with notices claimed runs in seconds. For tests only (`TestTimingVariable`).
enum NoticeTimingVariable {
    static let name = "CHORUS_TEST_NOTICE_TIMING"

    static func timing(environment: [String: String]) throws(StartupError) -> NoticeTiming {
        guard let parts = try TestTimingVariable.seconds(name, in: environment, counts: 2...2, shape: "POLL,LEASE") else {
            return .standard
        }
        guard parts[1] >= 1, parts[0] <= 3600, parts[1] <= 86_400 else {
            throw StartupError("\(name): POLL must be at most 3600 s and LEASE from 1 s to 86400 s, not \(environment[name] ?? "")")
        }
        return NoticeTiming(poll: parts[0], lease: parts[1])
    }
}
