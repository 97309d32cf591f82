import ChorusCore

/// Each row's handler, by the row's name (`Request.verb`): a verb is its row in
/// `CommandTable` (ChorusProtocol) plus its handler and one line here, which also says
/// what the handler's run needs. Every row has a route that reads the shape the row builds,
/// and every route a row (`RouteTableTests`).
enum RouteTable {
    static let all: [RouteEntry] = sessionAndAccountRoutes + roomRoutes + taskRoutes + chatAndPlanningRoutes + botAndAdminRoutes

    /// By row name. Built once; a command costs one lookup.
    static let byVerb: [String: Route] = all.reduce(into: [:]) { table, entry in
        table[entry.verb] = table[entry.verb] ?? entry.route
    }

    static func route(for request: Request) -> Route? {
        byVerb[request.verb]
    }

    static let sessionAndAccountRoutes: [RouteEntry] = [
        .onLoop("HELP", Command.Help.self) { hub, session, help, tag in session.send(hub.help(topic: help.topic), tag: tag) },
        .onLoop("MODE", Command.Mode.self) { hub, session, mode, tag in hub.switchMode(of: session, to: mode.mode, tag: tag) },
        .onLoop("PING", Command.Ping.self) { _, session, ping, tag in
            session.send(.ok(ping.token.map { "PONG \($0)" } ?? "PONG", [("pong", .string(ping.token))]), tag: tag)
        },
        .onLoop("QUIT", Command.Plain.self) { _, session, _, tag in
            session.send(.ok("bye"), tag: tag)
            session.closeAfterFlush()
        },
        .onLoop("REGISTER", Command.Registration.self) { hub, session, given, tag in
            hub.register(name: given.name, password: given.password, invite: given.invite, session: session, tag: tag)
        },
        .onLoop("LOGIN", Command.Credentials.self) { hub, session, given, tag in
            hub.login(name: given.name, password: given.password, session: session, tag: tag)
        },
        .onLoop("AUTH", Command.Word.self) { hub, session, token, tag in hub.authenticate(token: token.value, session: session, tag: tag) },
        .onLoop("LOGOUT", Command.Plain.self) { hub, session, _, tag in hub.logout(session, tag: tag) },
        .onLoop("WHOAMI", Command.Plain.self) { hub, session, _, tag in hub.whoami(session, tag: tag) },
        .onLoop("PASSWORD", Command.Password.self) { hub, session, given, tag in
            hub.changePassword(old: given.old, new: given.new, session: session, tag: tag)
        },
    ]

    static let roomRoutes: [RouteEntry] = [
        .job("ROOMS", Command.Plain.self) { context, _ in try context.rooms() },
        .job("ROOM CREATE", Command.Word.self) { try $0.roomCreate(name: $1.value) },
        .job("ROOM SHOW", Command.Room.self, needsLoopState: true) { try $0.roomShow($1.room) },
        .job("ROOM RENAME", Command.RoomWord.self) { try $0.roomRename($1.room, to: $1.word) },
        .job("ROOM ADD", Command.RoomWord.self) { try $0.roomAdd($1.room, user: $1.word) },
        .job("ROOM REMOVE", Command.RoomWord.self, touchesTasks: true) { try $0.roomRemove($1.room, user: $1.word) },
        .job("ROOM LEAVE", Command.Room.self, touchesTasks: true) { try $0.roomLeave($1.room) },
        .job("ROOM ROLE", Command.RoomRole.self) { try $0.roomRole($1.room, user: $1.user, role: $1.role) },
        .job("ROOM DELETE", Command.Room.self, touchesTasks: true) { try $0.roomDelete($1.room) },
        .job("ROOM INVITE", Command.RoomInvite.self) { try $0.roomInvite($1.room, uses: $1.uses, expires: $1.expires) },
        .job("ROOM INVITES", Command.Room.self) { try $0.roomInvites($1.room) },
        .job("ROOM UNINVITE", Command.RoomWord.self) { try $0.roomUninvite($1.room, code: $1.word) },
        .job("ROOM JOIN", Command.Word.self) { try $0.roomJoin(code: $1.value) },
        .job("ROOM ACCEPT", Command.Room.self) { try $0.roomAccept($1.room) },
        .job("ROOM DECLINE", Command.Room.self) { try $0.roomDecline($1.room) },
    ]

