import Analysis
import Base
import Camera
import Config
import Dispatch
import Filters
import FoundationEssentials
import GStreamer
import Glibc
import SwiftFilterElement

/// What the camera controls change: the user's chain, the software stages composed before it, the active
/// source and the metering loop's generation. Held only while a control runs (an ioctl, a reference swap),
/// never while waiting for frames or while a chain compiles.
struct ControlState: Sendable {
    /// The user's chain.
    var userChain: FilterChain
    /// Software fallbacks composed with the user's chain (see `applyChain`).
    var stages = SoftwareStages()
    var activeSource = 0
    /// Bumped to cancel a running metering loop.
    var meteringGeneration = 0
    /// Bumped by every chain change, so a change compiled after a later one is dropped, not installed over it.
    var chainGeneration = 0
}

/// The camera controls of a running session: hardware on v4l2 sources when the device has the control,
/// else a software stage composed before the user's chain (zoom, exposure, white balance, colour, mirror), else a
/// clear "not supported". Each returns the one-line description of what was done (`zoom 2.0 (digital)`). Its own lock
/// serializes the controls (an ioctl, a property set) and is never held while waiting for frames.
final class SessionControls: Sendable {
    /// The largest digital zoom factor.
    let maxZoom: Double
    let core: SessionCore
    /// The config's sources (which one is a camera) and its chain (the one a new graph starts with).
    fileprivate let sources: [SourceConfig]?
    private let configChain: FilterChain
    /// Its own lock: the user's chain, the stages, the active source, the metering generation.
    let state: Locked<ControlState>
    /// Runs tap-to-expose's metering loop.
    let meteringQueue: DispatchQueue

    init(core: SessionCore, sources: [SourceConfig]?, chain: FilterChain, maxZoom: Double) {
        self.core = core
        self.maxZoom = maxZoom
        self.sources = sources
        configChain = chain
        state = Locked(ControlState(userChain: chain))
        meteringQueue = DispatchQueue(label: "swiftcam.metering.\(core.name)")
    }

    /// The source the selector shows (0 with one source).
    var activeSource: Int { state.withLock { $0.activeSource } }

    /// Stops a running metering loop (the graph it measures is going away).
    func cancelMetering() {
        state.withLock { $0.meteringGeneration += 1 }
    }

    /// Closes `graph`'s cameras under this lock, so no control is using one meanwhile: before the session tears down a
    /// graph the controls could see.
    func releaseCameras(of graph: RunningGraph) {
        state.withLock { _ in graph.closeCameras() }
    }

    /// What the active source is, for "not supported by this source" messages.
    func sourceDescription(_ active: Int) -> String {
        guard let source = sources?[safe: active] else { return "launch pipeline" }
        switch source.kind {
        case .test: return "test pattern"
        case .file: return "file \(source.path ?? "")"
        case .v4l2: return "v4l2 \(source.device ?? "/dev/video0")"
        case .libcamera: return "libcamera \(source.camera ?? "camera")"
        case .launch: return "launch source"
        }
    }

    /// Runs a control with the running graph and the control state, serialized with the other controls. When it
    /// changed the chain the filter runs, that chain is compiled after the lock is let go (a LUT file may be read) and
    /// installed under it unless a later control changed the chain meanwhile: no lock is held while a chain compiles.
    func control<T>(_ body: (inout ControlContext) throws -> T) throws -> T {
        let graph = try core.running()
        let (result, change) = try state.withLock { state -> (T, (chain: FilterChain, generation: Int)?) in
            var context = ControlContext(controls: self, graph: graph, state: state)
            defer { state = context.state }
            let result = try body(&context)
            guard context.chainChanged else { return (result, nil) }
            context.state.chainGeneration += 1
            return (result, (context.state.stages.chain(user: context.state.userChain), context.state.chainGeneration))
        }
        if let change, let filter = graph.filter, let prepared = SwiftFilterElement.prepare(change.chain, for: filter) {
            state.withLock { state in
                if state.chainGeneration == change.generation { SwiftFilterElement.install(prepared, on: filter) }
            }
        }
        return result
    }

    /// Switches to the other source live (no restart; a recording continues). Returns the new source's label.
    @discardableResult
    func switchCamera() throws -> String {
        try control { context in
            guard (sources?.count ?? 0) > 1,
                let selector = context.graph.pipeline.element(named: PipelineBuilder.Names.selector)
            else { throw SessionError.singleSource }
            let next = 1 - context.state.activeSource
            try selector.set("active-pad", try selector.staticPad("sink_\(next)"))
            context.state.activeSource = next
            let source = sources?[next]
            return source?.label ?? "\(next) (\(source?.kind.rawValue ?? "source")\(source?.device.map { " \($0)" } ?? ""))"
        }
    }

