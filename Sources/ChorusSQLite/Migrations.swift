import CSQLite
import ChorusStore

/// Numbered schema migrations, applied in order at open, each inside its own transaction,
/// and recorded in `PRAGMA user_version` (the number applied so far).
///
/// Later issues append to `all`; an applied migration is never edited, because databases
/// in the field already ran it and would never run the new text.
public enum Migrations {
    public static let all: [Migration] = [
        // 1: accounts.
        """
        CREATE TABLE users (
          id INTEGER PRIMARY KEY,
          name TEXT NOT NULL UNIQUE,
          password TEXT NOT NULL,
          admin INTEGER NOT NULL DEFAULT 0 CHECK (admin IN (0,1)),
          disabled INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0,1)),
          created TEXT NOT NULL
        ) STRICT;
        """,
        // 2: households: rooms, members, invites, tasks, messages, comments, the event log.
        """
        CREATE TABLE rooms (
          id INTEGER PRIMARY KEY,
          name TEXT NOT NULL,
          created TEXT NOT NULL
        ) STRICT;
        CREATE TABLE members (
          room INTEGER NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
          user INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
          role TEXT NOT NULL CHECK (role IN ('owner','admin','member')),
          joined TEXT NOT NULL,
          PRIMARY KEY (room, user)
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX members_by_user ON members(user, room);
        CREATE TABLE invites (
          code TEXT PRIMARY KEY,
          room INTEGER NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
          created_by INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
          uses_left INTEGER CHECK (uses_left IS NULL OR uses_left >= 0),
          expires TEXT,
          created TEXT NOT NULL
        ) STRICT;
        CREATE INDEX invites_by_room ON invites(room);
        CREATE TABLE tasks (
          id INTEGER PRIMARY KEY,
          room INTEGER REFERENCES rooms(id) ON DELETE CASCADE,
          owner INTEGER REFERENCES users(id) ON DELETE CASCADE,
          title TEXT NOT NULL,
          notes TEXT,
          done INTEGER NOT NULL DEFAULT 0 CHECK (done IN (0,1)),
          progress INTEGER NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 100),
          assignee INTEGER REFERENCES users(id) ON DELETE SET NULL,
          creator INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
          due TEXT,
          start TEXT,
          estimate REAL,
          points INTEGER NOT NULL DEFAULT 1 CHECK (points >= 0),
          parent INTEGER REFERENCES tasks(id) ON DELETE CASCADE,
          repeat TEXT,
          rotate TEXT,
          remind TEXT,
          created TEXT NOT NULL,
          done_at TEXT,
          done_by INTEGER REFERENCES users(id) ON DELETE SET NULL,
          CHECK ((room IS NULL) <> (owner IS NULL))
        ) STRICT;
        CREATE INDEX tasks_by_room ON tasks(room, done);
        CREATE INDEX tasks_by_assignee ON tasks(assignee, done);
        CREATE INDEX tasks_by_owner ON tasks(owner, done);
        CREATE INDEX tasks_by_parent ON tasks(parent);
        CREATE INDEX tasks_by_creator ON tasks(creator);
        CREATE INDEX tasks_by_done_by ON tasks(done_by);
        CREATE TABLE messages (
          id INTEGER PRIMARY KEY,
          room INTEGER NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
          sender INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
          text TEXT NOT NULL,
          at TEXT NOT NULL
        ) STRICT;
        CREATE INDEX messages_by_room ON messages(room, id);
        CREATE INDEX messages_by_sender ON messages(sender);
        CREATE TABLE comments (
          id INTEGER PRIMARY KEY,
          task INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
          sender INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
          text TEXT NOT NULL,
          at TEXT NOT NULL
        ) STRICT;
        CREATE INDEX comments_by_task ON comments(task, id);
        CREATE INDEX comments_by_sender ON comments(sender);
        CREATE INDEX invites_by_creator ON invites(created_by);
        -- The event log outlives what it describes (a deleted room's room.deleted stays),
        -- so no foreign keys here. AUTOINCREMENT: ids never reused, even after deletes.
        CREATE TABLE events (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          room INTEGER,
          user INTEGER,
          name TEXT NOT NULL,
          by TEXT,
          at TEXT NOT NULL,
          payload TEXT NOT NULL,
          text TEXT NOT NULL
        ) STRICT;
        CREATE INDEX events_by_room ON events(room, id);
        CREATE INDEX events_by_user ON events(user, id);
        """,
        // 3: planning: notice times and flags, DMs, membership spans for SYNC, notices
        // waiting for someone who was offline.
        """
        ALTER TABLE tasks ADD COLUMN due_at INTEGER;
        ALTER TABLE tasks ADD COLUMN remind_at INTEGER;
        ALTER TABLE tasks ADD COLUMN behind_at INTEGER;
        ALTER TABLE tasks ADD COLUMN overdue_sent INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE tasks ADD COLUMN remind_sent INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE tasks ADD COLUMN behind_sent INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX tasks_due_pending ON tasks(due_at) WHERE done = 0 AND overdue_sent = 0 AND due_at IS NOT NULL;
        CREATE INDEX tasks_remind_pending ON tasks(remind_at) WHERE done = 0 AND remind_sent = 0 AND remind_at IS NOT NULL;
        CREATE INDEX tasks_behind_pending ON tasks(behind_at) WHERE done = 0 AND behind_sent = 0 AND behind_at IS NOT NULL;
        ALTER TABLE events ADD COLUMN peer INTEGER;
        CREATE INDEX events_by_peer ON events(peer, id);
        -- Who was in which room between which events: SYNC replays a room's events only
        -- for the span a user belonged to it. Outlives the room, so no foreign keys.
        CREATE TABLE memberships (
          room INTEGER NOT NULL,
          user INTEGER NOT NULL,
          first_event INTEGER NOT NULL,
          last_event INTEGER
        ) STRICT;
        CREATE INDEX memberships_by_user ON memberships(user, room);
        INSERT INTO memberships (room, user, first_event, last_event) SELECT room, user, 0, NULL FROM members;
        CREATE TABLE dms (
          id INTEGER PRIMARY KEY,
          sender INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
          recipient INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
          text TEXT NOT NULL,
          at TEXT NOT NULL
        ) STRICT;
        CREATE INDEX dms_by_sender ON dms(sender);
        CREATE INDEX dms_by_recipient ON dms(recipient);
        CREATE TABLE pending_notices (
          user INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
          event INTEGER NOT NULL,
          PRIMARY KEY (user, event)
        ) STRICT, WITHOUT ROWID;
        """,
        // 4: bot tokens. Only a SHA-256 digest of each secret is kept.
        """
        CREATE TABLE tokens (
          id INTEGER PRIMARY KEY,
          user INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
          label TEXT NOT NULL,
          digest TEXT NOT NULL UNIQUE,
          created TEXT NOT NULL,
          last_used TEXT,
          UNIQUE (user, label)
        ) STRICT;
        """,
        // 5: the progress a task had when it was finished, so REOPEN can give it back.
        """
        ALTER TABLE tasks ADD COLUMN reopen_progress INTEGER;
        """,
        // 6: no query reads the event log by room, user or peer (SYNC walks it by id and
        // checks each event; EXPLAIN QUERY PLAN shows none of these indexes used), yet
        // each was one more B-tree write for every event stored, chat lines included.
        """
        DROP INDEX events_by_room;
        DROP INDEX events_by_user;
        DROP INDEX events_by_peer;
        """,
        // 7: SYNC reads each of a user's sources through an index instead of walking the
        // whole log (see `events(forUser:after:limit:)`). Partial indexes, so a room event
        // (every chat line) is written to one of them only: a personal event or a DM
        // never lands in the room index, and a room event in neither of the others. An
        // index entry ends with the rowid, the event id, so a range of ids is one seek.
        """
        CREATE INDEX events_by_room ON events(room) WHERE user IS NULL;
        CREATE INDEX events_by_user ON events(user) WHERE user IS NOT NULL;
        CREATE INDEX events_by_peer ON events(peer) WHERE peer IS NOT NULL;
        """,
        // 8: no id is ever handed out twice. Every table with an integer id gets
        // AUTOINCREMENT (the event log had it from the start; invites are keyed by a
        // random code). Rooms, tasks, messages, comments and DMs start above the largest
        // id the event log names (`idsSeenInEventLog`). Users are never deleted, so their
        // largest row is their floor. Token ids have none from the log and need none: they
        // stay inside the server (clients name tokens by label), so one reused before
        // this migration pointed at nothing a client kept.
        Migration(rebuildsTables: true) { db in
            let seen = try db.idsSeenInEventLog()
            for table in ["users", "rooms", "tasks", "messages", "comments", "dms", "tokens"] {
                try db.rebuildWithNeverReusedIDs(table, floor: seen[table] ?? 0)
            }
        },
        // 9: the occurrence a finished task made, so finishing
        // it again after a reopen makes no second one for the same period (deleting that
        // occurrence clears the link; the index keeps the delete from scanning), and the
        // day of the month a monthly series keeps after a short month.
        """
        ALTER TABLE tasks ADD COLUMN next_task INTEGER REFERENCES tasks(id) ON DELETE SET NULL;
        ALTER TABLE tasks ADD COLUMN repeat_day INTEGER CHECK (repeat_day BETWEEN 1 AND 31);
        CREATE INDEX tasks_by_next ON tasks(next_task);
        """,
        // 10: who may reach whom (CONTRACT §11). An invitation waits for its invitee's
        // answer; a block is one person's; a removal keeps someone out of a room's invite
        // codes until an owner or admin adds them again. All go with their room or people.
        """
        CREATE TABLE invitations (
          room INTEGER NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
          user INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
          invited_by INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
          created TEXT NOT NULL,
          PRIMARY KEY (room, user)
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX invitations_by_user ON invitations(user, room);
        CREATE INDEX invitations_by_inviter ON invitations(invited_by);
        CREATE TABLE blocks (
          user INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
          blocked INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
          created TEXT NOT NULL,
          PRIMARY KEY (user, blocked)
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX blocks_by_blocked ON blocks(blocked);
        CREATE TABLE removals (
          room INTEGER NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
          user INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
          at TEXT NOT NULL,
          PRIMARY KEY (room, user)
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX removals_by_user ON removals(user);
        """,
        // 11: the sign-ups of the last hour, per address, for --register-rate (SignUpRules):
        // kept here rather than in memory so a restart does not hand out a fresh allowance.
        // Rows older than the hour are deleted as REGISTERs count (`registrations(from:since:)`).
        """
        CREATE TABLE registrations (
          address TEXT NOT NULL,
          at INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX registrations_by_address ON registrations(address, at);
        CREATE INDEX registrations_by_time ON registrations(at);
        """,
        // 12: calendar feeds (CONTRACT §9). A link is its secret's SHA-256 digest, one per
        // user and scope (room, or NULL for `me`), with the digest of the body it last
        // served and when that first appeared (Last-Modified). A task's `revision` (its
        // SEQUENCE) and `changed_at` (unix seconds) move by trigger whenever a field the
        // feed shows changes (`CalendarFeedRules.shownFields`), on every update path;
        // a subtask's change moves its parent (the roll-up), a rename its room's tasks.
        """
        CREATE TABLE calendar_links (
          digest TEXT PRIMARY KEY,
          user INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
          room INTEGER REFERENCES rooms(id) ON DELETE CASCADE,
          created TEXT NOT NULL,
          body_digest TEXT,
          body_at INTEGER
        ) STRICT, WITHOUT ROWID;
        CREATE UNIQUE INDEX calendar_links_by_scope ON calendar_links(user, ifnull(room, 0));
        CREATE INDEX calendar_links_by_room ON calendar_links(room);
        ALTER TABLE tasks ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE tasks ADD COLUMN changed_at INTEGER;
        CREATE TRIGGER tasks_revision AFTER UPDATE OF title, notes, due, start, done, progress, assignee, estimate, room ON tasks
          WHEN OLD.title IS NOT NEW.title OR OLD.notes IS NOT NEW.notes OR OLD.due IS NOT NEW.due
            OR OLD.start IS NOT NEW.start OR OLD.done IS NOT NEW.done OR OLD.progress IS NOT NEW.progress
            OR OLD.assignee IS NOT NEW.assignee OR OLD.estimate IS NOT NEW.estimate OR OLD.room IS NOT NEW.room
        BEGIN
          UPDATE tasks SET revision = revision + 1, changed_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = NEW.id;
        END;
        CREATE TRIGGER tasks_revision_of_parent AFTER UPDATE OF done, progress, points, parent ON tasks
          WHEN (OLD.parent IS NOT NULL OR NEW.parent IS NOT NULL)
            AND (OLD.done IS NOT NEW.done OR OLD.progress IS NOT NEW.progress OR OLD.points IS NOT NEW.points
                 OR OLD.parent IS NOT NEW.parent)
        BEGIN
          UPDATE tasks SET revision = revision + 1, changed_at = CAST(strftime('%s', 'now') AS INTEGER)
           WHERE id IN (OLD.parent, NEW.parent);
        END;
        CREATE TRIGGER tasks_revision_subtask_added AFTER INSERT ON tasks WHEN NEW.parent IS NOT NULL
        BEGIN
          UPDATE tasks SET revision = revision + 1, changed_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = NEW.parent;
        END;
        CREATE TRIGGER tasks_revision_subtask_deleted AFTER DELETE ON tasks WHEN OLD.parent IS NOT NULL
        BEGIN
          UPDATE tasks SET revision = revision + 1, changed_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE id = OLD.parent;
        END;
        CREATE TRIGGER tasks_revision_room_renamed AFTER UPDATE OF name ON rooms WHEN OLD.name IS NOT NEW.name
        BEGIN
          UPDATE tasks SET revision = revision + 1, changed_at = CAST(strftime('%s', 'now') AS INTEGER) WHERE room = NEW.id;
        END;
        """,
        // 13: what a token is for (`TokenKind`): a person's device or a bot. Tokens made
        // before kinds existed were all bots'.
        """
        ALTER TABLE tokens ADD COLUMN kind TEXT NOT NULL DEFAULT 'bot' CHECK (kind IN ('device','bot'));
        """,
        // 14: unread markers (`ReadMarker`): per user and room, the highest event id read.
        // Counting reads the room's events after it through `events_by_room` (room events
        // have no user, as that partial index asks); the room index serves the cascade.
        """
        CREATE TABLE read_markers (
          user INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
          room INTEGER NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
          event INTEGER NOT NULL,
          PRIMARY KEY (user, room)
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX read_markers_by_room ON read_markers(room);
        """,
        // 15: each member's unread count, kept in its marker's row as events are stored
        // and markers move (`ReadMarker.counts`), so ROOMS reads it by key. Every member
        // gets a row, counted once here the way migration 14's queries counted.
        Migration(rebuildsTables: false) { db in
            try db.execute("""
                ALTER TABLE read_markers ADD COLUMN unread INTEGER NOT NULL DEFAULT 0;
                INSERT INTO read_markers (user, room, event) SELECT user, room, 0 FROM members WHERE true
                  ON CONFLICT (user, room) DO NOTHING;
                """)
            try db.prepare("""
                UPDATE read_markers AS k SET unread =
                  \(Database.countedSaid(room: "k.room", user: "k.user", after: "k.event", upTo: "9223372036854775807", firstName: 1))
                WHERE EXISTS (SELECT 1 FROM members m WHERE m.user = k.user AND m.room = k.room)
                """).rows(Database.countedEventValues) { _ in }
        },
        // 16: Web Push (CONTRACT §10): the server's VAPID key pair, one row made once, and
        // devices' subscriptions, an endpoint belonging to one account at a time; one made
        // by a token's session goes with the token.
        """
        CREATE TABLE vapid_keys (
          id INTEGER PRIMARY KEY CHECK (id = 1),
          private_key TEXT NOT NULL,
          public_key TEXT NOT NULL,
          created TEXT NOT NULL
        ) STRICT;
        CREATE TABLE push_subscriptions (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          user INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
          endpoint TEXT NOT NULL UNIQUE,
          p256dh TEXT NOT NULL,
          auth TEXT NOT NULL,
          label TEXT NOT NULL,
          token INTEGER REFERENCES tokens(id) ON DELETE CASCADE,
          created TEXT NOT NULL,
          last_used TEXT
        ) STRICT;
        CREATE INDEX push_subscriptions_by_user ON push_subscriptions(user);
        CREATE INDEX push_subscriptions_by_token ON push_subscriptions(token) WHERE token IS NOT NULL;
        """,
        // 17: notices for people not looking (CONTRACT §10): each person's choices, the
        // code proving an e-mail address, and the outbox a notice is queued in by the
        // transaction of its event, one row per device or mailbox, claimed with a lease.
        """
        CREATE TABLE notify_choices (
          user INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
          push INTEGER NOT NULL,
          email TEXT,
          email_on INTEGER NOT NULL,
          kinds TEXT NOT NULL,
          quiet TEXT,
          tz TEXT,
          mail_stop TEXT UNIQUE
        ) STRICT;
        CREATE TABLE email_codes (
          user INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
          address TEXT NOT NULL,
          digest TEXT NOT NULL,
          expires INTEGER NOT NULL,
          tries INTEGER NOT NULL DEFAULT 0
        ) STRICT;
        CREATE TABLE notice_outbox (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          user INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
          subscription INTEGER REFERENCES push_subscriptions(id) ON DELETE CASCADE,
          mail_to TEXT,
          kind TEXT NOT NULL,
          title TEXT NOT NULL,
          body TEXT NOT NULL,
          url TEXT NOT NULL,
          topic TEXT,
          urgency TEXT NOT NULL,
          ttl INTEGER NOT NULL,
          not_before INTEGER NOT NULL,
          claimed_until INTEGER NOT NULL DEFAULT 0,
          created TEXT NOT NULL
        ) STRICT;
        CREATE INDEX notice_outbox_ready ON notice_outbox(not_before);
        CREATE INDEX notice_outbox_by_subscription ON notice_outbox(subscription) WHERE subscription IS NOT NULL;
        """,
        // 18: ACME (CONTRACT §10): the
        // account per directory, the certificate per name set with its key, and the one
        // lease row that says which node may order (`Database+ACME.swift`).
        """
        CREATE TABLE acme_accounts (
          directory TEXT PRIMARY KEY,
          private_key TEXT NOT NULL,
          url TEXT NOT NULL,
          created TEXT NOT NULL
        ) STRICT;
        CREATE TABLE acme_certificates (
          names TEXT PRIMARY KEY,
          chain TEXT NOT NULL,
          private_key TEXT NOT NULL,
          not_before INTEGER NOT NULL,
          not_after INTEGER NOT NULL
        ) STRICT;
        CREATE TABLE acme_lease (
          id INTEGER PRIMARY KEY CHECK (id = 1),
          holder TEXT NOT NULL,
          until INTEGER NOT NULL
        ) STRICT;
        CREATE TABLE acme_challenges (
          token TEXT PRIMARY KEY,
          type TEXT NOT NULL,
          name TEXT NOT NULL,
          key_authorization TEXT NOT NULL,
          until INTEGER NOT NULL
        ) STRICT;
        """,
    ]
}

