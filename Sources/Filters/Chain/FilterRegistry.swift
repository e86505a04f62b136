import Synchronization

/// How to make one named filter from its text arguments: a built-in, a user's type, or a filter from a plugin.
public struct FilterRegistration: Sendable {
    /// Name, summary and parameters: what the grammar, `swiftcam filters` and the page know of the filter.
    public let info: FilterInfo
    /// Makes the filter from arguments already checked against `info`.
    public let make: @Sendable (FilterArguments) throws(FilterSpecError) -> any Filter

    /// The registration of a filter type: its `info` and its `init(arguments:)`.
    public init<F: Filter>(_ type: F.Type) {
        self.info = type.info
        self.make = { arguments throws(FilterSpecError) in try F(arguments: arguments) }
    }

    /// A registration made from a description and a factory, for filters that are not Swift types of this process
    /// (a plugin's filters reach the host through a C table).
    public init(info: FilterInfo, make: @escaping @Sendable (FilterArguments) throws(FilterSpecError) -> any Filter) {
        self.info = info
        self.make = make
    }
}

/// Why a filter could not be registered.
public enum FilterRegistrationError: Error, Equatable, CustomStringConvertible {
    /// A filter (built in or registered earlier) already has this name.
    case duplicateName(name: String)
    /// The name is not a word of the grammar: lowercase letters, digits and '-', starting with a letter.
    case badName(name: String)
    /// A parameter's key is not a word of the grammar, or is given twice.
    case badKey(filter: String, key: String)
    /// A parameter's default lies outside its range, or its range is empty or not finite.
    case badDefault(filter: String, key: String)

    /// One sentence naming the filter and what to change.
    public var description: String {
        switch self {
        case let .duplicateName(name): "A filter named '\(name)' is already registered; give the new one another name."
        case let .badName(name):
            "Filter name '\(name)' is not usable in a chain; use lowercase letters, digits and '-', starting with a letter."
        case let .badKey(filter, key):
            "Filter '\(filter)' declares key '\(key)' twice or in a form the grammar cannot read; use lowercase letters, digits and '-', once each."
        case let .badDefault(filter, key):
            "Filter '\(filter)' key '\(key)' has a default outside its range, or a range that is empty or not finite."
        }
    }
}

/// The filters the text grammar knows: the built-ins first, then registered ones in the order they came.
///
/// A value: build one, register into it and parse against it (``FilterChain/init(parsing:registry:)``). The process
/// keeps one ``shared`` registry behind a lock for the element, `swiftcam filters` and the page.
public struct FilterRegistry: Sendable {
    private var registrations: [FilterRegistration]
    private var byName: [String: Int]

    /// The 18 built-in filters.
    public static let builtIn: FilterRegistry = {
        var registry = FilterRegistry(registrations: [], byName: [:])
        for type in FilterCatalog.types {
            registry.byName[type.info.name] = registry.registrations.count
            registry.registrations.append(FilterRegistration(type))
        }
        return registry
    }()

    private init(registrations: [FilterRegistration], byName: [String: Int]) {
        self.registrations = registrations
        self.byName = byName
    }

    /// Adds a filter after checking its name and parameter declarations; a taken name is refused.
    public mutating func register(_ registration: FilterRegistration) throws(FilterRegistrationError) {
        let info = registration.info
        guard Self.isWord(info.name) else { throw .badName(name: info.name) }
        guard byName[info.name] == nil else { throw .duplicateName(name: info.name) }
        var keys: Set<String> = []
        for parameter in info.parameters {
            guard Self.isWord(parameter.key), keys.insert(parameter.key).inserted else {
                throw .badKey(filter: info.name, key: parameter.key)
            }
            guard Self.defaultFits(parameter) else { throw .badDefault(filter: info.name, key: parameter.key) }
        }
        byName[info.name] = registrations.count
        registrations.append(registration)
    }

    /// Adds a filter type under its `info.name`.
    public mutating func register<F: Filter>(_ type: F.Type) throws(FilterRegistrationError) {
        try register(FilterRegistration(type))
    }

    /// The filter called `name`, if any.
    public func registration(named name: String) -> FilterRegistration? {
        byName[name].map { registrations[$0] }
    }

    /// Every filter's description, built-ins first.
    public var all: [FilterInfo] { registrations.map(\.info) }

    /// The process's registry: the built-ins plus every filter registered with ``registerShared(_:)-(F.Type)``
    /// (a copy, so a caller parses against one consistent set).
    public static var shared: FilterRegistry { sharedRegistry.withLock { $0 } }

    /// Registers a filter type in the process's registry, for every later parse; a taken name is refused.
    public static func registerShared<F: Filter>(_ type: F.Type) throws(FilterRegistrationError) {
        try registerShared(FilterRegistration(type))
    }

    /// Registers a filter in the process's registry, for every later parse; a taken name is refused.
    public static func registerShared(_ registration: FilterRegistration) throws(FilterRegistrationError) {
        try sharedRegistry.withLock { registry throws(FilterRegistrationError) in try registry.register(registration) }
    }

    /// A name or key the tokenizer reads as one word and a person can type.
    static func isWord(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, ("a"..."z").contains(first), text.unicodeScalars.count <= 64 else {
            return false
        }
        return text.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
    }

    private static func defaultFits(_ parameter: ParameterInfo) -> Bool {
        switch (parameter.kind, parameter.defaultValue) {
        case let (.number(range), .number(value)):
            range.lowerBound.isFinite && range.upperBound.isFinite && range.contains(value)
        case let (.integer(range), .integer(value)):
            range.contains(value)
        case (.file, .text):
            true
        default:
            false
        }
    }
}

/// The process's registry; only ever touched under its lock.
private let sharedRegistry = Mutex(FilterRegistry.builtIn)
