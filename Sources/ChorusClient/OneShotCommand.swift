import Foundation

/// `chorus [flags] COMMAND ...`: connect, log in, send one request, print its reply and
/// exit 0 on OK, 1 on ERR, 2 when it never got that far. Events that arrive before the
/// reply are not the question asked, so they are not printed. A reply that is a file
/// (`CALENDAR`'s iCalendar text) is written as that file, byte for byte, to standard
/// output or `--output FILE`: `chorus ... CALENDAR me > alice.ics` makes a calendar.
public struct OneShotCommand {
    let connector: ServerConnector
    let credentials: Credentials?
    let line: String
    let json: Bool
    let console: Console
    /// Where the output goes instead of standard output (`--output FILE`).
    let output: String?
    /// Generous: a login at the default scrypt cost and a busy server both take a while.
    let timeout: Double

    /// The verbs whose reply carries a file, and the JSON field that holds it. Text mode
    /// splits the file into body lines and adds an OK line, so the client asks in JSON
    /// and writes the field as it came (CRLF line ends and all).
    static let fileFields = ["CALENDAR": "ics"]

    public init(connector: ServerConnector, credentials: Credentials?, line: String, json: Bool,
                console: Console, output: String? = nil, timeout: Double = 60) {
        self.connector = connector
        self.credentials = credentials
        self.line = line
        self.json = json
        self.console = console
        self.output = output
        self.timeout = timeout
    }

    /// The field holding the reply's file, unless JSON was asked for (a bot reads the field).
    var fileField: String? {
        guard !json, let verb = line.split(separator: " ", maxSplits: 1).first else { return nil }
        return Self.fileFields[verb.uppercased()]
    }

    public func run() throws(ClientFailure) -> Int32 {
        let client = try connector.connect()
        defer { client.close() }
        let greeting = ServerLine(try nextLine(client))
        // A full server answers `ERR 503` instead of a greeting, then closes.
        if greeting.kind == .error { throw ClientFailure("\(connector.endpoint) refused the session: \(greeting.errorMessage)") }
        let fileField = self.fileField
        if json || fileField != nil {
            let mode = try request("MODE json", on: client)
            guard mode.kind == .ok else { throw ClientFailure("the server refused MODE json: \(mode.errorMessage)") }
        }
        if let credentials {
            let login = try request(credentials.loginLine, on: client)
            guard login.kind == .ok else { throw ClientFailure("login failed: \(login.errorMessage)") }
        }
        if let fileField { return try writeFile(try request(line, on: client), field: fileField) }
        // Body lines are shown, or written to --output, as they come (JSON mode has none):
        // however many a server sends, the client holds one at a time.
        let file = try output.map(Self.create)
        defer { try? file?.close() }
        let final = try request(line, on: client) { body in
            if let file { file.write(Data((TerminalSafeText.line(body.raw) + "\n").utf8)) } else { console.show(body.raw, style: .plain) }
        }
        if let file {
            file.write(Data((TerminalSafeText.line(final.raw) + "\n").utf8))
        } else {
            console.show(final.raw, style: final.kind == .ok ? .ok : .error)
        }
        return final.kind == .ok ? 0 : 1
    }

    /// An OK reply's file, as it came; a refusal as text mode words it, on standard error,
    /// with nothing written.
    private func writeFile(_ reply: ServerLine, field: String) throws(ClientFailure) -> Int32 {
        guard reply.kind == .ok else {
            let code = (reply.json?["code"] as? Int).map { " \($0)" } ?? ""
            FileHandle.standardError.write(Data("ERR\(code) \(reply.errorMessage)\n".utf8))
            return 1
        }
        guard let file = reply.json?[field] as? String else {
            throw ClientFailure("the reply carried no \(field) file: \(TerminalSafeText.line(reply.raw))")
        }
        if let output {
            let handle = try Self.create(output)
            handle.write(Data(file.utf8))
            try? handle.close()
        } else {
            FileHandle.standardOutput.write(Data(file.utf8))
        }
        return 0
    }

    /// `--output FILE`, made empty (or new) for writing.
    private static func create(_ path: String) throws(ClientFailure) -> FileHandle {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw ClientFailure("cannot write \(path)")
        }
        return handle
    }

    /// Sends one line and reads its reply, skipping events; `body` gets each body line
    /// (the setup requests' are dropped).
    private func request(_ text: String, on client: LineClient,
                         body: (ServerLine) -> Void = { _ in }) throws(ClientFailure) -> ServerLine {
        do {
            try client.send(text)
        } catch {
            throw ClientFailure("lost the connection to \(connector.endpoint): \(error)")
        }
        while true {
            let line = ServerLine(try nextLine(client))
            switch line.kind {
            case .event: continue
            case .body: body(line)
            case .ok, .error: return line
            }
        }
    }

    private func nextLine(_ client: LineClient) throws(ClientFailure) -> String {
        let line: String?
        do {
            line = try client.readLine(timeout: timeout)
        } catch {
            throw ClientFailure("no reply from \(connector.endpoint) within \(Int(timeout)) s")
        }
        guard let line else { throw ClientFailure("\(connector.endpoint) closed the connection") }
        return line
    }
}
