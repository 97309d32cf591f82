import ChorusCore
import Foundation

/// Everything the server asks of its storage, as one unit of work sees it: a job given to
/// a `StoreExecutor` gets one of these, and all it does commits together or not at all.
///
/// Engine-neutral: records in and out (ChorusCore's and this target's), no SQL. Failures
/// are `StoreError`s (a taken name is `.duplicate`, a full disk `.full`); errors a job
/// throws itself pass through unchanged. The server keeps the protocol codes.
///
/// Class-bound so that `any Store`, made once per job, is a reference and a witness table.
public protocol Store: AnyObject {
    // MARK: Accounts

    /// Creates a non-admin, enabled account; `.duplicate` ("name NAME is taken") when the name is.
    func createAccount(name: String, passwordHash: String, created: String) throws -> AccountRecord
    func account(named name: String) throws -> AccountRecord?
    func account(id: Int64) throws -> AccountRecord?
    /// `.notFound` when there is no such account: a silent no-op would hide a caller's bug.
    func setPasswordHash(accountID: Int64, hash: String) throws
    /// False when there is no such account.
    func setAdmin(name: String, _ admin: Bool) throws -> Bool
    func accountCount() throws -> Int

    // MARK: Sign-ups

    /// The times (unix seconds, oldest first) of the accounts made from `address` at or
    /// after `since`, once every older row (of any address) is deleted: the facts
    /// `SignUpRules` decides from. An engine several nodes share also holds `address` until
    /// the unit of work ends, so another node's sign-up from it waits for this one's count
    /// and `recordRegistration` (and then sees them).
    func registrations(from address: String, since: Int64) throws -> [Int64]
    /// One account made from `address` at `at` (unix seconds).
    func recordRegistration(from address: String, at: Int64) throws

    // MARK: Server admin

    func totals() throws -> StoreTotals
    /// Every account by name, with how many rooms it is in.
    func allAccounts() throws -> [(account: AccountRecord, rooms: Int)]
    /// Every room by id, with its member count, owner and open tasks.
    func allRooms() throws -> [(id: Int64, name: String, members: Int, owner: String, open: Int)]
    /// False when there is no such account.
    func setDisabled(name: String, _ disabled: Bool) throws -> Bool

    // MARK: Rooms, members, invites

    /// A new room with `ownerID` as its owner; returns its id (never one used before).
    func createRoom(name: String, ownerID: Int64, created: String) throws -> Int64
    /// The user's rooms by id, with their progress bar as of `now` and their unread
    /// counts, all in one query: the room's events named in `ReadMarker.countedEvents`,
    /// after the user's marker and their joining, by anyone else.
    func rooms(ofUser user: Int64, now: Date) throws -> [RoomRecord]
    /// The room if `user` is a member of it (with its unread count, as `rooms`); nil
    /// otherwise (to the caller: no such room).
    func room(id: Int64, forUser user: Int64, now: Date) throws -> RoomRecord?
    /// The highest event id of the room the user has marked read; 0 for none.
    func readMarker(user: Int64, room: Int64) throws -> Int64
    /// Moves the user's marker for the room up to `event` (the caller decided it moves,
    /// `ReadMarker.moved`; never down, if another node moved it further meanwhile) and
    /// takes off the unread count what the move passes. Returns the marker and the count
    /// it leaves (on PostgreSQL as far as the batch can tell before its turn to write).
    @discardableResult
    func setReadMarker(user: Int64, room: Int64, event: Int64) throws -> (marker: Int64, unread: Int)
    /// The room's name and the user's role, if a member: the check every room command starts with.
    func roomAccess(id: Int64, forUser user: Int64) throws -> RoomAccess?
    /// The ids of the user's rooms with this name, compared case-insensitively (Unicode, not only ASCII).
    func roomIDs(named name: String, forUser user: Int64) throws -> [Int64]
    /// The rooms both users are members of now, in id order (all of `user`'s for the same id).
    func sharedRoomIDs(of user: Int64, and other: Int64) throws -> [Int64]
    /// The owner, then admins, then members, each by name.
    func members(ofRoom room: Int64) throws -> [MemberRecord]
    /// The members' ids, ascending: every event's audience, so this must be cheap.
    func memberIDs(ofRoom room: Int64) throws -> [Int64]
    func role(ofUser user: Int64, inRoom room: Int64) throws -> Role?
    /// `.duplicate` ("already a member") when the user is one.
    func addMember(room: Int64, user: Int64, role: Role, joined: String) throws
    /// Also hands the user's chores in that room back to nobody.
    func removeMember(room: Int64, user: Int64) throws
    func setRole(room: Int64, user: Int64, role: Role) throws
    func renameRoom(_ room: Int64, to name: String) throws
    /// Removes the room with its members, invites, tasks (and their subtasks and comments) and messages.
    func deleteRoom(_ room: Int64) throws
    func createInvite(code: String, room: Int64, createdBy: Int64, usesLeft: Int?, expires: String?, created: String) throws
    func invites(ofRoom room: Int64) throws -> [InviteRecord]
    func invite(code: String) throws -> InviteRecord?
    /// Counts one use; an invite with no uses left is gone.
    func useInvite(code: String) throws
    /// False when the room has no such invite.
    func deleteInvite(code: String, room: Int64) throws -> Bool

