extension PostgresMigrations {
    /// ACME, as SQLite's (`Migrations.swift`): the account per directory, the certificate
    /// per name set with its key, and the lease row that lets one node at a time order
    /// (`PostgresStore+ACME.swift`). Planned as step 12, after another branch's 11.
    static let acme = """
        CREATE TABLE acme_accounts (
          directory text COLLATE "C" PRIMARY KEY,
          private_key text COLLATE "C" NOT NULL,
          url text COLLATE "C" NOT NULL,
          created text COLLATE "C" NOT NULL
        );
        CREATE TABLE acme_certificates (
          names text COLLATE "C" PRIMARY KEY,
          chain text COLLATE "C" NOT NULL,
          private_key text COLLATE "C" NOT NULL,
          not_before bigint NOT NULL,
          not_after bigint NOT NULL
        );
        CREATE TABLE acme_lease (
          id integer PRIMARY KEY CHECK (id = 1),
          holder text COLLATE "C" NOT NULL,
          until bigint NOT NULL
        );
        CREATE TABLE acme_challenges (
          token text COLLATE "C" PRIMARY KEY,
          type text COLLATE "C" NOT NULL,
          name text COLLATE "C" NOT NULL,
          key_authorization text COLLATE "C" NOT NULL,
          until bigint NOT NULL
        );
        """
}
