/// A filter that lists its parameters once, each bound to the stored property that holds it, and gets its
/// ``FilterInfo``, its text initializer and its values from that list.
///
/// ```swift
/// public struct Emboss: FrameFilter, DeclaredFilter {
///     public static let strength = NumberParameter("strength", default: 1, in: 0...8, "depth of the relief")
///     public var strength: Double
///     public init(strength: Double = Emboss.strength.defaultValue) { self.strength = Self.strength.clamp(strength) }
///     …
///     public static let declaration = FilterDeclaration<Emboss>(name: "emboss", summary: "3×3 relief of the luma",
///                                                       defaults: Emboss(), parameters: [.bind(strength, to: \.strength)])
/// }
/// ```
public protocol DeclaredFilter: Filter {
    /// The filter's name, summary, default value and parameters bound to their properties.
    static var declaration: FilterDeclaration<Self> { get }
}

extension DeclaredFilter {
    /// The name, summary and parameters of ``declaration``.
    public static var info: FilterInfo { declaration.info }

    /// The defaults with each parameter read from `arguments` (clamped into its range).
    public init(arguments: FilterArguments) {
        self = Self.declaration.defaults
        for parameter in Self.declaration.parameters {
            parameter.read(arguments, &self)
        }
    }

    /// The values of the bound properties, in ``declaration`` order.
    public var values: [ParameterValue] { Self.declaration.parameters.map { $0.value(self) } }
}

/// What a ``DeclaredFilter`` says about itself: name, summary, the filter with every parameter at its default, and
/// the parameters in canonical order, each bound to its property.
public struct FilterDeclaration<Declared: Filter>: Sendable {
    /// The description `swiftcam filters`, the page and the parser read.
    public let info: FilterInfo
    let defaults: Declared
    let parameters: [ParameterBinding<Declared>]

    /// Declares a filter; `defaults` is the filter the text form starts from before it reads its keys.
    public init(name: String, summary: String, defaults: Declared, parameters: [ParameterBinding<Declared>] = []) {
        self.info = FilterInfo(name: name, summary: summary, parameters: parameters.map(\.info))
        self.defaults = defaults
        self.parameters = parameters
    }
}

/// A parameter declaration bound to the stored property of a filter that holds its value.
public struct ParameterBinding<Declared: Filter>: Sendable {
    /// The declaration's description.
    public let info: ParameterInfo
    let read: @Sendable (FilterArguments, inout Declared) -> Void
    let value: @Sendable (Declared) -> ParameterValue

    /// Binds `declaration` to `property`: the text form writes the property, `values` reads it.
    public static func bind<Declaration: ParameterDeclaration>(
        _ declaration: Declaration, to property: WritableKeyPath<Declared, Declaration.Value> & Sendable
    ) -> ParameterBinding {
        ParameterBinding(
            info: declaration.info,
            read: { arguments, filter in filter[keyPath: property] = arguments[declaration] },
            value: { declaration.value($0[keyPath: property]) })
    }
}
