import ChorusCore
import ChorusStore
import Testing

/// Accounts, server admin and bot tokens, on every engine.
@Suite struct AccountStoreTests {
    /// A created account is found by name and by id, with the defaults.
    @Test(arguments: StoreEngine.all) func createAndLookUp(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let made = try store.run { try $0.createAccount(name: "alice", passwordHash: "$scrypt$x", created: "2024-05-01T10:00:00Z") }
        #expect(made.id > 0 && !made.admin && !made.disabled)
        #expect(made.name == "alice" && made.passwordHash == "$scrypt$x" && made.created == "2024-05-01T10:00:00Z")
        let found = try store.run { db in
            (try db.account(named: "alice"), try db.account(id: made.id), try db.account(named: "bob"),
             try db.account(id: made.id + 1), try db.accountCount())
        }
        #expect(found.0 == made)
        #expect(found.1 == made)
        #expect(found.2 == nil && found.3 == nil)
        #expect(found.4 == 1)
    }

    /// A taken name is a duplicate, with a reason a client can be shown.
    @Test(arguments: StoreEngine.all) func duplicateNameIsADuplicate(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        _ = try store.run { try $0.createAccount(name: "alice", passwordHash: "h", created: "t") }
        let error = #expect(throws: StoreError.self) {
            try store.run { try $0.createAccount(name: "alice", passwordHash: "h2", created: "t") }
        }
        #expect(error?.kind == .duplicate)
        #expect(error?.reason == "name alice is taken")
        #expect(try store.run { try $0.accountCount() } == 1)
    }

    /// setAdmin, setDisabled and setPasswordHash change one account and report a missing one.
    @Test(arguments: StoreEngine.all) func updates(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let alice = try store.run { try $0.createAccount(name: "alice", passwordHash: "old", created: "t") }
        #expect(try store.run { try $0.setAdmin(name: "alice", true) })
        #expect(try store.run { try $0.account(named: "alice")?.admin } == true)
        #expect(try store.run { try $0.setAdmin(name: "alice", false) })
        #expect(try store.run { try $0.account(named: "alice")?.admin } == false)
        #expect(try store.run { try $0.setAdmin(name: "nobody", true) } == false)
        #expect(try store.run { try $0.setDisabled(name: "alice", true) })
        #expect(try store.run { try $0.account(id: alice.id)?.disabled } == true)
        #expect(try store.run { try $0.setDisabled(name: "nobody", true) } == false)

        try store.run { try $0.setPasswordHash(accountID: alice.id, hash: "new") }
        #expect(try store.run { try $0.account(id: alice.id)?.passwordHash } == "new")
        let error = #expect(throws: StoreError.self) { try store.run { try $0.setPasswordHash(accountID: 999, hash: "x") } }
        #expect(error?.kind == .notFound)
    }

    /// Text is stored as given, whatever it holds, and is still there after reopening.
    @Test(arguments: StoreEngine.all) func textRoundTripsAndLasts(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let names = ["x'); DROP TABLE users; --", "zoë 🎶", "a\"b\\c", "%_*"]
        for name in names { _ = try store.run { try $0.createAccount(name: name, passwordHash: "h", created: "now") } }
        try store.reopen()
        #expect(try store.run { db in try names.map { try db.account(named: $0)?.name } } == names)
        #expect(try store.run { try $0.accountCount() } == names.count)
    }

    /// ADMIN's lists and totals count what is there.
    @Test(arguments: StoreEngine.all) func adminListsAndTotals(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let home = try store.household()
        try store.run { db in
            try db.addMember(room: home.room, user: home.bob, role: .member, joined: "t")
            _ = try db.insertTask(TaskDraft(room: home.room, owner: nil, title: "Bins", creator: home.alice, created: "t"))
            _ = try db.insertMessage(room: home.room, sender: home.alice, text: "hi", at: "t")
            _ = try db.appendEvent(room: home.room, user: nil, name: "message", by: "alice", at: "t", payload: "{}", text: "hi")
        }
        let accounts = try store.run { try $0.allAccounts().map { "\($0.account.name) \($0.rooms)" } }
        #expect(accounts == ["alice 1", "bob 1"])
        let rooms = try store.run { try $0.allRooms().map { "\($0.id) \($0.name) \($0.members) \($0.owner) \($0.open)" } }
        #expect(rooms == ["\(home.room) Flat 2B 2 alice 1"])
        let totals = try store.run { try $0.totals() }
        #expect(totals == StoreTotals(accounts: 2, rooms: 1, tasks: 1, openTasks: 1, messages: 1, events: totals.events))
        #expect(totals.events >= 1)
    }

    /// A token is listed without its secret, with its kind, logs its account in by digest
    /// (marking it used, and naming itself as it was), is unique per label, and once
    /// revoked logs nobody in.
    @Test(arguments: StoreEngine.all) func botTokens(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let alice = try store.run { try $0.createAccount(name: "alice", passwordHash: "h", created: "t") }
        let made = try store.run { try $0.createToken(user: alice.id, label: "bot", kind: .bot, digest: "d1", created: "t0") }
        #expect(made.label == "bot" && made.kind == .bot && made.lastUsed == nil)
        let duplicate = #expect(throws: StoreError.self) {
            try store.run { try $0.createToken(user: alice.id, label: "bot", kind: .device, digest: "d2", created: "t0") }
        }
        #expect(duplicate?.kind == .duplicate)
        #expect(duplicate?.reason == "you already have a token labelled bot")
        let phone = try store.run { try $0.createToken(user: alice.id, label: "phone", kind: .device, digest: "d3", created: "t0") }
        #expect(phone.kind == .device)
        let used = try store.run { try $0.useToken(digest: "d1", at: "t1") }
        #expect(used?.token == made && used?.account == alice)
        let usedAgain = try store.run { try $0.useToken(digest: "d1", at: "t2") }
        #expect(usedAgain?.token.lastUsed == "t1", "the token as it was before this use")
        let byPhone = try store.run { try $0.useToken(digest: "d3", at: "t3") }
        #expect(byPhone?.token.label == "phone" && byPhone?.token.kind == .device && byPhone?.account == alice)
        #expect(try store.run { try $0.useToken(digest: "nope", at: "t1") } == nil)
        #expect(try store.run { try $0.tokens(ofUser: alice.id) } == [
            TokenRecord(id: made.id, label: "bot", kind: .bot, created: "t0", lastUsed: "t2"),
            TokenRecord(id: phone.id, label: "phone", kind: .device, created: "t0", lastUsed: "t3"),
        ])
        #expect(try store.run { try $0.revokeToken(user: alice.id, label: "bot") } == made.id)
        #expect(try store.run { try $0.revokeToken(user: alice.id, label: "bot") } == nil)
        #expect(try store.run { try $0.useToken(digest: "d1", at: "t2") } == nil)
    }

    /// Sign-ups per address (`--register-rate`): counting returns the address's times in
    /// the window, oldest first, and deletes every older row of any address; the rows
    /// outlive a reopen; a job that fails after recording keeps nothing.
    @Test(arguments: StoreEngine.all) func registrationsPerAddress(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        try store.run { db in
            for at: Int64 in [5000, 100, 4000] { try db.recordRegistration(from: "192.0.2.7", at: at) }
            try db.recordRegistration(from: "2001:db8::1", at: 150)
            try db.recordRegistration(from: "2001:db8::1", at: 4500)
        }
        #expect(try store.run { try $0.registrations(from: "192.0.2.7", since: 1000) } == [4000, 5000])
        try store.reopen()
        // The count above swept 100 and 150: a wider window finds only what is left.
        #expect(try store.run { try $0.registrations(from: "2001:db8::1", since: 0) } == [4500])
        #expect(try store.run { try $0.registrations(from: "192.0.2.7", since: 0) } == [4000, 5000])
        #expect(try store.run { try $0.registrations(from: "198.51.100.1", since: 0) } == [])
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try store.run { db in
                try db.recordRegistration(from: "192.0.2.7", at: 6000)
                throw Refused()
            }
        }
        #expect(try store.run { try $0.registrations(from: "192.0.2.7", since: 4500) } == [5000])
    }
}
