// ChorusClient
