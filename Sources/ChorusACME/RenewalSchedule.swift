/// When to renew and when to try again: pure rules over Unix seconds.
public enum RenewalSchedule {
    /// Renew at two thirds of a certificate's life (CONTRACT §10; Let's Encrypt's 90 days
    /// give 30 days of margin). `renewAfter` (tests only) renews that many seconds after
    /// notBefore instead, when sooner.
    public static func renewalTime(notBefore: Int64, notAfter: Int64, renewAfter: Int64? = nil) -> Int64 {
        let life = max(0, notAfter - notBefore)
        let rule = notBefore + life * 2 / 3
        guard let renewAfter else { return rule }
        return min(rule, notBefore + renewAfter)
    }

    /// Whether a certificate valid `notBefore...notAfter` needs a new one at `now`.
    public static func isDue(now: Int64, notBefore: Int64, notAfter: Int64, renewAfter: Int64? = nil) -> Bool {
        now >= renewalTime(notBefore: notBefore, notAfter: notAfter, renewAfter: renewAfter)
    }

    /// Seconds to wait after `failures` failed orders in a row (1, 2, …): `first`, doubled
    /// each time, at most a day, as Caddy backs off; Let's Encrypt's rate limits count
    /// failed validations, so a broken setup must not hammer it.
    public static func retryDelay(failures: Int, first: Double = 60, cap: Double = 86_400) -> Double {
        guard failures > 0 else { return 0 }
        let doublings = min(failures - 1, 30)
        return min(cap, first * Double(1 << doublings))
    }
}
