import ChorusProtocol

/// What the interactive session does with each line from the server: print the person's
/// replies and live events, act on the replies to its own `@chorus.` requests.
extension InteractiveSession {
    /// Handles every complete line already received.
    func drainServer() throws(ClientFailure) {
        while exitStatus == nil, let link, let raw = link.client.nextBufferedLine() {
            let line = ServerLine(raw)
            if !link.greeted {
                link.greeted = true
                // The greeting is a text line; a bot reading JSON lines is not shown it. Anything
                // else first (`ERR 503` from a full server) is handled like any other line.
                if line.kind == .event {
                    if !greetingShown && !jsonWire { console.show(raw, style: .event) }
                    greetingShown = true
                    continue
                }
            }
            if let tag = line.tag, tag.hasPrefix(Self.ownTagPrefix) {
                let name = String(tag.dropFirst(Self.ownTagPrefix.count))
                if line.isFinal {
                    try handleOwnReply(name, body: link.takeBody(for: name), final: line)
                } else {
                    link.keepBody(line, for: name)
                }
                continue
            }
            switch line.kind {
            case .event: showLiveEvent(line)
            case .body: console.show(line.raw, style: .plain)
            case .ok, .error: finishPersonRequest(line)
            }
        }
        syncCursorIfDue()
        lookForReadRoomsIfDue()
    }

    private func showLiveEvent(_ line: ServerLine) {
        // Another device of this person marked a room read: bookkeeping for apps, not news.
        let readElsewhere = Self.isReadMarkerEvent(line)
        if !readElsewhere { console.show(line.raw, style: jsonWire ? .plain : .event) }
        guard credentials != nil else { return }
        guard let id = line.eventID else { return } // `bye` is not stored
        if !readElsewhere { reads.printed(eventID: id) }
        let key = "#\(id)"
        if search != nil {
            shownDuringSearch.append(key)
        } else {
            cursor?.shownLive(key: key)
        }
        cursorDirty = true
    }

    /// A final reply to a line the person typed: print it, and follow what it changed.
    private func finishPersonRequest(_ line: ServerLine) {
        console.show(line.raw, style: line.kind == .ok ? (jsonWire ? .plain : .ok) : .error)
        if line.kind == .error { answeredWithError = true }
        guard let link, !link.awaiting.isEmpty else { return }
        let sent = link.awaiting.removeFirst()
        cursorDirty = true
        guard line.kind == .ok, let request = sent.request else { return }
        switch (request.verb, request.command) {
        case (_, let command as Command.Mode):
            jsonWire = command.mode == .json
        case ("LOGIN", let given as Command.Credentials):
            loggedIn(as: .password(user: given.name, password: given.password), reply: line)
        case ("REGISTER", let given as Command.Registration):
            loggedIn(as: .password(user: given.name, password: given.password), reply: line)
        case ("AUTH", let token as Command.Word):
            loggedIn(as: .token(token.value), reply: line)
        case (_, let command as Command.Password):
            if case .password(let user, _) = credentials { credentials = .password(user: user, password: command.new) }
        case ("LOGOUT", _):
            saveSeen(now: true)
            credentials = nil
            account = nil
            cursor = nil
            search = nil
            away = nil
            reads = ReadFollower()
        case ("QUIT", _):
            quitRequested = true
        default:
            break
        }
    }

    /// The person logged in by hand: remember how, for reconnects, and start following
    /// this account's events from where its last session stopped (else from now).
    private func loggedIn(as login: Credentials, reply: ServerLine) {
        saveSeen(now: true)
        credentials = login
        account = Self.accountName(login, reply: reply)
        cursor = nil
        away = nil
        reads = ReadFollower()
        startFollowing()
    }

    /// Who a login made this session: the name given, or for a token the name in the
    /// reply (`OK logged in as bob with a token`, or JSON `user.name`).
    static func accountName(_ login: Credentials, reply: ServerLine) -> String? {
        if case .password(let user, _) = login { return user }
        if let json = reply.json { return (json["user"] as? [String: Any])?["name"] as? String }
        guard let range = reply.untagged.range(of: "logged in as ") else { return nil }
        let name = reply.untagged[range.upperBound...].prefix { $0 != " " }
        return name.isEmpty ? nil : String(name)
    }

