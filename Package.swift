// swift-tools-version:6.1
import PackageDescription

// Imports are the architecture: a module sees only what it imports, and only `public import` re-exports.
let strictImports: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility")
]

// One switch for the SIMD kernels: the NativeSIMD trait (on by default).
// - On (this repository's build, on x86-64): Filters uses x86 intrinsics (SWIFTCAM_INTRINSICS: its own SSE2 code)
//   and picks at run time between four kernel sets: portable (FiltersPortable), SSE2, AVX2 (FiltersAVX2) and AVX-512
//   (FiltersAVX512), as the CPU allows (SIMDPath).
// - Off (a package that depends on SwiftCam, `traits: []`, since SwiftPM refuses the AVX targets' unsafe flags in a
//   dependency; or `swift build --disable-default-traits` here): Filters is compiled as on ARM64, without x86
//   intrinsics, and its own copies of the shared cores are the portable kernels, the only set it offers.
// SWIFTCAM_PORTABLE=1 in the environment is shorthand for the second: it leaves NativeSIMD out of the default traits.
let portable = Context.environment["SWIFTCAM_PORTABLE"] == "1"

// FiltersAVX2 compiles the hottest Filters loops again for x86-64-v3 (AVX2), FiltersAVX512 for AVX-512 (F, BW, DQ,
// VL, CD: skylake-avx512) with VBMI's byte permutes; SWIFTCAM_AVX2 and SWIFTCAM_AVX512 let a shared source file use
// the wider intrinsics in that copy only. FiltersPortable compiles the shared cores without SWIFTCAM_INTRINSICS: the
// portable kernels beside the others. The condition is the manifest's architecture, as for the CPU flags.
// The x86-only targets exist only where they can compile: in a manifest read on x86-64, unless SWIFTCAM_PORTABLE=1 (a
// portable build here, or a cross-build for another architecture from this machine). Elsewhere — an ARM64 board — they
// are not declared at all: a whole-package build (`swift build --build-tests`) compiles every declared target, and their
// sources are x86 intrinsics.
#if arch(x86_64)
let x86Kernels = !portable
#else
let x86Kernels = false
#endif

#if arch(x86_64)
let intrinsics: [SwiftSetting] = [.define("SWIFTCAM_INTRINSICS")]
let avx2: [SwiftSetting] = intrinsics + [.unsafeFlags(["-target-cpu", "haswell"]), .define("SWIFTCAM_AVX2")]
let avx512: [SwiftSetting] =
    intrinsics + [.unsafeFlags(["-target-cpu", "skylake-avx512", "-Xcc", "-mavx512vbmi"]), .define("SWIFTCAM_AVX512")]
// With the trait but without the x86 targets (SWIFTCAM_PORTABLE=1 and --traits NativeSIMD) there is nothing to dispatch to.
let filtersIntrinsics: [SwiftSetting] = x86Kernels ? [.define("SWIFTCAM_INTRINSICS", .when(traits: ["NativeSIMD"]))] : []
#else
let avx2: [SwiftSetting] = []
let avx512: [SwiftSetting] = []
let filtersIntrinsics: [SwiftSetting] = []
#endif

// The shared cores: one source each in Sources/Filters/Kernels/Shared, compiled in Filters and again in each kernel
// module through that module's `Shared` folder link, as the module's own copy at its width. Which module compiles
// which is this table; a module leaves out the rest.
let sharedCores = [
    "BoxCascadeCore", "BoxCascadeFixedCore", "BoxCascadeFixedLanes", "EdgesCore", "FixedPoint", "GreyCore", "MirrorSweep", "ToneCore"
]
func kernelTarget(_ name: String, sharing used: [String], _ settings: [SwiftSetting]) -> Target {
    .target(
        name: name, exclude: sharedCores.filter { !used.contains($0) }.map { "Shared/\($0).swift" },
        swiftSettings: strictImports + settings)
}
let x86Targets: [Target] =
    x86Kernels
    ? [
        kernelTarget(
            "FiltersAVX2",
            sharing: ["BoxCascadeCore", "BoxCascadeFixedCore", "BoxCascadeFixedLanes", "EdgesCore", "GreyCore", "MirrorSweep", "ToneCore"],
            avx2),
        kernelTarget("FiltersAVX512", sharing: ["GreyCore", "MirrorSweep", "ToneCore"], avx512),
        kernelTarget(
            "FiltersPortable",
            sharing: ["BoxCascadeCore", "BoxCascadeFixedCore", "BoxCascadeFixedLanes", "EdgesCore", "FixedPoint", "GreyCore", "ToneCore"],
            [])
    ] : []
let filtersKernelSets: [Target.Dependency] =
    x86Kernels
    ? [
        .target(name: "FiltersPortable", condition: .when(traits: ["NativeSIMD"])),
        .target(name: "FiltersAVX2", condition: .when(traits: ["NativeSIMD"])),
        .target(name: "FiltersAVX512", condition: .when(traits: ["NativeSIMD"]))
    ] : []

