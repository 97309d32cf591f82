/// The members of a JOSE header a verifier looks at before trusting anything else.
struct JOSEHeaderFields: Decodable {
    var alg: String
    var typ: String?
}
