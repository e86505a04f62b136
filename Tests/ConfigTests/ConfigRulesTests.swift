import Config
import Foundation
import Testing

/// A machine as a test describes it: what it answers, and what it was asked.
final class StandInMachine: ConfigChecks {
    var patterns: [String: String] = [:]
    var launchReason: String?
    var missingEncoders: Set<String> = []
    private(set) var pluginsAsked: [String] = []
    private(set) var launchesAsked: [String] = []
    private(set) var installedLoads = 0

    func loadInstalledPlugins() { installedLoads += 1 }

    func loadPlugin(at path: String) -> String? {
        pluginsAsked.append(path)
        return path.hasSuffix("broken.so") ? "\(path): not a SwiftCam filter plugin" : nil
    }

    func testPatternProblem(_ pattern: String) -> String? { patterns[pattern] }

    func sourceLaunchProblem(_ text: String) -> String? {
        launchesAsked.append(text)
        return launchReason
    }

    func launchProblem(_ text: String) -> String? {
        launchesAsked.append(text)
        return launchReason
    }

    func containerProblem(_ container: RecordConfig.Container, encoder: RecordConfig.Encoder) -> String? { nil }

    func recordEncoderProblem(_ encoder: RecordConfig.Encoder, container: RecordConfig.Container?) -> String? {
        missingEncoders.contains(encoder.description) ? "\(encoder) is not installed here" : nil
    }

    func liveEncoderProblem(_ name: String) -> String? {
        missingEncoders.contains(name) ? "\(name) is not installed here" : nil
    }
}

/// A config's rules, checked without GStreamer: what the config says is the module's; what the machine has is asked
/// of a stand-in, whose answers land at the config's own key.
@Suite("Config rules")
struct ConfigRulesTests {
    func load(
        _ json: String, _ machine: StandInMachine = StandInMachine(), file: String = "/configs/t.json"
    ) throws(ConfigError)
        -> PipelineConfig
    {
        try ConfigLoader.load(data: Data(json.utf8), file: file, checks: machine)
    }

    func failure(_ json: String, _ machine: StandInMachine = StandInMachine()) -> ConfigError? {
        do {
            _ = try load(json, machine)
            return nil
        } catch {
            return error
        }
    }

    @Test func aStructuredConfigDecodesToTypedValues() throws {
        let config = try load(
            #"{"sources":[{"kind":"test","pattern":"ball"}],"caps":{"width":640,"height":360,"framerate":25},"filter":"mono | invert","record":{"container":"mp4","segment":60},"storage":{"maxBytes":"2G"}}"#
        )
        #expect(config.sources == [SourceConfig(kind: .test, pattern: "ball")])
        #expect(config.caps == CapsConfig(width: 640, height: 360, framerate: "25/1"))
        #expect(config.caps.flatMap(\.framerate).flatMap(CapsConfig.parseFramerate)! == (25, 1))
        #expect(config.record?.container == .mp4 && config.record?.segment == 60)
        #expect(config.storage == StorageConfig(maxBytes: 2 << 30))
    }

    @Test func whatTheMachineRefusesIsReportedAtTheConfigsKey() {
        let machine = StandInMachine()
        machine.patterns["sparkles"] = "videotestsrc has no pattern sparkles"
        let error = failure(#"{"sources":[{"kind":"test"},{"kind":"test","pattern":"sparkles"}]}"#, machine)
        #expect(error?.path == "sources[1].pattern")
        #expect(error?.reason == "videotestsrc has no pattern sparkles")
        #expect(error?.file == "/configs/t.json")

        machine.missingEncoders = ["x264enc"]
        #expect(failure(#"{"sources":[{"kind":"test"}],"live":{"encoder":"x264enc"}}"#, machine)?.path == "live.encoder")
        #expect(failure(#"{"sources":[{"kind":"test"}],"record":{"encoder":"x264enc"}}"#, machine)?.path == "record.encoder")
    }

    @Test func pluginsLoadFromTheConfigsFolderBeforeTheFilterIsRead() {
        let machine = StandInMachine()
        #expect(failure(#"{"sources":[{"kind":"test"}],"plugins":["libgstmine.so","/opt/broken.so"]}"#, machine)?.path == "plugins[1]")
        #expect(machine.installedLoads == 1)
        #expect(machine.pluginsAsked == ["/configs/libgstmine.so", "/opt/broken.so"])
    }

    @Test func launchTextGoesToTheMachineOnlyWhenTheConfigsOwnRulesPass() {
        let machine = StandInMachine()
        machine.launchReason = "no element \"nosuchsrc\""
        #expect(failure(#"{"launch":"videotestsrc ! fakesink","filter":"mono"}"#, machine)?.path == "filter")
        #expect(failure(#"{"launch":"   "}"#, machine)?.reason == "empty launch string")
        #expect(machine.launchesAsked.isEmpty)
        let error = failure(#"{"sources":[{"kind":"launch","launch":"nosuchsrc"}],"caps":{"width":320,"height":180}}"#, machine)
        #expect(error?.path == "sources[0].launch" && error?.reason == "no element \"nosuchsrc\"")
        #expect(machine.launchesAsked == ["nosuchsrc"])
    }

    @Test func theConfigsOwnRulesNeedNoMachine() {
        #expect(failure(#"{"sources":[{"kind":"test"}],"rotate":45}"#)?.path == "rotate")
        #expect(failure(#"{"sources":[{"kind":"test"}],"filter":"nosuch"}"#)?.path == "filter")
        #expect(failure(#"{"sources":[{"kind":"test"}],"caps":{"format":"YUV9"}}"#)?.path == "caps.format")
        #expect(failure(#"{"sources":[{"kind":"v4l2"}]}"#)?.path == "sources[0].device")
        #expect(failure(#"{"sources":[{"kind":"libcamera","format":"SRGGB10"}]}"#)?.path == "sources[0].format")
        #expect(
            failure(#"{"sources":[{"kind":"test"}],"analyze":[{"motion":{}}],"triggers":{"still":{"on":"sound"}}}"#)?.path
                == "triggers.still.on")
        #expect(failure(#"{"sources":[{"kind":"test"}],"filter":"mono","filter":"invert"}"#)?.reason.contains("given twice") == true)
    }

    @Test func overridesApplyBeforeValidation() throws {
        let config = try ConfigLoader.load(
            data: Data(#"{"sources":[{"kind":"test"}]}"#.utf8), file: "t.json", overrides: ["sources.0.pattern=ball", "caps.width=320"],
            checks: StandInMachine())
        #expect(config.sources?.first?.pattern == "ball" && config.caps?.width == 320)
        #expect(throws: ConfigError.self) {
            try ConfigLoader.load(
                data: Data(#"{"sources":[{"kind":"test"}]}"#.utf8), file: "t.json", overrides: ["rotate=45"], checks: StandInMachine())
        }
    }
}
