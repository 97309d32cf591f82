/// One table `chorusd copy-to-postgres` copies: its name (the same in both schemas) and
/// each column as SQLite names it and as PostgreSQL does (`user` is reserved there, so
/// `user_id`), with what kind of value it holds.
public struct ImportedTable: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// INTEGER in SQLite, bigint or integer here.
        case integer
        /// SQLite's 0/1 INTEGER, boolean here.
        case flag
        case text
        case real
    }

    public struct Column: Sendable, Equatable {
        public let sqlite: String
        public let postgres: String
        public let kind: Kind
        /// A reference to a row of the same table, which may come later in id order (a
        /// task's `next_task`): inserted as NULL and set once every row is in.
        public let selfReference: Bool

        init(_ sqlite: String, _ kind: Kind, postgres: String? = nil, selfReference: Bool = false) {
            self.sqlite = sqlite
            self.postgres = postgres ?? sqlite
            self.kind = kind
            self.selfReference = selfReference
        }
    }

    public let name: String
    public let columns: [Column]
    /// Its `id` is an identity here, to be set above the copied ids (and SQLite's floor).
    public let hasIdentity: Bool

    init(_ name: String, identity: Bool, _ columns: [Column]) {
        self.name = name
        self.columns = columns
        hasIdentity = identity
    }
}

extension PostgresImport {
    /// Every table SQLite's migrations make (`Migrations.all`, up to 14), in an order
    /// where each row's references to other tables are already in. What SQLite has that
    /// is not here: `sqlite_sequence`, read for the id floors. What PostgreSQL has that
    /// SQLite never had: `event_counter` (set from the log), the events' tail columns
    /// (`audience`, from the membership spans), and the nodes' shared tables.
    /// SQLite tables left behind on purpose: `registrations` is an hour's throttle state
    /// (`--register-rate`), not data; the copied server starts with a fresh allowance.
    /// `acme_lease` and `acme_challenges` only matter while a certificate is being ordered.
    public static let notCopied: Set<String> = ["registrations", "acme_lease", "acme_challenges"]

