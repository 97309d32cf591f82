import Foundation

/// What a person chose about notices that reach them while they are not looking
/// (`NOTIFY`, CONTRACT §10). A person who never chose has `defaults`.
public struct NotifyChoices: Sendable, Equatable {
    public var push: Bool
    /// The address mail goes to once proven (`NOTIFY EMAIL VERIFY`), kept while mail is off.
    public var emailAddress: String?
    public var emailOn: Bool
    public var kinds: Set<NotifyKind>
    public var quiet: QuietHours?
    /// An IANA zone name; nil is the server's zone.
    public var zone: String?

    public init(push: Bool, emailAddress: String?, emailOn: Bool, kinds: Set<NotifyKind>, quiet: QuietHours?, zone: String?) {
        self.push = push
        self.emailAddress = emailAddress
        self.emailOn = emailOn
        self.kinds = kinds
        self.quiet = quiet
        self.zone = zone
    }

    /// Push on, no e-mail, every kind, no quiet hours, the server's zone.
    public static let defaults = NotifyChoices(push: true, emailAddress: nil, emailOn: false, kinds: Set(NotifyKind.allCases),
                                               quiet: nil, zone: nil)

    /// Where mail goes now: the proven address while mail is on.
    public var mailTo: String? { emailOn ? emailAddress : nil }

    /// The calendar of the person's zone (date words, times shown, quiet hours).
    public func calendar(server: Calendar = .current) -> Calendar {
        zone.flatMap(server.inZone(named:)) ?? server
    }

    /// The zone's name as shown: the person's, or the server's.
    public func zoneName(server: Calendar = .current) -> String {
        zone ?? server.timeZone.identifier
    }
}

extension NotifyChoices {
    /// As a store keeps it: kinds as a comma list in `NotifyKind`'s order.
    public var storedKinds: String { kinds.sorted().map(\.rawValue).joined(separator: ",") }

    /// From a store's row. A kind or quiet window it cannot read (written by a newer
    /// version) is dropped rather than refused.
    public init(stored push: Bool, email: String?, emailOn: Bool, kinds: String, quiet: String?, zone: String?) {
        self.init(push: push, emailAddress: email, emailOn: emailOn,
                  kinds: Set(kinds.split(separator: ",").compactMap { NotifyKind(rawValue: String($0)) }),
                  quiet: quiet.flatMap { try? QuietHours(parsing: $0) }, zone: zone)
    }
}
