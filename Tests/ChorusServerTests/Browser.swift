import ChorusTestSupport
import Foundation
import Testing

/// A real headless Chromium driven through chromedriver (W3C WebDriver over plain HTTP on
/// loopback), for what only a browser shows: the page under its Content-Security-Policy,
/// a WebSocket opened by the page's own script, the Origin a browser sends.
final class Browser {
    static let chromium = "/usr/bin/chromium"
    static let driver = "/usr/bin/chromedriver"

    /// Whether this machine has both; under CI a test that needs them fails instead of skipping.
    static var isInstalled: Bool {
        FileManager.default.isExecutableFile(atPath: chromium) && FileManager.default.isExecutableFile(atPath: driver)
    }

    private let process = Process()
    private let port: Int
    private var session = ""

    init() throws {
        port = try FreePort.next()
        process.executableURL = URL(fileURLWithPath: Self.driver)
        process.arguments = ["--port=\(port)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while (try? call("GET", "/status"))?["value"].flatMap({ ($0 as? [String: Any])?["ready"] as? Bool }) != true {
            guard Date() < deadline else { throw Failure("chromedriver did not become ready") }
            usleep(100_000)
        }
        let capabilities: [String: Any] = ["capabilities": ["alwaysMatch": [
            "browserName": "chrome", "acceptInsecureCerts": true,
            "goog:chromeOptions": ["binary": Self.chromium,
                                   "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]],
        ]]]
        let created = try call("POST", "/session", capabilities)
        guard let id = (created["value"] as? [String: Any])?["sessionId"] as? String else {
            throw Failure("no session: \(created)")
        }
        session = id
    }

    deinit {
        if !session.isEmpty { _ = try? call("DELETE", "/session/\(session)") }
        // SIGKILL: a child of the test process inherits its blocked SIGTERM (the server's
        // signal thread takes signals that way), so chromedriver would never see one. Its
        // browser went with the session above.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    func open(_ url: String) throws {
        _ = try call("POST", "/session/\(session)/url", ["url": url])
    }

    var title: String {
        get throws { try call("GET", "/session/\(session)/title")["value"] as? String ?? "" }
    }

    /// Runs `script` in the page as an async function body; it ends by calling
    /// `arguments[arguments.length - 1](result)`.
    func runAsync(_ script: String, timeout: Double = 20) throws -> Any? {
        _ = try call("POST", "/session/\(session)/timeouts", ["script": Int(timeout * 1000)])
        return try call("POST", "/session/\(session)/execute/async", ["script": script, "args": []])["value"]
    }

    // MARK: WebDriver's HTTP

    private func call(_ method: String, _ path: String, _ body: [String: Any]? = nil) throws -> [String: Any] {
        let payload = try body.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data()
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure("cannot reach chromedriver") }
        let head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(payload.count)\r\nConnection: close\r\n\r\n"
        let request = Array(head.utf8) + payload
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == request.count else { throw Failure("send") }
        // chromedriver keeps the connection open whatever the request says: read the head,
        // then exactly Content-Length bytes.
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        var split: Int?
        var length = 0
        while split == nil || response.count < split! + 4 + length {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { throw Failure("chromedriver closed or timed out") }
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
        guard let split else { throw Failure("no HTTP response from chromedriver") }
        let object = try JSONSerialization.jsonObject(with: Data(response[(split + 4)..<(split + 4 + length)]))
        return object as? [String: Any] ?? [:]
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
