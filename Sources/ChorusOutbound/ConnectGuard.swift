import ChorusAddresses
import CCurl

/// The request-forgery guard where it cannot be dodged: libcurl's open-socket callback,
/// called with the address it resolved and is about to connect to. A check of the name
/// before the request would let DNS answer differently a moment later (rebinding); this
/// one judges the very address the socket connects to, for every address tried.
final class ConnectGuard {
    // Safety: one guard per OutboundClient, whose easy handle runs on one thread at a
    // time, and the callback runs inside that thread's curl_easy_perform.
    let policy: AddressPolicy
    /// The addresses refused during the current transfer, for the error's words.
    var refused: [String] = []

    init(policy: AddressPolicy) {
        self.policy = policy
    }

    /// Passed as CURLOPT_OPENSOCKETFUNCTION with the guard as `clientp`.
    static let callback: curl_opensocket_callback = { clientp, _, address in
        guard let clientp, let address else { return CCURL_SOCKET_BAD }
        let connectGuard = Unmanaged<ConnectGuard>.fromOpaque(clientp).takeUnretainedValue()
        var bytes = [UInt8](repeating: 0, count: 16)
        let length = Int(ccurl_sockaddr_ip(address, &bytes))
        guard length > 0, let ip = IPAddress(bytes: Array(bytes[..<length])) else {
            connectGuard.refused.append("an address that is neither IPv4 nor IPv6")
            return CCURL_SOCKET_BAD
        }
        guard connectGuard.policy.permits(ip) else {
            connectGuard.refused.append(ip.description)
            // libcurl then tries the next address, or fails with CURLE_COULDNT_CONNECT.
            return CCURL_SOCKET_BAD
        }
        return ccurl_open_socket(address)
    }
}
