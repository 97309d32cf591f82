import ChorusCore
import ChorusStore

/// Notices for people not looking: choices, e-mail codes, the outbox (migration 17).
extension Database {
    public func notifyChoices(ofUser user: Int64) throws -> NotifyChoices? {
        try prepare("SELECT push, email, email_on, kinds, quiet, tz FROM notify_choices WHERE user = ?1").row(.integer(user)) { row in
            NotifyChoices(stored: row.int(0) != 0, email: row.optionalText(1), emailOn: row.int(2) != 0, kinds: row.text(3),
                          quiet: row.optionalText(4), zone: row.optionalText(5))
        }
    }

    public func saveNotifyChoices(_ choices: NotifyChoices, user: Int64) throws {
        try prepare("""
            INSERT INTO notify_choices (user, push, email, email_on, kinds, quiet, tz) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
            ON CONFLICT (user) DO UPDATE SET push = excluded.push, email = excluded.email, email_on = excluded.email_on,
              kinds = excluded.kinds, quiet = excluded.quiet, tz = excluded.tz
            """).run(.integer(user), .integer(choices.push ? 1 : 0), .init(choices.emailAddress), .integer(choices.emailOn ? 1 : 0),
                     .text(choices.storedKinds), .init(choices.quiet?.text), .init(choices.zone))
    }

    public func setMailStop(user: Int64, token: String) throws {
        try prepare("UPDATE notify_choices SET mail_stop = ?2 WHERE user = ?1").run(.integer(user), .text(token))
    }

    public func stopMail(token: String) throws -> Bool {
        try prepare("UPDATE notify_choices SET email_on = 0 WHERE mail_stop = ?1").run(.text(token))
        guard changes > 0 else { return false }
        try prepare("""
            DELETE FROM notice_outbox WHERE mail_to IS NOT NULL AND kind <> 'email.verify'
              AND user = (SELECT user FROM notify_choices WHERE mail_stop = ?1)
            """).run(.text(token))
        return true
    }

    public func renewNoticeClaims(ids: [Int64], until: Int64) throws {
        let renew = try prepare("UPDATE notice_outbox SET claimed_until = ?2 WHERE id = ?1")
        for id in ids { try renew.run(.integer(id), .integer(until)) }
    }

    public func dropUnwantedNotices(user: Int64, choices: NotifyChoices) throws {
        let wanted = choices.kinds.map { "'\($0.eventName)'" }.joined(separator: ",")
        try prepare("""
            DELETE FROM notice_outbox WHERE user = ?1 AND kind <> 'email.verify'
              AND ((subscription IS NOT NULL AND NOT ?2) OR (mail_to IS NOT NULL AND NOT ?3) OR kind NOT IN (\(wanted)))
            """).run(.integer(user), .integer(choices.push ? 1 : 0), .integer(choices.emailOn ? 1 : 0))
    }

    public func endNotices(user: Int64) throws {
        try prepare("DELETE FROM push_subscriptions WHERE user = ?1").run(.integer(user))
        try prepare("DELETE FROM notice_outbox WHERE user = ?1").run(.integer(user))
    }

    public func saveEmailCode(user: Int64, address: String, digest: String, expires: Int64) throws {
        try prepare("""
            INSERT INTO email_codes (user, address, digest, expires, tries) VALUES (?1, ?2, ?3, ?4, 0)
            ON CONFLICT (user) DO UPDATE SET address = excluded.address, digest = excluded.digest, expires = excluded.expires, tries = 0
            """).run(.integer(user), .text(address), .text(digest), .integer(expires))
    }

    public func emailCode(ofUser user: Int64) throws -> EmailCodeRecord? {
        try prepare("SELECT address, digest, expires, tries FROM email_codes WHERE user = ?1").row(.integer(user)) { row in
            EmailCodeRecord(address: row.text(0), digest: row.text(1), expires: row.int(2), tries: Int(row.int(3)))
        }
    }

    public func countEmailCodeTry(user: Int64) throws {
        try prepare("UPDATE email_codes SET tries = tries + 1 WHERE user = ?1").run(.integer(user))
    }

