// swift-tools-version:6.0
import PackageDescription

// libFuzzer targets for SwiftCam, a package of their own so that no plain `swift build`, `swift build
// --build-tests` or `swift test` of SwiftCam ever links them. Build and run them with `make fuzz`
// (scripts/fuzz.sh): `swift build --package-path Tests/Fuzz --sanitize=fuzzer --sanitize=address`.
//
// Each fuzz target's one source file is not called main.swift, so SwiftPM compiles it as a library
// (no top-level code, no `main` symbol) and the executable links libFuzzer's `main`, which calls the
// target's `@_cdecl("LLVMFuzzerTestOneInput")`.

// As in SwiftCam's own targets: a module sees only what it imports, and only `public import` re-exports.
let strictImports: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility")
]

let package = Package(
    name: "SwiftCamFuzz",
    dependencies: [
        // The checkout this folder lives in, whatever its directory is called.
        .package(name: "SwiftCam", path: "../..")
    ],
    targets: [
        .target(name: "FuzzSupport", swiftSettings: strictImports),
        // The filter grammar: parse → description → parse gives an equal chain.
        .executableTarget(
            name: "FuzzGrammar", dependencies: ["FuzzSupport", .product(name: "Filters", package: "SwiftCam")], swiftSettings: strictImports
        ),
        // The `.cube` reader: never traps, rejects with a located error, a parsed cube filters frames.
        .executableTarget(
            name: "FuzzCube", dependencies: ["FuzzSupport", .product(name: "Filters", package: "SwiftCam")], swiftSettings: strictImports),
        // The config loader (JSON and `--set KEY=VALUE`): never traps, errors name file, path and reason; a loaded
        // config's numbers go through the session's deadline and timer arithmetic without trapping.
        .executableTarget(
            name: "FuzzConfig",
            dependencies: [
                "FuzzSupport", .product(name: "Config", package: "SwiftCam"), .product(name: "Capture", package: "SwiftCam"),
                .product(name: "GStreamer", package: "SwiftCam")
            ], swiftSettings: strictImports),
        // The control command parser: never traps, one-line errors, canonical text parses back.
        .executableTarget(
            name: "FuzzCommand", dependencies: ["FuzzSupport", .product(name: "Capture", package: "SwiftCam")], swiftSettings: strictImports
        ),
        // Launch-line quoting: what `show` prints parses back to the same elements and property values.
        .executableTarget(
            name: "FuzzLaunch",
            dependencies: [
                "FuzzSupport", .product(name: "GStreamer", package: "SwiftCam"), .product(name: "Config", package: "SwiftCam"),
                .product(name: "Capture", package: "SwiftCam")
            ], swiftSettings: strictImports),
        // The camera page's signalling: any WebSocket message is taken or refused in one line, through webrtcbin.
        .executableTarget(
            name: "FuzzSignalling", dependencies: ["FuzzSupport", .product(name: "Web", package: "SwiftCam")],
            swiftSettings: strictImports)
    ],
    swiftLanguageModes: [.v6]
)
