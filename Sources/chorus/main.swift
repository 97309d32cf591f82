print("chorus: not built yet")