    public static let tables: [ImportedTable] = [
        ImportedTable("users", identity: true, [
            .init("id", .integer), .init("name", .text), .init("password", .text), .init("admin", .flag),
            .init("disabled", .flag), .init("created", .text),
        ]),
        ImportedTable("rooms", identity: true, [.init("id", .integer), .init("name", .text), .init("created", .text)]),
        ImportedTable("members", identity: false, [
            .init("room", .integer), .init("user", .integer, postgres: "user_id"), .init("role", .text), .init("joined", .text),
        ]),
        ImportedTable("invites", identity: false, [
            .init("code", .text), .init("room", .integer), .init("created_by", .integer), .init("uses_left", .integer),
            .init("expires", .text), .init("created", .text),
        ]),
        ImportedTable("tasks", identity: true, [
            .init("id", .integer), .init("room", .integer), .init("owner", .integer), .init("title", .text),
            .init("notes", .text), .init("done", .flag), .init("progress", .integer), .init("assignee", .integer),
            .init("creator", .integer), .init("due", .text), .init("start", .text), .init("estimate", .real),
            .init("points", .integer), .init("parent", .integer, selfReference: true), .init("repeat", .text),
            .init("rotate", .text), .init("remind", .text), .init("created", .text), .init("done_at", .text),
            .init("done_by", .integer), .init("due_at", .integer), .init("remind_at", .integer),
            .init("behind_at", .integer), .init("overdue_sent", .flag), .init("remind_sent", .flag),
            .init("behind_sent", .flag), .init("reopen_progress", .integer),
            .init("next_task", .integer, selfReference: true), .init("repeat_day", .integer),
            .init("revision", .integer), .init("changed_at", .integer),
        ]),
        ImportedTable("messages", identity: true, [
            .init("id", .integer), .init("room", .integer), .init("sender", .integer), .init("text", .text), .init("at", .text),
        ]),
        ImportedTable("comments", identity: true, [
            .init("id", .integer), .init("task", .integer), .init("sender", .integer), .init("text", .text), .init("at", .text),
        ]),
        ImportedTable("dms", identity: true, [
            .init("id", .integer), .init("sender", .integer), .init("recipient", .integer), .init("text", .text),
            .init("at", .text),
        ]),
        ImportedTable("tokens", identity: true, [
            .init("id", .integer), .init("user", .integer, postgres: "user_id"), .init("label", .text),
            .init("digest", .text), .init("created", .text), .init("last_used", .text), .init("kind", .text),
        ]),
        // Before the events: their audience comes from the spans (ImportAudience).
        ImportedTable("memberships", identity: false, [
            .init("room", .integer), .init("user", .integer, postgres: "user_id"), .init("first_event", .integer),
            .init("last_event", .integer),
        ]),
        // Ids from event_counter here, not an identity (EventCounter.swift).
        ImportedTable("events", identity: false, [
            .init("id", .integer), .init("room", .integer), .init("user", .integer, postgres: "user_id"),
            .init("peer", .integer), .init("name", .text), .init("by", .text), .init("at", .text),
            .init("payload", .text), .init("text", .text),
        ]),
        ImportedTable("pending_notices", identity: false, [
            .init("user", .integer, postgres: "user_id"), .init("event", .integer),
        ]),
        // Who may reach whom (migration 10).
        ImportedTable("invitations", identity: false, [
            .init("room", .integer), .init("user", .integer, postgres: "user_id"), .init("invited_by", .integer),
            .init("created", .text),
        ]),
        ImportedTable("blocks", identity: false, [
            .init("user", .integer, postgres: "user_id"), .init("blocked", .integer), .init("created", .text),
        ]),
        ImportedTable("removals", identity: false, [
            .init("room", .integer), .init("user", .integer, postgres: "user_id"), .init("at", .text),
        ]),
        // Unread markers and counts (migrations 14 and 15).
        ImportedTable("read_markers", identity: false, [
            .init("user", .integer, postgres: "user_id"), .init("room", .integer), .init("event", .integer),
            .init("unread", .integer),
        ]),
        // Web Push (migration 16): the VAPID key, so subscriptions made before keep working.
        ImportedTable("vapid_keys", identity: false, [
            .init("id", .integer), .init("private_key", .text), .init("public_key", .text), .init("created", .text),
        ]),
        ImportedTable("push_subscriptions", identity: true, [
            .init("id", .integer), .init("user", .integer, postgres: "user_id"), .init("endpoint", .text), .init("p256dh", .text),
            .init("auth", .text), .init("label", .text), .init("token", .integer), .init("created", .text), .init("last_used", .text),
        ]),
        // Notices (migration 17): choices, codes waiting, and notices not yet sent.
        ImportedTable("notify_choices", identity: false, [
            .init("user", .integer, postgres: "user_id"), .init("push", .flag), .init("email", .text), .init("email_on", .flag),
            .init("kinds", .text), .init("quiet", .text), .init("tz", .text), .init("mail_stop", .text),
        ]),
        ImportedTable("email_codes", identity: false, [
            .init("user", .integer, postgres: "user_id"), .init("address", .text), .init("digest", .text), .init("expires", .integer),
            .init("tries", .integer),
        ]),
        ImportedTable("notice_outbox", identity: true, [
            .init("id", .integer), .init("user", .integer, postgres: "user_id"), .init("subscription", .integer), .init("mail_to", .text),
            .init("kind", .text), .init("title", .text), .init("body", .text), .init("url", .text), .init("topic", .text),
            .init("urgency", .text), .init("ttl", .integer), .init("not_before", .integer), .init("claimed_until", .integer),
            .init("created", .text),
        ]),
        // ACME (CONTRACT §10): the account and certificates, so the copy serves the same
        // certificate and renews with the same account. The lease is not copied: it only
        // says who is ordering at this moment.
        ImportedTable("acme_accounts", identity: false, [
            .init("directory", .text), .init("private_key", .text), .init("url", .text), .init("created", .text),
        ]),
        ImportedTable("acme_certificates", identity: false, [
            .init("names", .text), .init("chain", .text), .init("private_key", .text), .init("not_before", .integer),
            .init("not_after", .integer),
        ]),
        // Calendar feeds (migration 12): the secrets' digests, so copied links keep working.
        ImportedTable("calendar_links", identity: false, [
            .init("digest", .text), .init("user", .integer, postgres: "user_id"), .init("room", .integer),
            .init("created", .text), .init("body_digest", .text), .init("body_at", .integer),
        ]),
    ]
}
