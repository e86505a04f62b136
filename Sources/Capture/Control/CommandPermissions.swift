import Filters

/// What one transport may ask of the interpreter. Whoever runs the host (its console, its control socket) may do
/// everything; the camera page controls the camera but may neither stop the host nor name a file or folder on it.
public struct CommandPermissions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `quit` and `wait`: ending the host, holding a connection until frames have passed.
    public static let hostControl = CommandPermissions(rawValue: 1 << 0)
    /// `snap DIR`: a still into a folder the caller names.
    public static let chooseFolder = CommandPermissions(rawValue: 1 << 1)
    /// A filter that reads a file on the host (`lut file=PATH`).
    public static let readFiles = CommandPermissions(rawValue: 1 << 2)

    /// The host's standard input.
    public static let console: CommandPermissions = [.hostControl, .chooseFolder, .readFiles]
    /// The control socket (mode 0600: the user who runs the host).
    public static let controlSocket: CommandPermissions = [.hostControl, .chooseFolder, .readFiles]
    /// The camera page, which anyone who reaches it (and has the token) drives.
    public static let page: CommandPermissions = []

    /// Why `command` is not this transport's to run, or nil when it is.
    public func refusal(of command: Command) -> CommandRefusal? {
        switch command {
        case .quit, .wait: return contains(.hostControl) ? nil : .hostControl(command)
        case .snap(.some): return contains(.chooseFolder) ? nil : .folder
        case let .filter(chain):
            guard !contains(.readFiles) else { return nil }
            // Read on the text, before the session parses the chain: parsing opens the file, and whether it opens
            // or what its first line holds must not reach this transport.
            let names: [String]
            do {
                names = try FilterChain.filterNames(in: chain)
            } catch {
                return .unreadableChain(error.description)
            }
            let opensAFile = names.first { name in
                FilterCatalog.info(named: name)?.parameters.contains { if case .file = $0.kind { true } else { false } } == true
            }
            return opensAFile.map { .readsAFile(filter: $0) }
        default: return nil
        }
    }
}

/// Why a transport may not run a command it sent (the command itself is well formed).
public enum CommandRefusal: Error, Hashable, CustomStringConvertible {
    /// `quit` or `wait` from a transport without `hostControl`.
    case hostControl(Command)
    /// `snap DIR` from a transport without `chooseFolder`.
    case folder
    /// A chain with a filter that reads a file on the host, from a transport without `readFiles`.
    case readsAFile(filter: String)
    /// A chain whose text does not parse, from a transport without `readFiles`: the filter parser's reason.
    case unreadableChain(String)

    public var description: String {
        switch self {
        case let .hostControl(command): "'\(command)' is for the host's own console and control socket"
        case .folder: "a still from here goes where the config says: 'snap' takes no directory here"
        case let .readsAFile(filter):
            "LUT files are chosen in the config or on the command line, not from here: '\(filter.escapingControls)' is refused here"
        case let .unreadableChain(reason): reason
        }
    }
}
