import CGStreamer
import CGstRTSPServer
import Capture
import Dispatch
import Foundation
import GStreamer
import Synchronization

/// An RTSP server that takes RECORD (a push from `rtspclientsink`, ffmpeg, OBS…) at one path and hands each
/// decoded frame to Swift: `publish-check --listen rtsp://…`, a stand-in for a media server.
final class RecordServer: @unchecked Sendable {
    private let context: OpaquePointer
    private let loop: OpaquePointer
    private let server: UnsafeMutablePointer<GstRTSPServer>
    private let sourceID: guint
    private let targetID: UInt
    private let finished = DispatchSemaphore(value: 0)
    private let stopped = Atomic<Bool>(false)
    /// The codec of the last stream pushed (for the report).
    static let lastCodec = Locked<String?>(nil)

    /// What the media-configure handler needs.
    final class Target: Sendable {
        let onSample: @Sendable (Sample) -> Void
        init(onSample: @escaping @Sendable (Sample) -> Void) { self.onSample = onSample }
    }
    private static let targets = Locked((next: UInt(1), targets: [UInt: Target]()))

    init(url: String, onSample: @escaping @Sendable (Sample) -> Void) throws(PublishError) {
        guard let components = URLComponents(string: url), let host = components.host else {
            throw .badURL("\"\(PublishTarget.redacted(url))\" is not an rtsp:// URL")
        }
        let port = components.port ?? 554
        let path = components.path.isEmpty ? "/" : components.path
        guard let address = PublishAddress.parse(host) else {
            throw .badURL("--listen needs an IP address to listen on (such as 127.0.0.1), not \"\(host)\"")
        }
        context = g_main_context_new()
        loop = g_main_loop_new(context, 0)
        server = gst_rtsp_server_new()
        gst_rtsp_server_set_address(server, address)
        gst_rtsp_server_set_service(server, "\(port)")
        let factory = gst_rtsp_media_factory_new()
        gst_rtsp_media_factory_set_transport_mode(factory, GST_RTSP_TRANSPORT_MODE_RECORD)
        // The depayloader is decodebin (gst-rtsp-server's own record example does the same): any codec.
        var graph = GraphDescription()
        graph.chain(graph.add("decodebin", name: "depay0"),
                    graph.add("appsink", name: "sink", ["sync": false, "max-buffers": 2, "drop": true, "caps": .caps(CapsDescription("video/x-raw"))]))
        gst_rtsp_media_factory_set_launch(factory, "( \(graph.launchText) )")
        gst_rtsp_media_factory_set_latency(factory, 200)
        targetID = Self.targets.withLock { state in
            defer { state.next += 1 }
            state.targets[state.next] = Target(onSample: onSample)
            return state.next
        }
        let configure: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<GstRTSPMedia>?, UnsafeMutableRawPointer?) -> Void = { _, media, data in
            guard let media, let data, let target = RecordServer.targets.withLock({ $0.targets[UInt(bitPattern: data)] }),
                  let element = gst_rtsp_media_get_element(media) else { return }
            defer { gst_object_unref(element) }
            let bin = Bin(retaining: UnsafeMutableRawPointer(element).assumingMemoryBound(to: GstElement.self))
            guard let sink = bin.element(named: "sink", as: AppSink.self) else { return }
            let onSample = target.onSample
            let noted = Atomic<Bool>(false)
            sink.onSample { sample in
                if !noted.exchange(true, ordering: .relaxed) { RecordServer.lastCodec.withLock { $0 = StreamCheck.codec(in: bin) } }
                onSample(sample)
            }
        }
        g_signal_connect_data(UnsafeMutableRawPointer(factory), "media-configure", unsafeBitCast(configure, to: GCallback.self),
                              UnsafeMutableRawPointer(bitPattern: targetID), nil, GConnectFlags(0))
        let mounts = gst_rtsp_server_get_mount_points(server)
        gst_rtsp_mount_points_add_factory(mounts, path, factory)
        g_object_unref(mounts)
        sourceID = gst_rtsp_server_attach(server, context)
        guard sourceID != 0 else {
            g_object_unref(server)
            g_main_loop_unref(loop)
            g_main_context_unref(context)
            throw .cannotListen(address: address, port: port, reason: "in use, or not an address of this machine")
        }
        let main = RecordLoop(context: context, loop: loop), finished = finished
        let thread = Thread {
            g_main_context_push_thread_default(main.context)
            g_main_loop_run(main.loop)
            g_main_context_pop_thread_default(main.context)
            finished.signal()
        }
        thread.name = "swiftcam-rtsp-record"
        thread.start()
    }

    func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        CGstRTSPServer_remove_source(context, sourceID)
        CGstRTSPServer_close_all_clients(server)
        CGstRTSPServer_quit_loop(context, loop)
        finished.wait()
        _ = Self.targets.withLock { $0.targets.removeValue(forKey: targetID) }
    }

    deinit {
        stop()
        g_object_unref(server)
        g_main_loop_unref(loop)
        g_main_context_unref(context)
    }
}

private struct RecordLoop: @unchecked Sendable {
    let context: OpaquePointer
    let loop: OpaquePointer
}
