#if DEBUG
import Synchronization
#endif

/// An ordered list of filters: built in Swift with `@FilterChainBuilder`, or parsed from text.
///
/// `description` is the canonical text (`sepia intensity=0.8 | vignette`), which parses back to an
/// equal chain. The empty chain (empty text) is the identity.
public struct FilterChain: Sendable, Equatable, CustomStringConvertible {
    /// The filters, applied first to last.
    public var filters: [any Filter]

    /// Creates a chain from a list of filters.
    public init(_ filters: [any Filter]) {
        self.filters = filters
    }

    /// Creates a chain with the result builder: `FilterChain { Sepia(); if warm { Temperature(kelvin: 4000) } }`.
    public init(@FilterChainBuilder _ build: () -> [any Filter]) {
        self.filters = build()
    }

    /// Parses the text grammar, e.g. `sepia intensity=0.8 | vignette intensity=1.5 radius=2`.
    ///
    /// LUT files are read here, so a bad file fails now rather than on the first frame.
    public init(parsing text: String) throws(FilterSpecError) {
        try self.init(parsing: text, registry: .shared)
    }

    /// Parses the text grammar against `registry` instead of the process's shared one.
    public init(parsing text: String, registry: FilterRegistry) throws(FilterSpecError) {
        #if DEBUG
        ParseCounter.count(text)
        #endif
        self.filters = try FilterSpecParser.parse(text, registry: registry)
    }

    /// The filter names in a chain's text, in order, read without making the filters: no LUT file is opened, so a
    /// transport can refuse what its clients may not name (`lut file=…`) before anything reads that file.
    public static func filterNames(in text: String) throws(FilterSpecError) -> [String] {
        try FilterSpecParser.filterNames(text)
    }

    /// True when the chain has no filters (the identity).
    public var isEmpty: Bool { filters.isEmpty }

    /// The canonical text form.
    public var description: String {
        filters.map(\.description).joined(separator: " | ")
    }

    /// Equal when every stored property is equal.
    public static func == (lhs: FilterChain, rhs: FilterChain) -> Bool {
        lhs.filters.count == rhs.filters.count && zip(lhs.filters, rhs.filters).allSatisfy { $0.isEqual(to: $1) }
    }

    /// Compiles the chain into reusable processing state; `threads` 0 means one per core. `kernels` picks the SIMD
    /// path (the widest this machine has unless `SWIFTCAM_SIMD` names another); it stays with the compiled chain.
    public func compile(threads: Int = 0, kernels: KernelSet = .best) -> CompiledChain {
        CompiledChain(chain: self, threads: threads, kernels: kernels)
    }
}

/// Builds `[any Filter]` from statements: single filters, lists, chains, `if`, `if/else` and `for`.
@resultBuilder
public enum FilterChainBuilder {
    /// A single filter.
    public static func buildExpression(_ filter: some Filter) -> [any Filter] { [filter] }
    /// A list of filters.
    public static func buildExpression(_ filters: [any Filter]) -> [any Filter] { filters }
    /// Another chain, spliced in.
    public static func buildExpression(_ chain: FilterChain) -> [any Filter] { chain.filters }
    /// Statements in order.
    public static func buildBlock(_ parts: [any Filter]...) -> [any Filter] { parts.flatMap { $0 } }
    /// `if` without `else`.
    public static func buildOptional(_ part: [any Filter]?) -> [any Filter] { part ?? [] }
    /// The `if` branch of `if/else`.
    public static func buildEither(first part: [any Filter]) -> [any Filter] { part }
    /// The `else` branch of `if/else`.
    public static func buildEither(second part: [any Filter]) -> [any Filter] { part }
    /// `for … in …`.
    public static func buildArray(_ parts: [[any Filter]]) -> [any Filter] { parts.flatMap { $0 } }
    /// `if #available`.
    public static func buildLimitedAvailability(_ part: [any Filter]) -> [any Filter] { part }
}

#if DEBUG
/// Debug builds count the parses of the texts a test watches, so it can prove that a chain crossing the host is parsed
/// once, at the edge where it arrived (a config, a command, an HTTP request), and handed on as a value.
public enum ParseCounter {
    private static let counts = Mutex<[String: Int]>([:])

    /// Counts the parses of `text` from now on (from zero).
    public static func watch(_ text: String) {
        counts.withLock { $0[text] = 0 }
    }

    /// How often `text` was parsed since `watch`; nil when it is not watched.
    public static func parses(of text: String) -> Int? {
        counts.withLock { $0[text] }
    }

    static func count(_ text: String) {
        counts.withLock { counts in
            if let count = counts[text] { counts[text] = count + 1 }
        }
    }
}
#endif
