import Camera
import Filters
import FoundationEssentials

/// A reply to one control command: one line, `ok <detail>` or `error <reason>`.
public enum Reply: Sendable, Equatable, CustomStringConvertible {
    case ok(String)
    case error(String)

    /// Whether the command succeeded.
    public var isOK: Bool { if case .ok = self { true } else { false } }

    /// The reply line. Control characters (ESC, CR, NUL, …) and line or paragraph separators in it, such as
    /// a command echoed back in an error, are written as `\u{1B}`, so no transport ever sends raw terminal
    /// input back and a reply is always one line.
    public var description: String {
        let line =
            switch self {
            case let .ok(detail): detail.isEmpty ? "ok" : "ok \(detail)"
            case let .error(reason): "error \(reason)"
            }
        return line.escapingControls
    }
}

/// Turns command lines into session calls. The one interpreter behind stdin, the control socket and the page,
/// so every transport understands exactly the same commands; each holds its own copy with its transport's
/// `permissions`, and a command outside them is refused here, whatever the transport checked before.
public struct CommandInterpreter: Sendable {
    /// The session commands act on.
    public let session: CaptureSession
    /// Called by `quit`.
    public let onQuit: @Sendable () -> Void
    /// What the transport using this interpreter may ask for.
    public let permissions: CommandPermissions

    public init(session: CaptureSession, permissions: CommandPermissions = .console, onQuit: @escaping @Sendable () -> Void) {
        self.session = session
        self.permissions = permissions
        self.onQuit = onQuit
    }

    /// The same interpreter for a transport that may do less: only what both permission sets allow.
    public func restricted(to permissions: CommandPermissions) -> CommandInterpreter {
        CommandInterpreter(session: session, permissions: self.permissions.intersection(permissions), onQuit: onQuit)
    }

    /// The commands and what they take.
    public static let help = Command.summary

    /// Runs one command line and answers in one line; failures that happened on their own since the last
    /// reply (a recording that hit a full disk) are appended, so whoever is driving hears of them at once.
    /// The line is parsed first (`Command(parsing:)`, no session involved), so a malformed line never
    /// reaches the session.
    /// A command that waits (`wait N`) ends early when `requester` goes away.
    public func execute(_ line: String, from requester: Requester = .present) -> Reply {
        let reply: Reply
        do {
            reply = run(try Command(parsing: line), from: requester)
        } catch {
            reply = .error(error.description)
        }
        return withUnreported(reply)
    }

    /// Runs one parsed command, answering as `execute(_:)` does for its line.
    public func execute(_ command: Command, from requester: Requester = .present) -> Reply {
        withUnreported(run(command, from: requester))
    }

    private func withUnreported(_ reply: Reply) -> Reply {
        let unreported = session.takeUnreported()
        guard !unreported.isEmpty else { return reply }
        let note = " [" + unreported.joined(separator: "; ") + "]"
        switch reply {
        case let .ok(detail): return .ok(detail + note)
        case let .error(reason): return .error(reason + note)
        }
    }

    private func run(_ command: Command, from requester: Requester) -> Reply {
        if let refusal = permissions.refusal(of: command) { return .error(refusal.description) }
        do {
            switch command {
            case let .snap(directory):
                return .ok(try session.snapshot(directory: directory))
            case .switchCamera:
                return .ok("source \(try session.switchCamera())")
            case let .zoom(factor):
                return .ok(try session.zoom(factor))
            case let .exposureCompensation(ev):
                return .ok(try session.exposure(ev: ev))
            case let .focus(x, y):
                return .ok(try session.focus(x: x, y: y))
            case let .exposurePoint(x, y):
                return .ok(try session.exposure(x: x, y: y))
            case let .torch(on):
                return .ok(try session.torch(on))
            case let .mirror(on):
                return .ok(try session.mirror(on))
            case let .whiteBalance(mode):
                return .ok(try session.whiteBalance(mode))
            case let .adjust(adjustment, level):
                return .ok(try session.adjust(adjustment, to: level))
            case let .filter(text):
                return .ok("filter \(try session.setFilter(text))")
            case .recordStart:
                return .ok("recording \(try session.startRecording())")
            case .recordStop:
                return .ok("recorded \(try session.stopRecording())")
            case let .stats(json):
                let stats = session.stats
                guard json else { return .ok(stats.line) }
                let encoder = JSONEncoder()
                encoder.outputFormatting = .withoutEscapingSlashes
                let data = (try? encoder.encode(stats)) ?? Data()
                return .ok(String(decoding: data, as: UTF8.self))
            case let .wait(count):
                let seen = session.waitForFrames(count, timeout: Command.frameWaitSeconds, requester: requester)
                if seen >= count { return .ok("\(seen) frames") }
                if requester.isGone { return .error("the client went away after \(seen) of \(count) frames") }
                return .error("only \(seen) of \(count) frames came (the stream ended or stalled)")
            case .quit:
                onQuit()
                return .ok("stopping")
            case .help:
                return .ok(Self.help)
            }
        } catch SessionError.notRunning where session.status.reason != nil {
            // Why it is not running, in the camera's words, to whoever asked (the socket, the page, stdin).
            return .error("\(SessionError.notRunning): \(session.status.reason ?? "")")
        } catch {
            return .error("\(error)")
        }
    }
}