    // MARK: The client's own requests

    private func handleOwnReply(_ name: String, body: [ServerLine], final: ServerLine) throws(ClientFailure) {
        switch name {
        case "login":
            try finishLogin(final)
        case "probe":
            guard let probe = link?.probes.first else { return }
            link?.probes.removeFirst()
            // An answer for an earlier search (the person logged in again meanwhile) is stale.
            guard probe.search == searchNumber else { return }
            let page = SyncPage(body: body, final: final, after: probe.after)
            continueSearch(after: probe.after, first: page?.entries.first?.id, failed: page == nil)
        case "cursor":
            guard var current = cursor, let page = SyncPage(body: body, final: final, after: current.last) else {
                cursorSyncInFlight = false
                return
            }
            if page.reset {
                restartCursor(at: page.last, own: "cursor")
                return
            }
            _ = current.absorb(page, replaying: false)
            cursor = current
            if page.more {
                link?.send(own: "cursor", "SYNC \(current.last) 500")
            } else {
                cursorSyncInFlight = false
            }
        case "replay":
            guard var current = cursor, let page = SyncPage(body: body, final: final, after: current.last) else {
                replaying = false
                if final.kind == .error { console.notice("could not replay missed events: \(final.errorMessage)") }
                return
            }
            if page.reset {
                restartCursor(at: page.last, own: "replay")
                return
            }
            // A marker moved on another device is no news to replay.
            let missed = current.absorb(page, replaying: true).filter { !Self.isReadMarkerEvent(ServerLine($0.display)) }
            if away != nil {
                away?.take(missed)
            } else {
                for entry in missed { show(replayed: entry) }
            }
            cursor = current
            if page.more {
                link?.send(own: "replay", "SYNC \(current.last) 500")
            } else {
                replaying = false
                showAway()
            }
        case "unread":
            if let counts = UnreadRooms.counts(body: body, final: final) {
                for room in reads.looked(counts) { link?.send(own: "read", "READ \(room) \(reads.printedUpTo)") }
            } else {
                reads.lookFailed()
            }
        case "read":
            // A room left or deleted meanwhile: nothing to mark, nothing to say.
            break
        default:
            if final.kind == .error { console.notice(final.errorMessage) }
        }
    }

    private func finishLogin(_ final: ServerLine) throws(ClientFailure) {
        if final.kind == .ok {
            if !established && !jsonWire { console.show(final.untagged, style: .ok) }
            // When it starts: which rooms have news, one line each ("3 new in Flat 2B").
            if !established { for news in UnreadRooms.loginNews(final) { console.notice(news) } }
            if cursor == nil, let credentials { account = Self.accountName(credentials, reply: final) }
            becomeReady()
            return
        }
        let code = final.errorCode ?? 0
        // Busy or throttled: worth another try later. A refused login is not.
        guard established, code == 429 || code == 503 else {
            throw ClientFailure("login failed: \(final.errorMessage)")
        }
        console.notice("login refused for now: \(final.errorMessage)")
        link?.client.close()
        try lost()
    }

    // MARK: Following the event stream

    /// Starts the newest-id search after a login: every growing probe at once.
    func startSearch() {
        guard let link else { return }
        search = NewestEventSearch()
        searchNumber += 1
        shownDuringSearch = []
        for after in NewestEventSearch.growingProbes { probe(after, on: link) }
    }

    private func probe(_ after: Int64, on link: SessionLink) {
        link.probes.append((searchNumber, after))
        link.send(own: "probe", "SYNC \(after) 1")
    }

    private func continueSearch(after: Int64, first: Int64?, failed: Bool) {
        guard var current = search, let link else { return }
        if failed {
            // Not logged in any more (the person typed LOGOUT meanwhile): stop following.
            search = nil
            return
        }
        let next = current.record(after: after, first: first)
        search = current
        for probe in next { self.probe(probe, on: link) }
        guard let result = current.result else { return }
        search = nil
        var started = EventCursor(last: result)
        for key in shownDuringSearch { started.shownLive(key: key) }
        shownDuringSearch = []
        cursor = started
        cursorDirty = true
    }