    // MARK: Who may reach whom (CONTRACT §11)

    /// Invites the user to the room; false (and nothing changes) when they are invited already.
    func addInvitation(room: Int64, user: Int64, invitedBy: Int64, created: String) throws -> Bool
    /// The user's open invitations, by room id, with the room's name and the inviter's.
    func invitations(ofUser user: Int64) throws -> [InvitationRecord]
    /// Ends an invitation; false when there was none (on several nodes, exactly one of two
    /// racing ends gets true).
    func deleteInvitation(room: Int64, user: Int64) throws -> Bool
    /// How many invitations `inviter` sent that nobody has answered yet.
    func openInvitations(from inviter: Int64) throws -> Int
    /// Ends every invitation `inviter` sent `user`; how many there were.
    func deleteInvitations(toUser user: Int64, from inviter: Int64) throws -> Int
    /// Whether `user` has blocked `other`.
    func hasBlocked(_ user: Int64, _ other: Int64) throws -> Bool
    /// `user` blocks `other`; false when they had already.
    func block(_ other: Int64, by user: Int64, created: String) throws -> Bool
    /// False when `other` was not blocked.
    func unblock(_ other: Int64, by user: Int64) throws -> Bool
    /// Whom `user` blocked, by name.
    func blocks(ofUser user: Int64) throws -> [BlockRecord]
    /// ROOM REMOVE: keeps the user out of the room's invite codes (`wasRemoved`).
    func recordRemoval(room: Int64, user: Int64, at: String) throws
    /// An owner or admin added them again.
    func forgetRemoval(room: Int64, user: Int64) throws
    func wasRemoved(user: Int64, from room: Int64) throws -> Bool

    // MARK: Tasks

    /// Returns the new task's id (never one used before). Its notice moments, and so its
    /// place in due order, come with its first `updateTask` (TASK ADD saves at once).
    func insertTask(_ draft: TaskDraft) throws -> Int64
    /// With a parent's progress computed from its subtasks.
    func task(id: Int64) throws -> TaskRecord?
    func subtasks(of parent: Int64) throws -> [TaskRecord]
    /// Every task in the scope, soonest due first (none last): open ones, done ones, or
    /// (nil) both; with `finishedSince`, only the done ones finished since then.
    func tasks(in scope: TaskScope, done: Bool?, finishedSince: String?) throws -> [TaskRecord]
    /// Stores every field as given, notice times and sent marks included: the domain
    /// worked them out (`TaskLifecycle.readyToStore`, the only maker of a `ReadyTask`).
    func updateTask(_ task: ReadyTask) throws
    /// `updateTask`, then the task as `task(id:)` reads it (nil when it is gone), in one
    /// round trip where the engine can. Default: the two calls.
    func updateTaskReadingBack(_ task: ReadyTask) throws -> TaskRecord?
    /// Deletes the task with its subtasks and comments.
    func deleteTask(id: Int64) throws

    // MARK: Chat

    /// Returns the message's id.
    func insertMessage(room: Int64, sender: Int64, text: String, at: String) throws -> Int64
    /// The newest `limit` messages before `beforeID` (all when nil), oldest first.
    func history(room: Int64, limit: Int, beforeID: Int64?) throws -> [MessageRecord]
    func insertComment(task: Int64, sender: Int64, text: String, at: String) throws -> Int64
    func comments(onTask task: Int64, room: Int64?) throws -> [CommentRecord]
    /// Returns the DM's id.
    func insertDM(sender: Int64, recipient: Int64, text: String, at: String) throws -> Int64

    // MARK: The event log

