/// The HTTP versions the web door speaks; anything else is refused before a request exists.
public enum HTTPVersion: Sendable, Equatable {
    case http10, http11
}
