/// One stored password hash, "$scrypt$ln=17,r=8,p=1$<salt>$<hash>", split into its parts.
struct EncodedScryptHash: Sendable, Equatable {
    var parameters: ScryptParameters
    var salt: [UInt8]
    var hash: [UInt8]

    /// Salt and hash sizes we accept when reading; wider than what we write so older rows still verify,
    /// narrow enough that a corrupt row cannot ask for a huge derived key.
    static let saltLengths = 8...64
    static let hashLengths = 16...64

    init(parameters: ScryptParameters, salt: [UInt8], hash: [UInt8]) {
        self.parameters = parameters
        self.salt = salt
        self.hash = hash
    }

    /// nil for anything that is not exactly this format with sane parameters.
    init?(parsing encoded: String) {
        let fields = encoded.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count == 5, fields[0].isEmpty, fields[1] == "scrypt" else { return nil }
        guard let parameters = Self.parseParameters(fields[2]), parameters.isAcceptable else { return nil }
        guard let salt = PHCBase64.decode(fields[3]), Self.saltLengths.contains(salt.count) else { return nil }
        guard let hash = PHCBase64.decode(fields[4]), Self.hashLengths.contains(hash.count) else { return nil }
        self.init(parameters: parameters, salt: salt, hash: hash)
    }

    var encoded: String {
        "$scrypt$ln=\(parameters.logN),r=\(parameters.r),p=\(parameters.p)$"
            + "\(PHCBase64.encode(salt))$\(PHCBase64.encode(hash))"
    }

    /// "ln=17,r=8,p=1" in exactly that order; strict so that one hash has one spelling.
    private static func parseParameters(_ text: Substring) -> ScryptParameters? {
        let pairs = text.split(separator: ",", omittingEmptySubsequences: false)
        guard pairs.count == 3,
              let logN = number(pairs[0], key: "ln"),
              let r = number(pairs[1], key: "r"),
              let p = number(pairs[2], key: "p")
        else { return nil }
        return ScryptParameters(logN: logN, r: r, p: p)
    }

    /// Digits only (no sign, no spaces), at most 4 of them, so parsing cannot overflow.
    private static func number(_ pair: Substring, key: String) -> Int? {
        let prefix = key + "="
        guard pair.hasPrefix(prefix) else { return nil }
        let digits = pair.dropFirst(prefix.count)
        guard (1...4).contains(digits.count),
              digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int(digits)
    }
}
