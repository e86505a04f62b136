import Analysis
import Config
import Filters
import Foundation
import Testing

@testable import Capture

/// The motion detector on scenes made for it, frame by frame in memory.
@Suite struct MotionDetectorTests {
    /// A small scene: what the detector sees is in cells, and 20 × 15 of them keep the debug build's frame making short.
    func scene(frames: Int, motionStart: Int, motionFrames: Int = 30) -> MotionScene {
        MotionScene(width: 160, height: 120, frames: frames, motionStart: motionStart, motionFrames: motionFrames, side: 32)
    }

    /// Runs `scene` through a detector; returns each change with the frame it came at.
    func run(_ scene: MotionScene, _ settings: MotionSettings = MotionSettings()) -> [(frame: Int, change: MotionChange)] {
        var detector = MotionDetector(settings: settings)
        var changes: [(Int, MotionChange)] = []
        for index in 0..<scene.frames {
            if let change = detector.process(
                luma: scene.luma(index), width: scene.width, height: scene.height,
                stride: scene.width, time: scene.time(index))
            {
                changes.append((index, change))
            }
        }
        return changes
    }

    @Test func stillNoisySceneMakesNoEvent() {
        let scene = scene(frames: 90, motionStart: 1000)
        #expect(run(scene).isEmpty)
    }

    @Test func objectMovingInStartsWithinThreeFramesAndEndsAfterTheCooldown() throws {
        let scene = scene(frames: 150, motionStart: 60, motionFrames: 30)
        var settings = MotionSettings()
        settings.cooldown = 0.5
        let changes = run(scene, settings)
        try #require(changes.count == 2, "\(changes)")
        guard case let .start(area, box) = changes[0].change else { Issue.record("first change \(changes[0])"); return }
        #expect(changes[0].frame >= scene.motionStart && changes[0].frame <= scene.motionStart + 3)
        #expect(area >= settings.minArea)
        // The box is in the middle band, at the left edge where the square enters.
        #expect(box.x < 0.2 && box.y > 0.25 && box.y + box.height < 0.75)
        guard case let .end(peak, whole) = changes[1].change else { Issue.record("second change \(changes[1])"); return }
        let lastMoving = scene.motionStart + scene.motionFrames
        // Ends a cooldown (15 frames) after the last changed frame: the square leaving, and the background behind it.
        #expect(changes[1].frame >= lastMoving + 15 && changes[1].frame <= lastMoving + 15 + 20)
        #expect(peak >= area)
        #expect(whole.width > 0.8)  // the square crossed the picture
    }

    @Test func excludedZoneHidesTheObject() {
        let scene = scene(frames: 150, motionStart: 60, motionFrames: 30)
        var settings = MotionSettings()
        settings.zones = [
            MotionZone(
                .exclude,
                [
                    MotionPoint(x: 0, y: 0.3), MotionPoint(x: 1, y: 0.3),
                    MotionPoint(x: 1, y: 0.7), MotionPoint(x: 0, y: 0.7)
                ])
        ]
        #expect(run(scene, settings).isEmpty)
    }

    @Test func includedZoneElsewhereSeesNothingButOneOnThePathDoes() {
        let scene = scene(frames: 120, motionStart: 60, motionFrames: 30)
        var top = MotionSettings()
        top.zones = [
            MotionZone(.include, [MotionPoint(x: 0, y: 0), MotionPoint(x: 1, y: 0), MotionPoint(x: 1, y: 0.25), MotionPoint(x: 0, y: 0.25)])
        ]
        #expect(run(scene, top).isEmpty)
        var right = MotionSettings()
        right.zones = [
            MotionZone(.include, [MotionPoint(x: 0.5, y: 0), MotionPoint(x: 1, y: 0), MotionPoint(x: 1, y: 1), MotionPoint(x: 0.5, y: 1)])
        ]
        let changes = run(scene, right)
        // The square reaches the right half about half way across.
        #expect(changes.first.map { $0.frame > scene.motionStart + 8 } == true, "\(changes)")
    }

    @Test func paddedStrideReadsTheSameAsPacked() {
        let scene = scene(frames: 70, motionStart: 60, motionFrames: 30)
        var packed = MotionDetector(settings: MotionSettings()), padded = MotionDetector(settings: MotionSettings())
        for index in 0..<scene.frames {
            let plane = scene.luma(index)
            var wide = [UInt8](repeating: 255, count: (scene.width + 64) * scene.height)
            for row in 0..<scene.height {
                wide.replaceSubrange(
                    row * (scene.width + 64)..<row * (scene.width + 64) + scene.width,
                    with: plane[row * scene.width..<(row + 1) * scene.width])
            }
            let a = packed.process(luma: plane, width: scene.width, height: scene.height, stride: scene.width, time: scene.time(index))
            let b = padded.process(luma: wide, width: scene.width, height: scene.height, stride: scene.width + 64, time: scene.time(index))
            #expect(a == b)
        }
        #expect(packed.isActive)
    }

