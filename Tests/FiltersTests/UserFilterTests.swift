import Filters
import Testing

/// A user's point filter: swaps red and blue (a matrix), so it fuses with the built-in matrices.
private struct SwapRB: PointFilter {
    static let info = FilterInfo(name: "swaprb", summary: "red and blue swapped")
    init() {}
    init(arguments: FilterArguments) {}
    var values: [ParameterValue] { [] }
    var pointMap: PointMap { .matrix(ColorMatrix(red: [0, 0, 1], green: [0, 1, 0], blue: [1, 0, 0])) }
}

/// A user's point filter from a general function, sampled into a cube.
private struct Square: PointFilter {
    static let info = FilterInfo(name: "square", summary: "each component squared")
    init(arguments: FilterArguments) {}
    var values: [ParameterValue] { [] }
    var pointMap: PointMap { .function(size: 17) { $0 * $0 } }
}

/// A user's frame filter: copies the row above (a one-pixel shift down), with a whole-number parameter.
private struct Fill: FrameFilter {
    static let value = IntegerParameter("value", default: 7, in: 0...255, "the byte written")
    static let info = FilterInfo(name: "fill", summary: "every byte set", parameters: [value])
    var value: Int
    init(arguments: FilterArguments) { value = arguments[Self.value] }
    var values: [ParameterValue] { [Self.value.value(value)] }
    func apply(_ input: Frame, to output: Frame, context: FrameContext) {
        _ = context.scratch(3, bytes: 1024)
        context.forEachBand(rows: output.height, samplesPerRow: output.width) { rows in
            for y in rows {
                (output.planes[0].base + y * output.planes[0].stride).initializeMemory(
                    as: UInt8.self, repeating: UInt8(value),
                    count: output.rowBytes(plane: 0))
            }
        }
    }
}

@Suite("filters of your own")
struct UserFilterTests {
    static func registry() throws -> FilterRegistry {
        var registry = FilterRegistry.builtIn
        try registry.register(SwapRB.self)
        try registry.register(Square.self)
        try registry.register(Fill.self)
        return registry
    }

    @Test func registeredFiltersParsePrintAndValidate() throws {
        let registry = try Self.registry()
        let chain = try FilterChain(parsing: "sepia | swaprb | fill value=9", registry: registry)
        #expect(chain.description == "sepia | swaprb | fill value=9")
        #expect(try FilterChain(parsing: chain.description, registry: registry) == chain)
        #expect(throws: FilterSpecError.outOfRange(filter: "fill", key: "value", value: "300", position: 12)) {
            try FilterChain(parsing: "fill value=300", registry: registry)
        }
        #expect(registry.all.map(\.name).suffix(3) == ["swaprb", "square", "fill"])
        #expect(FilterRegistry.builtIn.registration(named: "swaprb") == nil)
    }

    @Test func registrationRefusesTakenNamesAndBadDeclarations() throws {
        var registry = try Self.registry()
        #expect(throws: FilterRegistrationError.duplicateName(name: "sepia")) { try registry.register(Sepia.self) }
        #expect(throws: FilterRegistrationError.duplicateName(name: "fill")) { try registry.register(Fill.self) }
        let dummy: @Sendable (FilterArguments) throws(FilterSpecError) -> any Filter = { _ throws(FilterSpecError) in Sepia() }
        #expect(throws: FilterRegistrationError.badName(name: "Bad Name")) {
            try registry.register(FilterRegistration(info: FilterInfo(name: "Bad Name", summary: ""), make: dummy))
        }
        let outside = NumberParameter("level", default: 5, in: 0...1, "")
        #expect(throws: FilterRegistrationError.badDefault(filter: "odd", key: "level")) {
            try registry.register(FilterRegistration(info: FilterInfo(name: "odd", summary: "", parameters: [outside]), make: dummy))
        }
        let level = NumberParameter("level", default: 0.5, in: 0...1, "")
        let twice = FilterInfo(name: "twice", summary: "", parameters: [level.info, level.info])
        #expect(throws: FilterRegistrationError.badKey(filter: "twice", key: "level")) {
            try registry.register(FilterRegistration(info: twice, make: dummy))
        }
        #expect(FilterRegistrationError.duplicateName(name: "sepia").description.contains("'sepia' is already registered"))
    }

    /// Point filters of your own fuse with the built-in point filters: one pass for the whole run.
    @Test func userPointFiltersFuseIntoOnePass() throws {
        let registry = try Self.registry()
        #expect(
            try FilterChain(parsing: "exposure ev=1 | swaprb | gamma value=2 | square | sepia", registry: registry).compile().passCount == 1
        )
        #expect(try FilterChain(parsing: "swaprb | fill | swaprb", registry: registry).compile().passCount == 3)
    }

    @Test func userFiltersChangePixels() throws {
        let registry = try Self.registry()
        var pixels: [UInt8] = [200, 100, 50, 9, 10, 20, 30, 40]
        try pixels.withUnsafeMutableBytes { bytes in
            let frame = Frame(format: .rgba, width: 2, height: 1, planes: [Plane(base: bytes.baseAddress!, stride: 8)])
            try FilterChain(parsing: "swaprb", registry: registry).compile(threads: 1).process(frame)
        }
        #expect(pixels == [50, 100, 200, 9, 30, 20, 10, 40])
        try pixels.withUnsafeMutableBytes { bytes in
            let frame = Frame(format: .rgba, width: 2, height: 1, planes: [Plane(base: bytes.baseAddress!, stride: 8)])
            try FilterChain(parsing: "square", registry: registry).compile(threads: 1).process(frame)
        }
        // (50/255)² · 255 ≈ 9.8, (100/255)² · 255 ≈ 39.2, (200/255)² · 255 ≈ 156.9; the cube is trilinear, so within 2.
        let expected: [Double] = [9.8, 39.2, 156.9]
        for (got, want) in zip(pixels[0..<3], expected) { #expect(abs(Double(got) - want) <= 2, "\(pixels)") }
        try pixels.withUnsafeMutableBytes { bytes in
            let frame = Frame(format: .rgba, width: 2, height: 1, planes: [Plane(base: bytes.baseAddress!, stride: 8)])
            try FilterChain(parsing: "fill value=9", registry: registry).compile(threads: 1).process(frame)
        }
        #expect(pixels == [UInt8](repeating: 9, count: 8))
    }

    /// Arguments are read through the declaration, clamped into its range, so a misspelt key cannot compile.
    @Test func declarationsClampAndDefault() {
        #expect(Sepia.intensity.clamp(.nan) == 1 && Sepia.intensity.clamp(3) == 1 && Sepia.intensity.clamp(-1) == 0)
        #expect(Sepia().intensity == Sepia.intensity.defaultValue)
        #expect(Pixelate(size: 1000).size == 256)
        let arguments = FilterArguments(info: Vignette.info, values: ["radius": .number(99)])
        #expect(arguments[Vignette.radius] == 10 && arguments[Vignette.intensity] == 1)
        #expect(Vignette.info.parameter("radius") == Vignette.radius.info)
        #expect(Blur.info.parameters.first?.unit == "px")
    }
}
