/// Writes control characters (Cc: newline, ESC, NUL…) and line or paragraph separators (Zl, Zp) as
/// `\u{1B}`, so a message that quotes input (a command, a config value, GStreamer's own text) stays one
/// line and never carries terminal control sequences to whoever prints it.
func escapingControls(_ text: String) -> String {
    func escaped(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }
    guard text.unicodeScalars.contains(where: escaped) else { return text }
    var result = ""
    for scalar in text.unicodeScalars {
        if escaped(scalar) {
            result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        } else {
            result.unicodeScalars.append(scalar)
        }
    }
    return result
}
