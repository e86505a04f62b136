#if canImport(Glibc)
import Glibc
#endif

/// The kernels a compiled chain runs: the SIMD path, and how the AVX-512 colour pass meets a byte table.
///
/// A value chosen when a chain is compiled and kept in the compiled chain, so two chains in one process may run on
/// different paths at once (the tests run every path side by side). Every set gives the same bytes.
public struct KernelSet: Sendable, Hashable, CustomStringConvertible {
    /// The vector width of the kernels that have a wider version.
    public let path: SIMDPath
    /// Whether, on AVX-512, the RGB 3×3 pass applies a byte table before it (gamma in the 6-chain) itself rather
    /// than after a table pass into a row buffer. Inside the pass is fewer loads and stores; on AMD family 26 the
    /// separate pass was faster (the same permutes in one longer dependency chain), so there it stays apart.
    let fusesTables: Bool

    /// The set for `path`, fusing tables where this CPU is faster for it.
    public init(path: SIMDPath) {
        self.init(path: path, fusesTables: Self.tablesFuseHere)
    }

    /// The set for `path` with the table fusion given (tests run both).
    init(path: SIMDPath, fusesTables: Bool) {
        self.path = path
        self.fusesTables = fusesTables
    }

    /// What a chain compiles for unless it asks for another: `SIMDPath.best`.
    public static let best = KernelSet(path: .best)

    /// One set per path this machine can run.
    public static var available: [KernelSet] { SIMDPath.available.map { KernelSet(path: $0) } }

    /// The path's name, as the benchmarks print it.
    public var description: String { path.description }

    /// True on the AVX2 and AVX-512 paths: the AVX2 kernels run on both.
    var hasAVX2: Bool { path == .avx2 || path == .avx512 }

    /// True where the SSE2 intrinsics of the Filters module itself run: every x86 path but the portable one.
    var hasSSE2: Bool {
        #if SWIFTCAM_INTRINSICS
        path != .portable
        #else
        false
        #endif
    }

    private static let tablesFuseHere: Bool = {
        #if os(Linux)
        let vendor = SIMDPath.cpuInfoLine(startingWith: "vendor_id") ?? ""
        let family = SIMDPath.cpuInfoLine(startingWith: "cpu family") ?? ""
        let number = family.split(separator: ":").last.flatMap { Int($0.filter { $0 != " " && $0 != "\t" }) }
        return !(vendor.hasSuffix("AuthenticAMD") && number == 26)
        #else
        return true
        #endif
    }()
}
