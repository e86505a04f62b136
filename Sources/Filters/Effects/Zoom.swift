/// Digital zoom: enlarges the window of 1/factor of the frame around (x, y) to the full frame, bilinear.
///
/// The window is moved inward when it would leave the frame, like a camera's crop zoom.
public struct Zoom: Filter, Equatable {
    /// Magnification, clamped to 1...16 (1 = unchanged).
    public var factor: Double
    /// Horizontal centre of the window, 0 (left) ... 1 (right).
    public var x: Double
    /// Vertical centre of the window, 0 (top) ... 1 (bottom).
    public var y: Double

    /// Creates the filter; `factor` clamps to 1...16, `x` and `y` to 0...1.
    public init(factor: Double = 2, x: Double = 0.5, y: Double = 0.5) {
        self.factor = clampParameter(factor, Self.info.range("factor"), default: 2)
        self.x = clampParameter(x, Self.info.range("x"), default: 0.5)
        self.y = clampParameter(y, Self.info.range("y"), default: 0.5)
    }

    /// The filter's name, keys, defaults and ranges.
    public static let info = FilterInfo(name: "zoom", summary: "digital zoom about a normalized centre, bilinear", parameters: [
        .number("factor", 2, 1...16, "magnification (1 = unchanged)"),
        .number("x", 0.5, 0...1, "horizontal centre, 0 = left edge, 1 = right edge"),
        .number("y", 0.5, 0...1, "vertical centre, 0 = top edge, 1 = bottom edge"),
    ])

    /// Creates the filter from parsed text arguments.
    public init(arguments: FilterArguments) {
        self.init(factor: arguments.number("factor"), x: arguments.number("x"), y: arguments.number("y"))
    }

    /// The parameter values in `info` order.
    public var values: [ParameterValue] { [.number(factor), .number(x), .number(y)] }
    /// The pixel operations this filter lowers to.
    public var kernel: FilterKernel { FilterKernel(.zoom(factor: factor, x: x, y: y)) }
}
