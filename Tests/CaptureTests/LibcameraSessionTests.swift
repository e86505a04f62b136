import Base
import Foundation
import GStreamer
import Glibc
import Testing

@testable import Camera
@testable import Capture

/// A libcamera session without libcamera: stand-ins for `cam` (listing one camera) and for the child's launcher (which
/// plays a live test pattern where the graph says `libcamerasrc`), so the child process, its shared memory and the
/// recovery after it crashes run on any machine. The VM suite (`HardwareLibcameraTests`) runs the same on vimc.
@Suite(.serialized) struct LibcameraSessionTests {
    /// The stand-ins' folder, made once; `LibcameraDiscovery.standIn` and `SourceProcess.standInLauncher` name them.
    static let standIns: String = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("libcamera-stand-ins-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let cam = """
            #!/bin/bash
            case "$1" in
              -l) echo "Available cameras:"; echo "1: 'Stand-in' (test/stand-in 0)" ;;
              -c) printf '0: 1920x1080-NV12\\n * Pixelformat: NV12 (32x32)-(1920x1080)/(+1,+1)\\n  - 320x180\\n' ;;
            esac
            """
        let launcher = """
            #!/bin/bash
            words=()
            for word in "$@"; do
              case "$word" in
                libcamerasrc) words+=(videotestsrc is-live=true pattern=smpte75) ;;
                camera-name=*) ;;
                *) words+=("$word") ;;
              esac
            done
            exec gst-launch-1.0 "${words[@]}"
            """
        // The same, and a helper that outlives it holding its stderr, as libcamera's IPA proxy outlives a crashed parent.
        let helped = launcher.replacingOccurrences(of: "exec gst-launch-1.0", with: "sleep 20 &\nexec gst-launch-1.0")
        for (name, text) in [("cam", cam), ("launch", launcher), ("launch-helped", helped)] {
            _ = FileManager.default.createFile(
                atPath: "\(folder)/\(name)", contents: Data(text.utf8), attributes: [.posixPermissions: 0o755])
        }
        return folder
    }()

    init() {
        GStreamer.initialize()
        LibcameraDiscovery.standIn.withLock { $0 = "\(Self.standIns)/cam" }
        SourceProcess.standInLauncher.withLock { $0 = "\(Self.standIns)/launch" }
    }

    @Test func aChildThatCrashesIsRestartedAndTheRecordingContinues() throws {
        try LibcameraCrash.run(
            camera: "Stand-in (libcamera)", width: 320, height: 180,
            says: ["stopped: its process crashed (SIGSEGV); restarting it"], crash: LibcameraCrash.segfaultSource
        )
    }

    /// A process the child started (libcamera's IPA proxy) keeps the child's stderr open after the child crashed: the
    /// crash is still told as one, at once, and the recording continues (the ending waited for that stderr to end, and
    /// was told as "stopped sending", stopping the recording).
    @Test func aCrashIsToldAsOneWhileAHelperHoldsTheChildsStderr() throws {
        SourceProcess.standInLauncher.withLock { $0 = "\(Self.standIns)/launch-helped" }
        defer { SourceProcess.standInLauncher.withLock { $0 = "\(Self.standIns)/launch" } }
        try LibcameraCrash.run(
            camera: "Stand-in (libcamera)", width: 320, height: 180,
            says: ["stopped: its process crashed (SIGSEGV); restarting it"], crash: LibcameraCrash.segfaultSource
        )
    }

    /// A `launch` source runs in a child process too, and recovers from its crash the same way.
    @Test func aLaunchSourceThatCrashesIsRestartedAndTheRecordingContinues() throws {
        try LibcameraCrash.run(
            camera: "source0 (launch)", width: 320, height: 180, source: #"{ "kind": "launch", "launch": "videotestsrc is-live=true" }"#,
            says: ["stopped: its process crashed (SIGSEGV); restarting it"], crash: LibcameraCrash.segfaultSource
        )
    }

    /// libcamerasrc 0.0.3 exposes no control: colour goes to the software stage, exposure to software metering, and what
    /// has no software stand-in is refused in one line naming the source.
    @Test func controlsOnALibcameraSourceAreSoftwareOrSaidPlainly() throws {
        let (session, folder) = try scratchSession(
            #"{ "sources": [{ "kind": "libcamera" }], "caps": { "width": 320, "height": 180, "framerate": 25 }, "preview": "none" }"#,
            name: "libcamera-controls")
        defer { try? FileManager.default.removeItem(at: folder) }
        try session.start(timeout: 60)
        defer { session.stop() }
        #expect(session.wait(frames: 200) { session.framesFiltered >= 5 })
        for adjustment in [ColorAdjustment.brightness, .contrast, .saturation] {
            let said = try session.adjust(adjustment, to: .normalized(0.2))
            #expect(said == "\(adjustment.rawValue) 0.2 (digital)", "\(adjustment): \(said)")
        }
        #expect(try session.exposure(ev: 1).isEmpty == false)
        #expect(throws: SessionError.self) { try session.torch(true) }
        let focus = #expect(throws: SessionError.self) { try session.focus(x: 0.5, y: 0.5) }
        #expect("\(focus.map { "\($0)" } ?? "")".contains("libcamera"), "names the source: \(String(describing: focus))")
    }

    @Test func devicesAndInitSeeTheStandInCamera() throws {
        let inventory = CameraInventory.scan(deviceDirectory: "/nonexistent")
        #expect(inventory.libcameraCameras.map(\.id) == ["test/stand-in 0"])
        #expect(inventory.text.contains("Stand-in (libcamera): test/stand-in 0"), "\(inventory.text)")
        #expect(inventory.json.contains("\"kind\" : \"libcamera\""))
        let first = try LibcameraFirstConfig.make(name: "stand-in", camera: nil)
        #expect(first.text.contains(#""kind": "libcamera", "camera": "test/stand-in 0""#), "\(first.text)")
        #expect(first.plan.summary.hasPrefix("camera Stand-in (libcamera): NV12 1920x1080 → NV12 1920x1080@30"), "\(first.plan.summary)")
        let missing = #expect(throws: FirstConfig.Failure.self) { try LibcameraFirstConfig.make(name: "x", camera: "nothing") }
        #expect("\(missing.map { "\($0)" } ?? "")".contains("libcamera camera 'nothing' is not here (libcamera lists 'test/stand-in 0')"))
    }
}

/// A libcamera source crashing during a recording, on whatever `cam` and launcher the process uses: the session goes on,
/// says what happened in the camera's words, restarts the child and continues the recording in its next part; both
/// parts decode.
enum LibcameraCrash {
    /// `kill -SEGV` of the child that runs the session's first source; false when it has none.
    static func segfaultSource(_ session: CaptureSession) -> Bool {
        guard let pid = session.graph?.sourceProcesses[PipelineBuilder.Names.source(0)]?.pid else { return false }
        return kill(pid, SIGSEGV) == 0
    }

    static func run(
        camera: String, width: Int, height: Int, timeout: Double = 60, source: String = #"{ "kind": "libcamera" }"#, says: [String],
        crash: (CaptureSession) -> Bool,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let (session, folder) = try scratchSession(
            """
            { "sources": [\(source)],
              "caps": { "width": \(width), "height": \(height), "framerate": 25, "format": "NV12" },
              "preview": "none", "record": { "encoder": "mjpeg", "directory": "DIR" } }
            """, name: "libcamera-crash")
        defer { try? FileManager.default.removeItem(at: folder) }
        let events = Locked([String]())
        session.onEvent { event in
            switch event {
            case let .failed(status): events.withLock { $0.append("failed \(status)") }
            case let .notice(line): events.withLock { $0.append(line) }
            default: break
            }
        }
        try session.start(timeout: timeout)
        defer { session.stop() }
        let first = session.graph?.sourceProcesses[PipelineBuilder.Names.source(0)]?.pid
        let part1 = try session.startRecording()
        let recording = session.framesFiltered
        #expect(session.wait(frames: 200) { session.framesFiltered >= recording + 25 }, sourceLocation: sourceLocation)
        #expect(crash(session), "the crash was injected", sourceLocation: sourceLocation)
        let recovered = session.waitForState(timeout: timeout * 2) { $0.carried.recoveries >= 1 && $0.status == .configured }
        #expect(recovered, "recovered: \(events.withLock { $0 })", sourceLocation: sourceLocation)
        let resumed = session.framesFiltered
        #expect(session.wait(frames: 200) { session.framesFiltered >= resumed + 25 }, sourceLocation: sourceLocation)
        let second = session.graph?.sourceProcesses[PipelineBuilder.Names.source(0)]?.pid
        #expect(second != nil && second != first, "a new child: \(String(describing: first)) → \(String(describing: second))")
        let part2 = try session.stopRecording()
        let lines = events.withLock { $0 }
        let said = lines.first { $0.hasPrefix("failed failed: camera \(camera) ") } ?? ""
        #expect(
            says.contains { said.contains($0) } && said.hasSuffix("recording continues in \(part2)"), "\(lines)",
            sourceLocation: sourceLocation)
        #expect(!said.contains("shmsrc") && !said.contains("Control socket"), "no GStreamer text: \(said)", sourceLocation: sourceLocation)
        #expect(lines.contains { $0.hasPrefix("recovered: ") && $0.contains("recording continues in \(part2)") }, "\(lines)")
        #expect(part2 == SessionRecordings.nextPart(after: part1) || part2.hasSuffix("-part2.mkv"), "\(part1) → \(part2)")
        for path in [part1, part2] {
            let decoded = try decodeRecording(path, decoder: "jpegdec")
            #expect(decoded.frames >= 5 && decoded.endedCleanly, "\(path): \(decoded)", sourceLocation: sourceLocation)
        }
        print("ok libcamera crash during a recording: \(said); \(part1) and \(part2) decode")
    }
}
