public import Camera
import Dispatch
import Foundation
import GStreamer

/// The camera controls of a running session: hardware on v4l2 sources when the device has the control,
/// else the software stage the issue allows (zoom, exposure, white balance, colour, mirror), else a clear
/// "not supported". Each returns the one-line description of what was done (`zoom 2.0 (digital)`).
extension CaptureSession {
    /// The open device of the active source, when it is a v4l2 camera.
    private var activeCamera: CameraDevice? { cameras[activeSource] }

    /// What the active source is, for "not supported by this source" messages.
    var sourceDescription: String {
        guard let source = config.sources?[safe: activeSource] else { return "launch pipeline" }
        switch source.kind {
        case .test: return "test pattern"
        case .file: return "file \(source.path ?? "")"
        case .v4l2: return "v4l2 \(source.device ?? "/dev/video0")"
        }
    }

    /// Whether the active source is a v4l2 camera (whose hardware answers for itself).
    private var activeIsCamera: Bool { config.sources?[safe: activeSource]?.kind == .v4l2 }

    /// The camera for a hardware control; throws when the session runs a camera whose device could not be opened.
    private func camera() throws -> CameraDevice? {
        _ = try running()
        guard activeIsCamera else { return nil }
        guard let camera = activeCamera else {
            throw SessionError.notSupported(feature: "camera controls", source: "\(sourceDescription) could not be opened for controls")
        }
        return camera
    }

    /// Runs `body` under the session lock.
    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// The torch: the flash LED in torch mode on the camera or its flash sub-device; test sources have none.
    @discardableResult
    public func torch(_ on: Bool) throws -> String {
        try locked {
            guard let camera = try camera() else { throw SessionError.notSupported(feature: "torch", source: sourceDescription) }
            let outcome = try camera.torch(on: on)
            if outcome == .unsupported { throw SessionError.notSupported(feature: "torch", source: "\(sourceDescription): \(outcome)") }
            return outcome.description
        }
    }

    /// Zoom clamped to [1, maxZoom]: `V4L2_CID_ZOOM_ABSOLUTE` when the camera has it, else the `zoom` stage.
    @discardableResult
    public func zoom(_ factor: Double) throws -> String {
        try locked {
            guard factor.isFinite else { throw SessionError.badCommand("zoom takes a number, e.g. zoom 2") }
            let outcome = try camera()?.zoom(factor, maxZoom: maxZoom)
                ?? .digital(factor: CameraDevice.clampZoom(factor, maxZoom: maxZoom))
            switch outcome {
            case .hardware: stages.zoom = 1
            case let .digital(applied): stages.zoom = applied
            }
            _ = try applyChain()
            return outcome.description
        }
    }

    /// Tap-to-focus at a normalized point: region autofocus or one-shot autofocus where the camera has it.
    @discardableResult
    public func focus(x: Double, y: Double) throws -> String {
        try locked {
            guard let camera = try camera() else { throw SessionError.notSupported(feature: "focus", source: sourceDescription) }
            let outcome = try camera.focus(at: NormalizedPoint(x: x, y: y))
            if case .unsupported = outcome {
                throw SessionError.notSupported(feature: "focus", source: "\(sourceDescription): this camera cannot focus on a point")
            }
            return outcome.description
        }
    }

    /// Exposure compensation: the camera's exposure bias when present, else the `exposure` stage.
    @discardableResult
    public func exposure(ev: Double) throws -> String {
        try locked {
            guard ev.isFinite else { throw SessionError.badCommand("exposure ev= takes a number of stops, e.g. exposure ev=1") }
            let outcome = try camera()?.exposure(ev: ev) ?? .digital(ev: ev)
            if case let .digital(applied) = outcome {
                stages.exposureEV = Swift.min(Swift.max(applied, -10), 10)
                _ = try applyChain()
            }
            return outcome.description
        }
    }

    /// White balance: the camera's auto / temperature controls when present, else the `temperature` stage.
    @discardableResult
    public func whiteBalance(_ mode: WhiteBalanceMode) throws -> String {
        try locked {
            let outcome = try camera()?.whiteBalance(mode) ?? .digital(mode)
            if case let .digital(applied) = outcome {
                if case let .kelvin(kelvin) = applied { stages.kelvin = kelvin } else { stages.kelvin = nil }
                _ = try applyChain()
            }
            return outcome.description
        }
    }

    /// Brightness, contrast, saturation or hue: the V4L2 user control when present, else the `colorcontrols`
    /// stage (hue has no software stage). A whole number is in the camera's own units; a decimal is -1…1.
    @discardableResult
    public func adjust(_ adjustment: ColorAdjustment, to level: AdjustmentLevel) throws -> String {
        try locked {
            if let camera = try camera() {
                let outcome = try camera.set(adjustment, to: level)
                if case .hardware = outcome { return outcome.description }
            }
            let normalized: Double
            switch level {
            case let .normalized(value): normalized = value.isFinite ? Swift.min(Swift.max(value, -1), 1) : 0
            case let .raw(value):
                guard (-1...1).contains(value) else {
                    throw SessionError.badCommand("\(adjustment.rawValue) \(value): this source has no \(adjustment.rawValue) control, "
                                                  + "so give a level from -1 to 1, e.g. \(adjustment.rawValue) 0.25")
                }
                normalized = Double(value)
            }
            switch adjustment {
            case .brightness: stages.brightness = normalized
            case .contrast: stages.contrast = normalized
            case .saturation: stages.saturation = normalized
            case .hue: throw SessionError.notSupported(feature: "hue", source: "\(sourceDescription): no hue control and no hue filter")
            }
            _ = try applyChain()
            return ColorOutcome.digital(adjustment, level: normalized).description
        }
    }

