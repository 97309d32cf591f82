print("chorusd")
