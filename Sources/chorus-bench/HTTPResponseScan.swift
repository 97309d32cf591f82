import Foundation

/// The first HTTP/1.1 response in a client's input: what the feed readers and the
/// `/healthz` probe need of it (status, one header, where it ends). Only what chorusd
/// sends is handled: a head, then `Content-Length` bytes of body.
struct HTTPResponseScan {
    let status: Int
    /// Head and body together, in bytes.
    let length: Int
    let bodyLength: Int
    let etag: String?

    /// nil until the whole response (head and body) is in `bytes`. A head that is not a
    /// status line scans as status 0 taking everything, so the caller counts it and moves on.
    static func first(in bytes: [UInt8]) -> HTTPResponseScan? {
        guard bytes.count >= 4,
              let blank = (0...(bytes.count - 4)).first(where: { bytes[$0] == 0x0D && bytes[$0 + 1] == 0x0A && bytes[$0 + 2] == 0x0D && bytes[$0 + 3] == 0x0A })
        else { return nil }
        let head = String(decoding: bytes[..<blank], as: UTF8.self).split(separator: "\r\n")
        guard let statusLine = head.first, statusLine.count >= 12, let status = Int(statusLine.dropFirst(9).prefix(3)) else {
            return HTTPResponseScan(status: 0, length: bytes.count, bodyLength: 0, etag: nil)
        }
        var bodyLength = 0
        var etag: String?
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            switch line[..<colon].lowercased() {
            case "content-length": bodyLength = Int(value) ?? 0
            case "etag": etag = value
            default: break
            }
        }
        let total = blank + 4 + bodyLength
        return bytes.count >= total ? HTTPResponseScan(status: status, length: total, bodyLength: bodyLength, etag: etag) : nil
    }
}
