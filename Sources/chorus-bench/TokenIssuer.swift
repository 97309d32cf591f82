import ChorusNet

/// Registers accounts and creates one bot token for each, for workloads that log in with
/// `AUTH` (cheap: a SHA-256, no password hash). Loop thread only.
enum TokenIssuer {
    struct Issued {
        let tokens: [String]
        let tls: String
    }

    /// Account `index` registers through node `index` mod nodes (any node would do: they
    /// share one database).
    static func issue(nodes: NodeConnectors, names: [String], password: String, parallel: Int,
                      completion: @escaping (Result<Issued, BenchFailure>) -> Void) {
        var tokens = [String](repeating: "", count: names.count)
        var tls = "unknown"
        var launcher: BoundedLauncher?
        launcher = BoundedLauncher(total: names.count, parallel: parallel) { index, done in
            let commands = ["REGISTER \(names[index]) \(password)", "TOKEN CREATE bench"]
            SessionScript.open(connector: nodes.connector(for: index), commands: commands) { result in
                switch result {
                case .failure(let failure):
                    done(BenchFailure("\(names[index]): \(failure.message)"))
                case .success(let opened):
                    guard let token = opened.replies[1]["token"] as? String else {
                        done(BenchFailure("TOKEN CREATE: no token in the reply"))
                        return
                    }
                    tokens[index] = token
                    if let connection = opened.session.connection {
                        tls = "\(connection.protocolVersion) \(connection.cipherName)"
                    }
                    // Not needed any more: set-up sessions must not count as measured ones.
                    opened.session.close()
                    done(nil)
                }
            }
        }
        launcher?.start { failure in
            launcher = nil
            if let failure {
                completion(.failure(failure))
            } else {
                completion(.success(Issued(tokens: tokens, tls: tls)))
            }
        }
    }
}
