import Base
import Camera
import Dispatch
import FoundationEssentials
import GStreamer
import SwiftFilterElement

extension CaptureSession {
    /// A camera failed (an error on its source, or the stall watchdog; the caller has set `recovering`): says so in
    /// the camera's words with what comes next — waiting for it, or restarting it after a stall, and where a running
    /// recording continues — then recovers on the recovery queue. Runs on the bus or watchdog thread; never waits.
    func beginRecovery(_ failure: CameraFailure) {
        let continuesIn = recordings.active.map { SessionRecordings.nextPart(after: $0.path) }
        // A stalled camera, or a source process that ended (a crash in its library), is restarted at once.
        let next: CameraFailure.Next =
            switch failure.cause {
            case .stalled, .childEnded: .restarting(continuesIn: continuesIn)
            default: .waiting(continuesIn: continuesIn)
            }
        let status = CameraStatus(failure.with(next: next))
        state.withLock { $0.status = status }
        emit(.failed(status))
        recoveryQueue.async { self.recover(from: status) }
    }

    /// Runs on the recovery queue after a camera failed: finalizes the recording, drops the graph and the
    /// device handles (so a driver can be reloaded), waits for every camera to open again, rebuilds and
    /// plays, then continues the recording into the next part (the one `status` named, when it names one). Gives up
    /// only when `stop` is called.
    func recover(from status: CameraStatus) {
        guard let recordedPath = retireFailedGraph() else { return }
        let devices = v4l2Devices
        let names = devices + FailureContext(config: config).sources.filter { $0.value.isChild }.map(\.value.device).sorted()
        emit(.notice("recovering: waiting for \(names.isEmpty ? "the sources" : names.joined(separator: ", "))"))
        if let line = reopen(devices, names: names, failure: status, recordedPath: recordedPath) {
            emit(.notice(line))
        }
    }

    /// Claims the failed graph, ends the recording, carries the counts over and tears the graph down.
    /// Returns nil when there is nothing to recover (stopped, or another transition won), else the path of
    /// the recording that was running, if any. Nothing refers to the old graph when it returns: a v4l2src
    /// whose device vanished may fail to stop and lets go of the device only when it is freed.
    private func retireFailedGraph() -> String?? {
        let claimed: RunningGraph?? = state.wait(until: MonotonicClock.now + 30) { state in
            if state.stopping || state.graph == nil { return .some(nil) }
            guard !state.transitioning else { return nil }
            state.transitioning = true
            return .some(state.graph)
        }
        guard case let .some(.some(old)) = claimed else { return nil }
        controls.cancelMetering()
        // The failed source's end-of-stream usually reached the file already; if not, this sends it.
        let recordedPath = recordings.finish(timeout: 3)
        let live = stats(of: old)
        let filter = old.filter.flatMap { SwiftFilterElement.stats(of: $0) }
        state.withLock { state in
            state.carried.filterFrames += filter?.frames ?? 0
            state.carried.filterSeconds += Double(filter?.frames ?? 0) * (filter?.meanMilliseconds ?? 0) / 1000
            state.carried.framesIn = live.framesIn
            state.carried.framesOut = live.framesOut
            state.carried.queueDrops = live.queueDrops
            state.carried.sourceDrops = live.sourceDrops
            state.carried.qosDrops = live.qosDrops
            state.carried.recoveries += 1
            state.graph = nil
        }
        self.live.graphRetiring()
        self.analysisGraphRetiring()
        controls.releaseCameras(of: old)
        old.teardown()
        return .some(recordedPath)
    }

    /// Waits for the cameras and relaunches; returns what to tell the user, or nil when `stop` came first.
    private func reopen(_ devices: [String], names: [String], failure status: CameraStatus, recordedPath: String?) -> String? {
        let arrival = try? DeviceArrival()
        recoveryArrival.withLock { $0 = arrival }
        defer {
            recoveryArrival.withLock { $0 = nil }
            state.withLock { $0.transitioning = false }
        }
        // A replugged camera (or a reloading driver) bounces: give it a moment before reopening, which also
        // leaves a window in which nothing holds the driver, so it can be unloaded. Only `stop` cuts it short.
        _ = state.wait(until: MonotonicClock.now + 1.5) { $0.stopping ? true : nil }
        let next = status.failure?.next ?? .waiting(continuesIn: nil)
        while !state.withLock({ $0.stopping }) {
            let refusals = devices.compactMap { DevicePreflight.check($0) }
            if case let .deviceBusy(path, holder)? = refusals.first(where: { if case .deviceBusy = $0 { true } else { false } }) {
                report(CameraStatus(CameraFailure(device: path, cause: .busy(holder: holder), next: next)))
            } else if refusals.isEmpty {
                do {
                    let graph = try launch(timeout: 10)
                    let published = state.withLock { state -> Bool in
                        guard !state.stopping else { return false }
                        state.graph = graph
                        state.status = .configured
                        state.recovering = false
                        return true
                    }
                    guard published else {
                        graph.teardown()
                        break
                    }
                    controls.reapplyChain()
                    watchForStalls(graph)
                    live.graphChanged()
                    analysisGraphChanged()
                    var line = "recovered: \(names.isEmpty ? "the sources" : names.joined(separator: ", ")) streaming again"
                    if let recordedPath {
                        do {
                            let planned = status.failure?.continuesIn.flatMap { FileManager.default.fileExists(atPath: $0) ? nil : $0 }
                            let next = try recordings.continueAfterRecovery(planned: planned, after: recordedPath)
                            line += "; \(recordedPath) is complete, recording continues in \(next)"
                        } catch {
                            line += "; \(recordedPath) is complete, the next part could not start: \(error)"
                        }
                    }
                    return line
                } catch let error as StartError {
                    // Not ready yet (the node may appear before the driver accepts formats): try again. A camera
                    // another program took meanwhile is said as such, with what the session still does next.
                    if let busy = error.status.failure, case .busy = busy.cause {
                        report(CameraStatus(busy.with(next: next)))
                    } else {
                        state.withLock { $0.status = status }
                    }
                } catch {
                    state.withLock { $0.status = status }
                }
            }
            // The next change in /dev, or a retry a second later (a node can exist before its driver is ready).
            if let arrival {
                guard arrival.wait(timeout: 1) else { break }
            } else {
                _ = state.wait(until: MonotonicClock.now + 1) { $0.stopping ? true : nil }
            }
        }
        state.withLock { $0.ended = true }
        return nil
    }

    /// Shows `busy` while recovery waits for a camera another program holds; said once per holder.
    private func report(_ busy: CameraStatus) {
        let changed = state.withLock { state -> Bool in
            defer { state.status = busy }
            return state.status != busy
        }
        if changed { emit(.failed(busy)) }
    }
}
