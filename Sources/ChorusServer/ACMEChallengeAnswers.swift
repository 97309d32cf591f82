import ChorusACME
import ChorusNet

/// Answers an order's challenges on this server: tls-alpn-01 through the listener's
/// challenge table, http-01 through the `--acme-http-port` listener when there is one.
struct ACMEChallengeAnswers: ACMEChallengeResponder {
    let alpn: TLSALPNChallenges
    let http: HTTPChallengeListener?
    /// Tried first this time; rotated after a failed order so the other type gets its
    /// turn (a port 443 that is forwarded elsewhere, a blocked port 80).
    let preferHTTP: Bool

    var challengeTypes: [String] {
        guard http != nil else { return ["tls-alpn-01"] }
        return preferHTTP ? ["http-01", "tls-alpn-01"] : ["tls-alpn-01", "http-01"]
    }

    func present(type: String, name: String, token: String, keyAuthorization: String) throws {
        switch type {
        case "tls-alpn-01":
            let certificate = try TLSALPNChallengeCertificate(name: name, keyAuthorization: keyAuthorization)
            try alpn.add(name: name, certificatePEM: certificate.certificatePEM, keyPEM: certificate.keyPEM)
        case "http-01":
            http?.answer(token: token, with: keyAuthorization)
        default:
            throw ACMEError("cannot answer a \(type) challenge")
        }
    }

    func withdraw(type: String, name: String, token: String) {
        switch type {
        case "tls-alpn-01": alpn.remove(name: name)
        case "http-01": http?.forget(token: token)
        default: break
        }
    }
}
