import Base
import Capture
import Glibc

/// Reads newline-terminated lines from a descriptor, at most `limit` bytes each.
struct LineReader {
    /// The longest command line a transport accepts.
    static let limit = Command.lineLimit

    let descriptor: Int32
    let limit: Int
    private var pending: [UInt8] = []

    /// Milliseconds to wait for more bytes before `next` gives `.idle`; nil waits as long as it takes.
    var idleMilliseconds: Int32?

    init(descriptor: Int32, limit: Int = LineReader.limit, idleSeconds: Int? = nil) {
        self.descriptor = descriptor
        self.limit = limit
        idleMilliseconds = idleSeconds.map { Int32(clamping: $0 * 1000) }
    }

    /// A line, a line over the limit (the connection is then closed: what follows is not a command), or nothing within
    /// the idle time.
    enum Line {
        case text(String)
        case tooLong
        case idle
    }

    /// The next line without its newline; nil at end of input or on error.
    mutating func next() -> Line? {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                guard newline <= limit else { return .tooLong }
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return .text(line)
            }
            if pending.count > limit { return .tooLong }
            if let idleMilliseconds {
                var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                // Interrupted, it waits the whole idle time again: a signal is not the client's activity, but rare.
                if SystemCall.retrying({ poll(&waiting, 1, idleMilliseconds) }) == 0 { return .idle }
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { raw in SystemCall.retrying { recv(descriptor, raw.baseAddress, raw.count, 0) } }
            guard count > 0 else {
                guard !pending.isEmpty else { return nil }
                defer { pending = [] }
                return pending.count > limit ? .tooLong : .text(String(decoding: pending, as: UTF8.self))
            }
            pending += chunk[..<count]
        }
    }
}
