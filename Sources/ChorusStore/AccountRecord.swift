/// An account as the store keeps it. Only `AccountService` sees `passwordHash`; sessions
/// hold a `SignedInAccount`.
public struct AccountRecord: Sendable, Equatable {
    public let id: Int64
    /// Already folded to lower case by the caller.
    public let name: String
    /// `$scrypt$ln=..,r=..,p=..$salt$hash`.
    public let passwordHash: String
    public let admin: Bool
    public let disabled: Bool
    /// RFC 3339, UTC.
    public let created: String

    public init(id: Int64, name: String, passwordHash: String, admin: Bool, disabled: Bool, created: String) {
        self.id = id
        self.name = name
        self.passwordHash = passwordHash
        self.admin = admin
        self.disabled = disabled
        self.created = created
    }
}
