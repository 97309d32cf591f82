extension PostgresMigrations {
    /// Step 4: SQLite's migration 10 here. An invitation waits for its invitee's answer; a
    /// block is one person's; a removal keeps someone out of a room's invite codes until an
    /// owner or admin adds them again.
    static let consent = """
        CREATE TABLE invitations (
          room bigint NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
          user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
          invited_by bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
          created text COLLATE "C" NOT NULL,
          PRIMARY KEY (room, user_id)
        );
        CREATE INDEX invitations_by_user ON invitations(user_id, room);
        CREATE INDEX invitations_by_inviter ON invitations(invited_by);
        CREATE TABLE blocks (
          user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
          blocked bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
          created text COLLATE "C" NOT NULL,
          PRIMARY KEY (user_id, blocked)
        );
        CREATE INDEX blocks_by_blocked ON blocks(blocked);
        CREATE TABLE removals (
          room bigint NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
          user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
          at text COLLATE "C" NOT NULL,
          PRIMARY KEY (room, user_id)
        );
        CREATE INDEX removals_by_user ON removals(user_id);
        """
}
