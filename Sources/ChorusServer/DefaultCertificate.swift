import ChorusCrypto
import Foundation

/// The certificate a fresh checkout runs with: when the default `certs/server.crt` and
/// `certs/server.key` are both missing, a self-signed ECDSA P-256 pair is made there.
public enum DefaultCertificate {
    public static let certificatePath = "certs/server.crt"
    public static let keyPath = "certs/server.key"

    public enum Outcome: Equatable {
        /// The files exist; their fingerprint.
        case existing(fingerprint: String)
        /// Made just now; their fingerprint.
        case created(fingerprint: String)
    }

    /// Makes the pair when it is the default one and absent; otherwise checks the files
    /// are there. Throws a `StartupError` that names the missing or unreadable file.
    public static func ensure(certificatePath: String, keyPath: String) throws -> Outcome {
        let files = FileManager.default
        let haveCertificate = files.fileExists(atPath: certificatePath)
        let haveKey = files.fileExists(atPath: keyPath)
        let isDefault = certificatePath == Self.certificatePath && keyPath == Self.keyPath
        if !haveCertificate && !haveKey && isDefault {
            do {
                try files.createDirectory(atPath: (certificatePath as NSString).deletingLastPathComponent,
                                          withIntermediateDirectories: true)
                let fingerprint = try SelfSignedCertificate.create(certificatePath: certificatePath, keyPath: keyPath)
                return .created(fingerprint: fingerprint)
            } catch {
                throw StartupError("cannot create a self-signed certificate in certs/: \(error)")
            }
        }
        guard haveCertificate else { throw StartupError("cannot read certificate \(certificatePath): no such file") }
        guard haveKey else { throw StartupError("cannot read private key \(keyPath): no such file") }
        do {
            return .existing(fingerprint: try CertificateFingerprint.sha256(pemFile: certificatePath))
        } catch {
            throw StartupError("cannot read certificate \(certificatePath): \(error)")
        }
    }
}
