import ChorusCore
import Testing
@testable import ChorusStore

@Suite struct AccountsTests {
    let dir: TempDirectory
    let db: Database

    init() throws {
        dir = try TempDirectory()
        db = try Database(path: dir.path())
    }

    /// A created account is found by name and by id, with the defaults.
    @Test func createAndLookUp() throws {
        let made = try db.createAccount(name: "alice", passwordHash: "$scrypt$x", created: "2024-05-01T10:00:00Z")
        #expect(made.id > 0 && !made.admin && !made.disabled)
        #expect(try db.account(named: "alice") == made)
        #expect(try db.account(id: made.id) == made)
        #expect(try db.account(named: "bob") == nil)
        #expect(try db.account(id: made.id + 1) == nil)
        #expect(try db.accountCount() == 1)
    }

    /// A taken name is a 409 with a message a client can show.
    @Test func duplicateNameConflicts() throws {
        _ = try db.createAccount(name: "alice", passwordHash: "h", created: "t")
        let error = #expect(throws: ChorusError.self) {
            try db.createAccount(name: "alice", passwordHash: "h2", created: "t")
        }
        #expect(error == ChorusError.conflict("name alice is taken"))
        #expect(try db.accountCount() == 1)
    }

    /// setAdmin and setPasswordHash change one account and report a missing one.
    @Test func updates() throws {
        let alice = try db.createAccount(name: "alice", passwordHash: "old", created: "t")
        #expect(try db.setAdmin(name: "alice", true))
        #expect(try db.account(named: "alice")?.admin == true)
        #expect(try db.setAdmin(name: "alice", false))
        #expect(try db.account(named: "alice")?.admin == false)
        #expect(try db.setAdmin(name: "nobody", true) == false)

        try db.setPasswordHash(accountID: alice.id, hash: "new")
        #expect(try db.account(id: alice.id)?.passwordHash == "new")
        let error = #expect(throws: ChorusError.self) { try db.setPasswordHash(accountID: 999, hash: "x") }
        #expect(error?.code == 404)
    }

    /// The schema itself rejects values outside the allowed ones (STRICT and CHECK).
    @Test func schemaRejectsBadValues() throws {
        let insert = "INSERT INTO users (name, password, admin, created) VALUES (?1, 'h', ?2, 't')"
        let check = #expect(throws: StoreError.self) { try db.prepare(insert).run("a", 2) }
        #expect(check?.isConstraint == true)
        let strict = #expect(throws: StoreError.self) { try db.prepare(insert).run("b", "yes") }
        #expect(strict?.isConstraint == true)
    }

    /// Looking an account up by name searches the unique index instead of scanning.
    @Test func lookupByNameUsesIndex() throws {
        let plan = try db.prepare("EXPLAIN QUERY PLAN " + AccountSQL.byName).rows("alice") { $0.text(3) }
        #expect(plan.count == 1)
        #expect(plan.allSatisfy { $0.hasPrefix("SEARCH users USING") && $0.contains("INDEX") && $0.contains("(name=?)") })
    }
}
