import ChorusServer
import ChorusStore
import Foundation

/// `CHORUS_TEST_PRESENCE_TIMING=HEARTBEAT,LEASE` (seconds): shorter presence heartbeats
/// and leases than the standard 2 s and 10 s, so tests of dying nodes run in seconds. For
/// tests only; not a flag, so nobody tunes a deployment with it by accident.
enum PresenceTimingVariable {
    static let name = "CHORUS_TEST_PRESENCE_TIMING"

    static func timing(environment: [String: String]) throws(StartupError) -> PresenceTiming {
        guard let text = environment[name], !text.isEmpty else { return .standard }
        let parts = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let heartbeat = parts[0], let lease = parts[1] else {
            throw StartupError("\(name) must be HEARTBEAT,LEASE in seconds, not \(text)")
        }
        let timing = PresenceTiming(heartbeat: heartbeat, lease: lease)
        if let problem = timing.problem { throw StartupError("\(name): \(problem)") }
        return timing
    }
}
