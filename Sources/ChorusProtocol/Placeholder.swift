// ChorusProtocol
