import ChorusCore
import ChorusStore

/// Notices for people not looking, as SQLite's (`Database+Notify.swift`). Claiming skips
/// rows another node's transaction is claiming (`FOR UPDATE SKIP LOCKED`), so two
/// dispatchers never take the same row, and neither waits for the other.
extension PostgresStore {
    public func notifyChoices(ofUser user: Int64) throws -> NotifyChoices? {
        try row("SELECT push, email, email_on, kinds, quiet, tz FROM notify_choices WHERE user_id = $1", [.int(user)]) { row in
            NotifyChoices(stored: try row.bool(0) ?? true, email: row.string(1), emailOn: try row.bool(2) ?? false, kinds: row.text(3),
                          quiet: row.string(4), zone: row.string(5))
        }
    }

    public func saveNotifyChoices(_ choices: NotifyChoices, user: Int64) throws {
        try write("""
            INSERT INTO notify_choices (user_id, push, email, email_on, kinds, quiet, tz) VALUES ($1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT (user_id) DO UPDATE SET push = EXCLUDED.push, email = EXCLUDED.email, email_on = EXCLUDED.email_on,
              kinds = EXCLUDED.kinds, quiet = EXCLUDED.quiet, tz = EXCLUDED.tz
            """, [.int(user), .bool(choices.push), Self.optional(choices.emailAddress), .bool(choices.emailOn), .text(choices.storedKinds),
                  Self.optional(choices.quiet?.text), Self.optional(choices.zone)])
    }

    public func setMailStop(user: Int64, token: String) throws {
        try write("UPDATE notify_choices SET mail_stop = $2 WHERE user_id = $1", [.int(user), .text(token)])
    }

    public func stopMail(token: String) throws -> Bool {
        guard try write("UPDATE notify_choices SET email_on = false WHERE mail_stop = $1", [.text(token)]) > 0 else { return false }
        try write("""
            DELETE FROM notice_outbox WHERE mail_to IS NOT NULL AND kind <> 'email.verify'
              AND user_id = (SELECT user_id FROM notify_choices WHERE mail_stop = $1)
            """, [.text(token)])
        return true
    }

    public func renewNoticeClaims(ids: [Int64], until: Int64) throws {
        guard !ids.isEmpty else { return }
        try write("UPDATE notice_outbox SET claimed_until = $2 WHERE id = ANY($1::bigint[])",
                  [.text("{" + ids.map(String.init).joined(separator: ",") + "}"), .int(until)])
    }

    public func dropUnwantedNotices(user: Int64, choices: NotifyChoices) throws {
        try write("""
            DELETE FROM notice_outbox WHERE user_id = $1 AND kind <> 'email.verify'
              AND ((subscription IS NOT NULL AND NOT $2) OR (mail_to IS NOT NULL AND NOT $3) OR NOT (kind = ANY($4::text[])))
            """, [.int(user), .bool(choices.push), .bool(choices.emailOn),
                  .text("{" + choices.kinds.map(\.eventName).joined(separator: ",") + "}")])
    }

    public func endNotices(user: Int64) throws {
        try write("DELETE FROM push_subscriptions WHERE user_id = $1", [.int(user)])
        try write("DELETE FROM notice_outbox WHERE user_id = $1", [.int(user)])
    }

    public func saveEmailCode(user: Int64, address: String, digest: String, expires: Int64) throws {
        try write("""
            INSERT INTO email_codes (user_id, address, digest, expires, tries) VALUES ($1, $2, $3, $4, 0)
            ON CONFLICT (user_id) DO UPDATE SET address = EXCLUDED.address, digest = EXCLUDED.digest, expires = EXCLUDED.expires, tries = 0
            """, [.int(user), .text(address), .text(digest), .int(expires)])
    }

    public func emailCode(ofUser user: Int64) throws -> EmailCodeRecord? {
        try row("SELECT address, digest, expires, tries FROM email_codes WHERE user_id = $1", [.int(user)]) { row in
            EmailCodeRecord(address: row.text(0), digest: row.text(1), expires: try row.int(2), tries: Int(try row.int(3)))
        }
    }

