#!/usr/bin/env python3
"""A small Chorus bot: thanks whoever finishes a chore.

Standard library only. It keeps one JSON-mode session open, logs in with a bot token,
answers every `task.done` event in the task's room, and after a dropped connection
reconnects with backoff and asks `SYNC <last id>` so no finished chore goes unthanked.
The last event id it handled is kept in a state file, so a restarted bot resumes too.

    CHORUS_TOKEN=... python3 thank_bot.py --host 127.0.0.1 --port 7667 --ca certs/server.crt

Make the token with `TOKEN CREATE thankbot` while logged in as the bot's account, and add
that account to the household's room.
"""
import argparse
import json
import os
import socket
import ssl
import sys
import time
import unicodedata


class Session:
    """One TLS connection speaking JSON lines; replies are matched to requests by tag."""

    def __init__(self, host, port, context):
        raw = socket.create_connection((host, port), timeout=30)
        self.sock = context.wrap_socket(raw, server_hostname=host)
        self.file = self.sock.makefile("rwb")
        self.file.readline()  # the greeting, in text mode
        self.counter = 0
        self.pending_events = []

    def send(self, line):
        # Whatever went into it, one request line: never a second one.
        if any(c in line for c in "\r\n\x85\u2028\u2029"):
            raise ValueError("refusing to send a request line with a line break in it")
        self.file.write((line + "\r\n").encode("utf-8"))
        self.file.flush()

    def call(self, line):
        """Sends a tagged request and returns its reply; events that arrive first are kept."""
        self.counter += 1
        tag = f"b{self.counter}"
        self.send(f"@{tag} {line}")
        while True:
            message = self.read()
            if message.get("type") == "event":
                self.pending_events.append(message)
            elif message.get("tag") == tag:
                return message

    def read(self):
        line = self.file.readline()
        if not line:
            raise ConnectionError("server closed the connection")
        return json.loads(line)

    def next_event(self):
        if self.pending_events:
            return self.pending_events.pop(0)
        while True:
            message = self.read()
            if message.get("type") == "event":
                return message

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def load_last_id(path):
    try:
        with open(path) as handle:
            return int(handle.read().strip() or 0)
    except (OSError, ValueError):
        return 0


def save_last_id(path, event_id):
    temporary = path + ".tmp"
    with open(temporary, "w") as handle:
        handle.write(str(event_id))
    os.replace(temporary, path)


def one_line(value, limit=200):
    """Server text made safe to put in a request line: a line break or other control
    character in it (a title stored by an older server, say) would end the line and start
    a request of its own, so each becomes a space. Also cut to `limit` characters."""
    text = "".join(" " if unicodedata.category(c) in ("Cc", "Zl", "Zp") else c for c in str(value))
    return text[:limit].strip()


def handle(session, event, me):
    """Thanks the finisher of a room chore (not itself, not personal tasks)."""
    room = event.get("room")
    # bool is an int in Python; a room is a plain number or nothing.
    if event.get("event") != "task.done" or type(room) is not int:
        return
    who = one_line(event.get("by") or "")
    if not who or who == me:
        return
    task = event.get("task") if isinstance(event.get("task"), dict) else {}
    title = one_line(task.get("title") or "a chore") or "a chore"
    reply = session.call(f"SAY {room} Thanks {who} for finishing {title}!")
    if reply.get("type") != "ok":
        print(f"thank_bot: could not say thanks: {reply.get('message')}", file=sys.stderr)


def run(args, token):
    context = ssl.create_default_context(cafile=args.ca) if args.ca else ssl.create_default_context()
    last_id = load_last_id(args.state)
    backoff = 1
    while True:
        session = None
        try:
            session = Session(args.host, args.port, context)
            session.call("MODE json")
            login = session.call(f"AUTH {token}")
            if login.get("type") != "ok":
                print(f"thank_bot: login refused: {login.get('message')}", file=sys.stderr)
                return 2
            me = login["user"]["name"]
            print(f"thank_bot: logged in as {me}, catching up after event {last_id}", flush=True)
            backoff = 1
            # Catch up on what happened while away, page by page.
            while True:
                page = session.call(f"SYNC {last_id} 200")
                if page.get("reset") and type(page.get("last")) is int:
                    # The server was restored from a backup: start over from its log's end.
                    print(f"thank_bot: history was restored on the server; going on from event {page['last']}", flush=True)
                    last_id = page["last"]
                    save_last_id(args.state, last_id)
                    continue
                for event in page.get("events", []):
                    handle(session, event, me)
                    if type(event.get("id")) is int:
                        last_id = max(last_id, event["id"])
                        save_last_id(args.state, last_id)
                if not page.get("more"):
                    break
            print("thank_bot: listening", flush=True)
            while True:
                event = session.next_event()
                if event.get("event") == "bye":
                    raise ConnectionError(event.get("reason", "bye"))
                handle(session, event, me)
                if type(event.get("id")) is int:
                    last_id = max(last_id, event["id"])
                    save_last_id(args.state, last_id)
        except (OSError, ConnectionError, ValueError) as error:
            print(f"thank_bot: {error}; reconnecting in {backoff} s", file=sys.stderr, flush=True)
            time.sleep(backoff)
            backoff = min(backoff * 2, 30)
        finally:
            if session:
                session.close()


def main():
    parser = argparse.ArgumentParser(description="Thanks whoever finishes a chore.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=7667)
    parser.add_argument("--ca", help="PEM file to trust (for example certs/server.crt)")
    parser.add_argument("--token-file", help="file holding the bot token (or set CHORUS_TOKEN)")
    parser.add_argument("--state", default="thank_bot.state", help="where the last handled event id is kept")
    args = parser.parse_args()
    token = os.environ.get("CHORUS_TOKEN")
    if args.token_file:
        with open(args.token_file) as handle:
            token = handle.readline().strip()
    if not token:
        print("thank_bot: no token: use --token-file or CHORUS_TOKEN", file=sys.stderr)
        return 2
    try:
        return run(args, token)
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
