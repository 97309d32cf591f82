// The domain stores times as the protocol's `Timestamp` and refuses with its own `DomainError`,
// never a status code; the protocol is re-exported so the layers above, which speak it, need one import.
@_exported import ChorusProtocol
