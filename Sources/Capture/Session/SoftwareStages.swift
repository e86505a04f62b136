import Base
import Camera
import Filters
import FoundationEssentials

/// The software stages the session runs for what the camera cannot do in hardware (mirror, zoom, exposure,
/// white balance, colour), and the one place that composes them with the user's chain into the chain the filter
/// runs. The stages come first, so the user's look is applied to the corrected picture.
struct SoftwareStages: Sendable, Equatable {
    /// `mirror on` without `horizontal_flip`.
    var mirror = false
    /// Digital zoom factor (1 = none), clamped by the session to [1, maxZoom].
    var zoom = 1.0
    /// `exposure ev=E` without an exposure-bias control.
    var exposureEV = 0.0
    /// The correction software spot metering settled on.
    var meteringEV = 0.0
    /// `wb KELVIN` without a white-balance control; nil is neutral.
    var kelvin: Int?
    /// `brightness`, `contrast`, `saturation` without V4L2 user controls, normalized to -1…1 (0 = unchanged).
    var brightness = 0.0
    var contrast = 0.0
    var saturation = 0.0

    /// The `exposure` stage's stops: compensation plus metering, within the filter's range.
    var totalEV: Double { Swift.min(Swift.max(exposureEV + meteringEV, -10), 10) }

    /// The stages, in order, as filters (none when nothing is active).
    var filters: [any Filter] {
        var stages: [any Filter] = []
        if mirror { stages.append(Mirror()) }
        if zoom > 1 { stages.append(Zoom(factor: zoom)) }
        if abs(totalEV) >= 0.005 { stages.append(Exposure(ev: totalEV)) }
        if let kelvin, kelvin != 6500 { stages.append(Temperature(kelvin: Double(kelvin))) }
        if brightness != 0 || contrast != 0 || saturation != 0 {
            stages.append(ColorControls(brightness: brightness, contrast: Self.gain(contrast), saturation: Self.gain(saturation)))
        }
        return stages
    }

    /// The stages as filter text, for what a control reports.
    var stageTexts: [String] { filters.map(\.description) }

    /// The stages followed by the user's chain: what the filter runs. Values throughout; nothing is parsed.
    func chain(user: FilterChain) -> FilterChain {
        FilterChain(filters + user.filters)
    }

    /// Maps a normalized -1…1 level onto a `colorcontrols` gain: -1 → 0, 0 → 1, +1 → 4 (the filter's maximum).
    static func gain(_ level: Double) -> Double {
        let level = level.isFinite ? Swift.min(Swift.max(level, -1), 1) : 0
        return level >= 0 ? 1 + 3 * level : 1 + level
    }
}
