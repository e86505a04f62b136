import Capture

/// `encoders`: the video encoders SwiftCam knows, which this machine has, and which it chooses.
enum EncoderCommands {
    static let usage = """
        usage: swiftcam encoders [--json]

        Lists every video encoder SwiftCam tries, best first (V4L2 M2M, VA-API, NVENC, then x264, OpenH264, VP8),
        whether this machine has it, and the one chosen for the live stream and for each record.encoder setting.
        An encoder that fails to start falls back to the next with a warning; a config may name one (live.encoder,
        record.encoder) to use only that one.
        """

    static func run(_ arguments: [String]) -> Int32 {
        Options.run(arguments, usage: usage, switches: ["--json"], arity: .none("encoders takes no arguments")) { options in
            let inventory = EncoderInventory.scan()
            print(options.flags.contains("--json") ? inventory.json : inventory.text)
            return ExitCode.ok
        }
    }
}