    /// The server's log ends before the cursor: history was restored there. One notice,
    /// then the same SYNC again from the log's end, for whatever was written since.
    private func restartCursor(at end: Int64, own name: String) {
        guard var current = cursor else { return }
        let was = current.last
        current.restart(at: end)
        cursor = current
        console.notice("history was restored on the server: events after #\(end) are gone (you had seen up to #\(was)); carrying on from #\(end)")
        link?.send(own: name, "SYNC \(end) 500")
    }

    /// Right after a login: replays what was missed since the place saved for this server
    /// and account, if there is one (and `--no-replay` was not given); else searches for
    /// the newest event, to follow from now.
    func startFollowing() {
        guard replayAway, let account, let saved = seenEvents?.lastSeen(server: connector.endpoint, account: account) else {
            startSearch()
            return
        }
        cursor = EventCursor(last: saved)
        away = AwayReplay(since: saved, limit: Self.awayLimit)
        startReplay()
    }

    /// The start-up replay is over: its heading as notices, then the events kept.
    private func showAway() {
        guard let missed = away else { return }
        away = nil
        for line in missed.heading { console.notice(line) }
        for entry in missed.kept { show(replayed: entry) }
        reads.absenceShown(whole: missed.leftOut == 0)
    }

    /// An event SYNC gave back, printed as it would have been live.
    private func show(replayed entry: SyncPage.Entry) {
        console.show(entry.display, style: jsonWire ? .plain : .event)
        reads.printed(eventID: entry.id)
    }

    /// `room.read`: `* read Flat 2B (#3) up to #412 ...`, or JSON `"event":"room.read"`.
    static func isReadMarkerEvent(_ line: ServerLine) -> Bool {
        guard line.kind == .event else { return false }
        if let json = line.json { return json["event"] as? String == "room.read" }
        // Stricter than its first word: "read" may be someone's name.
        return line.untagged.wholeMatch(of: /\* read .+ \(#\d+\) up to #\d+ · .+/) != nil
    }

    /// Asks which rooms' counts grew (`ReadFollower`), when due: logged in and the start-up
    /// replay over. The first look goes right after the login, so what comes after it is growth.
    func lookForReadRoomsIfDue() {
        guard credentials != nil, let link, link.ready, away == nil, !replaying else { return }
        let now = ContinuousClock.now
        guard reads.shouldLook(now: now) else { return }
        reads.lookSent(now: now)
        link.send(own: "unread", "ROOMS")
    }

    /// Writes the cursor to `seenEvents` when it moved: at most once a second, or `now`
    /// (at exit, before another login). Not during the start-up replay, whose events are
    /// not shown until its end. A file that cannot be written is said once and does not
    /// stop the session.
    func saveSeen(now: Bool) {
        guard let seenEvents, let account, away == nil, let last = cursor?.last, last != savedLast else { return }
        guard now || ContinuousClock.now - savedAt >= .seconds(1) else { return }
        savedAt = .now
        do {
            try seenEvents.save(last, server: connector.endpoint, account: account)
        } catch {
            if !seenUnwritable { console.notice("cannot remember where you stopped: \(error.description)") }
            seenUnwritable = true
        }
        savedLast = last
    }

    /// After a reconnect: everything after the cursor, shown unless it was shown live.
    func startReplay() {
        guard let link, let cursor else { return }
        replaying = true
        link.send(own: "replay", "SYNC \(cursor.last) 500")
    }

    /// A quiet SYNC after activity, so the cursor stays close to what was shown.
    func syncCursorIfDue() {
        guard cursorDirty, !cursorSyncInFlight, !replaying, search == nil, let cursor, let link, link.ready else { return }
        cursorDirty = false
        cursorSyncInFlight = true
        link.send(own: "cursor", "SYNC \(cursor.last) 500")
    }
}
