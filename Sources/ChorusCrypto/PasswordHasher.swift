/// scrypt password hashes as self-describing strings: "$scrypt$ln=17,r=8,p=1$<salt>$<hash>".
/// Salt is 16 random bytes and hash 32 bytes, both standard base64 without padding (PHC style).
/// Passwords are the exact UTF-8 bytes of the string, never truncated or normalised.
public struct PasswordHasher: Sendable {
    public let parameters: ScryptParameters

    static let saltLength = 16
    static let hashLength = 32

    public init(parameters: ScryptParameters = .default) {
        self.parameters = parameters
    }

    /// A new hash with a fresh random salt, so equal passwords never produce equal rows.
    public func hash(_ password: String) throws -> String {
        let salt = SecureRandom.bytes(Self.saltLength)
        let derived = try Scrypt.derive(
            password: Array(password.utf8), salt: salt, parameters: parameters, length: Self.hashLength)
        return EncodedScryptHash(parameters: parameters, salt: salt, hash: derived).encoded
    }

    /// true when the password matches. Uses the parameters stored in the string, so hashes made with
    /// older costs still verify; a malformed string is simply a mismatch.
    public func verify(_ password: String, against encoded: String) -> Bool {
        guard let stored = EncodedScryptHash(parsing: encoded) else { return false }
        guard let derived = try? Scrypt.derive(
            password: Array(password.utf8), salt: stored.salt, parameters: stored.parameters,
            length: stored.hash.count)
        else { return false }
        return constantTimeEquals(derived, stored.hash)
    }

    /// true when the stored hash should be replaced at the next successful login: it was made with other
    /// parameters than ours, or cannot be read at all.
    public func needsRehash(_ encoded: String) -> Bool {
        guard let stored = EncodedScryptHash(parsing: encoded) else { return true }
        return stored.parameters != parameters
    }

    /// The parameters a stored hash was made with, or nil if the string is malformed.
    public static func parameters(of encoded: String) -> ScryptParameters? {
        EncodedScryptHash(parsing: encoded)?.parameters
    }
}