    static let taskRoutes: [RouteEntry] = [
        .job("TASK ADD", Command.TaskAdd.self, touchesTasks: true) { try $0.taskAdd($1.place, title: $1.title, options: $1.options) },
        .job("TASK SHOW", Command.ID.self) { try $0.taskShow($1.id) },
        .job("TASK EDIT", Command.TaskEdit.self, touchesTasks: true) { try $0.taskEdit($1.task, options: $1.options) },
        .job("TASK ASSIGN", Command.TaskAssign.self, touchesTasks: true) { try $0.taskAssign($1.task, to: $1.user) },
        .job("TASK PROGRESS", Command.TaskProgress.self, touchesTasks: true) { try $0.taskProgress($1.task, percent: $1.percent) },
        .job("TASK DONE", Command.ID.self, touchesTasks: true) { try $0.taskDone($1.id) },
        .job("TASK REOPEN", Command.ID.self, touchesTasks: true) { try $0.taskReopen($1.id) },
        .job("TASK DELETE", Command.ID.self) { try $0.taskDelete($1.id) },
        .job("TASKS", Command.Tasks.self) { try $0.tasks(scope: $1.scope, filter: $1.filter) },
        .job("TASKS @NAME", Command.TasksOfHousemate.self) { try $0.tasksOfHousemate($1.user, filter: $1.filter) },
    ]

    static let chatAndPlanningRoutes: [RouteEntry] = [
        .job("SAY", Command.Message.self) { try $0.say($1.to, text: $1.text) },
        .job("COMMENT", Command.TaskText.self) { try $0.comment($1.task, text: $1.text) },
        .job("HISTORY", Command.History.self) { try $0.history($1.room, limit: $1.limit, before: $1.before) },
        .job("READ", Command.Read.self) { try $0.read($1.room, upTo: $1.event) },
        .job("DM", Command.Message.self) { try $0.dm($1.to, text: $1.text) },
        .job("BLOCK", Command.Word.self) { try $0.block($1.value) },
        .job("UNBLOCK", Command.Word.self) { try $0.unblock($1.value) },
        .job("BLOCKS", Command.Plain.self) { context, _ in try context.blocks() },
        .job("STATS", Command.Stats.self) { try $0.stats($1.room) },
        .job("CALENDAR", Command.Calendar.self) { try $0.calendar($1.scope) },
        .job("CALENDAR me", Command.Plain.self) { context, _ in try context.calendarMe() },
        .job("CALENDAR LINK", Command.CalendarLink.self) { try $0.calendarLink($1.scope) },
        .job("CALENDAR UNLINK", Command.CalendarLink.self) { try $0.calendarUnlink($1.scope) },
        .job("SYNC", Command.Sync.self) { try $0.sync(after: $1.after, limit: $1.limit) },
    ]

    static let botAndAdminRoutes: [RouteEntry] = [
        .job("PUSH KEY", Command.Plain.self) { context, _ in try context.pushKey() },
        .job("PUSH SUBSCRIBE", Command.PushSubscribe.self) {
            try $0.pushSubscribe(endpoint: $1.endpoint, p256dh: $1.p256dh, auth: $1.auth, label: $1.label)
        },
        .job("PUSH LIST", Command.Plain.self) { context, _ in try context.pushList() },
        .job("PUSH UNSUBSCRIBE", Command.ID.self) { try $0.pushUnsubscribe(id: $1.id) },
        .job("NOTIFY", Command.Notify.self) { try $0.notify($1) },
        .job("NOTIFY EMAIL", Command.NotifyEmail.self) { context, command in
            if let code = command.code { return try context.notifyEmailVerify(code: code) }
            return try context.notifyEmail(address: command.address ?? "")
        },
        .job("TOKEN CREATE", Command.TokenCreate.self) { try $0.tokenCreate(label: $1.label, kind: $1.kind) },
        .job("TOKEN LIST", Command.Plain.self) { context, _ in try context.tokenList() },
        .job("TOKEN REVOKE", Command.Word.self) { try $0.tokenRevoke(label: $1.value) },
        .job("ADMIN USERS", Command.Plain.self, needsLoopState: true) { context, _ in try context.adminUsers() },
        .job("ADMIN ROOMS", Command.Plain.self) { context, _ in try context.adminRooms() },
        .job("ADMIN STATS", Command.Plain.self, needsLoopState: true) { context, _ in try context.adminStats() },
        .job("ADMIN DISABLE", Command.Word.self) { try $0.adminSetDisabled($1.value, true) },
        .job("ADMIN ENABLE", Command.Word.self) { try $0.adminSetDisabled($1.value, false) },
        .job("ADMIN KICK", Command.Word.self) { try $0.adminKick($1.value) },
        .job("ADMIN DELETE", Command.ID.self) { try $0.adminDelete($1.id) },
    ]
}