    public func deleteEmailCode(user: Int64) throws {
        try prepare("DELETE FROM email_codes WHERE user = ?1").run(.integer(user))
    }

    @discardableResult
    public func queueNotice(_ notice: QueuedNotice, created: String) throws -> Int {
        let values: [Statement.Value] = [.integer(notice.user), .text(notice.event), .text(notice.title), .text(notice.body),
                                        .text(notice.url), .init(notice.topic), .text(notice.urgency), .integer(Int64(notice.ttl)),
                                        .integer(notice.notBefore), .text(created)]
        var rows = 0
        if notice.push {
            try prepare("""
                INSERT INTO notice_outbox (user, subscription, kind, title, body, url, topic, urgency, ttl, not_before, created)
                SELECT ?1, id, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10 FROM push_subscriptions WHERE user = ?1 ORDER BY id
                """).run(values)
            rows += changes
        }
        if let mailTo = notice.mailTo {
            try prepare("""
                INSERT INTO notice_outbox (user, mail_to, kind, title, body, url, topic, urgency, ttl, not_before, created)
                VALUES (?1, ?11, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
                """).run(values + [.text(mailTo)])
            rows += changes
        }
        return rows
    }

    public func claimNotices(readyAt now: Int64, leaseUntil: Int64, limit: Int, mail: Bool) throws -> [ClaimedNotice] {
        let ids = try prepare("""
            UPDATE notice_outbox SET claimed_until = ?2
            WHERE id IN (SELECT id FROM notice_outbox WHERE not_before <= ?1 AND claimed_until <= ?1 AND (mail_to IS NULL OR ?4)
                         ORDER BY id LIMIT ?3)
            RETURNING id
            """).rows(.integer(now), .integer(leaseUntil), .integer(Int64(limit)), .integer(mail ? 1 : 0)) { $0.int(0) }
        guard !ids.isEmpty else { return [] }
        return try ids.sorted().compactMap { id in
            try prepare("""
                SELECT o.id, o.user, o.kind, o.title, o.body, o.url, o.topic, o.urgency, o.ttl, o.mail_to,
                  s.id, s.user, s.endpoint, s.p256dh, s.auth, s.label, s.created, s.last_used, n.mail_stop
                FROM notice_outbox o LEFT JOIN push_subscriptions s ON s.id = o.subscription
                  LEFT JOIN notify_choices n ON n.user = o.user AND n.email = o.mail_to
                WHERE o.id = ?1
                """).row(.integer(id), map: Self.claimedNotice)
        }
    }

    static func claimedNotice(_ row: Row) -> ClaimedNotice {
        let subscription = row.optionalText(12).map { endpoint in
            PushSubscriptionRecord(id: row.int(10), user: row.int(11), endpoint: endpoint, p256dh: row.text(13), auth: row.text(14),
                                   label: row.text(15), created: row.text(16), lastUsed: row.optionalText(17))
        }
        return ClaimedNotice(id: row.int(0), user: row.int(1), kind: row.text(2), title: row.text(3), body: row.text(4), url: row.text(5),
                             topic: row.optionalText(6), urgency: row.text(7), ttl: Int(row.int(8)), subscription: subscription,
                             mailTo: row.optionalText(9), mailStop: row.optionalText(18))
    }

    public func finishNotice(id: Int64, usedAt: String?) throws {
        if let usedAt {
            try prepare("""
                UPDATE push_subscriptions SET last_used = ?2 WHERE id = (SELECT subscription FROM notice_outbox WHERE id = ?1)
                """).run(.integer(id), .text(usedAt))
        }
        try prepare("DELETE FROM notice_outbox WHERE id = ?1").run(.integer(id))
    }

    public func releaseNotice(id: Int64) throws {
        try prepare("UPDATE notice_outbox SET claimed_until = 0 WHERE id = ?1").run(.integer(id))
    }

    public func endPushSubscription(id: Int64) throws {
        try prepare("DELETE FROM push_subscriptions WHERE id = ?1").run(.integer(id))
    }

}