    /// Replaces the user's filter chain. Returns it in canonical text, and the camera controls' software stages that
    /// run before it, if any (`"sepia" (after zoom factor=2)`): the element runs both, the user chose only the first.
    @discardableResult
    func setFilter(_ chain: FilterChain) throws -> String {
        try control { context in
            let previous = context.state.userChain
            context.state.userChain = chain
            do {
                try context.applyChain()
            } catch {
                context.state.userChain = previous
                throw error
            }
            let stages = context.state.stages.stageTexts
            return "\"\(chain.description)\"" + (stages.isEmpty ? "" : " (after \(stages.joined(separator: " | ")))")
        }
    }

    /// The chain the user set (config, `filter` command), without the camera controls' stages.
    var userChain: FilterChain { state.withLock { $0.userChain } }

    /// Whether the active source is a camera with a torch (a flash LED with a torch mode on its node or a flash
    /// sub-device). False while the session is not running, for test patterns and files, and when asking fails.
    var hasTorch: Bool {
        (try? control { context in try context.camera()?.hasTorch ?? false }) ?? false
    }

    /// ` (clamped from 100)` when a control used a value other than the one asked for, else nothing.
    func clampNote(requested: Double, applied: Double) -> String {
        guard requested != applied else { return "" }
        return " (clamped from \(Self.requestedText(requested)))"
    }

    /// A number as the user wrote it, near enough: whole ones without a fraction, the others to two places (a huge one
    /// in exponent form).
    static func requestedText(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e9 ? String(Int(value)) : value.decimalText
    }

    /// After recovery: the new graph's filter gets the chain and stages the session had.
    func reapplyChain() {
        _ = try? control { context in
            guard context.state.userChain != configChain || context.state.stages != SoftwareStages() else { return }
            try context.applyChain()
        }
    }

    /// The torch: the flash LED in torch mode on the camera or its flash sub-device; test sources have none.
    @discardableResult
    func torch(_ on: Bool) throws -> String {
        try control { context in
            guard let camera = try context.camera() else {
                throw SessionError.notSupported(feature: "torch", source: context.sourceDescription)
            }
            let outcome = try camera.torch(on: on)
            if outcome == .unsupported {
                throw SessionError.notSupported(feature: "torch", source: "\(context.sourceDescription): \(outcome)")
            }
            return outcome.description
        }
    }

    /// Zoom clamped to [1, maxZoom]: `V4L2_CID_ZOOM_ABSOLUTE` when the camera has it, else the `zoom` stage.
    @discardableResult
    func zoom(_ factor: Double) throws -> String {
        guard factor.isFinite else {
            throw SessionError.badCommand("zoom takes a factor from 1 to \(maxZoom.decimalText), e.g. zoom 2")
        }
        return try control { context in
            let applied = CameraDevice.clampZoom(factor, maxZoom: maxZoom)
            let outcome = try context.camera()?.zoom(applied, maxZoom: maxZoom) ?? .digital(factor: applied)
            switch outcome {
            case .hardware: context.state.stages.zoom = 1
            case let .digital(applied): context.state.stages.zoom = applied
            }
            try context.applyChain()
            return outcome.description + clampNote(requested: factor, applied: applied)
        }
    }

    /// Tap-to-focus at a normalized point: region autofocus or one-shot autofocus where the camera has it.
    @discardableResult
    func focus(x: Double, y: Double) throws -> String {
        let (point, note) = clampedPoint(x, y)
        return try control { context in
            guard let camera = try context.camera() else {
                throw SessionError.notSupported(feature: "focus", source: context.sourceDescription)
            }
            let outcome = try camera.focus(at: point)
            if case .unsupported = outcome {
                throw SessionError.notSupported(
                    feature: "focus", source: "\(context.sourceDescription): this camera cannot focus on a point")
            }
            return outcome.description + note
        }
    }

    /// A tapped point held inside the picture, and the note saying so when it was outside.
    func clampedPoint(_ x: Double, _ y: Double) -> (NormalizedPoint, String) {
        let clamped = (Swift.min(Swift.max(x, 0), 1), Swift.min(Swift.max(y, 0), 1))
        guard clamped != (x, y) else { return (NormalizedPoint(x: x, y: y), "") }
        return (NormalizedPoint(x: clamped.0, y: clamped.1), " (clamped from \(Self.requestedText(x)) \(Self.requestedText(y)))")
    }

    /// Exposure compensation: the camera's exposure bias when present, else the `exposure` stage.
    @discardableResult
    func exposure(ev: Double) throws -> String {
        try control { context in
            guard ev.isFinite else { throw SessionError.badCommand("exposure ev= takes a number of stops, e.g. exposure ev=1") }
            if let outcome = try context.camera()?.exposure(ev: ev), case .hardware = outcome { return outcome.description }
            // The exposure filter's range.
            let applied = Swift.min(Swift.max(ev, -10), 10)
            context.state.stages.exposureEV = applied
            try context.applyChain()
            return ExposureOutcome.digital(ev: applied).description + clampNote(requested: ev, applied: applied)
        }
    }

