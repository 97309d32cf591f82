// ChorusServer