    /// Stores an event and returns its id: ids grow in commit order and are never reused.
    /// `room` is set for room events, `user` for events addressed to one user. `audience`
    /// (user ids) is whom it is delivered to live: an engine several nodes share keeps it
    /// with the event for the other nodes' tails (`EventFeed`); SQLite, one process whose
    /// loops get it from memory, ignores it.
    func appendEvent(room: Int64?, user: Int64?, name: String, by: String?, at: String,
                     payload: String, text: String, audience: [Int64]) throws -> Int64
    /// Stores sessions to close (ADMIN KICK/DISABLE, TOKEN REVOKE) in the ordered log, as a
    /// row SYNC never returns, and returns its id, so other nodes close them in id order.
    /// An engine whose sessions all live in one process (SQLite) stores nothing and returns
    /// nil: its loops get the close from the committed job's result in memory.
    func appendSessionControl(_ control: SessionControl) throws -> Int64?
    /// `appendEvent` for the server's jobs: the id may be provisional until the batch
    /// commits (`FinalEventIDs`), so the job's result must be `HoldsProvisionalEventIDs`.
    /// Store methods taking an event id accept a provisional one. Default: `appendEvent`.
    func stageEvent(room: Int64?, user: Int64?, name: String, by: String?, at: String,
                    payload: String, text: String, audience: [Int64]) throws -> Int64
    /// `appendSessionControl`, with the id possibly provisional as `stageEvent`'s.
    func stageSessionControl(_ control: SessionControl) throws -> Int64?
    /// The newest event id, 0 for an empty log.
    func lastEventID() throws -> Int64
    /// The newest event of the room's own log (room events, no personal ones), 0 for
    /// none: where READ clamps a marker. On PostgreSQL a committed one, so every event at
    /// or below it is stored.
    func newestRoomEventID(room: Int64) throws -> Int64
    /// The newest event the log holds, 0 for none: where SYNC's cursor is past the end
    /// (`RestoreRules.syncRestart`). `lastEventID`'s on SQLite; below it on PostgreSQL
    /// once `after-restore` moved the counter and nothing was written since.
    func newestStoredEventID() throws -> Int64
    /// Marks an event as a DM between two users, so SYNC finds it for both.
    func setEventPeer(event: Int64, peer: Int64) throws
    /// Starts the user's span in the room at `event`, inclusive (SYNC replays the room inside spans).
    func openMembership(room: Int64, user: Int64, fromEvent event: Int64) throws
    /// Ends the user's span (or every span of the room when `user` is nil) at `event`, inclusive.
    func closeMembership(room: Int64, user: Int64?, atEvent event: Int64) throws
    /// SYNC: up to `limit` events after `after`, in id order, that are the user's own
    /// (`user` or `peer`) or a room's while the user belonged to it.
    func events(forUser user: Int64, after: Int64, limit: Int) throws -> [StoredEvent]

    // MARK: The scheduler's notices

    /// Task ids whose notice of this kind is due at `now` (unix seconds) and not yet sent.
    func dueNotices(_ kind: NoticeKind, now: Int64) throws -> [Int64]
    func markNoticeSent(_ kind: NoticeKind, task: Int64) throws
    /// The earliest moment (unix seconds) any open task is owed a notice.
    func nextNoticeTime() throws -> Int64?
    /// Keeps a notice for a user who had no session when it fired.
    func addPendingNotice(user: Int64, event: Int64) throws
    /// The notices kept for this user with an event id up to `upTo`, oldest first, and
    /// forgets them (a login takes those before the point its live stream starts).
    func takePendingNotices(user: Int64, upTo: Int64) throws -> [StoredEvent]
    /// Keeps a notice for each of `users` (several nodes: its whole audience, at once).
    func addPendingNotices(users: [Int64], event: Int64) throws
    /// Forgets kept notices that reached their user live.
    func forgetPendingNotices(_ notices: [(user: Int64, event: Int64)]) throws

    // MARK: Failed logins kept for several nodes

    /// Counts a login attempt for `name` from `address` as a failure before its password is
    /// checked, unless the name is blocked there; returns the seconds left to wait when it is
    /// (`LoginThrottle`'s rules, counted by every node together). Only an engine several
    /// nodes share keeps these; one process's engine is never asked (`.failed`).
    func admitLoginAttempt(name: String, address: String, now: Date) throws -> Double?
    /// A login succeeded: both counts of the name start again.
    func forgetLoginFailures(name: String, address: String) throws
    /// Forgets counts that block nobody and saw no failure for an hour.
    func forgetQuietLoginFailures(now: Date) throws

    // MARK: STATS

    /// Each member's finished, open and overdue chores and points, all time and this week:
    /// finished at or after `since`, the domain's week (`RoomProgress.windowStart`), never
    /// one the engine works out. Overdue is judged at `now` (`TaskTiming.isOverdue`).
    func memberStats(room: Int64, since: String, now: Date) throws -> [MemberStats]

