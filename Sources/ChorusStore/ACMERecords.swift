/// An ACME account (RFC 8555 §7.3) kept for one directory: the account key's private
/// scalar (base64url, `P256PrivateKey`) and the account URL the server gave, used as the
/// `kid` of every later request. Every node of a cluster uses the same one.
public struct ACMEAccountRecord: Sendable, Equatable {
    public let directory: String
    public let privateKey: String
    public let url: String

    public init(directory: String, privateKey: String, url: String) {
        self.directory = directory
        self.privateKey = privateKey
        self.url = url
    }
}

/// A certificate an ACME server issued for a set of names: the PEM chain (leaf first),
/// its private key (PKCS#8 PEM), and its validity in Unix seconds, so a node can tell
/// without parsing whether it is newer than the one it serves and when to renew.
public struct ACMECertificateRecord: Sendable, Equatable {
    /// The names, lowercased, sorted and joined by commas (`key(for:)`).
    public let names: String
    public let chainPEM: String
    public let keyPEM: String
    public let notBefore: Int64
    public let notAfter: Int64

    public init(names: String, chainPEM: String, keyPEM: String, notBefore: Int64, notAfter: Int64) {
        self.names = names
        self.chainPEM = chainPEM
        self.keyPEM = keyPEM
        self.notBefore = notBefore
        self.notAfter = notAfter
    }

    /// The one spelling of a name set the store files certificates under, whatever order
    /// or case `--acme` gave them in.
    public static func key(for names: [String]) -> String {
        Set(names.map { $0.lowercased() }).sorted().joined(separator: ",")
    }
}

/// One challenge answer an order is waiting on (RFC 8555 §8): its type (`tls-alpn-01`,
/// `http-01`), the name, the token and the key authorization every node answers with.
public struct ACMEChallengeRecord: Sendable, Equatable, Hashable {
    public let type: String
    public let name: String
    public let token: String
    public let keyAuthorization: String

    public init(type: String, name: String, token: String, keyAuthorization: String) {
        self.type = type
        self.name = name
        self.token = token
        self.keyAuthorization = keyAuthorization
    }
}
