#if canImport(Glibc)
import Glibc
#endif
#if SWIFTCAM_INTRINSICS
internal import FiltersPortable
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

    /// The path's kernels: the table every kernel with a wider version is called through (once per row or strip).
    var table: SIMDKernels.Type {
        switch path {
        case .portable: SIMDKernels.self
        #if SWIFTCAM_INTRINSICS
        case .sse2: SSE2Kernels.self
        case .avx2: AVX2Kernels.self
        case .avx512: AVX512Kernels.self
        #else
        case .sse2, .avx2, .avx512: SIMDKernels.self
        #endif
        }
    }

    /// What a chain compiles for unless it asks for another: `SIMDPath.best`.
    public static let best = KernelSet(path: .best)

    /// One set per path this machine can run.
    public static var available: [KernelSet] { SIMDPath.available.map { KernelSet(path: $0) } }

    /// The path's name, as the benchmarks print it.
    public var description: String { path.description }

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

extension KernelSet {
    /// The portable grey kernel's constants (freed by the caller).
    func greyVectors(even: Int32, odd: Int32, offsets: SIMD4<Int16>) -> UnsafeMutableRawPointer {
        FiltersPortable.GreyCore.vectors(even: even, odd: odd, offsets: offsets)
    }

    /// The portable tone kernel's constants (freed by the caller).
    func toneVectors(even: Int32, odd: Int32, gains: SIMD4<Int16>, offsets: SIMD4<Int16>, biases: SIMD4<Int16>) -> UnsafeMutableRawPointer {
        FiltersPortable.ToneCore.vectors(even: even, odd: odd, gains: gains, offsets: offsets, biases: biases)
    }

    /// Bytes the portable `edgesLuma`'s `vectors` take.
    static var edgesLumaVectorBytes: Int { MemoryLayout<FiltersPortable.EdgesCore.LumaVectors>.size }

    /// Writes the portable `edgesLuma`'s weights for `weights` and `shifts` at `vectors` (`edgesLumaVectorBytes`).
    func edgesLumaVectors(_ weights: SIMD3<Int32>, _ shifts: SIMD3<UInt32>, into vectors: UnsafeMutableRawPointer) {
        FiltersPortable.EdgesCore.lumaVectors(weights, shifts, into: vectors)
    }
}
