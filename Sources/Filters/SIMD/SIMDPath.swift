
#if canImport(Glibc)
import Glibc
#endif

/// The vector width the kernels with a wider version run at: SSE2 (the build's baseline), AVX2, or
/// AVX-512 (with VBMI), which runs every AVX2 kernel and the 4:2:0 colour pass in 512 bits.
///
/// A compiled chain keeps the one it runs on in its `KernelSet`. The CPU's flags say which paths this machine has
/// (Linux reports CPUID, and only those the kernel saves, in /proc/cpuinfo); `best` is the widest of them unless
/// `SWIFTCAM_SIMD=sse2` forces the baseline or `SWIFTCAM_SIMD=avx2` AVX2 (valgrind runs no AVX-512 and does not
/// change /proc/cpuinfo, so it needs that). Every path gives the same bytes (tests run every path the machine has).
public enum SIMDPath: Int, Sendable, CaseIterable, CustomStringConvertible {
    /// 128-bit SSE2, every x86-64.
    case sse2
    /// 256-bit AVX2 (x86-64-v3).
    case avx2
    /// AVX-512 F, BW, DQ, VL, CD and VBMI (Ice Lake, Zen 4 and later); AVX2 where a kernel has no 512-bit version.
    case avx512

    /// The paths this machine can run.
    public static let available: [SIMDPath] = {
        #if arch(x86_64) && os(Linux) && canImport(FiltersAVX2)
        guard let flags = cpuInfoLine(startingWith: "flags") else { return [.sse2] }
        let set = Set(flags.split(separator: " ").map(String.init))
        // What -target-cpu haswell lets LLVM use (lzcnt is reported as "abm").
        let haswell: Set<String> = ["avx", "avx2", "fma", "f16c", "bmi1", "bmi2", "movbe", "popcnt", "abm"]
        // What -target-cpu skylake-avx512 -mavx512vbmi adds.
        let avx512: Set<String> = ["avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd", "avx512vbmi"]
        guard set.isSuperset(of: haswell) else { return [.sse2] }
        return set.isSuperset(of: avx512) ? [.sse2, .avx2, .avx512] : [.sse2, .avx2]
        #else
        return [.sse2]
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
        case .sse2: "SSE2"
        case .avx2: "AVX2"
        case .avx512: "AVX-512"
        }
    }

    /// The path a chain compiles for unless it asks for another: the widest this machine has, or the one
    /// `SWIFTCAM_SIMD` names. Read once per process.
    public static let best: SIMDPath = {
        let forced = getenv("SWIFTCAM_SIMD").map { String(cString: $0).lowercased() }
        if forced == "sse2" { return .sse2 }
        if forced == "avx2", available.contains(.avx2) { return .avx2 }
        return available.last ?? .sse2
    }()
}
