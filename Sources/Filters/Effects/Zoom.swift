/// Digital zoom: enlarges the window of 1/factor of the frame around (x, y) to the full frame, bilinear.
///
/// The window is moved inward when it would leave the frame, like a camera's crop zoom.
public struct Zoom: DeclaredFilter, Equatable {
    /// The `factor` key: its default, range and meaning.
    public static let factor = NumberParameter("factor", default: 2, in: 1...16, "magnification (1 = unchanged)")
    /// Magnification, clamped to 1...16 (1 = unchanged).
    public var factor: Double

    /// The `x` key: its default, range and meaning.
    public static let x = NumberParameter("x", default: 0.5, in: 0...1, "horizontal centre, 0 = left edge, 1 = right edge")
    /// Horizontal centre of the window, 0 (left) ... 1 (right).
    public var x: Double

    /// The `y` key: its default, range and meaning.
    public static let y = NumberParameter("y", default: 0.5, in: 0...1, "vertical centre, 0 = top edge, 1 = bottom edge")
    /// Vertical centre of the window, 0 (top) ... 1 (bottom).
    public var y: Double

    /// Creates the filter; `factor` clamps to 1...16, `x` and `y` to 0...1.
    public init(factor: Double = Zoom.factor.defaultValue, x: Double = Zoom.x.defaultValue, y: Double = Zoom.y.defaultValue) {
        self.factor = Self.factor.clamp(factor)
        self.x = Self.x.clamp(x)
        self.y = Self.y.clamp(y)
    }

    /// The pixel operations this filter lowers to.
    public var kernel: FilterKernel { FilterKernel(.zoom(factor: factor, x: x, y: y)) }

    /// The filter's name, summary and keys, each bound to its property.
    public static let declaration = FilterDeclaration<Zoom>(
        name: "zoom", summary: "digital zoom about a normalized centre, bilinear", defaults: Zoom(),
        parameters: [.bind(factor, to: \.factor), .bind(x, to: \.x), .bind(y, to: \.y)])
}
