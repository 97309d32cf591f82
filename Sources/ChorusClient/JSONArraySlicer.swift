/// Cuts the elements of one array out of a JSON object as the server wrote them, so events
/// replayed from a `SYNC` reply reach a bot byte for byte as live events would have (keys
/// in the server's order), without decoding and re-encoding them.
enum JSONArraySlicer {
    /// The raw text of each element of the array under `key` in the top-level object;
    /// nil when there is no such array.
    static func elements(of key: String, in json: String) -> [String]? {
        let bytes = Array(json.utf8)
        let wanted = Array(key.utf8)
        var depth = 0
        var inString = false
        var escaped = false
        var stringStart = 0
        var lastString: ArraySlice<UInt8> = []
        var currentKey: ArraySlice<UInt8>?
        var arrayDepth: Int?
        var elementStart = 0
        var elements: [String] = []

        func addElement(upTo end: Int) {
            let text = String(decoding: bytes[elementStart..<end], as: UTF8.self).trimmingSpaces
            if !text.isEmpty { elements.append(text) }
        }

        for (index, byte) in bytes.enumerated() {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    lastString = bytes[(stringStart + 1)..<index]
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                stringStart = index
            case UInt8(ascii: ":"):
                if depth == 1 { currentKey = lastString }
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                if byte == UInt8(ascii: "["), arrayDepth == nil, depth == 1, let currentKey, Array(currentKey) == wanted {
                    arrayDepth = depth + 1
                    elementStart = index + 1
                }
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if let arrayDepth, depth == arrayDepth, byte == UInt8(ascii: "]") {
                    addElement(upTo: index)
                    return elements
                }
                depth -= 1
            case UInt8(ascii: ","):
                if let arrayDepth, depth == arrayDepth {
                    addElement(upTo: index)
                    elementStart = index + 1
                }
                if depth == 1 { currentKey = nil }
            default:
                break
            }
        }
        return nil
    }
}