    public func countEmailCodeTry(user: Int64) throws {
        try write("UPDATE email_codes SET tries = tries + 1 WHERE user_id = $1", [.int(user)])
    }

    public func deleteEmailCode(user: Int64) throws {
        try write("DELETE FROM email_codes WHERE user_id = $1", [.int(user)])
    }

    @discardableResult
    public func queueNotice(_ notice: QueuedNotice, created: String) throws -> Int {
        let values: [PostgresValue] = [.int(notice.user), .text(notice.event), .text(notice.title), .text(notice.body),
                                       .text(notice.url), Self.optional(notice.topic), .text(notice.urgency), .int(Int64(notice.ttl)),
                                       .int(notice.notBefore), .text(created)]
        var rows: Int64 = 0
        if notice.push {
            rows += try write("""
                INSERT INTO notice_outbox (user_id, subscription, kind, title, body, url, topic, urgency, ttl, not_before, created)
                SELECT $1, id, $2, $3, $4, $5, $6, $7, $8, $9, $10 FROM push_subscriptions WHERE user_id = $1 ORDER BY id
                """, values)
        }
        if let mailTo = notice.mailTo {
            rows += try write("""
                INSERT INTO notice_outbox (user_id, mail_to, kind, title, body, url, topic, urgency, ttl, not_before, created)
                VALUES ($1, $11, $2, $3, $4, $5, $6, $7, $8, $9, $10)
                """, values + [.text(mailTo)])
        }
        return Int(rows)
    }

    public func claimNotices(readyAt now: Int64, leaseUntil: Int64, limit: Int, mail: Bool) throws -> [ClaimedNotice] {
        writes += 1
        return try rows("""
            WITH claimed AS (
              UPDATE notice_outbox o SET claimed_until = $2
              FROM (SELECT id FROM notice_outbox WHERE not_before <= $1 AND claimed_until <= $1 AND (mail_to IS NULL OR $4)
                    ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED) ready
              WHERE o.id = ready.id
              RETURNING o.id, o.user_id, o.kind, o.title, o.body, o.url, o.topic, o.urgency, o.ttl, o.mail_to, o.subscription
            )
            SELECT c.id, c.user_id, c.kind, c.title, c.body, c.url, c.topic, c.urgency, c.ttl, c.mail_to,
              s.id, s.user_id, s.endpoint, s.p256dh, s.auth, s.label, s.created, s.last_used, n.mail_stop
            FROM claimed c LEFT JOIN push_subscriptions s ON s.id = c.subscription
              LEFT JOIN notify_choices n ON n.user_id = c.user_id AND n.email = c.mail_to
            ORDER BY c.id
            """, [.int(now), .int(leaseUntil), .int(Int64(limit)), .bool(mail)]) { row in
            let subscription = try row.string(12).map { endpoint in
                PushSubscriptionRecord(id: try row.int(10), user: try row.int(11), endpoint: endpoint, p256dh: row.text(13),
                                       auth: row.text(14), label: row.text(15), created: row.text(16), lastUsed: row.string(17))
            }
            return ClaimedNotice(id: try row.int(0), user: try row.int(1), kind: row.text(2), title: row.text(3), body: row.text(4),
                                 url: row.text(5), topic: row.string(6), urgency: row.text(7), ttl: Int(try row.int(8)),
                                 subscription: subscription, mailTo: row.string(9), mailStop: row.string(18))
        }
    }

    public func finishNotice(id: Int64, usedAt: String?) throws {
        if let usedAt {
            try write("UPDATE push_subscriptions SET last_used = $2 WHERE id = (SELECT subscription FROM notice_outbox WHERE id = $1)",
                      [.int(id), .text(usedAt)])
        }
        try write("DELETE FROM notice_outbox WHERE id = $1", [.int(id)])
    }

    public func releaseNotice(id: Int64) throws {
        try write("UPDATE notice_outbox SET claimed_until = 0 WHERE id = $1", [.int(id)])
    }

    public func endPushSubscription(id: Int64) throws {
        try write("DELETE FROM push_subscriptions WHERE id = $1", [.int(id)])
    }


    private static func optional(_ text: String?) -> PostgresValue { text.map { .text($0) } ?? .null }
}
