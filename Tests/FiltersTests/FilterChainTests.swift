import Testing

@testable import Filters

@Suite struct FilterChainTests {
    @Test func builderSupportsIfElseAndFor() {
        let vintage = true, cold = false
        let chain = FilterChain {
            Sepia(intensity: 0.8)
            if vintage { Vignette(intensity: 1.5, radius: 2) }
            if cold { Temperature(kelvin: 9000) } else { Temperature(kelvin: 4000) }
            for level in [4, 8] { Posterize(levels: level) }
        }
        #expect(
            chain.description
                == "sepia intensity=0.8 | vignette intensity=1.5 radius=2 | temperature kelvin=4000 | posterize levels=4 | posterize levels=8"
        )
        #expect(chain.filters.count == 5)
    }

    @Test func parsesTheDesignExample() throws {
        let chain = try FilterChain(parsing: "sepia intensity=0.8 | vignette intensity=1.5 radius=2")
        #expect(
            chain
                == FilterChain {
                    Sepia(intensity: 0.8); Vignette(intensity: 1.5, radius: 2)
                })
        #expect(chain.description == "sepia intensity=0.8 | vignette intensity=1.5 radius=2")
    }

    @Test func emptyTextIsTheIdentityChain() throws {
        #expect(try FilterChain(parsing: "").isEmpty)
        #expect(try FilterChain(parsing: "   ").isEmpty)
        #expect(FilterChain([]).description == "")
        #expect(FilterChain([]).compile().isEmpty)
    }

    @Test func defaultsAreLeftOutOfTheCanonicalText() throws {
        #expect(Sepia().description == "sepia")
        #expect(ColorControls(contrast: 1.2, saturation: 0.8).description == "colorcontrols contrast=1.2 saturation=0.8")
        #expect(try FilterChain(parsing: "sepia intensity=1") == FilterChain { Sepia() })
        #expect(try FilterChain(parsing: "sepia intensity=1").description == "sepia")
    }

    @Test func swiftInitializersClampIntoTheDocumentedRange() {
        #expect(Sepia(intensity: 3).intensity == 1)
        #expect(Sepia(intensity: .nan).intensity == 1)
        #expect(Zoom(factor: 100).factor == 16)
        #expect(Zoom(factor: 0.5).factor == 1)
        #expect(Posterize(levels: 1).levels == 2)
    }

    @Test(
        arguments: [
            ("sepai", FilterSpecError.unknownFilter(name: "sepai", position: 1)),
            ("sepia | monoo", .unknownFilter(name: "monoo", position: 9)),
            ("sepia amount=1", .unknownKey(filter: "sepia", key: "amount", position: 7)),
            ("sepia intensity=abc", .badNumber(filter: "sepia", key: "intensity", value: "abc", position: 17)),
            ("sepia intensity=nan", .badNumber(filter: "sepia", key: "intensity", value: "nan", position: 17)),
            ("sepia intensity=2", .outOfRange(filter: "sepia", key: "intensity", value: "2", position: 17)),
            ("posterize levels=2.5", .badNumber(filter: "posterize", key: "levels", value: "2.5", position: 18)),
            ("zoom factor=17", .outOfRange(filter: "zoom", key: "factor", value: "17", position: 13)),
            ("sepia intensity=0.1 intensity=0.2", .duplicateKey(filter: "sepia", key: "intensity", position: 21)),
            ("lut", .missingArgument(filter: "lut", key: "file", position: 1)),
            ("sepia |", .syntax(expected: "a filter name after '|'", found: "", position: 8)),
            ("| sepia", .syntax(expected: "a filter name", found: "|", position: 1)),
            ("sepia || mono", .syntax(expected: "a filter name", found: "|", position: 8)),
            ("sepia intensity", .syntax(expected: "key=value or '|'", found: "intensity", position: 7)),
            ("sepia intensity=", .syntax(expected: "a value after 'intensity='", found: "", position: 17))
        ] as [(String, FilterSpecError)])
    func errorsCarryTheColumn(text: String, expected: FilterSpecError) {
        #expect(throws: expected) { try FilterChain(parsing: text) }
    }

    @Test func errorDescriptionsListWhatIsAllowed() {
        let unknown = FilterSpecError.unknownFilter(name: "x", position: 3).description
        #expect(unknown.contains("column 3"))
        for info in FilterCatalog.all { #expect(unknown.contains(info.name)) }
        #expect(
            FilterSpecError.unknownKey(filter: "vignette", key: "k", position: 10).description.contains("intensity (a number in -1...4)"))
        #expect(FilterSpecError.outOfRange(filter: "sepia", key: "intensity", value: "2", position: 17).description.contains("0...1"))
        #expect(
            FilterSpecError.badLutFile(path: "/a.cube", line: 7, reason: "expected three numbers").description
                == "LUT file /a.cube, line 7: expected three numbers.")
    }

    @Test func catalogDocumentsEveryFilterOnce() {
        let names = FilterCatalog.all.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(names.count >= 18)
        for type in FilterCatalog.types {
            // Defaults lie inside their ranges, and the default filter prints as its bare name.
            let filter = try? type.init(arguments: FilterArguments(info: type.info))
            if type.info.name != "lut" { #expect(filter?.description == type.info.name) }
            for parameter in type.info.parameters {
                switch (parameter.kind, parameter.defaultValue) {
                case let (.number(range), .number(value)): #expect(range.contains(value))
                case let (.integer(range), .integer(value)): #expect(range.contains(value))
                case (.file, .text): break
                default: Issue.record("\(type.info.name) \(parameter.key) default does not match its kind")
                }
            }
        }
        #expect(FilterCatalog.listing.contains("vignette — darken towards the corners"))
    }

    @Test func quotedPathsRoundTrip() throws {
        let path = temporaryFile("my lut=1.cube", identityCubeText(size: 2))
        let chain = FilterChain([try Lut(file: path), Mono()])
        #expect(chain.description.contains("\"/tmp/"))
        #expect(try FilterChain(parsing: chain.description) == chain)
    }

    @Test func worksInPlaceOnlyForPointChains() throws {
        #expect(try FilterChain(parsing: "sepia | colorcontrols contrast=1.2 | vignette | gamma value=2").compile().worksInPlace)
        #expect(!(try FilterChain(parsing: "sepia | blur").compile().worksInPlace))
        #expect(PixelFormat.allCases.allSatisfy { FilterChain { Blur() }.compile().supports($0) })
    }

    @Test func pixelFormatNames() {
        for format in PixelFormat.allCases {
            #expect(PixelFormat(gstName: format.gstName) == format)
            #expect(PixelFormat(rawValue: format.rawValue) == format)
        }
        #expect(PixelFormat(gstName: "BGRx") == .bgrx)
        #expect(PixelFormat(gstName: "bogus") == nil)
        #expect(PixelFormat.nv12.planeCount == 2 && PixelFormat.i420.planeCount == 3 && PixelFormat.rgba.planeCount == 1)
    }

    @Test func badFramesThrowInsteadOfTrapping() {
        let frame = TestFrame(.nv12, 4, 4)
        var broken = frame.frame
        broken.planes.removeLast()
        #expect(throws: FrameError.planeCount(format: .nv12, expected: 2, actual: 1)) {
            try FilterChain { Sepia() }.compile().process(broken)
        }
        broken = frame.frame
        broken.planes[0].stride = 2
        #expect(throws: FrameError.strideTooSmall(plane: 0, stride: 2, minimum: 4)) { try FilterChain { Blur() }.compile().process(broken) }
        broken = frame.frame
        broken.width = 0
        #expect(throws: FrameError.badSize(width: 0, height: 4)) { try FilterChain { Mono() }.compile().process(broken) }
        let other = TestFrame(.nv12, 6, 4)
        #expect(throws: FrameError.self) { try FilterChain { Mono() }.compile().process(from: frame.frame, to: other.frame) }
    }
}
