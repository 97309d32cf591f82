import ChorusStore
import Testing

/// ACME rows (CONTRACT §10) on every engine: one account per directory, kept once; the
/// certificate per name set, never replaced by an older one; the lease one node holds.
@Suite struct ACMEStoreTests {
    @Test(arguments: StoreEngine.all) func theAccountIsKeptOncePerDirectory(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let directory = "https://acme.example/directory"
        #expect(try store.run { try $0.acmeAccount(directory: directory) } == nil)
        let first = ACMEAccountRecord(directory: directory, privateKey: "key-1", url: "https://acme.example/acct/1")
        #expect(try store.run { try $0.keepACMEAccount(first, created: "t") } == first)
        // Another node that registered at the same moment gets the kept one back.
        let second = ACMEAccountRecord(directory: directory, privateKey: "key-2", url: "https://acme.example/acct/2")
        #expect(try store.run { try $0.keepACMEAccount(second, created: "t") } == first)
        let other = ACMEAccountRecord(directory: "https://other.example/dir", privateKey: "key-3", url: "https://other.example/a/3")
        #expect(try store.run { try $0.keepACMEAccount(other, created: "t") } == other)
        // The CA forgot the account: it goes, unless another node replaced it meanwhile.
        try store.run { try $0.deleteACMEAccount(directory: directory, url: second.url) }
        #expect(try store.run { try $0.acmeAccount(directory: directory) } == first)
        try store.run { try $0.deleteACMEAccount(directory: directory, url: first.url) }
        #expect(try store.run { try $0.acmeAccount(directory: directory) } == nil)
        #expect(try store.run { try $0.keepACMEAccount(second, created: "t") } == second)
    }

    @Test(arguments: StoreEngine.all) func aNewerCertificateReplacesAnOlderOneOnly(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let names = ACMECertificateRecord.key(for: ["Chores.Example.org", "b.example.org", "chores.example.org"])
        #expect(names == "b.example.org,chores.example.org")
        #expect(try store.run { try $0.acmeCertificate(names: names) } == nil)
        let first = ACMECertificateRecord(names: names, chainPEM: "chain-1", keyPEM: "key-1", notBefore: 100, notAfter: 1000)
        #expect(try store.run { try $0.keepACMECertificate(first) } == first)
        let renewed = ACMECertificateRecord(names: names, chainPEM: "chain-2", keyPEM: "key-2", notBefore: 700, notAfter: 1600)
        #expect(try store.run { try $0.keepACMECertificate(renewed) } == renewed)
        // A node that was slower with an older certificate does not put it back.
        #expect(try store.run { try $0.keepACMECertificate(first) } == renewed)
        #expect(try store.run { try $0.acmeCertificate(names: names) } == renewed)
    }

    @Test(arguments: StoreEngine.all) func oneNodeHoldsTheLeaseUntilItEndsOrIsGivenUp(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        #expect(try store.run { try $0.takeACMELease(holder: "a", now: 100, until: 200) })
        #expect(try store.run { try $0.takeACMELease(holder: "b", now: 150, until: 250) } == false)
        // The holder extends its own lease.
        #expect(try store.run { try $0.takeACMELease(holder: "a", now: 190, until: 290) })
        #expect(try store.run { try $0.takeACMELease(holder: "b", now: 250, until: 350) } == false)
        // Run out: another node takes it.
        #expect(try store.run { try $0.takeACMELease(holder: "b", now: 291, until: 391) })
        try store.run { try $0.releaseACMELease(holder: "a") }
        #expect(try store.run { try $0.takeACMELease(holder: "a", now: 300, until: 400) } == false)
        try store.run { try $0.releaseACMELease(holder: "b") }
        #expect(try store.run { try $0.takeACMELease(holder: "a", now: 300, until: 400) })
    }
}

extension ACMEStoreTests {
    @Test(arguments: StoreEngine.all) func challengeAnswersAreSharedUntilDeletedOrPast(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let alpn = ACMEChallengeRecord(type: "tls-alpn-01", name: "chores.example.org", token: "t1", keyAuthorization: "t1.thumb")
        let http = ACMEChallengeRecord(type: "http-01", name: "chores.example.org", token: "t2", keyAuthorization: "t2.thumb")
        try store.run { db in
            try db.keepACMEChallenge(alpn, until: 200)
            try db.keepACMEChallenge(http, until: 100)
        }
        #expect(try store.run { try $0.acmeChallenges(now: 50) } == [alpn, http])
        #expect(try store.run { try $0.acmeChallenges(now: 150) } == [alpn])
        try store.run { try $0.deleteACMEChallenge(token: "t1") }
        #expect(try store.run { try $0.acmeChallenges(now: 50) } == [http])
    }
}
