import CGStreamer
import CSoup
import Foundation
import GStreamer
import Glibc

/// The fallback stream: `GET /stream.mjpg`, `multipart/x-mixed-replace` JPEGs at most 960 px wide and
/// 15 fps, encoded once for every viewer and only while someone watches.
///
/// `appsrc ! videoconvert ! videoscale ! videorate ! caps ! jpegenc ! appsink`; the appsrc is leaky, so a
/// slow encoder drops frames rather than holding the camera. Each viewer has a thread of its own that
/// writes the newest JPEG to its socket: a viewer that stops reading only ever misses frames, and after a
/// send timeout it is dropped, never slowing the others.
final class MJPEGEncoder: @unchecked Sendable {
    private let pipeline: Pipeline
    private let source: AppSrc
    private let viewers = Locked<[Int: MJPEGViewer]>([:])
    private let lastCaps = Locked<Caps?>(nil)
    private var watch: BusWatch?

    /// Builds for frames of `width`×`height` and plays.
    init(width: Int, height: Int) throws {
        var graph = GraphDescription()
        let scaledWidth = min(width, 960) & ~1
        let scaledHeight = max(2, (height * scaledWidth / max(width, 1)) & ~1)
        graph.chain(
            graph.add("appsrc", name: "mjpeg-src", ["format": "time", "is-live": true, "do-timestamp": false, "max-buffers": 2,
                                                    "leaky-type": "downstream", "block": false]),
            graph.add("videoconvert"),
            graph.add("videoscale"),
            graph.add("videorate", ["drop-only": true, "max-rate": 15]),
            graph.add("capsfilter", ["caps": .caps(CapsDescription("video/x-raw", [("width", .int(scaledWidth)), ("height", .int(scaledHeight)),
                                                                                  ("pixel-aspect-ratio", .fraction(1, 1))]))]),
            graph.add("jpegenc", ["quality": 80]),
            graph.add("appsink", name: "mjpeg-out", ["sync": false, "async": false, "max-buffers": 2, "drop": true, "wait-on-eos": false]))
        pipeline = try graph.build()
        guard let source = pipeline.element(named: "mjpeg-src", as: AppSrc.self),
              let sink = pipeline.element(named: "mjpeg-out", as: AppSink.self) else {
            throw GStreamerError.elementNotFound(factory: "appsrc", package: nil)
        }
        self.source = source
        let viewers = viewers
        sink.onSample { sample in
            guard let buffer = sample.buffer, let jpeg = try? buffer.withMappedBytes({ Data($0) }) else { return }
            for viewer in viewers.withLock({ Array($0.values) }) { viewer.offer(jpeg) }
        }
        watch = pipeline.bus.watch { _ in }
        try pipeline.setState(.playing, timeout: 5)
    }

    /// Hands a camera frame on (feed thread; never blocks).
    func push(_ sample: Sample) {
        guard let buffer = sample.buffer else { return }
        if let caps = sample.caps, lastCaps.withLock({ last in
            defer { last = caps }
            return last.map { !$0.isEqual(to: caps) } ?? true
        }) {
            source.caps = caps
        }
        // The camera pipeline's timestamps count from its own start: restamped with this pipeline's running time.
        var copy = WritableBuffer(buffer)
        copy.pts = pipeline.runningTime
        copy.dts = nil
        try? source.push(copy)
    }

    func add(_ viewer: MJPEGViewer) { viewers.withLock { $0[viewer.id] = viewer } }

    /// Removes a viewer; returns how many remain.
    func remove(id: Int) -> Int {
        viewers.withLock { viewers in
            viewers.removeValue(forKey: id)
            return viewers.count
        }
    }

    var viewerCount: Int { viewers.withLock { $0.count } }

    /// Frames each viewer was sent, by id.
    var framesSent: [Int: Int] { viewers.withLock { $0.mapValues(\.framesSent) } }

    func stop() {
        for viewer in viewers.withLock({ Array($0.values) }) { viewer.close() }
        try? pipeline.setState(.null)
        watch?.cancel()
    }
}

/// One MJPEG viewer: a socket taken over from libsoup and a thread that writes the newest JPEG to it.
final class MJPEGViewer: @unchecked Sendable {
    let id: Int
    private let fd: Int32
    private let state = Condition(ViewerState())

    private struct ViewerState {
        var latest: Data?
        var closed = false
        var sent = 0
        var skipped = 0
    }

    /// Takes over `fd` (blocking, with a send timeout) and starts writing; `onEnd` runs once on its thread
    /// when the viewer goes (closed the page, stopped reading, or `close`).
    init(id: Int, fd: Int32, onEnd: @escaping @Sendable (Int) -> Void) {
        self.id = id
        self.fd = fd
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let thread = Thread { [self] in
            writeLoop()
            Glibc.close(fd)
            onEnd(id)
        }
        thread.name = "swiftcam-mjpeg-\(id)"
        thread.start()
    }

    /// The newest JPEG (encoder thread); one not yet written is replaced and counted as skipped.
    func offer(_ jpeg: Data) {
        state.withLock { state in
            if state.latest != nil { state.skipped += 1 }
            state.latest = jpeg
        }
    }

    var framesSent: Int { state.withLock { $0.sent } }

    /// Ends the viewer (its thread closes the socket).
    func close() {
        state.withLock { $0.closed = true }
        shutdown(fd, Int32(SHUT_RDWR))
    }

    private func writeLoop() {
        let header = "HTTP/1.1 200 OK\r\nContent-Type: multipart/x-mixed-replace; boundary=swiftcamframe\r\n"
            + "Cache-Control: no-store\r\nConnection: close\r\nX-Content-Type-Options: nosniff\r\n\r\n"
        guard write(Data(header.utf8)) else { return }
        while true {
            guard let jpeg = state.wait(for: { state -> Data?? in
                if state.closed { return .some(nil) }
                guard let latest = state.latest else { return nil }
                state.latest = nil
                return .some(latest)
            }) ?? nil else { return }
            let part = "--swiftcamframe\r\nContent-Type: image/jpeg\r\nContent-Length: \(jpeg.count)\r\n\r\n"
            guard write(Data(part.utf8)), write(jpeg), write(Data("\r\n".utf8)) else { return }
            state.withLock { $0.sent += 1 }
        }
    }

    /// Writes everything or gives up (peer gone, or not reading for the send timeout).
    private func write(_ data: Data) -> Bool {
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
    }
}
