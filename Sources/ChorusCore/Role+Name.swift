extension Role {
    /// The role a request's word names (ROOM ROLE).
    public init(_ name: RoleName) {
        switch name {
        case .owner: self = .owner
        case .admin: self = .admin
        case .member: self = .member
        }
    }
}
