import ChorusCore
import ChorusRendering
import ChorusStore

/// BLOCK, UNBLOCK, BLOCKS: whose invitations and DMs reach the caller (CONTRACT §11).
/// Sharing a room is unaffected; what a blocked person sends is answered as if delivered.
extension CommandContext {
    /// BLOCK USER: also ends the invitations they sent the caller that are still open.
    func block(_ name: String) throws -> CommandResult {
        let account = try user(named: name)
        try Consent.requireBlockable((account.id, account.name), caller: caller.id)
        let added = try db.block(account.id, by: caller.id, created: timestamp)
        let ended = try db.deleteInvitations(toUser: caller.id, from: account.id)
        var summary = added ? "blocked \(account.name) — their invitations and DMs no longer reach you"
                            : "\(account.name) was blocked already"
        if ended > 0 { summary += ended == 1 ? " · 1 invitation from them ended" : " · \(ended) invitations from them ended" }
        return result(.ok(summary, [("user", .string(account.name)), ("blocked", .bool(true))]))
    }

    /// UNBLOCK USER
    func unblock(_ name: String) throws -> CommandResult {
        let account = try user(named: name)
        let removed = try db.unblock(account.id, by: caller.id)
        return result(.ok(removed ? "unblocked \(account.name)" : "\(account.name) was not blocked",
                          [("user", .string(account.name)), ("blocked", .bool(false))]))
    }

    /// BLOCKS
    func blocks() throws -> CommandResult {
        let blocks = try db.blocks(ofUser: caller.id)
        let body = blocks.map { "  \($0.name.padded(toColumns: 32))  since \($0.since)" }
        return result(.ok(blocks.count == 1 ? "1 blocked" : "\(blocks.count) blocked", body: body,
                          [("blocks", .array(blocks.map(present.block)))]))
    }
}
