import Foundation

/// A final reply as the request's handler sees it. `bytes` is a view into the read
/// buffer, valid only during the handler; `text` and `object()` copy.
struct ReplyLine {
    let ok: Bool
    let bytes: UnsafeRawBufferPointer

    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// The JSON reply as an object (JSON mode), nil when it is not one.
    func object() -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
    }

    /// "409 name taken" style, for failure messages.
    var errorSummary: String {
        guard let object = object() else { return text }
        let code = object["code"].map { "\($0)" } ?? "?"
        let message = object["message"] as? String ?? text
        return "ERR \(code) \(message)"
    }
}
