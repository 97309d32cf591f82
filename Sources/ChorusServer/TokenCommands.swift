import ChorusCore
import ChorusCrypto
import Foundation

/// TOKEN CREATE, LIST, REVOKE: device and bot tokens. A session that logs in with
/// `AUTH TOKEN` is its account's, whichever the kind: a person's browser keeps one so the
/// password is never stored there, a bot uses one instead of a password.
extension CommandContext {
    /// TOKEN CREATE LABEL [kind=device|bot]
    func tokenCreate(label: String, kind: TokenKind) throws -> CommandResult {
        try AccountRules.checkMayMakeToken(signedInWith: caller.token?.kind)
        try AccountRules.checkTokenLabel(label)
        // 256 bits from the system's CSPRNG; only the digest is stored.
        let secret = SecureRandom.hex(32)
        let token = try db.createToken(user: caller.id, label: label, kind: kind, digest: Digest.sha256Hex(secret), created: timestamp)
        return result(.ok("\(kind.rawValue) token \(label): \(secret) — shown once; keep it secret (AUTH \(secret.prefix(6))... logs in as \(caller.name))",
                          [("token", .string(secret)), ("label", .string(token.label)), ("kind", .string(token.kind.rawValue)),
                           ("created", .string(token.created))]))
    }

    /// TOKEN LIST
    func tokenList() throws -> CommandResult {
        let tokens = try db.tokens(ofUser: caller.id)
        let body = tokens.map { token in
            "  \(token.label.padded(toColumns: 24))  \(token.kind.rawValue.padded(toColumns: 6))  created \(token.created)  last used \(token.lastUsed ?? "never")"
        }
        let shapes = tokens.map { token in
            JSONValue.object([("label", .string(token.label)), ("kind", .string(token.kind.rawValue)), ("created", .string(token.created)),
                              ("last_used", .string(token.lastUsed))])
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
