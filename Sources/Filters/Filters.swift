public let placeholder = 0