    // MARK: Calendar feeds

    /// Stores the user's link for a scope (`room` nil: the `me` feed) by its secret's
    /// digest, ending the one the scope had; true when there was one.
    func replaceCalendarLink(user: Int64, room: Int64?, digest: String, created: String) throws -> Bool
    /// Ends the user's link of the scope; false when there was none.
    func deleteCalendarLink(user: Int64, room: Int64?) throws -> Bool
    /// Ends every link of the user (PASSWORD, account disabled); how many there were.
    func deleteCalendarLinks(user: Int64) throws -> Int
    /// The link with this secret digest, with its owner's facts; nil when there is none.
    func calendarLink(digest: String) throws -> CalendarLinkRecord?
    /// Keeps the body digest a request served from the link, and when it first appeared,
    /// only while the link still holds `previous` (the digest the request read): of two
    /// requests racing a change, the later record does not move the time again. Returns
    /// what the link holds afterwards.
    func recordCalendarBody(link digest: String, bodyDigest: String, at: Int64, replacing previous: String?) throws
        -> (digest: String, at: Date)?
    /// The tasks with a due date in the scope (`TaskScope.room` or `.mine`), open or
    /// finished since `finishedSince`, with their revisions, soonest due first.
    func feedTasks(in scope: TaskScope, finishedSince: String) throws -> [FeedTask]

    // MARK: Web Push

    /// The server's VAPID key pair; nil until one is kept.
    func vapidKey() throws -> VAPIDKeyRecord?
    /// Keeps `key` unless one is kept already (another node made its own at the same
    /// time); returns the kept one, which every node then uses.
    func keepVAPIDKey(_ key: VAPIDKeyRecord, created: String) throws -> VAPIDKeyRecord
    /// Keeps a device's subscription: a new one, or new keys and label for the caller's
    /// subscription with this endpoint. Another account's subscription with the endpoint
    /// ends: the device changed hands, and its notices must not reach the next person.
    /// `token`: the token the subscribing session logged in with; revoking it (a web
    /// app's sign-out, a lost phone) ends the subscription with it.
    func savePushSubscription(user: Int64, endpoint: String, p256dh: String, auth: String, label: String,
                              token: Int64?, created: String) throws -> PushSubscriptionRecord
    /// The account's subscriptions, by id.
    func pushSubscriptions(ofUser user: Int64) throws -> [PushSubscriptionRecord]
    /// Ends the account's subscription with this id; false when it has none.
    func deletePushSubscription(user: Int64, id: Int64) throws -> Bool

    // MARK: Notices for people not looking (NOTIFY, the outbox)

    /// A person's choices; nil when they never chose (`NotifyChoices.defaults`).
    func notifyChoices(ofUser user: Int64) throws -> NotifyChoices?
    func saveNotifyChoices(_ choices: NotifyChoices, user: Int64) throws

    /// The secret of a person's "stop these mails" link (List-Unsubscribe), made when
    /// their address is proven; `stopMail` turns their mail off by it.
    func setMailStop(user: Int64, token: String) throws
    /// Turns mail off for whoever's link this is; false when it is nobody's.
    func stopMail(token: String) throws -> Bool

    /// The code sent to prove an address: one waiting per person, a new one replacing it.
    func saveEmailCode(user: Int64, address: String, digest: String, expires: Int64) throws
    func emailCode(ofUser user: Int64) throws -> EmailCodeRecord?
    func countEmailCodeTry(user: Int64) throws
    func deleteEmailCode(user: Int64) throws

    /// Queues a notice in the transaction of its event: a row per push subscription the
    /// person has (when `push`), and one for `mailTo`. Returns how many rows.
    @discardableResult
    func queueNotice(_ notice: QueuedNotice, created: String) throws -> Int
    /// Rows whose time has come and whose lease (if any) has ended, leased until
    /// `leaseUntil`: another node's dispatcher skips them until then (on PostgreSQL, rows
    /// another transaction is claiming are skipped, not waited for).
    /// Mail rows only when `mail` (a node without `--smtp` leaves them to one with it).
    func claimNotices(readyAt now: Int64, leaseUntil: Int64, limit: Int, mail: Bool) throws -> [ClaimedNotice]
    /// Extends this node's claims on rows still being sent, so no other claim takes them.
    func renewNoticeClaims(ids: [Int64], until: Int64) throws
    /// Drops a person's waiting rows their choices no longer want (a channel or kind off);
    /// a code mail (`email.verify`) stays.
    func dropUnwantedNotices(user: Int64, choices: NotifyChoices) throws
    /// A disabled account: its push subscriptions and waiting rows end.
    func endNotices(user: Int64) throws
    /// A claimed row is done with (sent, or given up); a push subscription it used is marked used at `usedAt`.
    func finishNotice(id: Int64, usedAt: String?) throws
    /// A claimed row goes back to the queue at once (the sending queue was full).
    func releaseNotice(id: Int64) throws
    /// The push service said the subscription is gone (404/410): it ends, with its rows.
    func endPushSubscription(id: Int64) throws

