extension PostgresMigrations {
    /// Step 6: SQLite's migration 12 here. A link is its secret's SHA-256 digest, one per
    /// user and scope (room, or NULL for `me`), with the digest of the body it last served
    /// and when that first appeared (Last-Modified). A task's `revision` (its SEQUENCE) and
    /// `changed_at` (unix seconds) move in a BEFORE UPDATE trigger whenever a field the feed
    /// shows changes (`CalendarFeedRules.shownFields`), on every update path; a subtask's
    /// change moves its parent (the roll-up), a rename its room's tasks.
    static let calendarFeeds = """
        CREATE TABLE calendar_links (
          digest text COLLATE "C" PRIMARY KEY,
          user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
          room bigint REFERENCES rooms(id) ON DELETE CASCADE,
          created text COLLATE "C" NOT NULL,
          body_digest text COLLATE "C",
          body_at bigint
        );
        CREATE UNIQUE INDEX calendar_links_by_scope ON calendar_links(user_id, coalesce(room, 0));
        CREATE INDEX calendar_links_by_room ON calendar_links(room);
        ALTER TABLE tasks ADD COLUMN revision bigint NOT NULL DEFAULT 0;
        ALTER TABLE tasks ADD COLUMN changed_at bigint;
        CREATE FUNCTION tasks_revision() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF (OLD.title, OLD.notes, OLD.due, OLD.start, OLD.done, OLD.progress, OLD.assignee, OLD.estimate, OLD.room)
             IS DISTINCT FROM (NEW.title, NEW.notes, NEW.due, NEW.start, NEW.done, NEW.progress, NEW.assignee, NEW.estimate, NEW.room)
          THEN
            NEW.revision := OLD.revision + 1;
            NEW.changed_at := extract(epoch FROM now())::bigint;
          END IF;
          RETURN NEW;
        END $$;
        CREATE TRIGGER tasks_revision BEFORE UPDATE ON tasks FOR EACH ROW EXECUTE FUNCTION tasks_revision();
        CREATE FUNCTION tasks_revision_of_parent() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF TG_OP = 'INSERT' THEN
            UPDATE tasks SET revision = revision + 1, changed_at = extract(epoch FROM now())::bigint WHERE id = NEW.parent;
          ELSIF TG_OP = 'DELETE' THEN
            UPDATE tasks SET revision = revision + 1, changed_at = extract(epoch FROM now())::bigint WHERE id = OLD.parent;
          ELSIF (OLD.done, OLD.progress, OLD.points, OLD.parent) IS DISTINCT FROM (NEW.done, NEW.progress, NEW.points, NEW.parent) THEN
            UPDATE tasks SET revision = revision + 1, changed_at = extract(epoch FROM now())::bigint
             WHERE id IN (OLD.parent, NEW.parent);
          END IF;
          RETURN NULL;
        END $$;
        CREATE TRIGGER tasks_revision_subtask_added AFTER INSERT ON tasks FOR EACH ROW WHEN (NEW.parent IS NOT NULL)
          EXECUTE FUNCTION tasks_revision_of_parent();
        CREATE TRIGGER tasks_revision_subtask_deleted AFTER DELETE ON tasks FOR EACH ROW WHEN (OLD.parent IS NOT NULL)
          EXECUTE FUNCTION tasks_revision_of_parent();
        CREATE TRIGGER tasks_revision_of_parent AFTER UPDATE ON tasks FOR EACH ROW
          WHEN (OLD.parent IS NOT NULL OR NEW.parent IS NOT NULL) EXECUTE FUNCTION tasks_revision_of_parent();
        CREATE FUNCTION tasks_revision_room_renamed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          UPDATE tasks SET revision = revision + 1, changed_at = extract(epoch FROM now())::bigint WHERE room = NEW.id;
          RETURN NULL;
        END $$;
        CREATE TRIGGER tasks_revision_room_renamed AFTER UPDATE OF name ON rooms FOR EACH ROW
          WHEN (OLD.name IS DISTINCT FROM NEW.name) EXECUTE FUNCTION tasks_revision_room_renamed();
        """
}
