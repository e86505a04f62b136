@testable import Capture
import Camera
import Testing

/// The command parser on its own: `Command(parsing:)` needs no session, so every line a transport may
/// deliver is checked here (and fuzzed by Tests/Fuzz, FuzzCommand).
@Suite("Commands")
struct CommandTests {
    @Test(arguments: [
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
    ] as [(String, Command)])
    func parses(line: String, expected: Command) throws {
        let command = try Command(parsing: line)
        #expect(command == expected)
        #expect(try Command(parsing: command.description) == command, "\(command.description)")
    }

    @Test(arguments: [
        ("", CommandError.empty), ("   \t ", .empty), ("nosuch", .unknownCommand("nosuch")), ("snap a b", .usage("snap [DIRECTORY]")),
        ("zoom nan", .usage("zoom FACTOR, e.g. zoom 2")), ("zoom", .usage("zoom FACTOR, e.g. zoom 2")),
        ("exposure ev=inf", .usage("exposure ev=STOPS, e.g. exposure ev=1")), ("torch maybe", .usage("torch on|off")),
        ("wb 999", .usage("wb auto|KELVIN with KELVIN from 1000 to 15000, e.g. wb 5000")), ("record", .usage("record start|stop")),
        ("wait 0", .usage("wait FRAMES, a whole number from 1 to 100000: answers once that many more frames have been filtered")),
    ] as [(String, CommandError)])
    func refuses(line: String, expected: CommandError) {
        #expect(throws: expected) { try Command(parsing: line) }
    }
}