extension Database {
    /// Applies the migrations after `user_version`, each in one transaction together with
    /// its version bump, so a failure leaves the schema at the last good version.
    /// Returns how many were applied.
    @discardableResult
    func migrate(_ migrations: [Migration]) throws -> Int {
        let current = try schemaVersion
        guard current <= migrations.count else {
            // Running old code on a newer file could silently misread it.
            throw StoreError(code: SQLITE_ERROR, message: "schema version \(current) is newer than this program knows (\(migrations.count))")
        }
        for index in current..<migrations.count {
            let migration = migrations[index]
            do {
                // The pragma is a no-op inside a transaction, so it is set around it.
                if migration.rebuildsTables { try execute("PRAGMA foreign_keys=OFF") }
                defer { if migration.rebuildsTables { try? execute("PRAGMA foreign_keys=ON") } }
                try transaction {
                    try migration.apply(self)
                    if migration.rebuildsTables {
                        let broken = try foreignKeyViolations()
                        guard broken.isEmpty else {
                            throw StoreError(code: SQLITE_CONSTRAINT, message: "foreign keys broken: \(broken.prefix(5).joined(separator: ", "))")
                        }
                    }
                    try execute("PRAGMA user_version = \(index + 1)")
                }
            } catch let error as StoreError {
                throw error.doing("migration \(index + 1)")
            }
        }
        return migrations.count - current
    }
}

