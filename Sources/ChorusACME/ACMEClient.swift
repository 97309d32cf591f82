import ChorusCrypto
import ChorusOutbound
import Foundation

/// RFC 8555's requests over one blocking HTTPS client: the directory, nonces, and every
/// POST signed with the account key (JWS, ES256), sent again once on `badNonce`. Made for
/// one thread: the ACME thread that runs orders; every transfer has the outbound client's
/// connect and total timeouts.
public final class ACMEClient {
    let directoryURL: String
    let accountKey: P256PrivateKey
    /// The account URL, the `kid` of every request after newAccount.
    public internal(set) var accountURL: String?
    private let http: OutboundClient
    private var directory: ACMEDirectory?
    /// The Replay-Nonce of the last answer, used by the next request.
    private var nonce: String?

    public init(directoryURL: String, accountKey: P256PrivateKey, accountURL: String?, settings: OutboundClientSettings) throws {
        self.directoryURL = directoryURL
        self.accountKey = accountKey
        self.accountURL = accountURL
        do {
            http = try OutboundClient(settings: settings)
        } catch {
            throw ACMEError("cannot make an HTTPS client: \(error)")
        }
    }

    /// RFC 8555 §8.1: `token.thumbprint`, what a challenge answer proves the account holds.
    public func keyAuthorization(token: String) -> String {
        token + "." + JSONWebKey.thumbprint(of: accountKey.publicKey)
    }

    // MARK: Transport

    func loadDirectory() throws -> ACMEDirectory {
        if let directory { return directory }
        let response = try send(OutboundRequest(method: "GET", url: directoryURL), step: "directory")
        guard response.status == 200 else { throw ACMEProblem.error(step: "directory", status: response.status, body: response.body) }
        let loaded: ACMEDirectory = try decode(response, step: "directory")
        directory = loaded
        return loaded
    }

    private func freshNonce() throws -> String {
        if let nonce {
            self.nonce = nil
            return nonce
        }
        let url = try loadDirectory().newNonce
        let response = try send(OutboundRequest(method: "HEAD", url: url), step: "new nonce")
        guard let value = response.header("Replay-Nonce"), !value.isEmpty else {
            throw ACMEError("new nonce: the ACME server sent no Replay-Nonce (HTTP \(response.status))")
        }
        return value
    }

    /// A signed POST (`payload` nil: POST-as-GET, §6.3). With `useJWK` the key goes inline
    /// (newAccount), else the account URL as `kid`. A non-2xx answer throws its problem.
    func post(_ url: String, payload: [UInt8]?, useJWK: Bool = false, step: String) throws -> OutboundResponse {
        var attempts = 0
        while true {
            attempts += 1
            let key: JWSProtectedHeader.KeyReference
            if useJWK {
                key = .jwk
            } else {
                guard let accountURL else { throw ACMEError("\(step): no account yet") }
                key = .kid(accountURL)
            }
            let header = JWSProtectedHeader(key: key, nonce: try freshNonce(), url: url)
            let jws: FlattenedJWS
            do {
                jws = try FlattenedJWS.sign(payload: payload ?? [], header: header, key: accountKey)
            } catch {
                throw ACMEError("\(step): cannot sign the request: \(error)")
            }
            let request = OutboundRequest(method: "POST", url: url, headers: [("Content-Type", "application/jose+json")],
                                          body: Array(jws.json.utf8))
            let response = try send(request, step: step)
            if (200..<300).contains(response.status) { return response }
            let problem = ACMEProblem.error(step: step, status: response.status, body: response.body)
            // §6.5: a refused nonce is retried with the fresh one the refusal carried.
            if problem.isBadNonce && attempts < 5 { continue }
            throw problem
        }
    }

    /// Every answer's Replay-Nonce is kept for the next request.
    private func send(_ request: OutboundRequest, step: String) throws -> OutboundResponse {
        let response: OutboundResponse
        do {
            response = try http.perform(request)
        } catch {
            throw ACMEError("\(step): \(error)")
        }
        if let value = response.header("Replay-Nonce"), !value.isEmpty { nonce = value }
        return response
    }

    func decode<T: Decodable>(_ response: OutboundResponse, step: String) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(response.body))
        } catch {
            throw ACMEError("\(step): the ACME server's answer is not the JSON expected")
        }
    }
}
