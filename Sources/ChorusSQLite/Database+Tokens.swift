import ChorusCore
import ChorusStore

/// Device and bot tokens: the secret is shown once; the database keeps only its SHA-256 digest.
extension Database {
    /// `.duplicate` when the account already has a token with this label.
    public func createToken(user: Int64, label: String, kind: TokenKind, digest: String, created: String) throws -> TokenRecord {
        do {
            try prepare("INSERT INTO tokens (user, label, kind, digest, created) VALUES (?1, ?2, ?3, ?4, ?5)")
                .run(.integer(user), .text(label), .text(kind.rawValue), .text(digest), .text(created))
        } catch let error as StoreError where error.kind == .duplicate {
            throw StoreError.tokenLabelTaken(label, message: error.message)
        }
        return TokenRecord(id: lastInsertRowID, label: label, kind: kind, created: created, lastUsed: nil)
    }

    public func tokens(ofUser user: Int64) throws -> [TokenRecord] {
        try prepare("SELECT id, label, kind, created, last_used FROM tokens WHERE user = ?1 ORDER BY label")
            .rows(.integer(user)) { Self.token($0) }
    }

    /// The token and its account for a digest, marking it used now.
    public func useToken(digest: String, at time: String) throws -> (token: TokenRecord, account: AccountRecord)? {
        guard let (token, userID) = try prepare("SELECT id, label, kind, created, last_used, user FROM tokens WHERE digest = ?1")
            .row(.text(digest), map: { (Self.token($0), $0.int(5)) }),
            let account = try account(id: userID) else { return nil }
        try prepare("UPDATE tokens SET last_used = ?2 WHERE id = ?1").run(.integer(token.id), .text(time))
        return (token, account)
    }

    /// A token from `id, label, kind, created, last_used`.
    private static func token(_ row: Row) -> TokenRecord {
        TokenRecord(id: row.int(0), label: row.text(1), kind: TokenRecord.kind(stored: row.text(2)), created: row.text(3),
                    lastUsed: row.optionalText(4))
    }

    /// Deletes the caller's token with this label; returns its id, nil when there is none.
    public func revokeToken(user: Int64, label: String) throws -> Int64? {
        guard let id = try prepare("SELECT id FROM tokens WHERE user = ?1 AND label = ?2")
            .row(.integer(user), .text(label), map: { $0.int(0) }) else { return nil }
        try prepare("DELETE FROM tokens WHERE id = ?1").run(.integer(id))
        return id
    }
}
