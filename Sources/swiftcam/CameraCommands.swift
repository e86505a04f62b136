import Capture
import Foundation

/// `devices` and `controls`: what the V4L2 cameras present are and offer, from their own ioctls.
enum CameraCommands {
    static let devicesUsage = """
        usage: swiftcam devices [--json]

        Lists the video capture devices present: path, identity (card and bus), formats with sizes and
        frame rates, and controls with ranges and current values. None is normal on a machine without a camera.
        """
    static let controlsUsage = """
        usage: swiftcam controls DEVICE [--json]

        Lists every control of DEVICE (e.g. /dev/video0) as `v4l2-ctl --list-ctrls` does: name, ID, type,
        range, default and current value. Change them on a running session with 'swiftcam ctl NAME brightness V' etc.
        """

    static func devices(_ arguments: [String]) -> Int32 {
        let options: Options
        do { options = try Options(arguments, switches: ["--json"]) } catch { return usageFailure(error, devicesUsage) }
        guard options.positional.isEmpty else { return usageFailure(UsageError("devices takes no arguments"), devicesUsage) }
        var reports: [DeviceReport] = []
        var refused: [DeviceError] = []
        for path in videoNodes() {
            do {
                reports.append(try DeviceReport(path: path))
            } catch {
                // Output, metadata and radio nodes are not cameras; a node this user may not open is worth saying.
                if case .permissionDenied = error { refused.append(error) }
                if case .deviceBusy = error { refused.append(error) }
            }
        }
        if options.flags.contains("--json") {
            printJSON(reports)
        } else if reports.isEmpty && refused.isEmpty {
            print("no cameras found (no /dev/video* capture devices)")
        } else {
            print(reports.map(\.description).joined(separator: "\n\n"))
        }
        for error in refused { printError("\(error)") }
        if reports.isEmpty, let first = refused.first { return exitCode(for: first) }
        return ExitCode.ok
    }

    static func controls(_ arguments: [String]) -> Int32 {
        let options: Options
        do { options = try Options(arguments, switches: ["--json"]) } catch { return usageFailure(error, controlsUsage) }
        guard options.positional.count == 1, let path = options.positional.first else {
            return usageFailure(UsageError("controls takes one device, e.g. swiftcam controls /dev/video0"), controlsUsage)
        }
        do {
            let report = try DeviceReport(path: path)
            if options.flags.contains("--json") {
                printJSON(report.controls)
            } else {
                print(report.controls.isEmpty ? "\(path) has no controls" : report.controls.map(\.description).joined(separator: "\n"))
            }
            return ExitCode.ok
        } catch {
            printError("\(error)")
            return exitCode(for: error)
        }
    }

    /// `/dev/video*`, sorted by number.
    static func videoNodes() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/dev")) ?? []
        return names.filter { $0.hasPrefix("video") && Int($0.dropFirst(5)) != nil }
            .sorted { (Int($0.dropFirst(5)) ?? 0) < (Int($1.dropFirst(5)) ?? 0) }
            .map { "/dev/\($0)" }
    }

    /// sysexits for device errors: missing → 66, permission → 77, busy or gone → 69, not a camera → 65.
    static func exitCode(for error: DeviceError) -> Int32 {
        switch error {
        case .deviceNotFound: return ExitCode.noInput
        case .permissionDenied: return ExitCode.permission
        case .deviceBusy, .deviceGone: return ExitCode.unavailable
        case .notACamera, .controlNotFound, .invalidControlValue: return ExitCode.dataError
        case .ioctlFailed: return ExitCode.unavailable
        }
    }
}
