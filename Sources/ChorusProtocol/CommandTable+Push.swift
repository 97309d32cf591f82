/// Rows for Web Push subscriptions (CONTRACT §10): a device's browser subscribes with the
/// address and keys its push service gave it.
extension CommandTable {
    static let pushCommands: [CommandSpec] = [
        CommandSpec("PUSH", "KEY", kind: .household, summary: "the server's public key (VAPID) a browser subscribes with") { _ in
            Command.Plain()
        },
        CommandSpec("PUSH", "SUBSCRIBE", kind: .household,
                    arguments: [.init("ENDPOINT"), .init("P256DH"), .init("AUTH"), .init("LABEL", optional: true)],
                    summary: "keep a device's push subscription, so notices reach it while the app is closed") { args in
            Command.PushSubscribe(endpoint: args[0], p256dh: args[1], auth: args[2], label: args.optional(3))
        },
        CommandSpec("PUSH", "LIST", kind: .household, summary: "your devices' push subscriptions (never their addresses or keys)") { _ in
            Command.Plain()
        },
        CommandSpec("PUSH", "UNSUBSCRIBE", kind: .household, arguments: [.init("ID")],
                    summary: "stop pushing to one of your devices") { args throws(ChorusError) in
            let digits = args[0].hasPrefix("#") ? String(args[0].dropFirst()) : args[0]
            guard let id = Int64(digits), id > 0 else { throw .notASubscriptionID(args[0], usage: args.usage) }
            return Command.ID(id: id)
        },
    ]
}
