extension PostgresMigrations {
    /// Step 2: each row of the log carries what another node's tail needs to deliver it
    /// (`PostgresEventFeed`): the node that wrote it (a node does not read its own rows
    /// back), the user ids it is delivered to, and, for a session control (ADMIN KICK or
    /// DISABLE, TOKEN REVOKE: `control`), the revoked token. A control row has no room,
    /// user or peer, so SYNC never returns it; its reason is `text`, its accounts `audience`.
    static let tail = """
        ALTER TABLE events
          ADD COLUMN node text COLLATE "C" NOT NULL DEFAULT '',
          ADD COLUMN audience bigint[] NOT NULL DEFAULT '{}',
          ADD COLUMN control boolean NOT NULL DEFAULT false,
          ADD COLUMN close_token bigint;
        """
}
