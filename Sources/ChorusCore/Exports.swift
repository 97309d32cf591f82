// The domain speaks the protocol's error and value types, so whoever imports the core gets them too.
@_exported import ChorusProtocol
