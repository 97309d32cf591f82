import Testing
@testable import ChorusWeb

@Suite("Base64 and UTF-8 checks")
struct EncodingTests {
    /// RFC 4648 §10's vectors, both ways.
    @Test func base64Vectors() {
        let vectors = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors {
            #expect(Base64.encode(Array(plain.utf8)) == encoded)
            #expect(Base64.decode(encoded) == Array(plain.utf8))
        }
        #expect(Base64.encode([0xFB, 0xFF]) == "+/8=")
    }

    /// Only canonical padded base64 decodes.
    @Test func base64Refusals() {
        for bad in ["Zg", "Zg=", "Z===", "Zh==", "Zm9=", "Zg==Zg==", "Zm9v!A==", "Zm 9v", "=Zm9"] {
            #expect(Base64.decode(bad) == nil, "\(bad)")
        }
    }

    /// The byte-at-a-time check agrees with the standard library on every short sequence of
    /// the bytes where UTF-8's edges lie.
    @Test func utf8AgreesWithStandardLibrary() {
        let interesting: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF]
        var sequence: [Int] = []
        func check(_ bytes: [UInt8]) {
            #expect(UTF8Validator.isValid(bytes) == (String(validating: bytes, as: UTF8.self) != nil), "\(bytes)")
        }
        for length in 1...3 {
            sequence = Array(repeating: 0, count: length)
            while true {
                check(sequence.map { interesting[$0] })
                var position = length - 1
                while position >= 0 && sequence[position] == interesting.count - 1 {
                    sequence[position] = 0
                    position -= 1
                }
                if position < 0 { break }
                sequence[position] += 1
            }
        }
        for lead: UInt8 in [0xF0, 0xF1, 0xF4] {
            for second in interesting {
                check([lead, second, 0x80, 0x80])
            }
        }
    }
}
