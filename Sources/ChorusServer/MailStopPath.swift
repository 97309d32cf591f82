import ChorusWeb

/// `/mail/stop/SECRET`, the link every notice mail's `List-Unsubscribe` names (RFC 2369,
/// one-click by RFC 8058): `GET` shows a page with one button, so a mail scanner that
/// follows links stops nothing; `POST` (the button, or a mail client's one-click) turns
/// the person's mail off. The secret is made when the address is proven.
enum MailStopPath {
    static let prefix = "/mail/stop/"

    /// The secret, when `path` is a stop link whose secret could be one.
    static func secret(in path: String) -> Substring? {
        guard path.hasPrefix(prefix) else { return nil }
        let secret = path.dropFirst(prefix.count)
        guard (16...64).contains(secret.utf8.count), secret.utf8.allSatisfy({ $0.isURLSafe }) else { return nil }
        return secret
    }

    /// The page a `GET` shows: a form that posts back to the same address.
    static var confirmation: HTTPResponse {
        page(200, "Stop notice e-mails?", """
            <p>Chorus will stop sending you notices by e-mail. Pushes to your devices go on; \
            you can turn mail on again with <code>NOTIFY email=on</code> or in the app's settings.</p>
            <form method="post"><button type="submit">Stop e-mails</button></form>
            """)
    }

    /// What a `POST` answers once the store has said.
    static func response(stopped: Bool?) -> HTTPResponse {
        switch stopped {
        case true?: page(200, "E-mails stopped", "<p>Chorus sends you no more notices by e-mail.</p>")
        case false?: page(404, "Link unknown", "<p>This link stops nothing: it is old, or was never one.</p>")
        case nil: .text(503, "store unreachable; try again later", headers: [.init("Retry-After", "30")])
        }
    }

    /// A page of constant words only (nothing from the request or the store), under a
    /// policy that allows its inline style and its form and nothing else.
    private static func page(_ status: Int, _ title: String, _ body: String) -> HTTPResponse {
        let html = """
            <!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width">\
            <title>\(title)</title><style>body{font:16px system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}\
            button{font:inherit;min-height:44px;padding:0 1.2rem}</style><h1>\(title)</h1>\(body)</html>
            """
        return HTTPResponse(status: status, contentType: "text/html; charset=utf-8", body: Array(html.utf8), headers: [
            .init("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'"),
            .init("Cache-Control", "no-store"), .init("Referrer-Policy", "no-referrer"),
        ])
    }
}
