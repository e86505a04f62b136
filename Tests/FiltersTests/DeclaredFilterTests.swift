import Filters
import Testing

/// A filter of each parameter kind the grammar has numbers for, declared once and bound to its properties.
private struct Levels: PointFilter, DeclaredFilter, Equatable {
    static let gain = NumberParameter("gain", default: 1, in: 0...2, "multiplier")
    static let steps = IntegerParameter("steps", default: 4, in: 2...16, "levels")
    static let declaration = FilterDeclaration<Levels>(name: "levels", summary: "gain, then levels", defaults: Levels(),
                                                       parameters: [.bind(steps, to: \.steps), .bind(gain, to: \.gain)])
    var gain: Double
    var steps: Int
    init(gain: Double = Levels.gain.defaultValue, steps: Int = Levels.steps.defaultValue) {
        self.gain = Self.gain.clamp(gain)
        self.steps = Self.steps.clamp(steps)
    }
    var pointMap: PointMap { .matrix(ColorMatrix(red: [gain, 0, 0], green: [0, gain, 0], blue: [0, 0, gain])) }
}

@Suite("parameters declared once")
struct DeclaredFilterTests {
    private func levels(_ values: [String: ParameterValue]) -> Levels {
        Levels(arguments: FilterArguments(info: Levels.info, values: values))
    }

    @Test func infoListsTheBoundParametersInDeclarationOrder() {
        #expect(Levels.info.name == "levels")
        #expect(Levels.info.parameters.map(\.key) == ["steps", "gain"])
        #expect(Levels.info.parameters[0].kind == .integer(2...16))
        #expect(Levels.info.parameters[1].defaultValue == .number(1))
        #expect(Levels(gain: 0.5, steps: 9).values == [.integer(9), .number(0.5)])
    }

    @Test func textArgumentsWriteTheBoundPropertiesClampedAndDefaulted() {
        #expect(levels([:]) == Levels())
        #expect(levels(["gain": .number(1.5), "steps": .integer(8)]) == Levels(gain: 1.5, steps: 8))
        // Out of range clamps; NaN, text and numbers too large for an Int become the default.
        #expect(levels(["gain": .number(7), "steps": .integer(1)]) == Levels(gain: 2, steps: 2))
        #expect(levels(["gain": .number(.nan), "steps": .number(1e12)]) == Levels())
        #expect(levels(["gain": .text("x"), "steps": .number(-.infinity)]) == Levels())
        // A whole number reads as a number, a number as a whole number truncated towards zero.
        #expect(levels(["gain": .integer(2), "steps": .number(5.9)]) == Levels(gain: 2, steps: 5))
    }

    @Test func aDeclaredFilterPrintsAndParsesBack() throws {
        var registry = FilterRegistry.builtIn
        try registry.register(Levels.self)
        let chain = try FilterChain(parsing: "levels gain=0.25 steps=3 | sepia intensity=0.5", registry: registry)
        #expect(chain.description == "levels steps=3 gain=0.25 | sepia intensity=0.5")
        #expect(try FilterChain(parsing: chain.description, registry: registry).description == chain.description)
    }

    @Test(arguments: FilterCatalog.types.compactMap { $0 as? any DeclaredFilter.Type })
    func everyBuiltInDeclaredFilterReadsBackItsOwnValues(type: any DeclaredFilter.Type) throws {
        let info = type.info
        // Every key at the far end of its range from its default, so a key bound to the wrong property shows.
        var values: [String: ParameterValue] = [:]
        for parameter in info.parameters {
            switch parameter.kind {
            case let .number(range): values[parameter.key] = .number(parameter.defaultValue == .number(range.upperBound) ? range.lowerBound : range.upperBound)
            case let .integer(range): values[parameter.key] = .integer(parameter.defaultValue == .integer(range.upperBound) ? range.lowerBound : range.upperBound)
            case .file: Issue.record("\(info.name) declares a file key")
            }
        }
        let filter = try type.init(arguments: FilterArguments(info: info, values: values))
        #expect(filter.values == info.parameters.compactMap { values[$0.key] })
        #expect(filter.filterInfo == info)
    }
}