let package = Package(
    name: "SwiftCam",
    products: [
        .executable(name: "swiftcam", targets: ["swiftcam"]),
        .executable(name: "filters-bench", targets: ["filters-bench"]),
        .library(name: "Filters", targets: ["Filters"]),
        .library(name: "GStreamer", targets: ["GStreamer"]),
        .library(name: "Camera", targets: ["Camera"]),
        .library(name: "Config", targets: ["Config"]),
        .library(name: "Capture", targets: ["Capture"]),
        // The page's signalling, for the fuzz target (Tests/Fuzz) through its `@_spi(Fuzzing)` entry.
        .library(name: "Web", targets: ["Web"]),
        // The plugin gst-launch-1.0 loads from GST_PLUGIN_PATH: libgstswiftfilter.so.
        .library(name: "gstswiftfilter", type: .dynamic, targets: ["SwiftFilterElement"]),
        // What a user's package links into its own GStreamer plugin of filters (Examples/MyFilters).
        .library(name: "FilterPlugin", targets: ["FilterPlugin"]),
        // The analysis contract (analysers, frames, events, their registry) without GStreamer, for a plugin's analysers.
        .library(name: "Analysis", targets: ["Analysis"])
    ],
    traits: [
        .trait(
            name: "NativeSIMD", description: "x86 intrinsics: SSE2, AVX2 and AVX-512 kernels beside the portable ones, chosen at run time"),
        .default(enabledTraits: portable ? [] : ["NativeSIMD"])
    ],
    targets: [
        // C over pkg-config; the module map links the libraries pkg-config does not name.
        .systemLibrary(
            name: "CGStreamer", pkgConfig: "gstreamer-app-1.0",
            providers: [.apt(["libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev"])]),
        // The GNU calls Base needs (pipe2, posix_spawn_file_actions_addchdir_np, pthread_setname_np), which Swift's
        // Glibc hides.
        .target(name: "CBase"),
        // What every module stands on, without GStreamer or full Foundation (no ICU): JSON values, child processes,
        // threads, the text helpers FoundationEssentials lacks.
        .target(name: "Base", dependencies: ["CBase"], swiftSettings: strictImports),
        .target(name: "GStreamer", dependencies: ["CGStreamer", "Base"], swiftSettings: strictImports),
        .systemLibrary(name: "CV4L2")
    ] + x86Targets + [
        // The AVX and portable modules only with the NativeSIMD trait; without it Filters' own cores are the portable ones.
        .target(name: "Filters", dependencies: filtersKernelSets, swiftSettings: strictImports + filtersIntrinsics),
        // The C table a filter plugin hands to the process's swiftfilter (two copies of Filters share no Swift type), and
        // SwiftCam's version (SwiftCamVersion.h), which the table's stamp, the element's plugin and the package carry.
        .target(name: "CFilterPlugin"),
        .target(name: "CGstSwiftFilter", dependencies: ["CGStreamer", "CFilterPlugin"]),
        // The analysis contract: pure Swift over Filters (the motion detector), so a plugin can carry analysers.
        .target(name: "Analysis", dependencies: ["Filters"], swiftSettings: strictImports),
        .target(
            name: "SwiftFilterElement",
            dependencies: ["CGstSwiftFilter", "CGStreamer", "Base", "GStreamer", "Filters", "Analysis", "CFilterPlugin"],
            swiftSettings: strictImports),
        // The plugin side of that table and the GStreamer plugin descriptor, for a user's plugin of filters.
        .target(name: "FilterPlugin", dependencies: ["Filters", "Analysis", "CGStreamer", "CFilterPlugin"], swiftSettings: strictImports),
        // V4L2 only: never GStreamer.
        .target(name: "Camera", dependencies: ["CV4L2"], swiftSettings: strictImports),
        // Configs as values: decoding, overrides, validation (what only the machine knows is asked through `ConfigChecks`),
        // the named-config store. No GStreamer and no threads.
        .target(name: "Config", dependencies: ["Base", "Camera", "Filters", "Analysis"], swiftSettings: strictImports),
        .target(
            name: "Capture", dependencies: ["Base", "Config", "Camera", "GStreamer", "Filters", "Analysis", "SwiftFilterElement"],
            swiftSettings: strictImports),
        // The browser screen: HTTP and WebSocket (libsoup-3.0), WebRTC (webrtcbin) and MJPEG over the command interpreter.
        .systemLibrary(name: "CSoup", pkgConfig: "libsoup-3.0", providers: [.apt(["libsoup-3.0-dev"])]),
        .systemLibrary(name: "CGstWebRTC", pkgConfig: "gstreamer-webrtc-1.0", providers: [.apt(["libgstreamer-plugins-bad1.0-dev"])]),
        // libcrypto: the ECDSA certificate webrtcbin's DTLS serves.
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .target(
            name: "Web", dependencies: ["Base", "Config", "Capture", "GStreamer", "Filters", "Analysis", "CSoup", "CGstWebRTC", "COpenSSL"],
            exclude: ["Assets"], swiftSettings: strictImports),
        .systemLibrary(name: "CGstRTSPServer", pkgConfig: "gstreamer-rtsp-server-1.0", providers: [.apt(["libgstrtspserver-1.0-dev"])]),
        .target(name: "Publish", dependencies: ["Base", "Config", "Capture", "GStreamer", "CGstRTSPServer"], swiftSettings: strictImports),
        // The control socket: a transport over the command interpreter, beside Web and Publish (and its client, `ctl`).
        .target(name: "Control", dependencies: ["Base", "Config", "Capture", "Analysis", "GStreamer"], swiftSettings: strictImports),
        .target(
            name: "Benchmark", dependencies: ["Base", "GStreamer", "SwiftFilterElement", "Filters"],
            swiftSettings: strictImports),
        // The running host as a type: session, page, publishing, control socket, signals, the exit policy.
        .target(name: "Host", dependencies: ["Base", "Config", "Capture", "Web", "Publish", "Control"], swiftSettings: strictImports),
        .executableTarget(
            name: "swiftcam", dependencies: ["Base", "Config", "Host", "Capture", "Analysis", "Web", "Publish", "Control", "Benchmark"],
            swiftSettings: strictImports),
        .executableTarget(name: "filters-bench", dependencies: ["Base", "Filters"], swiftSettings: strictImports),
        // What the suites share: one harness for the programs they run, and where the built ones are. Tests only.
        .target(name: "TestSupport", dependencies: ["GStreamer", "Base"], path: "Tests/TestSupport", swiftSettings: strictImports),
        .testTarget(name: "TestSupportTests", dependencies: ["TestSupport"], swiftSettings: strictImports),
        .testTarget(name: "BaseTests", dependencies: ["Base"], swiftSettings: strictImports),
        .testTarget(name: "ConfigTests", dependencies: ["Config"], swiftSettings: strictImports),
        .testTarget(name: "GStreamerTests", dependencies: ["Base", "GStreamer"], swiftSettings: strictImports),
        .testTarget(name: "FiltersTests", dependencies: ["Filters"], swiftSettings: strictImports),
        // Fixtures/ (cameras' published mode lists) is read from the source tree (#filePath), not bundled.
        .testTarget(name: "CameraTests", dependencies: ["Camera"], exclude: ["Fixtures"], swiftSettings: strictImports),
        .testTarget(
            name: "BenchmarkTests", dependencies: ["Benchmark", "Filters", "GStreamer", "SwiftFilterElement"], swiftSettings: strictImports),
        // BrokenConfigs/ is read from the source tree (#filePath), not bundled.
        // CGStreamer: the encoder tests define stand-in elements that fail as hardware encoders do.
        .testTarget(
            name: "CaptureTests",
            dependencies: [
                "TestSupport", "Base", "Config", "Capture", "Control", "Analysis", "Camera", "CV4L2", "CGStreamer", "GStreamer",
                "SwiftFilterElement",
                "Filters"
            ],
            exclude: ["BrokenConfigs"], swiftSettings: strictImports),
        .testTarget(
            name: "ControlTests", dependencies: ["Control", "Capture"], swiftSettings: strictImports),
        .testTarget(
            name: "SwiftcamTests", dependencies: ["TestSupport", "Config", "Capture", "Control", "GStreamer"], swiftSettings: strictImports),
        .testTarget(
            name: "WebTests",
            dependencies: ["TestSupport", "Base", "Web", "Config", "Capture", "Control", "Analysis", "GStreamer", "Filters"],
            swiftSettings: strictImports),
        .testTarget(
            name: "HostTests", dependencies: ["Host", "Base", "Config", "Capture", "Control", "Web", "GStreamer"],
            swiftSettings: strictImports),
        .testTarget(
            name: "PublishTests", dependencies: ["TestSupport", "Publish", "Config", "Capture", "Base", "GStreamer", "CGStreamer"],
            swiftSettings: strictImports),
        .testTarget(
            name: "SwiftFilterElementTests", dependencies: ["Base", "SwiftFilterElement", "Analysis", "Capture", "GStreamer", "Filters"],
            swiftSettings: strictImports)
    ],
    swiftLanguageModes: [.v6]
)

// SWIFTCAM_TARGETS="Filters FiltersTests" declares only the targets (and products) named there: the ARM64
// stage of `make test` cross-builds and runs the Filters tests alone, without compiling the GStreamer side it does not
// run (scripts/arm64.sh).
if let only = Context.environment["SWIFTCAM_TARGETS"].map({ Set($0.split(separator: " ").map(String.init)) }) {
    package.targets.removeAll { !only.contains($0.name) }
    package.products.removeAll { !only.contains($0.name) }
}
