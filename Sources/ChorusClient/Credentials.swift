import Foundation

/// Who to log in as: a name with a password, or a bot token. Read from files or the
/// environment only, never from flags, so they do not show in `ps`; `description` is
/// redacted so they cannot leak into a message by accident.
public enum Credentials: CustomStringConvertible {
    case password(user: String, password: String)
    case token(String)

    /// The request that logs in.
    public var loginLine: String {
        switch self {
        case .password(let user, let password):
            return "LOGIN \(RequestLineBuilder.quotedIfNeeded(user)) \(RequestLineBuilder.quotedIfNeeded(password))"
        case .token(let token):
            return "AUTH \(RequestLineBuilder.quotedIfNeeded(token))"
        }
    }

    public var description: String {
        switch self {
        case .password(let user, _): return "password login as \(user)"
        case .token: return "token login"
        }
    }

    /// Reads the secrets the flags point at: `--password-file` or `CHORUS_PASSWORD` with
    /// `--user`, else what `askPassword` gets (at a terminal, a prompt without echo);
    /// `--token-file` or `CHORUS_TOKEN` otherwise. Nil when none are given. A file that
    /// its group or others may read gets one line to `warn` (as ssh does for keys); it is
    /// still used.
    public static func load(user: String?, passwordFile: String?, tokenFile: String?,
                            environment: [String: String],
                            askPassword: ((_ user: String) throws(ClientFailure) -> String?)? = nil,
                            warn: (String) -> Void = Self.warnOnStandardError) throws(ClientFailure) -> Credentials? {
        if let user {
            guard tokenFile == nil else { throw ClientFailure("--user and --token-file do not go together") }
            if let passwordFile {
                return .password(user: user, password: try firstLine(of: passwordFile, what: "password file", warn: warn))
            }
            if let password = environment["CHORUS_PASSWORD"], !password.isEmpty {
                return .password(user: user, password: password)
            }
            if let askPassword {
                guard let password = try askPassword(user), !password.isEmpty else {
                    throw ClientFailure("no password given for \(user)")
                }
                return .password(user: user, password: password)
            }
            throw ClientFailure("--user \(user) needs a password: --password-file FILE, the CHORUS_PASSWORD variable, "
                                + "or run chorus at a terminal to be asked")
        }
        if passwordFile != nil { throw ClientFailure("--password-file needs --user NAME") }
        if let tokenFile {
            return .token(try firstLine(of: tokenFile, what: "token file", warn: warn).trimmingSpaces)
        }
        if let token = environment["CHORUS_TOKEN"]?.trimmingSpaces, !token.isEmpty {
            return .token(token)
        }
        return nil
    }

    public static func warnOnStandardError(_ line: String) {
        FileHandle.standardError.write(Data("chorus: warning: \(line)\n".utf8))
    }

    /// The first line without its line end; the rest of the file is ignored.
    static func firstLine(of path: String, what: String, warn: (String) -> Void) throws(ClientFailure) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ClientFailure("cannot read \(what) \(path)")
        }
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & (S_IRGRP | S_IROTH) != 0 {
            let mode = String(status.st_mode & 0o777, radix: 8)
            warn("the \(what) \(path) can be read by other users (mode \(mode)); make it yours alone: chmod 600 \(path)")
        }
        let text = String(decoding: data, as: UTF8.self)
        var line = Substring(text.prefix { $0 != "\n" && $0 != "\r\n" })
        if line.hasSuffix("\r") { line = line.dropLast() }
        guard !line.isEmpty else { throw ClientFailure("the \(what) \(path) is empty") }
        return String(line)
    }
}
