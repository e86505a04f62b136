import Base
import Camera
import Config
import Foundation
import GStreamer
import Testing

@testable import Capture

/// Each transport's permission set, held by the interpreter: what the page may not do is refused there, whatever
/// the transport checked before, and a command built without a line keeps the parser's bounds.
@Suite struct CommandPermissionsTests {
    private func interpreter(quit: @escaping @Sendable () -> Void = {}) throws -> CommandInterpreter {
        let config = try JSONDecoder().decode(PipelineConfig.self, from: Data(#"{"sources": [{"kind": "test"}], "preview": "none"}"#.utf8))
        return CommandInterpreter(session: CaptureSession(name: "permissions", config: config), onQuit: quit)
    }

    @Test(arguments: [
        Command.quit, .wait(frames: 10), .snap(directory: "/etc"), .filter("lut file=/etc/shadow"), .filter("mono | lut file=/x"),
        .filter("mono \"unterminated")
    ])
    func thePageMayNotStopTheHostOrNameAFile(command: Command) {
        #expect(CommandPermissions.page.refusal(of: command) != nil, "\(command)")
        #expect(CommandPermissions.console.refusal(of: command) == nil, "\(command)")
        #expect(CommandPermissions.controlSocket.refusal(of: command) == nil, "\(command)")
    }

    @Test(arguments: [Command.snap(directory: nil), .zoom(2), .filter("sepia | vignette"), .filter(""), .recordStart, .stats(json: true)])
    func thePageControlsTheCamera(command: Command) {
        #expect(CommandPermissions.page.refusal(of: command) == nil, "\(command)")
    }

    /// The refusal is the interpreter's: a page's `quit` that got past its transport is still not run.
    @Test func theInterpreterRefusesWhatItsTransportMayNotDo() throws {
        let quits = QuitCount()
        let console = try interpreter { quits.add() }
        let page = console.restricted(to: .page)
        #expect(page.execute(Command.quit) == .error("'quit' is for the host's own console and control socket"))
        #expect(page.execute("quit") == .error("'quit' is for the host's own console and control socket"))
        let lut = page.execute("filter lut file=/etc/shadow")
        #expect(!lut.isOK && lut.description.contains("LUT files are chosen in the config or on the command line"), "\(lut)")
        #expect(quits.count == 0)
        #expect(console.execute(Command.quit) == .ok("stopping"))
        #expect(quits.count == 1)
        // Restricting never widens.
        #expect(page.restricted(to: .console).permissions == .page)
    }

    /// A command built from values (the page's JSON) is held to the bounds a typed line is, with the same usage.
    @Test(
        arguments: [
            (Command.focus(x: .nan, y: 0), "focus nan 0"), (.exposurePoint(x: 0.5, y: -.infinity), "exposure 0.5 -inf"),
            (.zoom(.infinity), "zoom inf"), (.exposureCompensation(ev: .nan), "exposure ev=nan"), (.wait(frames: 0), "wait 0"),
            (.adjust(.hue, .normalized(.infinity)), "hue inf")
        ] as [(Command, String)])
    func builtCommandsKeepTheParsersBounds(command: Command, line: String) {
        #expect(throws: CommandError.self) { try command.checked() }
        do {
            _ = try command.checked()
        } catch {
            #expect(throws: error) { try Command(parsing: line) }
        }
    }

    /// A temperature far past any `Int` is refused, not converted (a page's `{"kelvin": 1e300}` trapped); any whole
    /// number is taken, as a typed line's is, for the session to clamp and say so.
    @Test func aHugeTemperatureIsRefused() throws {
        #expect(throws: CommandError.self) { try Command.whiteBalance(kelvin: 1e300) }
        #expect(throws: CommandError.self) { try Command.whiteBalance(kelvin: .nan) }
        // Int.min's magnitude is no Int: a check on the whole number trapped here.
        #expect(throws: CommandError.self) { try Command.whiteBalance(kelvin: -9_223_372_036_854_775_808) }
        #expect(try Command.whiteBalance(kelvin: -1) == .whiteBalance(.kelvin(-1)))
        #expect(try Command.whiteBalance(kelvin: 5000.5) == .whiteBalance(.kelvin(5000)))
    }
}

/// How often `quit` ran.
private final class QuitCount: Sendable {
    private let value = Locked(0)
    func add() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}
