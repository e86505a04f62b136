#if canImport(Glibc)
import Glibc
#endif

/// The kernels a chain runs: portable (Swift SIMD types only, what ARM64 runs), SSE2 (x86-64's baseline, with
/// intrinsics), AVX2, or AVX-512 (with VBMI), which runs every AVX2 kernel and the 4:2:0 colour pass in 512 bits.
///
/// A compiled chain keeps the one it runs on in its `KernelSet`. The CPU's flags say which paths this machine has
/// (Linux reports CPUID, and only those the kernel saves, in /proc/cpuinfo); `best` is the widest of them unless
/// `SWIFTCAM_SIMD` names another: `portable`, `sse2` or `avx2` (valgrind runs no AVX-512 and does not change
/// /proc/cpuinfo, so it needs that). Off x86, and in a build without the NativeSIMD trait (a package depending on
/// SwiftCam, or `SWIFTCAM_PORTABLE=1`), the portable path is the only one. Every path gives the same bytes (tests run every path the machine has).
public enum SIMDPath: Int, Sendable, CaseIterable, CustomStringConvertible {
    /// Swift's SIMD types and no intrinsics: NEON on ARM64, SSE2 here (the same code as a build without NativeSIMD).
    case portable
    /// 128-bit SSE2, every x86-64.
    case sse2
    /// 256-bit AVX2 (x86-64-v3).
    case avx2
    /// AVX-512 F, BW, DQ, VL, CD and VBMI (Ice Lake, Zen 4 and later); AVX2 where a kernel has no 512-bit version.
    case avx512

    /// The paths this machine can run.
    public static let available: [SIMDPath] = {
        #if SWIFTCAM_INTRINSICS && os(Linux)
        guard let flags = cpuInfoLine(startingWith: "flags") else { return [.portable, .sse2] }
        let set = Set(flags.split(separator: " ").map(String.init))
        // What -target-cpu haswell lets LLVM use (lzcnt is reported as "abm").
        let haswell: Set<String> = ["avx", "avx2", "fma", "f16c", "bmi1", "bmi2", "movbe", "popcnt", "abm"]
        // What -target-cpu skylake-avx512 -mavx512vbmi adds.
        let avx512: Set<String> = ["avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd", "avx512vbmi"]
        guard set.isSuperset(of: haswell) else { return [.portable, .sse2] }
        return set.isSuperset(of: avx512) ? [.portable, .sse2, .avx2, .avx512] : [.portable, .sse2, .avx2]
        #elseif SWIFTCAM_INTRINSICS
        return [.portable, .sse2]
        #else
        return [.portable]
        #endif
    }()

    #if os(Linux)
    /// The first line of /proc/cpuinfo that starts with `prefix`, without its line break (Filters does not
    /// import Foundation; the benchmark reads the CPU's model name with it too).
    public static func cpuInfoLine(startingWith prefix: String) -> String? {
        guard let file = fopen("/proc/cpuinfo", "r") else { return nil }
        defer { fclose(file) }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) > 0 {
            guard let line else { break }
            let text = String(cString: line)
            if text.hasPrefix(prefix) { return text.filter { $0 != "\n" } }
        }
        return nil
    }
    #endif

    /// The name printed by the benchmarks.
    public var description: String {
        switch self {
        case .portable: "portable"
        case .sse2: "SSE2"
        case .avx2: "AVX2"
        case .avx512: "AVX-512"
        }
    }

    /// The path a chain compiles for unless it asks for another: the widest this machine has, or the one
    /// `SWIFTCAM_SIMD` names. Read once per process.
    public static let best: SIMDPath = {
        let forced = getenv("SWIFTCAM_SIMD").map { String(cString: $0).lowercased() }
        if let forced, let path = available.first(where: { $0.description.lowercased() == forced && $0 != .avx512 }) { return path }
        return available.last ?? .portable
    }()
}
