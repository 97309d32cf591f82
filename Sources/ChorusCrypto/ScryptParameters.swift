/// scrypt cost settings: N = 2^logN, block size r, parallelism p.
public struct ScryptParameters: Sendable, Equatable {
    public var logN: Int
    public var r: Int
    public var p: Int

    public init(logN: Int, r: Int = 8, p: Int = 1) {
        self.logN = logN
        self.r = r
        self.p = p
    }

    /// N = 2^17, r = 8, p = 1: 128 MiB and roughly a few hundred milliseconds per hash on small hardware.
    public static let `default` = ScryptParameters(logN: 17)

    /// Largest working memory we will ever allocate for one hash; a corrupt or hostile stored hash
    /// must not be able to make the server allocate gigabytes.
    static let memoryCeiling: UInt64 = 1 << 30

    /// Bytes OpenSSL allocates for these parameters: B (128·r·p) plus V and XY (128·r·(N+2)).
    var requiredMemory: UInt64 {
        let r = UInt64(self.r), p = UInt64(self.p)
        return 128 * r * p + 128 * r * ((UInt64(1) << UInt64(logN)) + 2)
    }

    /// The `maxmem` handed to OpenSSL: what we need plus 1 MiB slack, because OpenSSL's own default cap
    /// (32 MiB) is below what the default parameters need.
    var maxMemory: UInt64 {
        requiredMemory + (1 << 20)
    }

    /// Within the sane ranges; anything else is treated as a corrupt hash rather than computed.
    var isAcceptable: Bool {
        (1...22).contains(logN) && (1...32).contains(r) && (1...16).contains(p)
            && requiredMemory <= Self.memoryCeiling
    }
}
