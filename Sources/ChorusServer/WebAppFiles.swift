import ChorusWeb

/// What `GET /` and `GET /manifest.webmanifest` serve (CONTRACT §9). The web app itself
/// comes with the next issue; until then the page says where to go.
enum WebAppFiles {
    static let page = HTTPResponse(status: 200, contentType: "text/html; charset=utf-8", body: Array("""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Chorus</title>
        <link rel="manifest" href="/manifest.webmanifest">
        <link rel="icon" href="/icon-192.png">
        </head>
        <body>
        <h1>Chorus</h1>
        <p>This server speaks to the <code>chorus</code> client, to bots over WebSocket at <code>/ws</code>,
        and to calendar apps through the addresses <code>CALENDAR LINK</code> gives.</p>
        </body>
        </html>

        """.utf8), headers: [.init("Cache-Control", "no-cache")])

    static let manifest = HTTPResponse(status: 200, contentType: "application/manifest+json", body: Array("""
        {"name":"Chorus","short_name":"Chorus","start_url":"/","display":"standalone",\
        "background_color":"#ffffff","theme_color":"#2f6f4f","icons":[\
        {"src":"/icon-192.png","sizes":"192x192","type":"image/png","purpose":"any"},\
        {"src":"/icon-512.png","sizes":"512x512","type":"image/png","purpose":"any"},\
        {"src":"/icon-512.png","sizes":"512x512","type":"image/png","purpose":"maskable"}]}

        """.utf8), headers: [.init("Cache-Control", "no-cache")])

    /// The icons, drawn once on first use.
    static let icon192 = HTTPResponse(status: 200, contentType: "image/png", body: WebAppIcon.png(size: 192),
                                      headers: [.init("Cache-Control", "max-age=86400")])
    static let icon512 = HTTPResponse(status: 200, contentType: "image/png", body: WebAppIcon.png(size: 512),
                                      headers: [.init("Cache-Control", "max-age=86400")])

    /// What `GET` of `path` serves from these, if anything.
    static func file(at path: String) -> HTTPResponse? {
        switch path {
        case "/": page
        case "/manifest.webmanifest": manifest
        case "/icon-192.png": icon192
        case "/icon-512.png": icon512
        default: nil
        }
    }
}
