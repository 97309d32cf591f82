import ChorusServer

/// `CHORUS_TEST_ACME_TIMING=CHECK,RETRY[,RENEW_AFTER]` (seconds): how often the ACME
/// keeper looks, its first retry after a failure, and optionally a renewal that many
/// seconds after a certificate's start instead of at two thirds of its life (a test CA's
/// certificates may last years). For tests only (`TestTimingVariable`).
enum ACMETimingVariable {
    static let name = "CHORUS_TEST_ACME_TIMING"

    static func timing(environment: [String: String]) throws(StartupError) -> ACMETiming {
        guard let parts = try TestTimingVariable.seconds(name, in: environment, counts: 2...3, shape: "CHECK,RETRY[,RENEW_AFTER]") else {
            return ACMETiming()
        }
        return ACMETiming(check: parts[0], firstRetry: parts[1], renewAfter: parts.count == 3 ? Int64(parts[2]) : nil)
    }
}
