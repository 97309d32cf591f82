import ChorusCore

/// One notice for one person, as the transaction of its event queues it (`notice_outbox`):
/// a row for each of their push subscriptions and one for their e-mail, sent by whichever
/// node's dispatcher claims it first (`claimNotices`).
public struct QueuedNotice: Sendable, Equatable {
    public let user: Int64
    /// The payload's `event`: a `NotifyKind`'s name, or `email.verify` for a code.
    public let event: String
    public let title: String
    public let body: String
    /// The app's address of what it is about, relative ("/#/tasks/12").
    public let url: String
    /// Push's `Topic`: a newer notice with the same topic replaces an older one unseen.
    public let topic: String?
    public let urgency: String
    public let ttl: Int
    /// Unix seconds before which it is not sent (quiet hours).
    public let notBefore: Int64
    /// Whether it goes to every push subscription of the person, and the address mail
    /// goes to, if any.
    public let push: Bool
    public let mailTo: String?

    public init(user: Int64, event: String, title: String, body: String, url: String, topic: String?, urgency: String, ttl: Int,
                notBefore: Int64, push: Bool, mailTo: String?) {
        self.user = user
        self.event = event
        self.title = title
        self.body = body
        self.url = url
        self.topic = topic
        self.urgency = urgency
        self.ttl = ttl
        self.notBefore = notBefore
        self.push = push
        self.mailTo = mailTo
    }
}

/// A queued notice a dispatcher has claimed until its lease ends: for one device (its
/// subscription) or one mailbox.
public struct ClaimedNotice: Sendable, Equatable {
    public let id: Int64
    public let user: Int64
    public let kind: String
    public let title: String
    public let body: String
    public let url: String
    public let topic: String?
    public let urgency: String
    public let ttl: Int
    public let subscription: PushSubscriptionRecord?
    public let mailTo: String?
    /// The secret of the recipient's "stop these mails" link, for a mail.
    public let mailStop: String?

    public init(id: Int64, user: Int64, kind: String, title: String, body: String, url: String, topic: String?, urgency: String,
                ttl: Int, subscription: PushSubscriptionRecord?, mailTo: String?, mailStop: String? = nil) {
        self.mailStop = mailStop
        self.id = id
        self.user = user
        self.kind = kind
        self.title = title
        self.body = body
        self.url = url
        self.topic = topic
        self.urgency = urgency
        self.ttl = ttl
        self.subscription = subscription
        self.mailTo = mailTo
    }
}

/// A code sent to prove an e-mail address: its digest, when it expires, wrong tries so far.
public struct EmailCodeRecord: Sendable, Equatable {
    public let address: String
    public let digest: String
    public let expires: Int64
    public let tries: Int

    public init(address: String, digest: String, expires: Int64, tries: Int) {
        self.address = address
        self.digest = digest
        self.expires = expires
        self.tries = tries
    }
}