    // MARK: ACME (CONTRACT §10)

    /// The ACME account kept for this directory URL; nil until one is kept.
    func acmeAccount(directory: String) throws -> ACMEAccountRecord?
    /// Keeps `account` unless one is kept for its directory already; returns the kept one.
    func keepACMEAccount(_ account: ACMEAccountRecord, created: String) throws -> ACMEAccountRecord
    /// Forgets the account kept for this directory when it is still `url` (the CA no
    /// longer knows it); the next order registers a new one.
    func deleteACMEAccount(directory: String, url: String) throws
    /// The certificate kept for this name set (`ACMECertificateRecord.key(for:)`); nil when none.
    func acmeCertificate(names: String) throws -> ACMECertificateRecord?
    /// Keeps `certificate` for its names, replacing an older one (a smaller `notBefore`)
    /// but never a newer one another node kept meanwhile; returns the one kept.
    func keepACMECertificate(_ certificate: ACMECertificateRecord) throws -> ACMECertificateRecord
    /// Takes the right to order certificates until `until` (Unix seconds) for `holder`
    /// (a node): granted when nobody holds it, the holder's lease ran out before `now`, or
    /// `holder` holds it already. True when granted.
    func takeACMELease(holder: String, now: Int64, until: Int64) throws -> Bool
    /// Gives the lease up, if `holder` has it, so another node need not wait it out.
    func releaseACMELease(holder: String) throws
    /// Keeps a challenge answer for every node to serve while an order runs (the CA's
    /// validator may reach any node), until `until` (Unix seconds) at the latest.
    func keepACMEChallenge(_ challenge: ACMEChallengeRecord, until: Int64) throws
    func deleteACMEChallenge(token: String) throws
    /// The challenge answers not yet past their `until` at `now`.
    func acmeChallenges(now: Int64) throws -> [ACMEChallengeRecord]

    // MARK: Device and bot tokens

    /// `.duplicate` when the user has a token with this label.
    func createToken(user: Int64, label: String, kind: TokenKind, digest: String, created: String) throws -> TokenRecord
    func tokens(ofUser user: Int64) throws -> [TokenRecord]
    /// The token (as it was before this use) and its account for a digest, marking it used at `time`.
    func useToken(digest: String, at time: String) throws -> (token: TokenRecord, account: AccountRecord)?
    /// Deletes the user's token with this label; its id, nil when there is none.
    func revokeToken(user: Int64, label: String) throws -> Int64?
}

extension Store {
    /// An event with no live audience to record (tools and tests).
    public func appendEvent(room: Int64?, user: Int64?, name: String, by: String?, at: String,
                            payload: String, text: String) throws -> Int64 {
        try appendEvent(room: room, user: user, name: name, by: by, at: at, payload: payload, text: text, audience: [])
    }

    /// Every notice kept for this user.
    public func takePendingNotices(user: Int64) throws -> [StoredEvent] {
        try takePendingNotices(user: user, upTo: Int64.max)
    }

    public func addPendingNotices(users: [Int64], event: Int64) throws {
        for user in users { try addPendingNotice(user: user, event: event) }
    }

    public func forgetPendingNotices(_ notices: [(user: Int64, event: Int64)]) throws {
        throw StoreError(.failed, message: "this engine keeps no notices for several nodes")
    }

    public func admitLoginAttempt(name: String, address: String, now: Date) throws -> Double? {
        throw StoreError(.failed, message: "this engine keeps no failed logins for several nodes")
    }

    public func forgetLoginFailures(name: String, address: String) throws {
        throw StoreError(.failed, message: "this engine keeps no failed logins for several nodes")
    }

    public func forgetQuietLoginFailures(now: Date) throws {}

    /// Every task in the scope, open, done or both.
    public func tasks(in scope: TaskScope, done: Bool?) throws -> [TaskRecord] {
        try tasks(in: scope, done: done, finishedSince: nil)
    }
}
