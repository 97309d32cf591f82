import ChorusTestSupport
import Foundation
import Testing

/// One chromedriver process on a loopback port, speaking W3C WebDriver over plain HTTP.
/// Several `Browser` sessions can share it; each session is its own Chromium with its own
/// profile, as different people on different phones would be.
final class ChromeDriver: @unchecked Sendable {
    static let chromium = "/usr/bin/chromium"
    static let path = "/usr/bin/chromedriver"

    /// Whether this machine has both; under CI a test that needs them fails instead of skipping.
    static var isInstalled: Bool {
        FileManager.default.isExecutableFile(atPath: chromium) && FileManager.default.isExecutableFile(atPath: path)
    }

    private let process = Process()
    let port: Int

    init() throws {
        port = try FreePort.next()
        process.executableURL = URL(fileURLWithPath: Self.path)
        process.arguments = ["--port=\(port)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while (try? call("GET", "/status"))?["value"].flatMap({ ($0 as? [String: Any])?["ready"] as? Bool }) != true {
            guard Date() < deadline else { throw WebDriverFailure("chromedriver did not become ready") }
            usleep(100_000)
        }
    }

    deinit {
        // SIGKILL: a child of the test process inherits its blocked SIGTERM (the server's
        // signal thread takes signals that way), so chromedriver would never see one. Its
        // browsers go with their sessions, which each Browser deletes first.
        if !process.killAndWait() {
            Issue.record("chromedriver did not end within 10 s of SIGKILL")
        }
    }

    /// One WebDriver request; the reply's JSON object. A reply carrying a WebDriver error
    /// (`value.error`) is thrown, with its message.
    @discardableResult
    func call(_ method: String, _ path: String, _ body: [String: Any]? = nil, timeout: Int = 120) throws -> [String: Any] {
        let payload = try body.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data()
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw WebDriverFailure("socket") }
        defer { close(fd) }
        var wait = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw WebDriverFailure("cannot reach chromedriver") }
        let head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(payload.count)\r\nConnection: close\r\n\r\n"
        let request = Array(head.utf8) + payload
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == request.count else {
            throw WebDriverFailure("send")
        }
        // chromedriver keeps the connection open whatever the request says: read the head,
        // then exactly Content-Length bytes.
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        var split: Int?
        var length = 0
        while split == nil || response.count < split! + 4 + length {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { throw WebDriverFailure("chromedriver closed or timed out on \(method) \(path)") }
            response += chunk[..<count]
            if split == nil, let end = response.indices.dropLast(3).first(where: {
                response[$0] == 13 && response[$0 + 1] == 10 && response[$0 + 2] == 13 && response[$0 + 3] == 10
            }) {
                split = end
                let head = String(decoding: response[..<end], as: UTF8.self).lowercased()
                if let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }) {
                    length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
        }
        guard let split else { throw WebDriverFailure("no HTTP response from chromedriver") }
        let object = try JSONSerialization.jsonObject(with: Data(response[(split + 4)..<(split + 4 + length)]))
        let reply = object as? [String: Any] ?? [:]
        if let value = reply["value"] as? [String: Any], let error = value["error"] as? String {
            throw WebDriverFailure("\(method) \(path): \(error): \(value["message"] as? String ?? "")")
        }
        return reply
    }
}

struct WebDriverFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
