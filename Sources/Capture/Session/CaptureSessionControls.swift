public import Camera
public import Filters

/// The camera controls as the session offers them to every transport: each hands over to `SessionControls`.
extension CaptureSession {
    /// Switches to the other source live (no restart; a recording continues). Returns the new source's label.
    @discardableResult
    public func switchCamera() throws -> String { try controls.switchCamera() }

    /// Replaces the user's filter chain with text a command or request brought: parsed here, once, and handed on as a
    /// value; invalid text throws and changes nothing. Returns the chain in canonical text, with the camera controls'
    /// software stages that run before it, if any (`"sepia" (after zoom factor=2)`).
    @discardableResult
    public func setFilter(_ text: String) throws -> String { try controls.setFilter(try FilterChain(parsing: text)) }

    /// Replaces the user's filter chain with a chain built in Swift.
    @discardableResult
    public func setFilter(_ chain: FilterChain) throws -> String { try controls.setFilter(chain) }

    /// The chain the user set (config, `filter` command), in canonical text, without the camera controls' stages.
    public var userChain: String { controls.userChain.description }

    /// Whether the active source is a camera with a torch; false while not running, for test patterns and files.
    public var hasTorch: Bool { controls.hasTorch }

    /// The torch: the flash LED in torch mode on the camera or its flash sub-device; test sources have none.
    @discardableResult
    public func torch(_ on: Bool) throws -> String { try controls.torch(on) }

    /// Zoom clamped to [1, maxZoom]: the camera's zoom when it has one, else the `zoom` stage.
    @discardableResult
    public func zoom(_ factor: Double) throws -> String { try controls.zoom(factor) }

    /// Tap-to-focus at a normalized point: region autofocus or one-shot autofocus where the camera has it.
    @discardableResult
    public func focus(x: Double, y: Double) throws -> String { try controls.focus(x: x, y: y) }

    /// Exposure compensation: the camera's exposure bias when present, else the `exposure` stage.
    @discardableResult
    public func exposure(ev: Double) throws -> String { try controls.exposure(ev: ev) }

    /// Tap-to-expose: region auto exposure where the camera has it, else software spot metering of the tapped region.
    @discardableResult
    public func exposure(x: Double, y: Double) throws -> String { try controls.exposure(x: x, y: y) }

    /// White balance: the camera's auto / temperature controls when present, else the `temperature` stage.
    @discardableResult
    public func whiteBalance(_ mode: WhiteBalanceMode) throws -> String { try controls.whiteBalance(mode) }

    /// Brightness, contrast, saturation or hue: the camera's control when present, else the `colorcontrols` stage.
    @discardableResult
    public func adjust(_ adjustment: ColorAdjustment, to level: AdjustmentLevel) throws -> String {
        try controls.adjust(adjustment, to: level)
    }

    /// Horizontal mirror: `horizontal_flip` when the sensor has it, else the `mirror` stage.
    @discardableResult
    public func mirror(_ on: Bool) throws -> String { try controls.mirror(on) }

    /// The luma software spot metering aims the tapped region at (mid-grey on 0…255).
    public static var meteringTarget: Double { SessionControls.meteringTarget }

    /// The mean luma around a normalized point in the newest filtered frame (what spot metering reads).
    public func meteredLuma(x: Double, y: Double) -> Double? { controls.meteredLuma(x: x, y: y) }
}
