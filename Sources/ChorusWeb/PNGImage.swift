/// A PNG file (RFC 2083) from RGBA pixels, for the web app's icons: drawn here, so no
/// image file is shipped beside the binary. The image data is deflated with fixed Huffman
/// codes and runs only (distance 1 or one row up), which is all a flat-coloured icon needs.
public struct PNGImage {
    public let width: Int
    public let height: Int
    /// Row by row, 4 bytes a pixel (red, green, blue, alpha).
    public var pixels: [UInt8]

    public init(width: Int, height: Int, fill: (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8)) {
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 0, count: width * height * 4)
        for index in stride(from: 0, to: pixels.count, by: 4) {
            pixels[index] = fill.red
            pixels[index + 1] = fill.green
            pixels[index + 2] = fill.blue
            pixels[index + 3] = fill.alpha
        }
    }

    public mutating func set(x: Int, y: Int, _ color: (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8)) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        let index = (y * width + x) * 4
        pixels[index] = color.red
        pixels[index + 1] = color.green
        pixels[index + 2] = color.blue
        pixels[index + 3] = color.alpha
    }

    /// The scanlines as PNG filters them: each row led by filter type 0 (none).
    public var scanlines: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(height * (width * 4 + 1))
        for row in 0..<height {
            out.append(0)
            out.append(contentsOf: pixels[(row * width * 4)..<((row + 1) * width * 4)])
        }
        return out
    }

    /// The whole file.
    public var encoded: [UInt8] {
        var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header: [UInt8] = []
        header.appendBigEndian(UInt32(width))
        header.appendBigEndian(UInt32(height))
        header += [8, 6, 0, 0, 0] // 8 bits, RGBA, deflate, adaptive filtering, no interlace
        Self.appendChunk("IHDR", header, to: &file)
        Self.appendChunk("IDAT", ZlibStream.compress(scanlines, rowLength: width * 4 + 1), to: &file)
        Self.appendChunk("IEND", [], to: &file)
        return file
    }

    private static func appendChunk(_ type: String, _ data: [UInt8], to file: inout [UInt8]) {
        file.appendBigEndian(UInt32(data.count))
        let typed = Array(type.utf8) + data
        file += typed
        file.appendBigEndian(CRC32.checksum(typed))
    }
}

/// zlib's format (RFC 1950) around one deflate block (RFC 1951) with the fixed codes.
enum ZlibStream {
    static func compress(_ data: [UInt8], rowLength: Int) -> [UInt8] {
        var bits = BitWriter()
        bits.write(1, count: 1) // the last block
        bits.write(1, count: 2) // fixed Huffman codes
        var index = 0
        while index < data.count {
            // The longest run copying the byte before (distance 1) or the row above.
            var best = (length: 0, distance: 0)
            for distance in [1, rowLength] where index >= distance {
                var length = 0
                while length < 258 && index + length < data.count && data[index + length] == data[index + length - distance] {
                    length += 1
                }
                if length > best.length { best = (length, distance) }
            }
            if best.length >= 3 {
                bits.writeLength(best.length)
                bits.writeDistance(best.distance)
                index += best.length
            } else {
                bits.writeLiteral(data[index])
                index += 1
            }
        }
        bits.writeSymbol(256) // end of block
        var out: [UInt8] = [0x78, 0x01]
        out += bits.finish()
        out.appendBigEndian(Adler32.checksum(data))
        return out
    }
}

/// Deflate's bit stream: least significant bit first; Huffman codes go in most
/// significant bit first, so they are written reversed.
struct BitWriter {
    private var bytes: [UInt8] = []
    private var current: UInt32 = 0
    private var filled = 0

    mutating func write(_ value: UInt32, count: Int) {
        for bit in 0..<count {
            current |= ((value >> UInt32(bit)) & 1) << UInt32(filled)
            filled += 1
            if filled == 8 {
                bytes.append(UInt8(current))
                current = 0
                filled = 0
            }
        }
    }

    private mutating func writeCode(_ code: UInt32, count: Int) {
        var reversed: UInt32 = 0
        for bit in 0..<count where code & (1 << UInt32(bit)) != 0 { reversed |= 1 << UInt32(count - 1 - bit) }
        write(reversed, count: count)
    }

    /// A literal/length symbol in the fixed code (RFC 1951 §3.2.6).
    mutating func writeSymbol(_ symbol: Int) {
        switch symbol {
        case 0...143: writeCode(UInt32(0x30 + symbol), count: 8)
        case 144...255: writeCode(UInt32(0x190 + symbol - 144), count: 9)
        case 256...279: writeCode(UInt32(symbol - 256), count: 7)
        default: writeCode(UInt32(0xC0 + symbol - 280), count: 8)
        }
    }

    mutating func writeLiteral(_ byte: UInt8) { writeSymbol(Int(byte)) }

    static let lengthBases = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    static let distanceBases = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049,
                                3073, 4097, 6145, 8193, 12289, 16385, 24577]
    static let distanceExtra = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]

    /// A match length 3-258: its symbol, then its extra bits.
    mutating func writeLength(_ length: Int) {
        let code = Self.lengthBases.lastIndex { $0 <= length }!
        writeSymbol(257 + code)
        write(UInt32(length - Self.lengthBases[code]), count: Self.lengthExtra[code])
    }

    /// A distance 1-32768: its five-bit fixed code, then its extra bits.
    mutating func writeDistance(_ distance: Int) {
        let code = Self.distanceBases.lastIndex { $0 <= distance }!
        writeCode(UInt32(code), count: 5)
        write(UInt32(distance - Self.distanceBases[code]), count: Self.distanceExtra[code])
    }

    mutating func finish() -> [UInt8] {
        if filled > 0 { bytes.append(UInt8(current)) }
        current = 0
        filled = 0
        return bytes
    }
}

enum CRC32 {
    static let table: [UInt32] = (0..<256).map { seed in
        var value = UInt32(seed)
        for _ in 0..<8 { value = value & 1 != 0 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}

enum Adler32 {
    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }
}

extension Array where Element == UInt8 {
    fileprivate mutating func appendBigEndian(_ value: UInt32) {
        append(UInt8(value >> 24))
        append(UInt8((value >> 16) & 0xFF))
        append(UInt8((value >> 8) & 0xFF))
        append(UInt8(value & 0xFF))
    }
}
