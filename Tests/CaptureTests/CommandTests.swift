import Camera
import Config
import Foundation
import Testing

@testable import Capture

/// The command parser on its own: `Command(parsing:)` needs no session, so every line a transport may
/// deliver is checked here (and fuzzed by Tests/Fuzz, FuzzCommand).
@Suite("Commands")
struct CommandTests {
    @Test(
        arguments: [
            ("snap", Command.snap(directory: nil)), ("snapshot /tmp/stills", .snap(directory: "/tmp/stills")),
            ("switch", .switchCamera), ("  ZOOM   2 ", .zoom(2)), ("zoom 0.2", .zoom(0.2)),
            ("focus 0.5 0.25", .focus(x: 0.5, y: 0.25)), ("exposure 0 1", .exposurePoint(x: 0, y: 1)),
            ("exposure EV=-1.5", .exposureCompensation(ev: -1.5)), ("torch on", .torch(on: true)), ("mirror off", .mirror(on: false)),
            ("wb auto", .whiteBalance(.auto)), ("wb 5000K", .whiteBalance(.kelvin(5000))), ("wb 4000", .whiteBalance(.kelvin(4000))),
            ("brightness 40", .adjust(.brightness, .raw(40))), ("hue -0.25", .adjust(.hue, .normalized(-0.25))),
            ("filter sepia intensity=0.5 | vignette", .filter("sepia intensity=0.5 | vignette")), ("filter none", .filter("")),
            ("filter", .filter("")), ("FILTER   mono  ", .filter("mono")), ("record start", .recordStart), ("record stop", .recordStop),
            ("stats", .stats(json: false)), ("stats --json", .stats(json: true)), ("wait 10", .wait(frames: 10)),
            ("quit", .quit), ("exit", .quit), ("stop", .quit), ("help", .help),
            // Every control takes any finite number and the session clamps it (and says so): the parser refuses none.
            ("wb 0", .whiteBalance(.kelvin(0))), ("wb 5000.5", .whiteBalance(.kelvin(5000))), ("zoom 0", .zoom(0)),
            ("focus 2 -1", .focus(x: 2, y: -1)),
            ("brightness 1e308", .adjust(.brightness, .normalized(1e308))),
            // A folder is the rest of the line.
            ("snap dir with space", .snap(directory: "dir with space"))
        ] as [(String, Command)])
    func parses(line: String, expected: Command) throws {
        let command = try Command(parsing: line)
        #expect(command == expected)
        #expect(try Command(parsing: command.description) == command, "\(command.description)")
    }

    /// An argument that starts with a combining mark: the space before it and the mark are one `Character`, so
    /// the line is split on space scalars, or the canonical text would glue the verb to its argument (found by
    /// fuzzing: `filter  \u{301}s` printed as `filter \u{301}s`, which was refused as command `filter\u{301}s`).
    @Test(arguments: [
        ("filter  \u{301}s wat", Command.filter("\u{301}s wat")), ("snap \u{301}dir", .snap(directory: "\u{301}dir"))
    ])
    func argumentsThatStartWithAMarkRoundTrip(line: String, expected: Command) throws {
        let command = try Command(parsing: line)
        #expect(command == expected)
        #expect(try Command(parsing: command.description) == command, "\(command.description.debugDescription)")
    }

    @Test(
        arguments: [
            ("", CommandError.empty), ("   \t ", .empty), ("nosuch", .unknownCommand("nosuch")),
            ("zoom nan", .usage("zoom FACTOR, e.g. zoom 2")), ("zoom", .usage("zoom FACTOR, e.g. zoom 2")),
            ("exposure ev=inf", .usage("exposure ev=STOPS, e.g. exposure ev=1")), ("torch maybe", .usage("torch on|off")),
            ("wb hot", .usage("wb auto|KELVIN with KELVIN from 2000 to 12000 (others are clamped), e.g. wb 5000")),
            ("wb 1e20", .usage("wb auto|KELVIN with KELVIN from 2000 to 12000 (others are clamped), e.g. wb 5000")),
            ("record", .usage("record start|stop")),
            // Extra words are refused, not ignored (`quit now` quit, `stats --json extra` answered).
            ("quit now", .usage("quit (it takes nothing)")), ("stats --json extra", .usage("stats [--json]")),
            ("switch back", .usage("switch (it takes nothing)")), ("record start now", .usage("record start|stop")),
            ("help me", .usage("help (it takes nothing)")),
            ("focus inf 0", .usage("focus X Y with X and Y from 0 to 1 (the picture's corners), e.g. focus 0.5 0.5")),
            ("wait 0", .usage("wait FRAMES, a whole number from 1 to 100000: answers once that many more frames have been filtered"))
        ] as [(String, CommandError)])
    func refuses(line: String, expected: CommandError) {
        #expect(throws: expected) { try Command(parsing: line) }
    }

    /// A refusal echoes the verb; line breaks (U+2028 included) and control characters in it are escaped,
    /// in the error and in the reply line (found by fuzzing: `verb\u{2028}next` came back as two lines).
    @Test(arguments: ["verb\u{2028}next", "a\u{2029}b", "x\u{1B}[31mred", "a\rb", "a\u{85}b", "a\u{0B}b\u{0C}"])
    func refusalsAreOneLine(line: String) throws {
        let error = try #require(throws: CommandError.self) { try Command(parsing: line) }
        let breaks: Set<UInt32> = [0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x1B, 0x2028, 0x2029]
        #expect(!error.description.unicodeScalars.contains { breaks.contains($0.value) }, "\(error.description.debugDescription)")
        #expect(!Reply.error(line).description.unicodeScalars.contains { breaks.contains($0.value) })
        #expect(Reply.error("a\u{2028}b").description == "error a\\u{2028}b")
    }
}

/// Config errors quote values and GStreamer's messages; the description is one line whatever they hold.
@Suite("Config errors")
struct ConfigErrorLineTests {
    @Test func aConfigErrorIsOneLine() throws {
        let error = ConfigError(file: "a\nb.json", path: "filter", reason: "'0\n5' is not valid\u{2028}")
        #expect(error.description == "a\\u{A}b.json: filter: '0\\u{A}5' is not valid\\u{2028}")
        #expect {
            try ConfigLoader.load(data: Data(#"{"sources":[{"kind":"test"}],"filter":"sepia intensity=\"0\n5\""}"#.utf8), file: "x.json")
        } throws: { error in
            !"\(error)".contains("\n")
        }
    }
}

/// A raw "launch" config that made gst_parse_launch crash (found by FuzzConfig) is refused with a config error.
@Suite("Launch configs GStreamer cannot parse")
struct LaunchCrashTests {
    @Test(arguments: ["a. ! b.", "t. ! queue !", "videotestsrc pattern=smpt! video/x-raw,wilse split. ! queue ! --set nk sync=false"])
    func refusedNotCrashed(launch: String) throws {
        let json = try JSONSerialization.data(withJSONObject: ["launch": launch])
        #expect(throws: ConfigError.self) { try ConfigLoader.load(data: json, file: "x.json") }
    }
}
