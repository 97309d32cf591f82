import ChorusCore
import ChorusStore

/// Bot tokens: the secret is shown once; the database keeps only its SHA-256 digest.
extension Database {
    /// `.duplicate` when the account already has a token with this label.
    public func createToken(user: Int64, label: String, digest: String, created: String) throws -> TokenRecord {
        do {
            try prepare("INSERT INTO tokens (user, label, digest, created) VALUES (?1, ?2, ?3, ?4)")
                .run(.integer(user), .text(label), .text(digest), .text(created))
        } catch let error as StoreError where error.kind == .duplicate {
            throw StoreError.tokenLabelTaken(label, message: error.message)
        }
        return TokenRecord(id: lastInsertRowID, label: label, created: created, lastUsed: nil)
    }

    public func tokens(ofUser user: Int64) throws -> [TokenRecord] {
        try prepare("SELECT id, label, created, last_used FROM tokens WHERE user = ?1 ORDER BY label")
            .rows(.integer(user)) { TokenRecord(id: $0.int(0), label: $0.text(1), created: $0.text(2), lastUsed: $0.optionalText(3)) }
    }

    /// The token's id and account for a digest, marking it used now.
    public func useToken(digest: String, at time: String) throws -> (tokenID: Int64, account: AccountRecord)? {
        guard let (tokenID, userID) = try prepare("SELECT id, user FROM tokens WHERE digest = ?1")
            .row(.text(digest), map: { ($0.int(0), $0.int(1)) }),
            let account = try account(id: userID) else { return nil }
        try prepare("UPDATE tokens SET last_used = ?2 WHERE id = ?1").run(.integer(tokenID), .text(time))
        return (tokenID, account)
    }

    /// Deletes the caller's token with this label; returns its id, nil when there is none.
    public func revokeToken(user: Int64, label: String) throws -> Int64? {
        guard let id = try prepare("SELECT id FROM tokens WHERE user = ?1 AND label = ?2")
            .row(.integer(user), .text(label), map: { $0.int(0) }) else { return nil }
        try prepare("DELETE FROM tokens WHERE id = ?1").run(.integer(id))
        return id
    }
}
