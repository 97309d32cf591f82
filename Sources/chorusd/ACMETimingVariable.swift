import ChorusServer

/// `CHORUS_TEST_ACME_TIMING=CHECK,RETRY[,RENEW_AFTER]` (seconds): how often the ACME
/// keeper looks, its first retry after a failure, and optionally a renewal that many
/// seconds after a certificate's start instead of at two thirds of its life (a test CA's
/// certificates may last years). For tests only; not a flag, so nobody tunes a
/// deployment with it.
enum ACMETimingVariable {
    static let name = "CHORUS_TEST_ACME_TIMING"

    static func timing(environment: [String: String]) throws(StartupError) -> ACMETiming {
        guard let text = environment[name], !text.isEmpty else { return ACMETiming() }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2 || parts.count == 3, let check = parts[0], let retry = parts[1], check > 0, retry > 0,
              parts.count == 2 || (parts[2] ?? -1) > 0
        else {
            throw StartupError("\(name) must be CHECK,RETRY[,RENEW_AFTER] in positive seconds, not \(text)")
        }
        return ACMETiming(check: check, firstRetry: retry, renewAfter: parts.count == 3 ? parts[2].map { Int64($0) } : nil)
    }
}
