/// The Python program `LocalSMTPServer` runs: Debian's aiosmtpd (python3-aiosmtpd, 1.4)
/// on 127.0.0.1, behaving as the test asks. Each accepted message is written to the
/// mail folder as N.eml with N.json beside it (envelope, the AUTH user, whether the
/// session was encrypted); every AUTH attempt is appended to auth-attempts; a file named
/// ready appears once the server listens.
public enum LocalSMTPServerScript {
    public static let source = #"""
import argparse, asyncio, json, os, signal, ssl, threading, time
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--tls", choices=["starttls", "implicit", "none"], required=True)
parser.add_argument("--behaviour", choices=["accept", "refuse-recipient", "defer", "vanish", "stall"], default="accept")
parser.add_argument("--cert")
parser.add_argument("--key")
parser.add_argument("--user", required=True)
parser.add_argument("--password", required=True)
parser.add_argument("--maildir", required=True)
options = parser.parse_args()
# The test process blocks signals its children inherit; SIGTERM must end this one.
signal.pthread_sigmask(signal.SIG_SETMASK, set())
signal.signal(signal.SIGTERM, signal.SIG_DFL)
lock = threading.Lock()
count = [0]


def authenticator(server, session, envelope, mechanism, auth_data):
    login = auth_data.login.decode() if isinstance(auth_data, LoginPassword) else None
    with open(os.path.join(options.maildir, "auth-attempts"), "a") as attempts:
        attempts.write("%s %s\n" % (mechanism, login))
    ok = isinstance(auth_data, LoginPassword) and auth_data.login == options.user.encode() \
        and auth_data.password == options.password.encode()
    return AuthResult(success=ok, handled=False, auth_data=auth_data)


class Handler:
    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if options.behaviour == "refuse-recipient":
            return "550 5.1.1 No such mailbox here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        if options.behaviour == "defer":
            return "451 4.3.0 Please try again later"
        if options.behaviour == "stall":
            await asyncio.sleep(3600)
        with lock:
            count[0] += 1
            name = os.path.join(options.maildir, str(count[0]))
        auth = session.auth_data
        record = {
            "mail_from": envelope.mail_from,
            "rcpt_tos": envelope.rcpt_tos,
            "auth_user": auth.login.decode() if isinstance(auth, LoginPassword) else None,
            "encrypted": server.transport.get_extra_info("ssl_object") is not None,
        }
        with open(name + ".eml", "wb") as message:
            message.write(envelope.original_content or envelope.content)
        with open(name + ".json", "w") as meta:
            json.dump(record, meta)
        return "250 2.0.0 Queued"


class VanishingSMTP(SMTP):
    """Says 354, takes the first line of the message, then drops the connection."""
    async def smtp_DATA(self, arg):
        if not self.envelope.rcpt_tos:
            return await super().smtp_DATA(arg)
        await self.push("354 End data with <CR><LF>.<CR><LF>")
        await self._reader.readuntil(b"\r\n")
        self.transport.abort()


class TestController(Controller):
    def factory(self):
        kind = VanishingSMTP if options.behaviour == "vanish" else SMTP
        return kind(self.handler, **self.SMTP_kwargs)


def server_context():
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(options.cert, options.key)
    return context


settings = dict(hostname="127.0.0.1", port=options.port, authenticator=authenticator, server_hostname="localhost")
if options.tls == "starttls":
    settings.update(tls_context=server_context(), require_starttls=True, auth_require_tls=True, auth_required=True)
elif options.tls == "implicit":
    # aiosmtpd 1.4 counts only STARTTLS as TLS for auth_require_tls; this session is TLS throughout.
    settings.update(ssl_context=server_context(), auth_require_tls=False, auth_required=True)
else:
    # A server that would take a password and a message in clear: the client must refuse.
    settings.update(auth_require_tls=False, auth_required=False)
controller = TestController(Handler(), **settings)
controller.start()
open(os.path.join(options.maildir, "ready"), "w").close()
while True:
    time.sleep(3600)
"""#
}
