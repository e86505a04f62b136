import Filters
import FuzzSupport

#if canImport(Glibc)
import Glibc
#endif

// The filter grammar (`FilterChain(parsing:)`), two properties per input:
// 1. Text that parses prints (`description`) as text that parses to an equal chain and prints the same;
//    text that does not parse is refused with one line naming a column inside the text.
// 2. A LUT named by any path (the input as the path) prints as text that names exactly that path again:
//    the reparse either reads that file or fails saying it cannot read that very path.

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
