import Capture
import Config

/// `devices` and `controls`: what the V4L2 cameras present are and offer, from their own ioctls.
enum CameraCommands {
    static let devicesUsage = """
        usage: swiftcam devices [--json]

        Lists the video capture devices present: path, identity (card and bus), formats with sizes and
        frame rates (the mode `swiftcam init` would pick is marked), and controls with ranges and current values;
        then the cameras libcamera manages (a Raspberry Pi camera module; listed with libcamera's `cam` tool) with
        their stream's formats and sizes. The raw nodes of a media-controller pipeline are named, not listed.
        None is normal on a machine without a camera.
        """
    static let controlsUsage = """
        usage: swiftcam controls DEVICE [--json]

        Lists every control of DEVICE (e.g. /dev/video0) as `v4l2-ctl --list-ctrls` does: name, ID, type,
        range, default and current value. Change them on a running session with 'swiftcam ctl NAME brightness V' etc.
        """

    static let initUsage = """
        usage: swiftcam init NAME [--device PATH | --camera ID]

        Writes pipelines/NAME.json for a camera found here (the first V4L2 camera that serves live video, else the
        first libcamera camera; or PATH; or libcamera's camera ID as `swiftcam devices` lists it): its best mode for
        live use (the largest reaching 25 fps; MJPEG decoded when raw does not reach it), a still branch, recordings,
        and its control values as they are now. Never overwrites a file; the config is validated first.
        """

    static func initConfig(_ arguments: [String]) -> Int32 {
        Options.run(
            arguments, usage: initUsage, valued: ["--device", "--camera"],
            arity: .one("init takes one config name, e.g. swiftcam init desk-camera")
        ) { options in
            let name = options.argument
            let device = options.value("--device"), camera = options.value("--camera")
            guard device == nil || camera == nil else {
                throw UsageError("give --device (a V4L2 camera) or --camera (libcamera's), not both")
            }
            let path: String, summary: String
            do {
                guard camera == nil else { throw FirstConfig.Failure.noCamera("") }
                let first = try FirstConfig.make(name: name, device: device)
                (path, summary) = (try first.write(to: ConfigStore.standard()), first.plan.summary)
            } catch FirstConfig.Failure.noCamera(let reason) where device == nil {
                // No V4L2 camera serves live video (or libcamera's was asked for): libcamera's cameras next.
                let first: LibcameraFirstConfig
                do {
                    first = try LibcameraFirstConfig.make(name: name, camera: camera)
                } catch {
                    guard camera == nil, !reason.isEmpty else { throw error }
                    throw FirstConfig.Failure.noCamera("\(reason); \(error)")
                }
                (path, summary) = (try first.write(to: ConfigStore.standard()), first.plan.summary)
            }
            print("wrote \(path) for \(summary)")
            print("run it:        swiftcam run \(name)")
            print("its page:      swiftcam run \(name) --http 8080, then open http://127.0.0.1:8080/")
            print("take a still:  swiftcam ctl \(name) snap (while it runs)")
            return ExitCode.ok
        }
    }

    static func devices(_ arguments: [String]) -> Int32 {
        Options.run(arguments, usage: devicesUsage, switches: ["--json"], arity: .none("devices takes no arguments")) { options in
            devices(json: options.flags.contains("--json"))
        }
    }

    private static func devices(json: Bool) -> Int32 {
        let inventory = CameraInventory.scan()
        if json {
            print(inventory.json)
        } else if inventory.isEmpty && inventory.refusals.isEmpty {
            print("no cameras found (no /dev/video* capture devices)")
        } else if !inventory.isEmpty {
            print(inventory.text)
        }
        if !json { print(EncoderInventory.scan().summaryLine) }
        for error in inventory.refusals { printError("\(error)") }
        if inventory.isEmpty, let first = inventory.refusals.first { return ExitCode.for(first) }
        return ExitCode.ok
    }

    static func controls(_ arguments: [String]) -> Int32 {
        Options.run(
            arguments, usage: controlsUsage, switches: ["--json"],
            arity: .one("controls takes one device, e.g. swiftcam controls /dev/video0")
        ) { options in
            let controls = try CameraInventory.controls(of: options.argument)
            print(options.flags.contains("--json") ? controls.json : controls.text)
            return ExitCode.ok
        }
    }
}
