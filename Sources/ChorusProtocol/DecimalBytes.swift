/// Numbers written as ASCII digits straight into a byte buffer, with no String in between:
/// for JSON integers on the server and for the request lines the benchmark builds.
public enum DecimalBytes {
    public static func append(_ value: UInt64, to out: inout [UInt8]) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0) // 24 bytes: room for all 20 digits
        var rest = value
        withUnsafeMutableBytes(of: &digits) { buffer in
            var start = buffer.count
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[start...]))
        }
    }
}
