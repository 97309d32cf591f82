import ChorusCrypto
import Foundation
import ChorusWeb

/// One file of the web app as the web door serves it: its bytes, its type, and a strong
/// validator (the SHA-256 of the bytes) that `If-None-Match` is checked against.
struct WebAppFile: Sendable {
    let body: [UInt8]
    let contentType: String
    /// Quoted, as the header carries it.
    let etag: String

    init(body: [UInt8], contentType: String) {
        self.body = body
        self.contentType = contentType
        etag = "\"" + String(Digest.sha256Hex(body).prefix(32)) + "\""
    }

    /// `no-cache`: a browser may keep the file but asks every time, so a new version is
    /// seen at once; the answer is a 304 without the body when nothing changed.
    func response(ifNoneMatch: [String]) -> HTTPResponse {
        let headers = [HTTPResponse.Header("ETag", etag), .init("Cache-Control", "no-cache")]
        if Self.matches(etag, ifNoneMatch) { return HTTPResponse(status: 304, headers: headers) }
        return HTTPResponse(status: 200, contentType: contentType, body: body, headers: headers)
    }

    /// RFC 9110 §13.1.2: `*`, or any listed tag, compared weakly (a `W/` prefix ignored).
    static func matches(_ etag: String, _ values: [String]) -> Bool {
        values.flatMap { $0.split(separator: ",") }.contains { raw in
            let tag = raw.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }

    /// The type a file's name says, by its extension.
    static func contentType(forName name: String) -> String {
        switch name.split(separator: ".").last.map({ $0.lowercased() }) ?? "" {
        case "html": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "json": "application/json"
        case "webmanifest": "application/manifest+json"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "txt": "text/plain; charset=utf-8"
        default: "application/octet-stream"
        }
    }
}
