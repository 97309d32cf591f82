import ChorusCore
import ChorusCrypto
import Foundation

/// TOKEN CREATE, LIST, REVOKE: bot tokens. A bot is an ordinary account whose sessions
/// log in with `AUTH TOKEN` instead of a password.
extension CommandContext {
    /// TOKEN CREATE LABEL
    func tokenCreate(label: String) throws -> CommandResult {
        try AccountRules.checkTokenLabel(label)
        // 256 bits from the system's CSPRNG; only the digest is stored.
        let secret = SecureRandom.hex(32)
        let token = try db.createToken(user: caller.id, label: label, digest: Digest.sha256Hex(secret), created: timestamp)
        return result(.ok("token \(label): \(secret) — shown once; keep it secret (AUTH \(secret.prefix(6))... logs in as \(caller.name))",
                          [("token", .string(secret)), ("label", .string(token.label)), ("created", .string(token.created))]))
    }

    /// TOKEN LIST
    func tokenList() throws -> CommandResult {
        let tokens = try db.tokens(ofUser: caller.id)
        let body = tokens.map { "  \($0.label.padded(toColumns: 24))  created \($0.created)  last used \($0.lastUsed ?? "never")" }
        let shapes = tokens.map { token in
            JSONValue.object([("label", .string(token.label)), ("created", .string(token.created)), ("last_used", .string(token.lastUsed))])
        }
        return result(.ok("\(tokens.count) token\(tokens.count == 1 ? "" : "s")", body: body, [("tokens", .array(shapes))]))
    }

    /// TOKEN REVOKE LABEL
    func tokenRevoke(label: String) throws -> CommandResult {
        guard let id = try db.revokeToken(user: caller.id, label: label) else {
            throw DomainError.noSuchToken(label: label)
        }
        var done = result(.ok("revoked \(label); its sessions are closed", [("label", .string(label))]))
        done.closeToken = id
        return done
    }
}
