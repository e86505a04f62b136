public import Config
public import FoundationEssentials
import GStreamer
import SwiftFilterElement

/// What a config asks of this machine, answered by GStreamer's registry and the filter plugins: the checks every
/// config the host loads goes through.
public struct MachineChecks: ConfigChecks {
    public init() {}

    public func loadInstalledPlugins() {
        FilterPlugins.loadInstalled()
    }

    public func loadPlugin(at path: String) -> String? {
        do throws(FilterPluginError) {
            try FilterPlugins.load(path: path)
            return nil
        } catch {
            return error.description
        }
    }

    public func testPatternProblem(_ pattern: String) -> String? {
        do {
            try Element.make("videotestsrc").set("pattern", pattern)
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// Parsed here, ending in a fakesink; it plays only in its child process.
    public func sourceLaunchProblem(_ text: String) -> String? {
        do {
            _ = try Pipeline.parse("\(text) ! fakesink")
            return nil
        } catch {
            return "\(error)"
        }
    }

    public func launchProblem(_ text: String) -> String? {
        SwiftFilterElement.register()
        let pipeline: Pipeline
        do {
            pipeline = try Pipeline.parse(text)
        } catch {
            return "\(error)"
        }
        // A swiftfilter with a bad chain still parses (it fails at start): ask each one.
        for element in pipeline.allElements {
            if let reason = SwiftFilterElement.chainError(of: element) { return "swiftfilter '\(element.name)': \(reason)" }
        }
        return nil
    }

    public func containerProblem(_ container: RecordConfig.Container, encoder: RecordConfig.Encoder) -> String? {
        EncoderChoice.problem(withContainer: container, encoder: encoder)
    }

    public func recordEncoderProblem(_ encoder: RecordConfig.Encoder, container: RecordConfig.Container?) -> String? {
        EncoderChoice.problem(withRecordEncoder: encoder, container: container)
    }

    public func liveEncoderProblem(_ name: String) -> String? {
        EncoderChoice.problem(withLiveEncoder: name)
    }
}

extension ConfigLoader {
    /// Decodes config JSON after `overrides` and validates it against this machine (`MachineChecks`).
    public static func load(data: Data, file: String, overrides: [String] = []) throws(ConfigError) -> PipelineConfig {
        try load(data: data, file: file, overrides: overrides, checks: MachineChecks())
    }

    /// Loads a config file from disk and validates it against this machine.
    public static func load(file: String, overrides: [String] = []) throws(ConfigError) -> PipelineConfig {
        try load(file: file, overrides: overrides, checks: MachineChecks())
    }
}

extension ConfigStore {
    /// Loads a config by name (or by a path ending in .json), with overrides, validated against this machine.
    public func load(_ nameOrPath: String, overrides: [String] = []) throws(ConfigError) -> PipelineConfig {
        try load(nameOrPath, overrides: overrides, checks: MachineChecks())
    }
}
