import ChorusCrypto
import ChorusServer
import Foundation

/// `--acme` and its companion flags, checked together once all are read: the others mean
/// nothing without `--acme`, and a typo in a name must stop chorusd before the CA sees it.
struct ACMEFlags {
    var names: [String]?
    var email: String?
    var directory: String?
    var caFile: String?
    var httpPort: Int?

    mutating func take(_ flag: String, _ value: String) throws(Flags.Failure) {
        switch flag {
        case "--acme":
            let given = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            // No wildcards: tls-alpn-01 and http-01 cannot prove one (only dns-01 can).
            guard !given.isEmpty, given.allSatisfy({ SelfSignedCertificate.isValidDNSName($0) && !$0.hasPrefix("*.") && $0.contains(".") }) else {
                throw Flags.Failure(message: "--acme takes DNS names like chores.example.org[,other.example.org] (no wildcards, no addresses), not \(value)")
            }
            names = (names ?? []) + given.filter { !(names ?? []).contains($0) }
        case "--acme-email":
            guard value.contains("@"), !value.contains(where: { $0 == " " || $0 == "," || $0 == "<" || $0 == ">" }) else {
                throw Flags.Failure(message: "--acme-email takes an address like admin@example.org, not \(value)")
            }
            email = value
        case "--acme-directory":
            guard value.hasPrefix("https://"), value.count > 8 else {
                throw Flags.Failure(message: "--acme-directory takes an https:// URL, not \(value)")
            }
            directory = value
        case "--acme-ca":
            guard FileManager.default.isReadableFile(atPath: value) else {
                throw Flags.Failure(message: "--acme-ca: cannot read \(value)")
            }
            caFile = value
        default:
            guard let port = Int(value), (1...65535).contains(port) else {
                throw Flags.Failure(message: "--acme-http-port must be a whole number in 1...65535, not \(value)")
            }
            httpPort = port
        }
    }

    /// Nil without `--acme`; the companions alone are a mistake worth saying.
    func settings(environment: [String: String]) throws(Flags.Failure) -> ACMESettings? {
        guard let names else {
            if email != nil || directory != nil || caFile != nil || httpPort != nil {
                throw Flags.Failure(message: "--acme-email, --acme-directory, --acme-ca and --acme-http-port need --acme NAME")
            }
            return nil
        }
        var settings = ACMESettings(names: names)
        settings.email = email
        if let directory { settings.directory = directory }
        settings.caFile = caFile
        settings.httpPort = httpPort
        do {
            settings.timing = try ACMETimingVariable.timing(environment: environment)
        } catch {
            throw Flags.Failure(message: error.description)
        }
        return settings
    }
}
