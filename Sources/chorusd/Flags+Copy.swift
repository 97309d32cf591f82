import ChorusServer

extension Flags {
    static let copyUsage = "usage: chorusd copy-to-postgres [--data DIR] --postgres URL"

    /// `copy-to-postgres [--data DIR] --postgres URL`, the URL from `CHORUS_POSTGRES` when
    /// the flag is not given (as for a node); the folder defaults to the server's.
    static func parseCopy(_ words: ArraySlice<String>, environment: [String: String]) throws(Failure) -> Action {
        var words = words
        var data = ServerConfiguration().dataDirectory
        var postgres: String?
        while let word = words.popFirst() {
            if word == "--help" || word == "-h" { return .help }
            guard word.hasPrefix("--") else { throw Failure(message: copyUsage) }
            let (flag, value) = try split(word, &words)
            switch flag {
            case "--data": data = value
            case "--postgres": postgres = try conninfo(value)
            default: throw Failure(message: "unknown flag \(flag) for chorusd copy-to-postgres (\(copyUsage))")
            }
        }
        let store = StoreChoice.pick(postgres: postgres, dataDirectory: data, environment: environment)
        guard case .postgres = store else {
            throw Failure(message: "copy-to-postgres needs --postgres URL (or \(StoreChoice.environmentVariable)): "
                + "the empty database to copy \(data) into")
        }
        return .copyToPostgres(dataDirectory: data, store: store)
    }
}

extension Flags {
    static let afterRestoreUsage = "usage: chorusd after-restore [--data DIR | --postgres URL]"

    /// `after-restore [--data DIR | --postgres URL]`: the store is picked as a node's is.
    static func parseAfterRestore(_ words: ArraySlice<String>, environment: [String: String]) throws(Failure) -> Action {
        var words = words
        var data = ServerConfiguration().dataDirectory
        var postgres: String?
        while let word = words.popFirst() {
            if word == "--help" || word == "-h" { return .help }
            guard word.hasPrefix("--") else { throw Failure(message: afterRestoreUsage) }
            let (flag, value) = try split(word, &words)
            switch flag {
            case "--data": data = value
            case "--postgres": postgres = try conninfo(value)
            default: throw Failure(message: "unknown flag \(flag) for chorusd after-restore (\(afterRestoreUsage))")
            }
        }
        return .afterRestore(StoreChoice.pick(postgres: postgres, dataDirectory: data, environment: environment))
    }
}
