/// One step of the schema's history (`Migrations.all`): SQL text, or code for a change
/// SQL alone cannot express in SQLite.
public struct Migration: Sendable, ExpressibleByStringLiteral {
    /// Rebuilding a table (the only way SQLite can add AUTOINCREMENT to one) needs foreign
    /// keys off while it runs: dropping the old copy would otherwise cascade its deletes
    /// into every table that refers to it. They are checked before the step commits.
    let rebuildsTables: Bool
    let apply: @Sendable (Database) throws -> Void

    public init(stringLiteral sql: String) {
        rebuildsTables = false
        apply = { try $0.execute(sql) }
    }

    init(rebuildsTables: Bool, apply: @escaping @Sendable (Database) throws -> Void) {
        self.rebuildsTables = rebuildsTables
        self.apply = apply
    }
}
