/// Who takes the next occurrence of a repeating task.
///
/// A household rota is a fixed order of turns: the turn after alice's is bob's whoever
/// actually took the bins out, so the finisher plays no part. Names in the rota who are
/// no longer members are passed over.
public enum Rotation {
    /// The first member after `previous` in `names`, wrapping around (`previous` again when
    /// nobody else is left); the first member of the list when the task had no assignee or
    /// one not in the list. Without a rotation, `previous` keeps it. Nil when nobody it
    /// could go to is a member any more.
    public static func nextAssignee(in names: [String], previous: String?,
                                    isMember: (String) throws -> Bool) rethrows -> String? {
        guard !names.isEmpty else {
            guard let previous, try isMember(previous) else { return nil }
            return previous
        }
        let start = previous.flatMap { names.firstIndex(of: $0) }.map { $0 + 1 } ?? 0
        for offset in 0..<names.count {
            let name = names[(start + offset) % names.count]
            if try isMember(name) { return name }
        }
        return nil
    }
}
