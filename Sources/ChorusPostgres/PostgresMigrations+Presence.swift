extension PostgresMigrations {
    /// Step 3: what a node's row says besides its lease (`PostgresPresenceBoard`): `claim`,
    /// a token of the process holding the name (a second live process with the same
    /// `--node` is refused, a restarted one takes the name over), its open connections and
    /// tail lag for ADMIN STATS, and `presence_version`, changed whenever its `presence`
    /// rows change, so other nodes read those rows again only then.
    static let presence = """
        ALTER TABLE nodes
          ADD COLUMN claim text COLLATE "C" NOT NULL DEFAULT '',
          ADD COLUMN sessions integer NOT NULL DEFAULT 0,
          ADD COLUMN tail_lag bigint,
          ADD COLUMN presence_version bigint NOT NULL DEFAULT 0;
        """
}
