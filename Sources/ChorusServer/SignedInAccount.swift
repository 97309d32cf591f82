import ChorusStore

/// Who a session is logged in as: what the loop needs to route and answer, and nothing
/// secret. The password hash stays in the store's `AccountRecord`, behind
/// `AccountService`; sessions and login results never carry it.
struct SignedInAccount: Sendable, Equatable {
    let id: Int64
    let name: String
    /// As it was at login (LOGIN's USER shape); ADMIN commands and WHOAMI read the store.
    let admin: Bool

    init(_ record: AccountRecord) {
        id = record.id
        name = record.name
        admin = record.admin
    }
}
