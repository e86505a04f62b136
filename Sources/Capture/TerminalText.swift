import Filters

extension String {
    /// The text as a terminal may show it: control characters (ESC, CR, NUL, …) and line or paragraph separators
    /// written as `\u{1B}`, the same escaping every control-socket reply gets (`Reply.description`). For what the
    /// CLI prints that came from outside: file names, config descriptions, paths.
    public var terminalSafe: String { escapingControls }
}
