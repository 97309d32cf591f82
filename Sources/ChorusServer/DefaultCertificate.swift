import ChorusCrypto
import ChorusNet
import Foundation

/// The certificate a fresh checkout runs with: when the default `certs/server.crt` and
/// `certs/server.key` are both missing, a self-signed ECDSA P-256 pair is made there,
/// naming what clients may dial for `--host` (`ListeningNames`).
///
/// An existing certificate is never replaced: a new one would change the fingerprint that
/// clients pinned or remembered. When it lacks a name clients will dial, `ensure` says
/// which, for a warning; deleting the self-made pair makes a new one at the next start.
public enum DefaultCertificate {
    public static let certificatePath = "certs/server.crt"
    public static let keyPath = "certs/server.key"

    public enum Outcome: Equatable {
        /// The files exist; their fingerprint, and the names clients may dial that the
        /// certificate does not hold (`DNS:…`, `IP:…`; empty when it holds them all).
        case existing(fingerprint: String, missing: [String])
        /// Made just now; their fingerprint and names.
        case created(fingerprint: String, names: [String])
    }

    /// Makes the pair when it is the default one and absent; otherwise checks the files
    /// are there. Throws a `StartupError` that names the missing or unreadable file.
    public static func ensure(certificatePath: String, keyPath: String, host: String = "127.0.0.1") throws -> Outcome {
        let files = FileManager.default
        let haveCertificate = files.fileExists(atPath: certificatePath)
        let haveKey = files.fileExists(atPath: keyPath)
        let isDefault = certificatePath == Self.certificatePath && keyPath == Self.keyPath
        if !haveCertificate && !haveKey && isDefault {
            let names = ListeningNames(host: host)
            do {
                try files.createDirectory(atPath: (certificatePath as NSString).deletingLastPathComponent,
                                          withIntermediateDirectories: true)
                let fingerprint = try SelfSignedCertificate.create(certificatePath: certificatePath, keyPath: keyPath,
                                                                   dnsNames: names.dnsNames, ipAddresses: names.ipAddresses)
                return .created(fingerprint: fingerprint, names: names.entries)
            } catch {
                throw StartupError("cannot create a self-signed certificate in certs/: \(error)")
            }
        }
        guard haveCertificate else { throw StartupError("cannot read certificate \(certificatePath): no such file") }
        guard haveKey else { throw StartupError("cannot read private key \(keyPath): no such file") }
        // Before anything reads them: a pipe in their place would hold start-up for ever.
        do {
            try RegularFile.check(certificatePath, what: "certificate")
            try RegularFile.check(keyPath, what: "private key")
        } catch {
            throw StartupError(error.message)
        }
        do {
            let fingerprint = try CertificateFingerprint.sha256(pemFile: certificatePath)
            let held = try CertificateNames.subjectAltNames(pemFile: certificatePath)
            // A certificate from a CA is checked against the one name --host gives; a
            // self-signed one in the default place against every name it would be made with.
            let required: [String]
            if ListeningNames.isWildcard(host) {
                // Listing the interfaces only when their names are wanted: a CA's certificate
                // needs none, and a failed listing's warning would only mislead.
                required = try isDefault && CertificateNames.isSelfIssued(pemFile: certificatePath)
                    ? ListeningNames(host: host).entries : []
            } else {
                required = [host]
            }
            let missing = required.filter { !CertificateNames.covers(held, host: Self.bare($0)) }
            return .existing(fingerprint: fingerprint, missing: missing)
        } catch {
            throw StartupError("cannot read certificate \(certificatePath): \(error)")
        }
    }

    /// `IP:192.0.2.7` → `192.0.2.7`; a bare name stays.
    private static func bare(_ entry: String) -> String {
        for prefix in ["DNS:", "IP:"] where entry.hasPrefix(prefix) { return String(entry.dropFirst(prefix.count)) }
        return entry
    }
}
