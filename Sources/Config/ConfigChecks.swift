/// What validating a config asks of the machine that will run it, beyond the config's own text: which GStreamer
/// elements and encoders it has, whether launch text parses, and the filter plugins a config names (whose filters
/// its filter text may use). The host passes its own (Capture's `MachineChecks`); a test passes a stand-in, so the
/// rules of a config are checked without GStreamer.
public protocol ConfigChecks {
    /// Loads the filter plugins installed on this machine, so a filter text may name their filters.
    func loadInstalledPlugins()
    /// Loads the filter plugin at `path`; why it cannot be, in one line, or nil when it loaded.
    func loadPlugin(at path: String) -> String?
    /// Why `videotestsrc` takes no `pattern` of this name; nil when it does.
    func testPatternProblem(_ pattern: String) -> String?
    /// Why a `launch` source's text (which must end in raw video) does not parse as a graph; nil when it does.
    func sourceLaunchProblem(_ text: String) -> String?
    /// Why a whole-graph `"launch"` string cannot be built (a swiftfilter's bad chain included); nil when it can.
    func launchProblem(_ text: String) -> String?
    /// Why `record.container` cannot hold what `record.encoder` makes; nil when it can.
    func containerProblem(_ container: RecordConfig.Container, encoder: RecordConfig.Encoder) -> String?
    /// Why `record.encoder` cannot be used here, naming what this machine has; nil when it can.
    func recordEncoderProblem(_ encoder: RecordConfig.Encoder, container: RecordConfig.Container?) -> String?
    /// Why `live.encoder` cannot be used here; nil when it can.
    func liveEncoderProblem(_ name: String) -> String?
}