    /// White balance: the camera's auto / temperature controls when present, else the `temperature` stage.
    @discardableResult
    func whiteBalance(_ mode: WhiteBalanceMode) throws -> String {
        // One range for the camera and the software stage (`Command.kelvinRange`), clamped here and said, as zoom does.
        var clamped = mode, note = ""
        if case let .kelvin(requested) = mode {
            let applied = Swift.min(Swift.max(requested, Command.kelvinRange.lowerBound), Command.kelvinRange.upperBound)
            clamped = .kelvin(applied)
            note = clampNote(requested: Double(requested), applied: Double(applied))
        }
        return try control { context in
            let outcome = try context.camera()?.whiteBalance(clamped) ?? .digital(clamped)
            if case let .digital(applied) = outcome {
                if case let .kelvin(kelvin) = applied { context.state.stages.kelvin = kelvin } else { context.state.stages.kelvin = nil }
                try context.applyChain()
            }
            return outcome.description + note
        }
    }

    /// Brightness, contrast, saturation or hue: the V4L2 user control when present, else the `colorcontrols`
    /// stage (hue has no software stage). A whole number is in the camera's own units; a decimal is -1…1.
    @discardableResult
    func adjust(_ adjustment: ColorAdjustment, to level: AdjustmentLevel) throws -> String {
        try control { context in
            let requested: Double
            switch level {
            case let .normalized(value):
                guard value.isFinite else { throw SessionError.badCommand("\(adjustment.rawValue) takes a level from -1 to 1") }
                requested = value
            case let .raw(value): requested = Double(value)
            }
            if let camera = try context.camera() {
                let outcome = try camera.set(adjustment, to: level)
                if case let .hardware(_, value, _, _) = outcome {
                    // A level maps onto the control's range; camera units are clamped into it.
                    guard case .raw = level else {
                        return outcome.description + clampNote(requested: requested, applied: Swift.min(Swift.max(requested, -1), 1))
                    }
                    return outcome.description + clampNote(requested: requested, applied: Double(value))
                }
            }
            // Without a control a whole number is a level like a decimal one (no camera units to read it in).
            let normalized = Swift.min(Swift.max(requested, -1), 1)
            switch adjustment {
            case .brightness: context.state.stages.brightness = normalized
            case .contrast: context.state.stages.contrast = normalized
            case .saturation: context.state.stages.saturation = normalized
            case .hue:
                throw SessionError.notSupported(feature: "hue", source: "\(context.sourceDescription): no hue control and no hue filter")
            }
            try context.applyChain()
            return ColorOutcome.digital(adjustment, level: normalized).description + clampNote(requested: requested, applied: normalized)
        }
    }

    /// Horizontal mirror: `horizontal_flip` when the sensor has it, else the `mirror` stage.
    @discardableResult
    func mirror(_ on: Bool) throws -> String {
        try control { context in
            let outcome = try context.camera()?.mirror(on) ?? .digital(on: on)
            switch outcome {
            case .hardware: context.state.stages.mirror = false
            case .digital: context.state.stages.mirror = on
            }
            try context.applyChain()
            return outcome.description
        }
    }
}

/// What one control sees: the running graph and the control state (its own copy, written back after).
struct ControlContext {
    let controls: SessionControls
    let graph: RunningGraph
    var state: ControlState

    /// The open device of the active source, when it is a v4l2 camera.
    var activeCamera: CameraDevice? { graph.cameras[state.activeSource] }

    /// What the active source is, for "not supported by this source" messages.
    var sourceDescription: String { controls.sourceDescription(state.activeSource) }

    /// The camera for a hardware control: nil for sources that are not cameras; throws when the session runs
    /// a camera whose device could not be opened.
    func camera() throws -> CameraDevice? {
        guard controls.sources?[safe: state.activeSource]?.kind == .v4l2 else { return nil }
        guard let camera = activeCamera else {
            throw SessionError.notSupported(feature: "camera controls", source: "\(sourceDescription) could not be opened for controls")
        }
        return camera
    }

    /// Whether this control changed what the filter runs (`applyChain`).
    private(set) var chainChanged = false

    /// Marks the element's chain for a change: the software stages (see `SoftwareStages`) before the user's chain,
    /// compiled and installed once the control is done (`SessionControls.control`).
    mutating func applyChain() throws {
        guard graph.filter != nil else { throw SessionError.missingElement(name: "swiftfilter", command: "filter") }
        chainChanged = true
    }
}

extension Array {
    subscript(safe index: Int) -> Element? {
        indices.contains(index) ? self[index] : nil
    }
}
