import Analysis
import Base
import Camera
import Dispatch
import GStreamer
import Glibc

/// Tap-to-expose: a control of its own because it goes on after the command returns, measuring frames.
extension SessionControls {
    /// The luma software spot metering aims the tapped region at (mid-grey on 0…255).
    static let meteringTarget = 118.0

    /// Tap-to-expose: region auto exposure where the camera has it; else software spot metering, which
    /// measures the mean luma around the tap in the filtered frames and drives the exposure time (and gain)
    /// when the camera has manual exposure, else the `exposure` stage, until the region is mid-grey. The loop
    /// runs on its own queue for at most 40 frames or 8 seconds; a later `exposure` command replaces it.
    @discardableResult
    func exposure(x: Double, y: Double) throws -> String {
        let (point, note) = clampedPoint(x, y)
        return try control { context in
            let camera = try context.camera()
            if let camera, let region = try camera.exposeRegion(at: point) { return region.description + note }
            guard context.graph.stillFrames != nil else {
                throw SessionError.missingElement(name: PipelineBuilder.Names.stillFrames, command: "exposure")
            }
            let manual = (try camera?.exposureControls())?.exposureTime?.isWritable ?? false
            context.state.meteringGeneration += 1
            let generation = context.state.meteringGeneration
            meteringQueue.async { [weak self] in self?.meter(point, generation: generation, hardware: manual) }
            return "exposure \(point) (software spot metering with \(manual ? "exposure time and gain" : "the exposure filter"))\(note)"
        }
    }

    /// The metering loop (on `meteringQueue`): one correction per fresh frame, damped, until within ±8 of the target.
    private func meter(_ point: NormalizedPoint, generation: Int, hardware: Bool) {
        let deadline = MonotonicClock.now + 8
        var useHardware = hardware
        var lastLuma: Double?
        for _ in 0..<20 {
            guard let luma = freshLuma(at: point, frames: 2, until: deadline) else { break }
            lastLuma = luma
            if abs(luma - Self.meteringTarget) <= 8 { break }
            // Stops between here and the target; a black region still gets a bounded push.
            let stops = Swift.min(Swift.max(log2(Self.meteringTarget / Swift.max(luma, 1)), -2), 2)
            let applied =
                (try? control { context -> Bool in
                    guard generation == context.state.meteringGeneration else { return false }
                    if useHardware, let camera = context.activeCamera, stepHardware(camera, stops: stops) { return true }
                    useHardware = false
                    context.state.stages.meteringEV = Swift.min(Swift.max(context.state.stages.meteringEV + 0.9 * stops, -10), 10)
                    return (try? context.applyChain()) != nil
                }) ?? false
            if !applied { return }
            if MonotonicClock.now > deadline { break }
        }
        let settled = lastLuma.map { "mean luma \(fmt($0, 0)) (target \(fmt(Self.meteringTarget, 0)))" } ?? "no frames to measure"
        let ev = state.withLock { $0.stages.meteringEV }
        core.emit(.notice("exposure \(point) settled: \(settled)\(useHardware ? "" : ", exposure filter \(fmt(ev, 2)) EV")"))
    }

    /// Scales the exposure time by 2^stops (then gain for what the time cannot reach); false at the limits.
    private func stepHardware(_ camera: CameraDevice, stops: Double) -> Bool {
        guard let controls = try? camera.exposureControls(), let time = controls.exposureTime,
            let current = (try? camera.value(of: time))?.integerValue
        else { return false }
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
        guard let tap = core.graph?.stillFrames else { return nil }
        let frame = tap.frame(after: tap.counts.received + frames - 1, until: deadline)
        return frame.flatMap { LumaMeter.mean(of: $0, x: point.x, y: point.y) }
    }

    /// The mean luma around a normalized point in the newest filtered frame (what spot metering reads).
    func meteredLuma(x: Double, y: Double) -> Double? {
        guard let frame = core.graph?.stillFrames?.latestFrame else { return nil }
        return LumaMeter.mean(of: frame, x: x, y: y)
    }
}
