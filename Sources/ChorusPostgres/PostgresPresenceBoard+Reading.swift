import ChorusStore

extension PostgresPresenceBoard {
    /// Drops the other nodes whose lease ran out or whose backends are all gone (a killed
    /// process: PostgreSQL ends a backend as soon as its client's socket closes), with their
    /// presence rows, and ends their backends that are still connected. Each dropped row is
    /// returned to one node only (the DELETE's row lock), so one node ends them.
    func retireOthers() throws -> [RetiredNode] {
        let rows = try connection.query(Self.retire, [.text(node), .double(timing.lease)]).rows
        var pids: [String: [Int32]] = [:]
        for row in rows {
            let name = row.text(0)
            let pid = try row.int64(1)
            pids[name, default: []] += pid.map { [Int32($0)] } ?? []
        }
        return pids.keys.sorted().map { name in
            known[name] = nil
            let ended = pids[name, default: []].filter(terminate).count
            return RetiredNode(node: name, backendsEnded: ended)
        }
    }

    /// Ends one backend of a retired node; a backend of a role this one may not signal, or
    /// one that has just ended, is left alone.
    private func terminate(_ pid: Int32) -> Bool {
        (try? connection.query("SELECT pg_terminate_backend($1::integer)", [.int(Int64(pid))]).firstRow().bool(0)) == true
    }

    /// Deletes the expired or gone nodes (never this one) and their presence rows, and
    /// lists their backends still connected. A backend counts only if it started before the
    /// node's last heartbeat, so a process id PostgreSQL has since given to someone else's
    /// new connection is not ended.
    static let retire = """
        WITH gone AS (
          DELETE FROM nodes n
           WHERE n.node <> $1
             AND (n.heartbeat_at < now() - make_interval(secs => $2::float8)
                  OR NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = ANY(n.backend_pids)))
          RETURNING n.node, n.heartbeat_at, n.backend_pids
        ), cleared AS (
          DELETE FROM presence p USING gone WHERE p.node = gone.node
        )
        SELECT gone.node, a.pid FROM gone
          LEFT JOIN pg_stat_activity a ON a.pid = ANY(gone.backend_pids) AND a.backend_start <= gone.heartbeat_at
        """

    /// Every node with a live lease; another node's users are read again only when its
    /// claim or version moved since they were last read.
    func readLive(own report: NodeReport) throws -> [NodeSnapshot] {
        let rows = try connection.query("""
            SELECT node, claim, presence_version, sessions, tail_lag, extract(epoch FROM now() - heartbeat_at)::float8
              FROM nodes WHERE heartbeat_at >= now() - make_interval(secs => $1::float8) ORDER BY node
            """, [.double(timing.lease)]).rows
        var live: [NodeSnapshot] = []
        var seen: Set<String> = []
        for row in rows {
            let name = row.text(0)
            let claim = row.text(1)
            let version = try row.int64(2) ?? 0
            let users: [Int64: Int]
            if name == node {
                users = report.users
            } else if let cached = known[name], cached.claim == claim, cached.version == version {
                users = cached.users
            } else {
                users = try readUsers(of: name)
                known[name] = (claim, version, users)
            }
            seen.insert(name)
            live.append(NodeSnapshot(node: name, sessions: Int(try row.int64(3) ?? 0), users: users, lag: try row.int64(4),
                                     heartbeatAge: max(0, try row.double(5) ?? 0)))
        }
        known = known.filter { seen.contains($0.key) }
        return live
    }

    private func readUsers(of name: String) throws -> [Int64: Int] {
        var users: [Int64: Int] = [:]
        for row in try connection.query("SELECT user_id, sessions FROM presence WHERE node = $1", [.text(name)]).rows {
            if let user = try row.int64(0), let sessions = try row.int64(1), sessions > 0 { users[user] = Int(sessions) }
        }
        return users
    }
}
