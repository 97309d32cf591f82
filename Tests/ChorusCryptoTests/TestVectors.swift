import Foundation

/// Test vectors are read with Foundation's base64, not the Base64URL under test, so a decoder
/// bug cannot make a vector agree with itself.
func vectorBytes(_ base64URL: String) -> [UInt8] {
    var text = base64URL.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while text.count % 4 != 0 { text += "=" }
    guard let data = Data(base64Encoded: text) else { fatalError("bad test vector \(base64URL)") }
    return [UInt8](data)
}

/// The same, in the other direction, for comparing output.
func vectorText(_ bytes: [UInt8]) -> String {
    var text = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
    while text.hasSuffix("=") { text.removeLast() }
    return text
}

func hexBytes(_ hex: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex {
        let next = hex.index(index, offsetBy: 2)
        bytes.append(UInt8(hex[index..<next], radix: 16)!)
        index = next
    }
    return bytes
}
