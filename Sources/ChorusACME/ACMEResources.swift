/// The ACME objects (RFC 8555 §7.1) this client reads; members it does not use are left out.

/// §7.1.1: where each request goes.
struct ACMEDirectory: Decodable {
    var newNonce: String
    var newAccount: String
    var newOrder: String
}

/// §9.7.7: what a name is (only DNS names are ordered here).
struct ACMEIdentifier: Codable {
    var type: String
    var value: String
}

/// §7.1.3: an order and where its parts are.
struct ACMEOrder: Decodable {
    var status: String
    var identifiers: [ACMEIdentifier]?
    var authorizations: [String]
    var finalize: String
    var certificate: String?
    var error: ACMEProblem?
}

/// §7.1.4: proof of control of one name, by one of its challenges.
struct ACMEAuthorization: Decodable {
    var status: String
    var identifier: ACMEIdentifier
    var challenges: [ACMEChallenge]
}

/// §7.1.5, §8: one way of proving control.
struct ACMEChallenge: Decodable {
    var type: String
    var url: String
    var status: String
    var token: String?
    var error: ACMEProblem?
}
