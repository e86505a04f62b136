print("swiftcam")
