import ChorusStore

/// SQLite's store: the repositories (`Database+Accounts`, `+Rooms`, `+Tasks`, ...) are the
/// operations, and a `DatabaseQueue` job's connection is the unit of work.
extension Database: Store {}
