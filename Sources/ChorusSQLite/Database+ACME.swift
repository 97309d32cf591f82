import ChorusStore

/// ACME: the account per directory, the certificate per name set, and the ordering lease.
/// On SQLite one process serves the store, so the lease only matters to a later cluster;
/// it is kept the same way for both engines.
extension Database {
    public func acmeAccount(directory: String) throws -> ACMEAccountRecord? {
        try prepare("SELECT directory, private_key, url FROM acme_accounts WHERE directory = ?1").row(.text(directory)) {
            ACMEAccountRecord(directory: $0.text(0), privateKey: $0.text(1), url: $0.text(2))
        }
    }

    public func keepACMEAccount(_ account: ACMEAccountRecord, created: String) throws -> ACMEAccountRecord {
        try prepare("""
            INSERT INTO acme_accounts (directory, private_key, url, created) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT (directory) DO NOTHING
            """).run(.text(account.directory), .text(account.privateKey), .text(account.url), .text(created))
        return try acmeAccount(directory: account.directory) ?? account
    }

    public func deleteACMEAccount(directory: String, url: String) throws {
        try prepare("DELETE FROM acme_accounts WHERE directory = ?1 AND url = ?2").run(.text(directory), .text(url))
    }

    public func acmeCertificate(names: String) throws -> ACMECertificateRecord? {
        try prepare("SELECT names, chain, private_key, not_before, not_after FROM acme_certificates WHERE names = ?1").row(.text(names)) {
            ACMECertificateRecord(names: $0.text(0), chainPEM: $0.text(1), keyPEM: $0.text(2), notBefore: $0.int(3), notAfter: $0.int(4))
        }
    }

    public func keepACMECertificate(_ certificate: ACMECertificateRecord) throws -> ACMECertificateRecord {
        try prepare("""
            INSERT INTO acme_certificates (names, chain, private_key, not_before, not_after) VALUES (?1, ?2, ?3, ?4, ?5)
            ON CONFLICT (names) DO UPDATE SET chain = excluded.chain, private_key = excluded.private_key,
              not_before = excluded.not_before, not_after = excluded.not_after
            WHERE excluded.not_before >= acme_certificates.not_before
            """).run(.text(certificate.names), .text(certificate.chainPEM), .text(certificate.keyPEM),
                     .integer(certificate.notBefore), .integer(certificate.notAfter))
        return try acmeCertificate(names: certificate.names) ?? certificate
    }

    public func takeACMELease(holder: String, now: Int64, until: Int64) throws -> Bool {
        try prepare("""
            INSERT INTO acme_lease (id, holder, until) VALUES (1, ?1, ?3)
            ON CONFLICT (id) DO UPDATE SET holder = excluded.holder, until = excluded.until
            WHERE acme_lease.until < ?2 OR acme_lease.holder = excluded.holder
            """).run(.text(holder), .integer(now), .integer(until))
        return changes > 0
    }

    public func releaseACMELease(holder: String) throws {
        try prepare("DELETE FROM acme_lease WHERE holder = ?1").run(.text(holder))
    }
}

extension Database {
    public func keepACMEChallenge(_ challenge: ACMEChallengeRecord, until: Int64) throws {
        try prepare("""
            INSERT INTO acme_challenges (token, type, name, key_authorization, until) VALUES (?1, ?2, ?3, ?4, ?5)
            ON CONFLICT (token) DO UPDATE SET type = excluded.type, name = excluded.name,
              key_authorization = excluded.key_authorization, until = excluded.until
            """).run(.text(challenge.token), .text(challenge.type), .text(challenge.name), .text(challenge.keyAuthorization), .integer(until))
    }

    public func deleteACMEChallenge(token: String) throws {
        try prepare("DELETE FROM acme_challenges WHERE token = ?1").run(.text(token))
    }

    public func acmeChallenges(now: Int64) throws -> [ACMEChallengeRecord] {
        try prepare("SELECT type, name, token, key_authorization FROM acme_challenges WHERE until >= ?1 ORDER BY token")
            .rows(.integer(now)) { ACMEChallengeRecord(type: $0.text(0), name: $0.text(1), token: $0.text(2), keyAuthorization: $0.text(3)) }
    }
}
