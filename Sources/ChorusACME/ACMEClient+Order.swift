import ChorusCrypto
import ChorusOutbound
import Foundation

/// The whole order (RFC 8555 §7.3-7.4): account, order, challenges, finalize, download.
extension ACMEClient {
    /// How long to wait for the server to validate or issue, and how often to ask.
    public struct Patience: Sendable {
        public var limit: Double
        public var defaultInterval: Double
        public var maxInterval: Double

        public init(limit: Double = 120, defaultInterval: Double = 1, maxInterval: Double = 10) {
            self.limit = limit
            self.defaultInterval = defaultInterval
            self.maxInterval = maxInterval
        }
    }

    /// Registers the account key (§7.3), agreeing to the terms; an account the key
    /// already has is found the same way. Returns the account URL.
    @discardableResult
    public func register(email: String?) throws -> String {
        let directory = try loadDirectory()
        var payload = "{\"termsOfServiceAgreed\":true"
        if let email, !email.isEmpty {
            payload += ",\"contact\":[" + Self.quoted("mailto:" + email) + "]"
        }
        payload += "}"
        let response = try post(directory.newAccount, payload: Array(payload.utf8), useJWK: true, step: "new account")
        guard let location = response.header("Location"), !location.isEmpty else {
            throw ACMEError("new account: the ACME server gave no account URL")
        }
        accountURL = location
        return location
    }

    /// Orders a certificate for `names`, proves control of each with one of `responder`'s
    /// challenge types, finalizes with a CSR for a new key, and downloads the chain.
    public func obtainCertificate(names: [String], responder: any ACMEChallengeResponder,
                                  patience: Patience = Patience()) throws -> IssuedCertificate {
        let directory = try loadDirectory()
        let identifiers = names.map { "{\"type\":\"dns\",\"value\":" + Self.quoted($0) + "}" }.joined(separator: ",")
        let created = try post(directory.newOrder, payload: Array("{\"identifiers\":[\(identifiers)]}".utf8), step: "new order")
        guard let orderURL = created.header("Location") else { throw ACMEError("new order: the ACME server gave no order URL") }
        var order: ACMEOrder = try decode(created, step: "new order")

        for url in order.authorizations {
            try authorize(url, responder: responder, patience: patience)
        }

        order = try waitForOrder(orderURL, until: ["ready", "valid"], patience: patience)
        let request = try CertificateRequest(names: names)
        if order.status == "ready" {
            let body = "{\"csr\":\"" + Base64URL.encode(request.der) + "\"}"
            _ = try post(order.finalize, payload: Array(body.utf8), step: "finalize")
            order = try waitForOrder(orderURL, until: ["valid"], patience: patience)
        }
        guard let certificateURL = order.certificate else { throw ACMEError("order: valid but no certificate URL") }
        let download = try post(certificateURL, payload: nil, step: "certificate download")
        let chain = String(decoding: download.body, as: UTF8.self)
        let issued = try IssuedCertificate(chainPEM: chain, keyPEM: request.keyPEM)
        // Served only if it is what was asked for: a CA that left a name out would make
        // clients dialling that name fail.
        let missing = Set(names.map { $0.lowercased() }).subtracting(issued.names)
        guard missing.isEmpty else {
            throw ACMEError("the certificate issued lacks \(missing.sorted().joined(separator: ", "))")
        }
        return issued
    }

    /// One name's authorization: nothing to do when already valid (reused), else answer
    /// the first challenge type the responder offers that the server allows, and wait.
    private func authorize(_ url: String, responder: any ACMEChallengeResponder, patience: Patience) throws {
        let authorization: ACMEAuthorization = try decode(post(url, payload: nil, step: "authorization"), step: "authorization")
        if authorization.status == "valid" { return }
        guard authorization.status == "pending" else {
            throw ACMEError("authorization for \(authorization.identifier.value) is \(authorization.status)")
        }
        let name = authorization.identifier.value
        guard let challenge = responder.challengeTypes.lazy.compactMap({ type in
            authorization.challenges.first { $0.type == type }
        }).first, let token = challenge.token else {
            let offered = authorization.challenges.map(\.type).joined(separator: ", ")
            throw ACMEError("authorization for \(name): none of the offered challenges (\(offered)) can be answered here")
        }
        try responder.present(type: challenge.type, name: name, token: token, keyAuthorization: keyAuthorization(token: token))
        defer { responder.withdraw(type: challenge.type, name: name, token: token) }
        _ = try post(challenge.url, payload: Array("{}".utf8), step: "\(challenge.type) challenge for \(name)")

        let deadline = Date().addingTimeInterval(patience.limit)
        while true {
            let response = try post(url, payload: nil, step: "authorization")
            let current: ACMEAuthorization = try decode(response, step: "authorization")
            switch current.status {
            case "valid": return
            case "pending", "processing": break
            default:
                let failed = current.challenges.first { $0.type == challenge.type }
                let reason = failed?.error.map { "\($0.type ?? "error"): \($0.detail ?? "")" } ?? current.status
                throw ACMEError("\(challenge.type) challenge for \(name) failed: \(reason)")
            }
            try wait(response, until: deadline, patience: patience, for: "the \(challenge.type) challenge for \(name)")
        }
    }

    private func waitForOrder(_ url: String, until wanted: Set<String>, patience: Patience) throws -> ACMEOrder {
        let deadline = Date().addingTimeInterval(patience.limit)
        while true {
            let response = try post(url, payload: nil, step: "order")
            let order: ACMEOrder = try decode(response, step: "order")
            if wanted.contains(order.status) { return order }
            guard order.status == "pending" || order.status == "processing" || order.status == "ready" else {
                let reason = order.error.map { "\($0.type ?? "error"): \($0.detail ?? "")" } ?? ""
                throw ACMEError("order is \(order.status)" + (reason.isEmpty ? "" : ": \(reason)"))
            }
            try wait(response, until: deadline, patience: patience, for: "the order")
        }
    }

    /// Sleeps as Retry-After says (bounded), or the default interval; throws past the deadline.
    private func wait(_ response: OutboundResponse, until deadline: Date, patience: Patience, for what: String) throws {
        let asked = response.header("Retry-After").flatMap { RetryAfter.seconds(in: $0, now: Date()) }
        let interval = min(max(asked ?? patience.defaultInterval, 0.05), patience.maxInterval)
        guard Date().addingTimeInterval(interval) < deadline else {
            throw ACMEError("gave up waiting for \(what) after \(Int(patience.limit)) seconds")
        }
        Thread.sleep(forTimeInterval: interval)
    }

    static func quoted(_ text: String) -> String {
        let data = (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
