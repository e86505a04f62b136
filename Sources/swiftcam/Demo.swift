import Capture

/// `swiftcam demo`: a camera-free pipeline run end to end (replaced by `run demo` once configs exist).
enum Demo {
    static func run() -> Int32 {
        do {
            let report = try DemoRun.start(seconds: 3)
            print(report)
            return ExitCode.ok
        } catch {
            printError("\(error)")
            return ExitCode.software
        }
    }
}
