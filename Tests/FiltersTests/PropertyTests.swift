import Testing

@testable import Filters

@Suite struct PropertyTests {
    static let lutPath = temporaryFile("property.cube", identityCubeText(size: 2))

    static func randomValue(_ parameter: ParameterInfo, _ rng: inout SeededGenerator) -> ParameterValue {
        switch parameter.kind {
        case let .number(range):
            switch Int.random(in: 0..<6, using: &rng) {
            case 0: return .number(range.lowerBound)
            case 1: return .number(range.upperBound)
            case 2: return parameter.defaultValue
            // Two-decimal values, as a person would type them.
            case 3: return .number((Double.random(in: range, using: &rng) * 100).rounded() / 100)
            default: return .number(Double.random(in: range, using: &rng))
            }
        case let .integer(range):
            return .integer(Int.random(in: range, using: &rng))
        case .file:
            return .text(lutPath)
        }
    }

    static func randomChain(_ rng: inout SeededGenerator) throws -> FilterChain {
        var filters: [any Filter] = []
        for _ in 0..<Int.random(in: 0...5, using: &rng) {
            let type = FilterCatalog.types[Int.random(in: 0..<FilterCatalog.types.count, using: &rng)]
            var values: [String: ParameterValue] = [:]
            for parameter in type.info.parameters where Bool.random(using: &rng) || parameter.kind == .file {
                values[parameter.key] = randomValue(parameter, &rng)
            }
            filters.append(try type.init(arguments: FilterArguments(info: type.info, values: values)))
        }
        return FilterChain(filters)
    }

    @Test func tenThousandRandomChainsRoundTrip() throws {
        var rng = SeededGenerator(seed: 0x5EED_CAFE)
        for _ in 0..<10_000 {
            let chain = try Self.randomChain(&rng)
            let text = chain.description
            let parsed = try FilterChain(parsing: text)
            #expect(parsed == chain, "\(text)")
            #expect(parsed.description == text)
        }
    }

    @Test func randomGarbageThrowsOrRoundTripsButNeverTraps() throws {
        var rng = SeededGenerator(seed: 42)
        let alphabet = Array("sepiamonoinvertblurzoomlutfile=|=| \t\"\\0123456789.-+eE_xyzé😀\n")
        var parsedCount = 0, thrown = 0
        for index in 0..<10_000 {
            var text: String
            if index % 2 == 0 {
                text = String((0..<Int.random(in: 0...40, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
            } else {
                // Mutations of valid text find the errors near the grammar's edges.
                var chars = Array(try Self.randomChain(&rng).description)
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    let position = Int.random(in: 0...chars.count, using: &rng)
                    switch Int.random(in: 0..<3, using: &rng) {
                    case 0 where position < chars.count: chars.remove(at: position)
                    case 1: chars.insert(alphabet.randomElement(using: &rng)!, at: position)
                    default: if position < chars.count { chars[position] = alphabet.randomElement(using: &rng)! }
                    }
                }
                text = String(chars)
            }
            do {
                let chain = try FilterChain(parsing: text)
                parsedCount += 1
                #expect(try FilterChain(parsing: chain.description) == chain)
            } catch {
                thrown += 1
                #expect(!error.description.isEmpty)
                // Columns point into the text (one past the end for "expected more").
                switch error {
                case let .unknownFilter(_, p), let .unknownKey(_, _, p), let .badNumber(_, _, _, p),
                    let .outOfRange(_, _, _, p), let .duplicateKey(_, _, p), let .syntax(_, _, p):
                    #expect(p >= 1 && p <= text.unicodeScalars.count + 1, "\(text) → \(error)")
                case .missingArgument, .badLutFile, .refused:
                    break
                }
            }
        }
        #expect(thrown > 1000)
        #expect(parsedCount > 10)
    }
}
