import Filters
import FuzzSupport

#if canImport(Glibc)
import Glibc
#endif

// The filter grammar (`FilterChain(parsing:)`), three properties per input:
// 1. Text that parses prints (`description`) as text that parses to an equal chain and prints the same;
//    text that does not parse is refused with one line naming a column inside the text.
// 2. A LUT named by any path (the input as the path) prints as text that names exactly that path again:
//    the reparse either reads that file or fails saying it cannot read that very path.
// 3. A chain that parses runs: on a small RGB and a small 4:2:0 frame, on every SIMD path the machine has, it
//    processes without a trap (values that pass validation never crash a later step, whatever they are combined with).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGrammar(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    // scripts/fuzz.sh proves AddressSanitizer instruments the Swift code: a read one past an allocation.
    if asanCanary { return CInt(readPastTheEnd()) }
    let text = fuzzText(data, size)
    roundTrip(text)
    lutPathRoundTrip(text)
    return 0
}

private let asanCanary = getenv("SWIFTCAM_FUZZ_ASAN_CANARY") != nil

@inline(never)
private func readPastTheEnd() -> UInt8 {
    let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 8)
    buffer.initialize(repeating: 1, count: 8)
    defer { buffer.deallocate() }
    return buffer[8]
}

private func roundTrip(_ text: String) {
    let chain: FilterChain
    do {
        chain = try FilterChain(parsing: text)
    } catch {
        require(isOneLine(error.description), "the error for \(shown(text)) is not one line: \(shown(error.description))")
        if let column = column(of: error) {
            require((1...text.unicodeScalars.count + 1).contains(column), "column \(column) is outside \(shown(text)): \(error)")
        }
        return
    }
    runsOnSmallFrames(chain)
    let printed = chain.description
    let reparsed: FilterChain
    do {
        reparsed = try FilterChain(parsing: printed)
    } catch {
        require(false, "\(shown(text)) printed as \(shown(printed)), which does not parse: \(error)")
        return
    }
    require(
        reparsed == chain, "\(shown(text)) printed as \(shown(printed)), which parses to a different chain: \(shown(reparsed.description))")
    require(reparsed.description == printed, "\(shown(printed)) prints as \(shown(reparsed.description)) the second time")
}

private func runsOnSmallFrames(_ chain: FilterChain) {
    for format in [PixelFormat.rgba, .i420] {
        // Odd sizes: every kernel's row tail and 4:2:0's rounded-up chroma.
        let (width, height) = (11, 5)
        var planes: [Plane] = []
        defer { for plane in planes { plane.base.deallocate() } }
        for index in 0..<format.planeCount {
            let stride = format.rowBytes(plane: index, width: width), bytes = stride * format.rows(plane: index, height: height)
            let base = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 16)
            for offset in 0..<bytes { base.storeBytes(of: UInt8(truncatingIfNeeded: offset &* 37), toByteOffset: offset, as: UInt8.self) }
            planes.append(Plane(base: base, stride: stride))
        }
        let frame = Frame(format: format, width: width, height: height, planes: planes)
        for kernels in KernelSet.available {
            do {
                try chain.compile(threads: 1, kernels: kernels).process(frame)
            } catch {
                require(false, "\(shown(chain.description)) refused a valid \(format) frame on \(kernels): \(error)")
            }
        }
    }
}

private func lutPathRoundTrip(_ path: String) {
    guard let cube = Cube3D.identity(size: 2) else { return }
    let printed = FilterChain([Lut(cube: cube, file: path)]).description
    do {
        let reparsed = try FilterChain(parsing: printed)
        let file = (reparsed.filters.first as? Lut)?.file
        require(
            reparsed.filters.count == 1 && file == path,
            "lut file \(shown(path)) printed as \(shown(printed)) names \(shown(file ?? "no LUT"))")
    } catch let FilterSpecError.badLutFile(named, _, _) {
        require(named == path, "lut file \(shown(path)) printed as \(shown(printed)), which names \(shown(named))")
    } catch .missingArgument where path.isEmpty {
        // An in-memory cube without a name prints `lut file=""`, which asks for a file: right.
    } catch {
        require(false, "lut file \(shown(path)) printed as \(shown(printed)), which fails: \(error)")
    }
}

/// The 1-based column an error points at; nil for errors about a LUT file's contents.
private func column(of error: FilterSpecError) -> Int? {
    switch error {
    case let .unknownFilter(_, position), let .unknownKey(_, _, position), let .badNumber(_, _, _, position),
        let .outOfRange(_, _, _, position), let .duplicateKey(_, _, position), let .missingArgument(_, _, position),
        let .syntax(_, _, position), let .refused(_, position):
        position
    case .badLutFile:
        nil
    }
}
