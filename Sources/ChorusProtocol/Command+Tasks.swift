/// Shapes of the task rows. T is already a number.
extension Command {
    /// TASK SHOW, DONE, REOPEN, DELETE; ADMIN DELETE's room id.
    public struct ID: ParsedCommand {
        public let id: Int64
    }

    public struct TaskAdd: ParsedCommand {
        public let place: TaskPlace
        public let title: String
        /// In key order.
        public let options: [TaskOption]
    }

    /// TASK EDIT: at least one option, in key order.
    public struct TaskEdit: ParsedCommand {
        public let task: Int64
        public let options: [TaskOption]
    }

    public struct TaskAssign: ParsedCommand {
        public let task: Int64
        /// nil: nobody (`-`).
        public let user: String?
    }

    /// COMMENT T TEXT...
    public struct TaskText: ParsedCommand {
        public let task: Int64
        public let text: String
    }

    public struct TaskProgress: ParsedCommand {
        public let task: Int64
        /// 0-100.
        public let percent: Int
    }

    public struct Tasks: ParsedCommand {
        public let scope: TaskListScope
        public let filter: TaskFilter
    }

    /// TASKS @NAME: a housemate's tasks in the rooms the caller shares with them.
    public struct TasksOfHousemate: ParsedCommand {
        /// The account name, without the `@`.
        public let user: String
        public let filter: TaskFilter
    }

    /// SYNC AFTER_ID [LIMIT].
    public struct Sync: ParsedCommand {
        public let after: Int64
        /// Positive; the handler caps it.
        public let limit: Int?
    }
}
