// The WebSocket session (CONTRACT §9): one request line per frame, one JSON object per
// frame back. Every request carries a tag, and its reply settles that request's
// promise; anything else is an event. A lost connection (network, sleep, server
// restart) is retried with growing pauses; `onOpen` logs in again each time.

import { byteLength } from "./wire.js";

/** A reply `{"type":"error"}`: the code and the server's message. */
export class ChorusError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/** The request could not be answered: no connection, or it broke before the reply. */
export class OfflineError extends ChorusError {
  constructor(message = "You are offline: this will work once the app reconnects.") {
    super(0, message);
  }
}

/** The longest line the server takes (`--max-line`); past it the socket is closed (1009). */
const MAX_LINE = 8192;
const PAUSES = [500, 1000, 2000, 4000, 8000, 15000, 30000];
const PING_EVERY = 25000;
const PING_PATIENCE = 10000;

export class Session extends EventTarget {
  constructor(url) {
    super();
    this.url = url;
    this.socket = null;
    this.pending = new Map();
    this.counter = 0;
    this.attempt = 0;
    this.state = "offline";
    this.stopped = true;
    this.retryTimer = 0;
    this.pingTimer = 0;
    /** Called after each connection opens, before the session counts as online: it logs
     *  in. Throwing stops the retries (a revoked token, say). */
    this.onOpen = async () => {};
    this.wake = () => this.reconnectNow();
    addEventListener("online", this.wake);
    addEventListener("pageshow", this.wake);
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.checkAlive();
    });
  }

  /** Starts (or restarts) connecting; retries until `stop`. */
  start() {
    this.stopped = false;
    this.open();
  }

  /** Closes for good (sign out): no retry. */
  stop() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    clearTimeout(this.pingTimer);
    if (this.socket) this.socket.close(1000);
    this.socket = null;
    this.setState("offline");
  }

  /** Sends `line` and resolves with its reply's fields, or rejects with a ChorusError. */
  request(line, { timeout = 30000 } = {}) {
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) return Promise.reject(new OfflineError());
    const tag = "w" + (++this.counter).toString(36);
    const framed = `@${tag} ${line}`;
    if (byteLength(framed) > MAX_LINE - 16) return Promise.reject(new ChorusError(413, "That is too long to send."));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(tag);
        reject(new OfflineError("The server did not answer in time."));
        // A reply that never comes means the connection is gone though the socket
        // has not noticed yet (a phone that slept): start over now. The browser's
        // close event may not come for a long time on a link where nothing passes,
        // so the session counts the socket as closed itself (closed() ignores the
        // late event: it is no longer this.socket).
        if (this.socket === socket) {
          socket.close(4000);
          this.closed(socket);
        }
      }, timeout);
      this.pending.set(tag, { resolve, reject, timer });
      socket.send(framed);
    });
  }

  // MARK: connection

  open() {
    if (this.stopped || this.socket) return;
    clearTimeout(this.retryTimer);
    this.setState("connecting");
    let socket;
    try {
      socket = new WebSocket(this.url);
    } catch {
      this.retry();
      return;
    }
    this.socket = socket;
    socket.onmessage = (message) => this.receive(message.data);
    socket.onclose = () => this.closed(socket);
    socket.onopen = async () => {
      try {
        await this.onOpen(this);
      } catch (error) {
        if (this.socket !== socket) return;
        if (error instanceof OfflineError) return; // the close handler retries
        this.stopped = true;
        socket.close(1000);
        this.dispatchEvent(new CustomEvent("failed", { detail: error }));
        return;
      }
      if (this.socket !== socket) return;
      this.attempt = 0;
      this.setState("online");
      this.schedulePing();
    };
  }

  closed(socket) {
    if (this.socket !== socket) return;
    this.socket = null;
    clearTimeout(this.pingTimer);
    for (const { reject, timer } of this.pending.values()) {
      clearTimeout(timer);
      reject(new OfflineError("The connection was lost before the server answered."));
    }
    this.pending.clear();
    this.setState("offline");
    this.retry();
  }

  retry() {
    if (this.stopped) return;
    const pause = PAUSES[Math.min(this.attempt, PAUSES.length - 1)];
    this.attempt += 1;
    // Some randomness, so a restarted server is not met by every phone at once.
    this.retryTimer = setTimeout(() => this.open(), pause * (0.75 + Math.random() * 0.5));
  }

  /** Back online or awake: try at once instead of waiting out the pause. */
  reconnectNow() {
    if (this.stopped) return;
    if (!this.socket) {
      this.attempt = 0;
      this.open();
    } else {
      this.checkAlive();
    }
  }

  /** After sleep the socket may be dead without knowing it: a PING finds out. */
  checkAlive() {
    if (this.stopped) return;
    if (!this.socket) return this.reconnectNow();
    if (this.state !== "online") return;
    this.request("PING", { timeout: PING_PATIENCE }).catch(() => {});
  }

  schedulePing() {
    clearTimeout(this.pingTimer);
    this.pingTimer = setTimeout(() => {
      if (document.visibilityState === "visible") this.checkAlive();
      if (this.state === "online") this.schedulePing();
    }, PING_EVERY);
  }

  setState(state) {
    if (this.state === state) return;
    this.state = state;
    this.dispatchEvent(new CustomEvent("state", { detail: state }));
  }

  receive(data) {
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    if (message.type === "event") {
      this.dispatchEvent(new CustomEvent("event", { detail: message }));
      return;
    }
    const waiting = message.tag && this.pending.get(message.tag);
    if (!waiting) return;
    this.pending.delete(message.tag);
    clearTimeout(waiting.timer);
    if (message.type === "ok") waiting.resolve(message);
    else waiting.reject(new ChorusError(message.code, message.message || "The server refused that."));
  }
}
