/// What answers the challenges while an order runs: the listener's tls-alpn-01
/// certificates, an http-01 listener. The client asks it for one of the types it can
/// answer, in its order of preference.
public protocol ACMEChallengeResponder: Sendable {
    /// Challenge types this server answers now, preferred first (`tls-alpn-01`, `http-01`).
    var challengeTypes: [String] { get }
    /// Makes `name` answer a challenge of `type` with `keyAuthorization` (RFC 8555 §8.1)
    /// until `withdraw` is called.
    func present(type: String, name: String, token: String, keyAuthorization: String) throws
    func withdraw(type: String, name: String, token: String)
}
