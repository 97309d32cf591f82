import ChorusNet

/// Opens a session and pipelines `MODE json` and a list of commands in its first write,
/// then hands back the session with each command's reply once all of them said OK. The
/// usual way a benchmark session gets registered, logged in and joined. Loop thread only.
enum SessionScript {
    struct Opened {
        let session: BenchSession
        /// One parsed reply per command, in order.
        let replies: [[String: Any]]
    }

    static func open(connector: BenchConnector, commands: [String],
                     completion: @escaping (Result<Opened, BenchFailure>) -> Void) {
        let session: BenchSession
        do {
            session = try BenchSession(connector: connector)
        } catch {
            completion(.failure(BenchFailure("cannot connect: \(error)")))
            return
        }
        var replies: [[String: Any]] = []
        var finished = false
        func fail(_ message: String) {
            guard !finished else { return }
            finished = true
            session.onClose = nil
            session.close()
            completion(.failure(BenchFailure(message)))
        }
        session.onClose = { reason in fail("session closed during set-up: \(reason)") }
        session.request("MODE json") { reply in
            if !reply.ok { fail("MODE json: \(reply.errorSummary)") }
        }
        for command in commands {
            session.request(command) { reply in
                guard !finished else { return }
                guard reply.ok else {
                    fail("\(command.split(separator: " ").prefix(2).joined(separator: " ")): \(reply.errorSummary)")
                    return
                }
                replies.append(reply.object() ?? [:])
                if replies.count == commands.count {
                    finished = true
                    session.onClose = nil
                    completion(.success(Opened(session: session, replies: replies)))
                }
            }
        }
        if commands.isEmpty {
            session.request("PING") { reply in
                guard !finished else { return }
                finished = true
                session.onClose = nil
                completion(.success(Opened(session: session, replies: [])))
            }
        }
    }
}
