import Capture
import FuzzSupport

// The control command parser (`Command(parsing:)`, the step `CommandInterpreter.execute` takes before it
// touches the session). Any line either parses to a command whose canonical text parses back to the same
// command, or is refused with one line that holds no control character (a refusal may echo the input, and
// it goes back over the socket to a terminal). The reply a transport sends is one line either way.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCommand(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let line = fuzzText(data, size)
    let command: Command
    do {
        command = try Command(parsing: line)
    } catch {
        let text = error.description
        require(isOneLine(text), "the refusal of \(shown(line)) is not one line: \(shown(text))")
        require(
            !text.unicodeScalars.contains { $0.properties.generalCategory == .control },
            "the refusal of \(shown(line)) holds a control character: \(shown(text))")
        let reply = Reply.error(text).description
        require(isOneLine(reply), "the reply to \(shown(line)) is not one line: \(shown(reply))")
        return 0
    }
    let printed = command.description
    do {
        let reparsed = try Command(parsing: printed)
        require(reparsed == command, "\(shown(line)) is \(command), printed \(shown(printed)), which parses to \(reparsed)")
    } catch {
        require(false, "\(shown(line)) is \(command), printed \(shown(printed)), which is refused: \(error)")
    }
    return 0
}
