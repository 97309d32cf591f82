/// The task rows' commands. T is already a number.
extension Command {
    public struct TaskAdd: ParsedCommand {
        public let place: TaskPlace
        public let title: String
        /// In key order.
        public let options: [TaskOption]
        public init(place: TaskPlace, title: String, options: [TaskOption]) {
            self.place = place
            self.title = title
            self.options = options
        }
    }

    public struct TaskShow: ParsedCommand {
        public let task: Int64
        public init(task: Int64) { self.task = task }
    }

    public struct TaskEdit: ParsedCommand {
        public let task: Int64
        /// At least one, in key order.
        public let options: [TaskOption]
        public init(task: Int64, options: [TaskOption]) {
            self.task = task
            self.options = options
        }
    }

    public struct TaskAssign: ParsedCommand {
        public let task: Int64
        /// nil: nobody (`-`).
        public let user: String?
        public init(task: Int64, user: String?) {
            self.task = task
            self.user = user
        }
    }

    public struct TaskProgress: ParsedCommand {
        public let task: Int64
        /// 0-100.
        public let percent: Int
        public init(task: Int64, percent: Int) {
            self.task = task
            self.percent = percent
        }
    }

    public struct TaskDone: ParsedCommand {
        public let task: Int64
        public init(task: Int64) { self.task = task }
    }

    public struct TaskReopen: ParsedCommand {
        public let task: Int64
        public init(task: Int64) { self.task = task }
    }

    public struct TaskDelete: ParsedCommand {
        public let task: Int64
        public init(task: Int64) { self.task = task }
    }

    public struct Tasks: ParsedCommand {
        public let scope: TaskListScope
        public let filter: TaskFilter
        public init(scope: TaskListScope, filter: TaskFilter) {
            self.scope = scope
            self.filter = filter
        }
    }

    /// TASKS @NAME: a housemate's tasks in the rooms the caller shares with them.
    public struct TasksOfHousemate: ParsedCommand {
        /// The account name, without the `@`.
        public let user: String
        public let filter: TaskFilter
        public init(user: String, filter: TaskFilter) {
            self.user = user
            self.filter = filter
        }
    }
}