    /// Horizontal mirror: `horizontal_flip` when the sensor has it, else the `mirror` stage.
    @discardableResult
    public func mirror(_ on: Bool) throws -> String {
        try locked {
            let outcome = try camera()?.mirror(on) ?? .digital(on: on)
            switch outcome {
            case .hardware: stages.mirror = false
            case .digital: stages.mirror = on
            }
            _ = try applyChain()
            return outcome.description
        }
    }

    // MARK: - Tap to expose

    /// The luma software spot metering aims the tapped region at (mid-grey on 0…255).
    public static let meteringTarget = 118.0

    /// Tap-to-expose: region auto exposure where the camera has it; else software spot metering, which
    /// measures the mean luma around the tap in the filtered frames and drives the exposure time (and gain)
    /// when the camera has manual exposure, else the `exposure` stage, until the region is mid-grey. The loop
    /// runs on its own queue for at most 40 frames or 8 seconds; a later `exposure` command replaces it.
    @discardableResult
    public func exposure(x: Double, y: Double) throws -> String {
        try locked {
            let point = NormalizedPoint(x: x, y: y)
            let camera = try camera()
            if let camera, let region = try camera.exposeRegion(at: point) { return region.description }
            guard stillFrames != nil else {
                throw SessionError.missingElement(name: PipelineBuilder.Names.stillFrames, command: "exposure")
            }
            let manual = (try camera?.exposureControls())?.exposureTime?.isWritable ?? false
            meteringGeneration += 1
            let generation = meteringGeneration
            meteringQueue.async { [weak self] in self?.meter(point, generation: generation, hardware: manual) }
            return "exposure \(point) (software spot metering with \(manual ? "exposure time and gain" : "the exposure filter"))"
        }
    }

    /// The metering loop (on `meteringQueue`): one correction per fresh frame, damped, until within ±8 of the target.
    private func meter(_ point: NormalizedPoint, generation: Int, hardware: Bool) {
        let deadline = monotonicSeconds() + 8
        var useHardware = hardware
        var lastLuma: Double?
        for _ in 0..<20 {
            guard let luma = freshLuma(at: point, frames: 2, until: deadline) else { break }
            lastLuma = luma
            if abs(luma - Self.meteringTarget) <= 8 { break }
            // Stops between here and the target; a black region still gets a bounded push.
            let stops = Swift.min(Swift.max(log2(Self.meteringTarget / Swift.max(luma, 1)), -2), 2)
            let applied: Bool = locked {
                guard generation == meteringGeneration, pipeline != nil else { return false }
                if useHardware, let camera = cameras[activeSource], stepHardware(camera, stops: stops) { return true }
                useHardware = false
                stages.meteringEV = Swift.min(Swift.max(stages.meteringEV + 0.9 * stops, -10), 10)
                return (try? applyChain()) != nil
            }
            if !applied { return }
            if monotonicSeconds() > deadline { break }
        }
        let settled = lastLuma.map { "mean luma \(fmt($0, 0)) (target \(fmt(Self.meteringTarget, 0)))" } ?? "no frames to measure"
        let ev = locked { stages.meteringEV }
        emit(.notice("exposure \(point) settled: \(settled)\(useHardware ? "" : ", exposure filter \(fmt(ev, 2)) EV")"))
    }

    /// Scales the exposure time by 2^stops (then gain for what the time cannot reach); false at the limits.
    private func stepHardware(_ camera: CameraDevice, stops: Double) -> Bool {
        guard let controls = try? camera.exposureControls(), let time = controls.exposureTime,
              let current = (try? camera.value(of: time))?.integerValue else { return false }
        let wanted = Double(Swift.max(current, 1)) * pow(2, stops)
        let next = time.snapped(wanted)
        if next != current {
            return (try? camera.setManualExposure(time: next, gain: nil)) != nil
        }
        guard let gain = controls.gain, let level = (try? camera.value(of: gain))?.integerValue else { return false }
        let nextGain = gain.snapped(Double(Swift.max(level, 1)) * pow(2, stops))
        guard nextGain != level else { return false }
        return (try? camera.setManualExposure(time: nil, gain: nextGain)) != nil
    }

    /// Waits for `frames` new filtered frames (so a change has reached them) and measures the region.
    private func freshLuma(at point: NormalizedPoint, frames: Int, until deadline: Double) -> Double? {
        guard let tap = locked({ stillFrames }) else { return nil }
        let seen = tap.counts.received
        while tap.counts.received < seen + frames {
            if monotonicSeconds() > deadline { return nil }
            usleep(5_000)
        }
        return tap.latestFrame.flatMap { LumaMeter.mean(of: $0, x: point.x, y: point.y) }
    }

    /// The mean luma around a normalized point in the newest filtered frame (what spot metering reads).
    public func meteredLuma(x: Double, y: Double) -> Double? {
        guard let frame = locked({ stillFrames })?.latestFrame else { return nil }
        return LumaMeter.mean(of: frame, x: x, y: y)
    }
}
