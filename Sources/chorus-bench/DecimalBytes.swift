/// Appends `value` in decimal: hot request lines are built from bytes, not Strings.
func appendDecimal(_ value: UInt64, to out: inout [UInt8]) {
    var divisor: UInt64 = 1
    while value / divisor >= 10 { divisor *= 10 }
    var rest = value
    while divisor > 0 {
        out.append(UInt8(ascii: "0") + UInt8(rest / divisor))
        rest %= divisor
        divisor /= 10
    }
}
