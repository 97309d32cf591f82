import ChorusServer
import ChorusStore

/// `CHORUS_TEST_PRESENCE_TIMING=HEARTBEAT,LEASE` (seconds): shorter presence heartbeats
/// and leases than the standard 2 s and 10 s, so tests of dying nodes run in seconds. For
/// tests only (`TestTimingVariable`).
enum PresenceTimingVariable {
    static let name = "CHORUS_TEST_PRESENCE_TIMING"

    static func timing(environment: [String: String]) throws(StartupError) -> PresenceTiming {
        guard let parts = try TestTimingVariable.seconds(name, in: environment, counts: 2...2, shape: "HEARTBEAT,LEASE") else {
            return .standard
        }
        let timing = PresenceTiming(heartbeat: parts[0], lease: parts[1])
        if let problem = timing.problem { throw StartupError("\(name): \(problem)") }
        return timing
    }
}
