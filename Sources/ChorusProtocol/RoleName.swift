/// `owner|admin|member` as a request names a role (ROOM ROLE). The domain's `Role`, with
/// its order of what each may do, sits above this layer; this is only the word.
public enum RoleName: String, Sendable, CaseIterable {
    case owner
    case admin
    case member
}
