/// How the client decides that it is talking to the right server. Checking is on by
/// default; `insecure` only when the person asked for it.
public enum TrustPolicy {
    /// Verify the chain against this PEM file and the certificate's name against the host.
    case certificateAuthority(String)
    /// Accept exactly the certificate with this SHA-256 fingerprint.
    case pinned(PinnedFingerprint)
    /// Trust on first use: remembered fingerprints in a known_hosts file.
    case knownHosts(KnownHostsFile)
    /// No check at all (`--insecure`).
    case insecure
}
