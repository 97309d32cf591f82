/// Checks UTF-8 a byte at a time (the well-formed sequences of Unicode's Table 3-7: no
/// overlongs, no surrogates, nothing past U+10FFFF), so a text message split across
/// fragments is refused at its first bad byte rather than after it is all buffered.
struct UTF8Validator {
    /// Continuation bytes the current character still needs.
    private var remaining = 0
    /// The range the next continuation byte must fall in; only the second byte of some
    /// lead bytes narrows it.
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF
    private var failed = false

    /// Takes the next byte; false once the bytes so far cannot be UTF-8 (and from then on).
    mutating func accept(_ byte: UInt8) -> Bool {
        guard !failed else { return false }
        if remaining > 0 {
            guard byte >= lower && byte <= upper else { return fail() }
            remaining -= 1
            lower = 0x80
            upper = 0xBF
            return true
        }
        switch byte {
        case 0x00...0x7F: return true
        case 0xC2...0xDF: expect(1, 0x80, 0xBF)
        case 0xE0: expect(2, 0xA0, 0xBF)  // no overlong three-byte forms
        case 0xE1...0xEC, 0xEE...0xEF: expect(2, 0x80, 0xBF)
        case 0xED: expect(2, 0x80, 0x9F)  // no surrogates
        case 0xF0: expect(3, 0x90, 0xBF)  // no overlong four-byte forms
        case 0xF1...0xF3: expect(3, 0x80, 0xBF)
        case 0xF4: expect(3, 0x80, 0x8F)  // nothing past U+10FFFF
        default: return fail()
        }
        return true
    }

    /// Whether the bytes so far are whole characters: a message may end here.
    var isComplete: Bool {
        !failed && remaining == 0
    }

    static func isValid(_ bytes: some Sequence<UInt8>) -> Bool {
        var validator = UTF8Validator()
        for byte in bytes where !validator.accept(byte) { return false }
        return validator.isComplete
    }

    private mutating func expect(_ count: Int, _ low: UInt8, _ high: UInt8) {
        remaining = count
        lower = low
        upper = high
    }

    private mutating func fail() -> Bool {
        failed = true
        return false
    }
}
