import ChorusStore

/// ACME, as SQLite's (`Database+ACME.swift`). Nodes race only through single statements:
/// the account and certificate upserts and the lease's conditional upsert, which
/// PostgreSQL settles row by row.
extension PostgresStore {
    public func acmeAccount(directory: String) throws -> ACMEAccountRecord? {
        try row("SELECT directory, private_key, url FROM acme_accounts WHERE directory = $1", [.text(directory)]) {
            ACMEAccountRecord(directory: $0.text(0), privateKey: $0.text(1), url: $0.text(2))
        }
    }

    public func keepACMEAccount(_ account: ACMEAccountRecord, created: String) throws -> ACMEAccountRecord {
        _ = try write("""
            INSERT INTO acme_accounts (directory, private_key, url, created) VALUES ($1, $2, $3, $4)
            ON CONFLICT (directory) DO NOTHING
            """, [.text(account.directory), .text(account.privateKey), .text(account.url), .text(created)])
        return try acmeAccount(directory: account.directory) ?? account
    }

    public func deleteACMEAccount(directory: String, url: String) throws {
        _ = try write("DELETE FROM acme_accounts WHERE directory = $1 AND url = $2", [.text(directory), .text(url)])
    }

    public func acmeCertificate(names: String) throws -> ACMECertificateRecord? {
        try row("SELECT names, chain, private_key, not_before, not_after FROM acme_certificates WHERE names = $1", [.text(names)]) {
            ACMECertificateRecord(names: $0.text(0), chainPEM: $0.text(1), keyPEM: $0.text(2),
                                  notBefore: try $0.int(3), notAfter: try $0.int(4))
        }
    }

    public func keepACMECertificate(_ certificate: ACMECertificateRecord) throws -> ACMECertificateRecord {
        _ = try write("""
            INSERT INTO acme_certificates (names, chain, private_key, not_before, not_after) VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT (names) DO UPDATE SET chain = EXCLUDED.chain, private_key = EXCLUDED.private_key,
              not_before = EXCLUDED.not_before, not_after = EXCLUDED.not_after
            WHERE EXCLUDED.not_before >= acme_certificates.not_before
            """, [.text(certificate.names), .text(certificate.chainPEM), .text(certificate.keyPEM),
                  .int(certificate.notBefore), .int(certificate.notAfter)])
        return try acmeCertificate(names: certificate.names) ?? certificate
    }

    public func takeACMELease(holder: String, now: Int64, until: Int64) throws -> Bool {
        try write("""
            INSERT INTO acme_lease (id, holder, until) VALUES (1, $1, $3)
            ON CONFLICT (id) DO UPDATE SET holder = EXCLUDED.holder, until = EXCLUDED.until
            WHERE acme_lease.until < $2 OR acme_lease.holder = EXCLUDED.holder
            """, [.text(holder), .int(now), .int(until)]) > 0
    }

    public func releaseACMELease(holder: String) throws {
        _ = try write("DELETE FROM acme_lease WHERE holder = $1", [.text(holder)])
    }
}

extension PostgresStore {
    public func keepACMEChallenge(_ challenge: ACMEChallengeRecord, until: Int64) throws {
        _ = try write("""
            INSERT INTO acme_challenges (token, type, name, key_authorization, until) VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT (token) DO UPDATE SET type = EXCLUDED.type, name = EXCLUDED.name,
              key_authorization = EXCLUDED.key_authorization, until = EXCLUDED.until
            """, [.text(challenge.token), .text(challenge.type), .text(challenge.name), .text(challenge.keyAuthorization), .int(until)])
    }

    public func deleteACMEChallenge(token: String) throws {
        _ = try write("DELETE FROM acme_challenges WHERE token = $1", [.text(token)])
    }

    public func acmeChallenges(now: Int64) throws -> [ACMEChallengeRecord] {
        try rows("SELECT type, name, token, key_authorization FROM acme_challenges WHERE until >= $1 ORDER BY token", [.int(now)]) {
            ACMEChallengeRecord(type: $0.text(0), name: $0.text(1), token: $0.text(2), keyAuthorization: $0.text(3))
        }
    }
}
