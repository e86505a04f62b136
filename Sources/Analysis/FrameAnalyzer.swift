// The analysis contract, free of GStreamer: the host (Capture) feeds frames from the pipeline, and a plugin of a
// user's (FilterPlugin) carries analysers of its own that the host loads beside its filters.
/// The luma of one frame, read-only: `width` × `height` bytes, rows `stride` apart. NV12, NV21, I420, YV12 and GRAY8
/// frames hand over their Y plane as the camera wrote it (limited range 16–235 unless `isFullRange`); RGB frames a
/// luma computed from them, full range.
public struct LumaPlane: Sendable {
    /// The size in pixels, and the bytes from one row's start to the next (at least `width`).
    public let width: Int, height: Int, stride: Int
    /// Whether black is 0 and white 255 (else 16 and 235).
    public let isFullRange: Bool
    /// The bytes, `stride * (height - 1) + width` at least.
    public let bytes: [UInt8]

    /// A plane of `bytes`, `width` × `height`, rows `stride` apart.
    public init(width: Int, height: Int, stride: Int, isFullRange: Bool, bytes: [UInt8]) {
        (self.width, self.height, self.stride, self.isFullRange, self.bytes) = (width, height, stride, isFullRange, bytes)
    }
}

/// One frame as an analyser sees it.
public struct AnalysisFrame: Sendable {
    /// The frame's timestamp on the pipeline's clock (nanoseconds of running time): events carry it.
    public let time: UInt64
    /// Frames this analyser saw before this one (analysed or dropped), from 0.
    public let index: Int
    /// The luma plane, copied out of the pipeline's buffer (which went back to the camera at once).
    public let luma: LumaPlane
    /// The whole frame, only for an analyser whose `wantsFullFrame` is true, as the host that runs the analyser gives
    /// it (SwiftCam's host: a GStreamer `Sample`, read through `Capture`'s `AnalysisFrame.sample`). It holds a buffer of
    /// the camera's pool until `analyze` returns. A plugin's analyser gets the luma plane only.
    public let fullFrame: (any Sendable)?

    /// A frame at `time`, the analyser's `index`-th, with its luma and, when asked for, the whole frame.
    public init(time: UInt64, index: Int, luma: LumaPlane, fullFrame: (any Sendable)? = nil) {
        (self.time, self.index, self.luma, self.fullFrame) = (time, index, luma, fullFrame)
    }
}

/// Something that reads every frame it can keep up with and tells what it saw (`AVCaptureVideoDataOutput`'s delegate).
///
/// `analyze` runs on the analyser's own serial queue, never on the pipeline's threads: a frame that arrives while
/// it is busy is dropped and counted, so a slow analyser never slows the camera. Its state needs no lock: one queue
/// calls it. Its results are events, handed to the session's listeners and triggers.
public protocol FrameAnalyzer: AnyObject {
    /// The name events carry (`motion`).
    var name: String { get }
    /// Whether `AnalysisFrame.sample` should carry the whole frame (default: luma only).
    var wantsFullFrame: Bool { get }
    /// Reads one frame; returns the events it makes (usually none).
    func analyze(_ frame: AnalysisFrame) -> [AnalysisEvent]
}

extension FrameAnalyzer {
    /// Luma only, unless the analyser says otherwise.
    public var wantsFullFrame: Bool { false }
}
