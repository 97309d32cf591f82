/// What a token is for (`TOKEN CREATE LABEL [kind=device|bot]`): a `device` keeps a
/// person's browser or phone signed in, a `bot` is a program acting as the account. Both
/// log in with `AUTH TOKEN` alike; the kind only tells them apart in `TOKEN LIST` and
/// `WHOAMI`, so a person can see which of their devices and bots hold a way in.
public enum TokenKind: String, Sendable, CaseIterable {
    case device
    case bot

    /// A token made without `kind=` is a bot's, as every token was before kinds.
    public static let standard = TokenKind.bot
}
