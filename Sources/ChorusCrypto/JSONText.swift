import ChorusProtocol

/// The few JSON strings JOSE and VAPID need, written by hand so the bytes that get signed are
/// exactly the bytes we meant (no key-order choices left to a serializer). Strings are
/// escaped as every JSON line of the protocol is (`JSONValue.encodeString`).
enum JSONText {
    /// `text` as a JSON string literal.
    static func quoted(_ text: String) -> String {
        var out: [UInt8] = []
        JSONValue.encodeString(text, into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
