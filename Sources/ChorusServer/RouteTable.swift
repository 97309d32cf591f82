import ChorusCore

/// Each row's handler, found by the type of `Command` its row builds: a verb is its row
/// in `CommandTable` (ChorusProtocol) plus its handler and one line here. Every row has
/// a route and every route a row (`RouteTableTests`).
enum RouteTable {
    static let all: [RouteEntry] = sessionRoutes + roomRoutes + taskRoutes + chatRoutes + botAndAdminRoutes

    /// By command type. Built once; a command costs one lookup.
    static let byCommand: [ObjectIdentifier: Route] = all.reduce(into: [:]) { table, entry in
        table[ObjectIdentifier(entry.commandType)] = table[ObjectIdentifier(entry.commandType)] ?? entry.route
    }

    static func route(for command: any ParsedCommand) -> Route? {
        byCommand[ObjectIdentifier(type(of: command))]
    }

    static let sessionRoutes: [RouteEntry] = [
        .onLoop(Command.Help.self) { hub, session, help, tag in session.send(hub.help(topic: help.topic), tag: tag) },
        .onLoop(Command.Mode.self) { hub, session, mode, tag in hub.switchMode(of: session, to: mode.mode, tag: tag) },
        .onLoop(Command.Ping.self) { _, session, ping, tag in
            session.send(.ok(ping.token.map { "PONG \($0)" } ?? "PONG", [("pong", .string(ping.token))]), tag: tag)
        },
        .onLoop(Command.Quit.self) { _, session, _, tag in
            session.send(.ok("bye"), tag: tag)
            session.connection.closeAfterFlush()
        },
        .onLoop(Command.Register.self) { hub, session, command, tag in
            hub.register(name: command.name, password: command.password, session: session, tag: tag)
        },
        .onLoop(Command.Login.self) { hub, session, command, tag in
            hub.login(name: command.name, password: command.password, session: session, tag: tag)
        },
        .onLoop(Command.Auth.self) { hub, session, command, tag in hub.authenticate(token: command.token, session: session, tag: tag) },
        .onLoop(Command.Logout.self) { hub, session, _, tag in hub.logout(session, tag: tag) },
        .onLoop(Command.WhoAmI.self) { hub, session, _, tag in session.send(hub.whoami(session), tag: tag) },
        .onLoop(Command.Password.self) { hub, session, command, tag in
            hub.changePassword(old: command.old, new: command.new, session: session, tag: tag)
        },
    ]

    static let roomRoutes: [RouteEntry] = [
        .job(Command.Rooms.self) { context, _ in try context.rooms() },
        .job(Command.RoomCreate.self) { try $0.roomCreate(name: $1.name) },
        .job(Command.RoomShow.self, needsLoopState: true) { try $0.roomShow($1.room) },
        .job(Command.RoomRename.self) { try $0.roomRename($1.room, to: $1.name) },
        .job(Command.RoomAdd.self) { try $0.roomAdd($1.room, user: $1.user) },
        .job(Command.RoomRemove.self, touchesTasks: true) { try $0.roomRemove($1.room, user: $1.user) },
        .job(Command.RoomLeave.self, touchesTasks: true) { try $0.roomLeave($1.room) },
        .job(Command.RoomRole.self) { try $0.roomRole($1.room, user: $1.user, role: $1.role) },
        .job(Command.RoomDelete.self, touchesTasks: true) { try $0.roomDelete($1.room) },
        .job(Command.RoomInvite.self) { try $0.roomInvite($1.room, uses: $1.uses, expires: $1.expires) },
        .job(Command.RoomInvites.self) { try $0.roomInvites($1.room) },
        .job(Command.RoomUninvite.self) { try $0.roomUninvite($1.room, code: $1.code) },
        .job(Command.RoomJoin.self) { try $0.roomJoin(code: $1.code) },
    ]

    static let taskRoutes: [RouteEntry] = [
        .job(Command.TaskAdd.self, touchesTasks: true) { try $0.taskAdd($1.place, title: $1.title, options: $1.options) },
        .job(Command.TaskShow.self) { try $0.taskShow($1.task) },
        .job(Command.TaskEdit.self, touchesTasks: true) { try $0.taskEdit($1.task, options: $1.options) },
        .job(Command.TaskAssign.self, touchesTasks: true) { try $0.taskAssign($1.task, to: $1.user) },
        .job(Command.TaskProgress.self, touchesTasks: true) { try $0.taskProgress($1.task, percent: $1.percent) },
        .job(Command.TaskDone.self, touchesTasks: true) { try $0.taskDone($1.task) },
        .job(Command.TaskReopen.self, touchesTasks: true) { try $0.taskReopen($1.task) },
        .job(Command.TaskDelete.self) { try $0.taskDelete($1.task) },
        .job(Command.Tasks.self) { try $0.tasks(scope: $1.scope, filter: $1.filter) },
        .job(Command.TasksOfHousemate.self) { try $0.tasksOfHousemate($1.user, filter: $1.filter) },
    ]

    static let chatRoutes: [RouteEntry] = [
        .job(Command.Say.self) { try $0.say($1.room, text: $1.text) },
        .job(Command.Comment.self) { try $0.comment($1.task, text: $1.text) },
        .job(Command.History.self) { try $0.history($1.room, limit: $1.limit, before: $1.before) },
        .job(Command.DirectMessage.self) { try $0.dm($1.user, text: $1.text) },
        .job(Command.Stats.self) { try $0.stats($1.room) },
        .job(Command.Calendar.self) { try $0.calendar($1.scope) },
        .job(Command.CalendarMe.self) { context, _ in try context.calendarMe() },
        .job(Command.Sync.self) { try $0.sync(after: $1.after, limit: $1.limit) },
    ]

    static let botAndAdminRoutes: [RouteEntry] = [
        .job(Command.TokenCreate.self) { try $0.tokenCreate(label: $1.label) },
        .job(Command.TokenList.self) { context, _ in try context.tokenList() },
        .job(Command.TokenRevoke.self) { try $0.tokenRevoke(label: $1.label) },
        .job(Command.AdminUsers.self, needsLoopState: true) { context, _ in try context.adminUsers() },
        .job(Command.AdminRooms.self) { context, _ in try context.adminRooms() },
        .job(Command.AdminStats.self, needsLoopState: true) { context, _ in try context.adminStats() },
        .job(Command.AdminDisable.self) { try $0.adminSetDisabled($1.user, true) },
        .job(Command.AdminEnable.self) { try $0.adminSetDisabled($1.user, false) },
        .job(Command.AdminKick.self) { try $0.adminKick($1.user) },
        .job(Command.AdminDelete.self) { try $0.adminDelete($1.room) },
    ]
}
