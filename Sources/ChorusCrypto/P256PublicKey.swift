import COpenSSL

/// A P-256 public key: a Web Push subscription's `p256dh`, the VAPID key in `k=`, an ACME
/// account key's JWK. Only points on the curve get in; the wire form is the 65-byte
/// uncompressed point 0x04 || X || Y (SEC 1 §2.3.3), which RFC 8291 and RFC 8292 use.
public final class P256PublicKey: @unchecked Sendable, Equatable {
    /// The 65-byte uncompressed point.
    public let uncompressedPoint: [UInt8]
    /// The EVP_PKEY; never changed after init, and OpenSSL allows concurrent use of a key that is only read.
    let key: OpaquePointer

    public static let pointLength = 65

    /// Checks the form (uncompressed, 65 bytes) and that the point is on the curve and not
    /// the point at infinity, so a bad `p256dh` fails here rather than in a later ECDH.
    public init(uncompressedPoint point: [UInt8]) throws {
        guard point.count == Self.pointLength else { throw CryptoError.wrongLength("P-256 public key", expected: Self.pointLength, got: point.count) }
        guard point[0] == 0x04 else { throw CryptoError("P-256 public key must be an uncompressed point (first byte 0x04)") }
        ERR_clear_error()
        let parameters = try OpenSSLParameters()
        try parameters.add("group", text: "P-256")
        try parameters.add("pub", bytes: point)
        guard let key = try? P256Curve.makeKey(parameters, selection: COPENSSL_PKEY_PUBLIC_KEY) else {
            throw CryptoError("P-256 public key is not a point on the curve")
        }
        guard P256Curve.passesCheck(key, EVP_PKEY_public_check) else {
            EVP_PKEY_free(key)
            throw CryptoError("P-256 public key is not a valid point on the curve")
        }
        self.key = key
        self.uncompressedPoint = point
    }

    /// Base64url of the 65-byte point: the form of `p256dh`, `k=` and `PUSH KEY`.
    public convenience init(base64URL text: String) throws {
        try self.init(uncompressedPoint: Base64URL.decode(text, length: Self.pointLength, what: "P-256 public key"))
    }

    public var base64URL: String { Base64URL.encode(uncompressedPoint) }

    /// The 32-byte big-endian X coordinate (JWK `x`).
    public var x: [UInt8] { Array(uncompressedPoint[1..<33]) }
    /// The 32-byte big-endian Y coordinate (JWK `y`).
    public var y: [UInt8] { Array(uncompressedPoint[33..<65]) }

    deinit { EVP_PKEY_free(key) }

    public static func == (left: P256PublicKey, right: P256PublicKey) -> Bool {
        left.uncompressedPoint == right.uncompressedPoint
    }
}
