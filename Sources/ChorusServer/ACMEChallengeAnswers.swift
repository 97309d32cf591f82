import ChorusACME
import ChorusNet
import ChorusStore
import Foundation

/// Answers an order's challenges on this server: tls-alpn-01 through the listener's
/// challenge table, http-01 through the `--acme-http-port` listener when there is one.
/// On a store several nodes share, each answer is also kept in the store, and the CA is
/// told to validate only once every node has had time to pick it up
/// (`ACMEChallengeMirror`): its validator may reach any of them.
struct ACMEChallengeAnswers: ACMEChallengeResponder {
    let local: ACMELocalAnswers
    /// The shared store, on a cluster.
    let shared: (any StoreExecutor)?
    /// Tried first this time; rotated after a failed order so the other type gets its
    /// turn (a port 443 that is forwarded elsewhere, a blocked port 80).
    let preferHTTP: Bool

    var challengeTypes: [String] {
        guard local.http != nil else { return ["tls-alpn-01"] }
        return preferHTTP ? ["http-01", "tls-alpn-01"] : ["tls-alpn-01", "http-01"]
    }

    func present(type: String, name: String, token: String, keyAuthorization: String) throws {
        let record = ACMEChallengeRecord(type: type, name: name, token: token, keyAuthorization: keyAuthorization)
        try local.add(record)
        guard let shared else { return }
        let until = Int64(Date().timeIntervalSince1970) + ACMEKeeper.leaseSeconds
        try shared.sync { try $0.keepACMEChallenge(record, until: until) }
        Thread.sleep(forTimeInterval: ACMEChallengeMirror.propagation)
    }

    func withdraw(type: String, name: String, token: String) {
        local.remove(ACMEChallengeRecord(type: type, name: name, token: token, keyAuthorization: ""))
        _ = try? shared?.sync { try $0.deleteACMEChallenge(token: token) }
    }
}

/// This node's answers: the tls-alpn-01 certificates and the http-01 key authorizations.
struct ACMELocalAnswers: Sendable {
    let alpn: TLSALPNChallenges
    let http: HTTPChallengeListener?

    func add(_ challenge: ACMEChallengeRecord) throws {
        switch challenge.type {
        case "tls-alpn-01":
            let certificate = try TLSALPNChallengeCertificate(name: challenge.name, keyAuthorization: challenge.keyAuthorization)
            try alpn.add(name: challenge.name, certificatePEM: certificate.certificatePEM, keyPEM: certificate.keyPEM)
        case "http-01":
            http?.answer(token: challenge.token, with: challenge.keyAuthorization)
        default:
            throw ACMEError("cannot answer a \(challenge.type) challenge")
        }
    }

    func remove(_ challenge: ACMEChallengeRecord) {
        switch challenge.type {
        case "tls-alpn-01": alpn.remove(name: challenge.name)
        case "http-01": http?.forget(token: challenge.token)
        default: break
        }
    }
}