    @Test func tooSmallOrShortPlanesAreIgnoredNotRead() {
        var detector = MotionDetector(settings: MotionSettings())
        #expect(detector.process(luma: [UInt8](repeating: 0, count: 10), width: 320, height: 240, stride: 320, time: 0) == nil)
        #expect(detector.process(luma: [UInt8](repeating: 0, count: 9), width: 3, height: 3, stride: 3, time: 0) == nil)
    }
}

/// The options configs give analysers: checked with the key named.
@Suite struct AnalyzerOptionTests {
    func load(_ json: String) throws -> PipelineConfig {
        try ConfigLoader.load(data: Data(json.utf8), file: "m.json")
    }

    /// A plugin's analyser may not take a name already registered (motion's, another plugin's), nor a name a config
    /// key and an event line cannot carry; a new one is then known to configs.
    @Test func sharedRegistrationRefusesTakenAndBadNames() throws {
        let kind = { (name: String) in AnalyzerKind(name: name, summary: "", options: []) { _ in MotionAnalyzer(name: name) } }
        #expect(throws: AnalyzerOptionError(key: "", reason: "an analyser named \"motion\" is already registered")) {
            try AnalyzerRegistry.registerShared(kind("motion"))
        }
        #expect(throws: AnalyzerOptionError.self) { try AnalyzerRegistry.registerShared(kind("two words")) }
        #expect(AnalyzerRegistry.kind(named: "two words") == nil)
        try AnalyzerRegistry.registerShared(kind("motion-copy-for-a-test"))
        #expect(AnalyzerRegistry.names.contains("motion-copy-for-a-test"))
        #expect(throws: AnalyzerOptionError.self) { try AnalyzerRegistry.registerShared(kind("motion-copy-for-a-test")) }
        let config = try load(#"{"sources": [{"kind": "test"}], "analyze": [{"motion-copy-for-a-test": {}}]}"#)
        #expect(config.analyze?.first?.name == "motion-copy-for-a-test")
    }

    @Test func motionOptionsLoad() throws {
        let config = try load(
            """
            {"sources": [{"kind": "test"}], "analyze": [{"motion": {"threshold": 30, "minArea": 0.02, "cooldown": 1,
             "zones": [{"exclude": [[0, 0], [0.5, 0], [0.5, 1]]}]}}],
             "triggers": {"still": {"minInterval": 3}, "record": {"preRoll": 4, "postRoll": 2}, "command": {"run": ["/bin/true"]}}}
            """)
        let entry = try #require(config.analyze?.first)
        let settings = MotionAnalyzer.settings(entry.options)
        #expect(settings.threshold == 30 && settings.minArea == 0.02 && settings.cooldown == 1)
        #expect(settings.zones == [MotionZone(.exclude, [MotionPoint(x: 0, y: 0), MotionPoint(x: 0.5, y: 0), MotionPoint(x: 0.5, y: 1)])])
    }

    @Test(arguments: [
        (#"[{"motion": {"threshold": 0}}]"#, "analyze[0].motion.threshold: 0 is outside 1…255"),
        (#"[{"motion": {"minArea": "big"}}]"#, "analyze[0].motion.minArea: must be a number"),
        (#"[{"motion": {"thresold": 3}}]"#, "analyze[0].motion.thresold: motion has no option"),
        (#"[{"motion": {"zones": [{"exclude": [[0, 0], [2, 0], [0, 1]]}]}}]"#, "analyze[0].motion.zones: zone 0: every corner"),
        (#"[{"motion": {"zones": [{"inside": [[0, 0], [1, 0], [0, 1]]}]}}]"#, "analyze[0].motion.zones: zone 0 must be one key"),
        (#"[{"faces": {}}]"#, "analyze[0]: no analyser \"faces\"")
    ])
    func badOptionsNameTheKey(analyze: String, expected: String) {
        do {
            _ = try load(#"{"sources": [{"kind": "test"}], "analyze": "# + analyze + "}")
            Issue.record("loaded")
        } catch {
            let text = "\(error)"
            #expect(text.contains(expected), "\(text)")
            #expect(!text.contains("\n"))
        }
    }

    @Test(arguments: [
        (#""triggers": {"record": {"preRoll": -1}}"#, "triggers.record.preRoll"),
        (#""triggers": {"still": {"on": "faces"}}"#, "triggers.still.on"),
        (#""triggers": {"command": {"run": []}}"#, "triggers.command.run"),
        (#""triggers": {"command": {"run": ["/bin/true"], "maxRunning": 0}}"#, "triggers.command.maxRunning")
    ])
    func badTriggersNameTheKey(triggers: String, key: String) {
        do {
            _ = try load(#"{"sources": [{"kind": "test"}], "analyze": [{"motion": {}}], "# + triggers + "}")
            Issue.record("loaded")
        } catch {
            #expect("\(error)".contains("m.json: \(key):"), "\(error)")
        }
    }
}
