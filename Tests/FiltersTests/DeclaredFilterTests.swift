import Filters
import Testing

/// A filter of each parameter kind the grammar has numbers for, declared once and bound to its properties.
private struct Levels: PointFilter, DeclaredFilter, Equatable {
    static let gain = NumberParameter("gain", default: 1, in: 0...2, "multiplier")
    static let steps = IntegerParameter("steps", default: 4, in: 2...16, "levels")
    static let declaration = FilterDeclaration<Levels>(
        name: "levels", summary: "gain, then levels", defaults: Levels(),
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

    /// Each key prints the property of its own name: a declaration bound to a sibling's property would still read back
    /// what it wrote, so the text of filters made in Swift is what shows it.
    @Test(arguments: [
        (Sepia(intensity: 0.25) as any Filter, "sepia intensity=0.25"),
        (Vignette(intensity: 2, radius: 3), "vignette intensity=2 radius=3"),
        (ColorControls(brightness: 0.5, contrast: 2, saturation: 3), "colorcontrols brightness=0.5 contrast=2 saturation=3"),
        (Exposure(ev: 1.5), "exposure ev=1.5"),
        (Temperature(kelvin: 4000, tint: 20), "temperature kelvin=4000 tint=20"),
        (Gamma(value: 2), "gamma value=2"),
        (Posterize(levels: 3), "posterize levels=3"),
        (Threshold(level: 0.25), "threshold level=0.25"),
        (Blur(radius: 4), "blur radius=4"),
        (Sharpen(amount: 2, radius: 3), "sharpen amount=2 radius=3"),
        (Pixelate(size: 5), "pixelate size=5"),
        (Zoom(factor: 3, x: 0.25, y: 0.75), "zoom factor=3 x=0.25 y=0.75")
    ])
    func eachKeyPrintsItsOwnProperty(filter: any Filter, text: String) {
        #expect(filter.description == text)
    }

    @Test(arguments: FilterCatalog.types.compactMap { $0 as? any DeclaredFilter.Type })
    func everyBuiltInDeclaredFilterReadsBackItsOwnValues(type: any DeclaredFilter.Type) throws {
        let info = type.info
        // Each key at its own point inside its range: the text form keeps it, in `info` order.
        var values: [String: ParameterValue] = [:]
        for (index, parameter) in info.parameters.enumerated() {
            let fraction = Double(index + 1) / Double(info.parameters.count + 1)
            switch parameter.kind {
            case let .number(range): values[parameter.key] = .number(range.lowerBound + (range.upperBound - range.lowerBound) * fraction)
            case let .integer(range):
                values[parameter.key] = .integer(range.lowerBound + Int(Double(range.upperBound - range.lowerBound) * fraction))
            case .file: Issue.record("\(info.name) declares a file key")
            }
        }
        let filter = try type.init(arguments: FilterArguments(info: info, values: values))
        #expect(filter.values == info.parameters.compactMap { values[$0.key] })
        #expect(filter.filterInfo == info)
    }
}
