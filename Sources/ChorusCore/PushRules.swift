import Foundation

/// The rules of Web Push subscriptions (CONTRACT §10): what an endpoint and a label may
/// be, how many devices a person keeps, and what a subscription without a label is
/// called. Whether the keys are a P-256 point and 16 bytes is ChorusCrypto's to say; where
/// an endpoint may be reached (public addresses only) is checked on the address connected
/// to, when a push is sent.
public enum PushRules {
    /// Subscriptions one account keeps: every phone, tablet and browser of a person,
    /// with room to spare, and still a bound on what one account makes the server send.
    public static let perAccount = 20

    /// The longest endpoint kept, in bytes (push services' addresses are well under 1 KiB).
    public static let endpointLength = 1...2048

    /// An endpoint is an `https` URL with a host and no user part: push services are
    /// reached over TLS, and nothing else is ever fetched for a subscription.
    public static func checkEndpoint(_ endpoint: String) throws(DomainError) {
        guard endpointLength.contains(endpoint.utf8.count),
              endpoint.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }),
              let parts = URLComponents(string: endpoint), parts.scheme?.lowercased() == "https",
              let host = parts.host, !host.isEmpty, parts.user == nil, parts.password == nil
        else { throw .badPushEndpoint }
    }

    /// A label: 1-64 of `A-Z a-z 0-9 . _ -`, as a token's (`AccountRules.checkTokenLabel`).
    public static func checkLabel(_ label: String) throws(DomainError) {
        do {
            try AccountRules.checkTokenLabel(label)
        } catch {
            throw .badPushLabel
        }
    }

    /// A subscription without a label is called after its push service's host, cut to a
    /// label's form ("fcm.googleapis.com", "updates.push.services.mozilla.com").
    public static func defaultLabel(endpoint: String) -> String {
        let host = URLComponents(string: endpoint)?.host ?? "push"
        let kept = host.unicodeScalars.filter { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "." || scalar == "-" || scalar == "_")
        }
        let label = String(String.UnicodeScalarView(kept.prefix(64)))
        return label.isEmpty ? "push" : label
    }

    /// A new subscription is refused once the account holds `perAccount`, unless it
    /// replaces one of them (the same endpoint subscribing again).
    public static func checkRoom(held: Int, replacing: Bool) throws(DomainError) {
        if !replacing && held >= perAccount { throw .tooManyPushSubscriptions(max: perAccount) }
    }
}
