import ChorusServer
import ChorusTestSupport
import Foundation

/// A real server for browser tests with one door per person: a `TCPProxy` in front of the
/// server's port, whose origin (`https://localhost:DOOR`) the server admits. A browser
/// that opens its person's door loses its connection for real when the door is cut
/// (DevTools' offline mode leaves an open WebSocket alone), as a phone losing Wi-Fi does.
final class WebAppServer {
    let server: TestServer
    let doors: [TCPProxy]

    init(doors count: Int = 1, configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
        let port = try FreePort.next()
        let doors = try (0..<count).map { _ in try TCPProxy(to: "127.0.0.1", port: port) }
        self.doors = doors
        server = try TestServer(configure: { configuration in
            configuration.port = port
            configuration.webOrigins += doors.map { "https://localhost:\($0.port)" }
            configure(&configuration)
        })
    }

    /// The app's address through door `index`.
    func url(_ index: Int = 0) -> String { "https://localhost:\(doors[index].port)/" }

    /// The server's own address (no door between).
    var directURL: String { "https://localhost:\(server.port)/" }
}
