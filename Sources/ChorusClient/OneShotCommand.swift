/// `chorus [flags] COMMAND ...`: connect, log in, send one request, print its reply and
/// exit 0 on OK, 1 on ERR, 2 when it never got that far. Events that arrive before the
/// reply are not the question asked, so they are not printed.
public struct OneShotCommand {
    let connector: ServerConnector
    let credentials: Credentials?
    let line: String
    let json: Bool
    let console: Console
    /// Generous: a login at the default scrypt cost and a busy server both take a while.
    let timeout: Double

    public init(connector: ServerConnector, credentials: Credentials?, line: String, json: Bool,
                console: Console, timeout: Double = 60) {
        self.connector = connector
        self.credentials = credentials
        self.line = line
        self.json = json
        self.console = console
        self.timeout = timeout
    }

    public func run() throws(ClientFailure) -> Int32 {
        let client = try connector.connect()
        defer { client.close() }
        let greeting = ServerLine(try nextLine(client))
        // A full server answers `ERR 503` instead of a greeting, then closes.
        if greeting.kind == .error { throw ClientFailure("\(connector.endpoint) refused the session: \(greeting.errorMessage)") }
        if json {
            let mode = try request("MODE json", on: client)
            guard mode.kind == .ok else { throw ClientFailure("the server refused MODE json: \(mode.errorMessage)") }
        }
        if let credentials {
            let login = try request(credentials.loginLine, on: client)
            guard login.kind == .ok else { throw ClientFailure("login failed: \(login.errorMessage)") }
        }
        // Body lines are shown as they come (JSON mode has none), so however many a server
        // sends, the client holds one at a time.
        let final = try request(line, on: client) { console.show($0.raw, style: .plain) }
        console.show(final.raw, style: final.kind == .ok ? .ok : .error)
        return final.kind == .ok ? 0 : 1
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
