import Config
import GStreamer

/// A source's child process that ended before its graph played (or did not play in time).
struct SourceProcessError: Error, CustomStringConvertible {
    /// The source the child was for.
    let source: ChildSource
    /// How it ended; nil when it still ran but did not play in time.
    let ending: SourceProcess.Ending?

    /// The status a start that met it puts the session in: a camera libcamera no longer finds is `unconfigured`, the rest
    /// is the camera's failure in its words.
    var status: CameraStatus {
        let cause = ending?.cause(asked: "the size and format the config asks") ?? .wouldNotStart
        if cause == .gone, let camera = source.libcameraCamera {
            return .unconfigured(reason: LibcameraDiscovery.missing(id: camera))
        }
        return CameraStatus(CameraFailure(device: source.label, cause: cause, next: .stopping))
    }

    var description: String { status.description }
}

extension SourceProcess.Ending {
    /// What the child's end means for its camera: a crash is the library's (restart it); a camera libcamera could not
    /// find went away; caps libcamera refused are the config's to change (vimc takes only multiples of 6). The text
    /// read is gst-launch's error line and its debug line, GStreamer's own words, which also go to the debug log.
    func cause(asked: String) -> CameraFailure.Cause {
        if signal != nil { return .childEnded(description) }
        let text = ((error ?? "") + " " + (debug ?? "")).lowercased()
        if text.contains("not-negotiated") || text.contains("not negotiated") { return .refusedFormat(asked: asked) }
        if text.contains("could not find any supported camera") || text.contains("could not find a camera") { return .gone }
        return .childEnded(description)
    }
}

extension LibcameraDiscovery {
    /// Why the camera a source names (`id`, nil for the first) is not here, naming what libcamera does list.
    static func missing(id: String?) -> String {
        let cameras: [LibcameraCamera]
        do {
            cameras = try scan()
        } catch {
            return error.description
        }
        let listed =
            cameras.isEmpty ? "libcamera lists no camera" : "libcamera lists " + cameras.map { "'\($0.id)'" }.joined(separator: ", ")
        let wanted = id.map { "libcamera camera '\($0)' is not here" } ?? "no libcamera camera is here"
        return "\(wanted) (\(listed)); `swiftcam devices` lists the cameras"
    }
}

extension SourceProcess {
    /// The status the session is in once this child's frames stopped with an error (its socket closed as it died): how
    /// it ended says what happened, waiting a moment for it to end.
    func status(asked: String?) -> CameraStatus {
        let ending = ending(timeout: 2)
        DebugLog.warning("the process of camera \(label) \(ending.map { "\($0)" } ?? "still runs")")
        let cause = ending?.cause(asked: asked ?? "the config's format") ?? .stoppedSending
        return CameraStatus(CameraFailure(device: label, cause: cause, next: .stopping))
    }
}

extension PipelineBuilder {
    /// `unconfigured`, saying what libcamera lists, when a libcamera source got no plan (its camera is not listed).
    var missingLibcameraCamera: CameraStatus? {
        for (index, source) in (config.sources ?? []).enumerated() where source.kind == .libcamera && libcameraPlans[index] == nil {
            return .unconfigured(reason: LibcameraDiscovery.missing(id: source.camera))
        }
        return nil
    }
}
