import Base
import CGstRTSPServer
import Capture
import Config
import FoundationEssentials
import GStreamer
import Synchronization

/// An RTSP server that takes RECORD (a push from `rtspclientsink`, ffmpeg, OBS…) at one path and hands each
/// decoded frame to Swift: `publish-check --listen rtsp://…`, a stand-in for a media server.
/// Unchecked Sendable: every field is immutable after `init` (the GStreamer objects are reference-counted and
/// thread-safe), and `stop` runs its teardown once, guarded by the atomic `stopped`.
final class RecordServer: @unchecked Sendable {
    private let thread = MainContextThread(name: "swiftcam-rtsp-record")
    private let server: ObjectReference
    private let sourceID: guint
    private let connection: SignalConnection
    private let stopped = Atomic<Bool>(false)
    /// The codec of the last stream pushed (for the report).
    static let lastCodec = Locked<String?>(nil)

    /// What the media-configure handler needs.
    final class Target: Sendable {
        let onSample: @Sendable (Sample) -> Void
        init(onSample: @escaping @Sendable (Sample) -> Void) { self.onSample = onSample }
    }

    init(url: String, onSample: @escaping @Sendable (Sample) -> Void) throws(PublishError) {
        guard let components = URLComponents(string: url), let host = components.host else {
            throw .badURL("\"\(PublishTarget.redacted(url))\" is not an rtsp:// URL")
        }
        let port = components.port ?? 554
        let path = components.path.isEmpty ? "/" : components.path
        guard let address = PublishAddress.parse(host) else {
            throw .badURL("--listen needs an IP address to listen on (such as 127.0.0.1), not \"\(host)\"")
        }
        let serverReference = ObjectReference(adopting: gst_rtsp_server_new())
        server = serverReference
        let server = serverReference.pointer(to: GstRTSPServer.self)
        gst_rtsp_server_set_address(server, address)
        gst_rtsp_server_set_service(server, "\(port)")
        let factory = gst_rtsp_media_factory_new()
        gst_rtsp_media_factory_set_transport_mode(factory, GST_RTSP_TRANSPORT_MODE_RECORD)
        // The depayloader is decodebin (gst-rtsp-server's own record example does the same): any codec.
        var graph = GraphDescription()
        graph.chain(
            graph.add("decodebin", name: "depay0"),
            graph.add(
                "appsink", name: "sink", ["sync": false, "max-buffers": 2, "drop": true, "caps": .caps(CapsDescription("video/x-raw"))]))
        gst_rtsp_media_factory_set_launch(factory, "( \(graph.launchText) )")
        gst_rtsp_media_factory_set_latency(factory, 200)
        let configure: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = {
            _, media, data in
            guard let media, let target = SignalConnection.handler(data, as: Target.self),
                let element = gst_rtsp_media_get_element(media.assumingMemoryBound(to: GstRTSPMedia.self))
            else { return }
            let bin = Bin(adopting: element)
            guard let sink = bin.element(named: "sink", as: AppSink.self) else { return }
            let onSample = target.onSample
            let noted = Atomic<Bool>(false)
            sink.onSample { sample in
                if !noted.exchange(true, ordering: .relaxed) { RecordServer.lastCodec.withLock { $0 = StreamCheck.codec(in: bin) } }
                onSample(sample)
            }
        }
        do {
            connection = try SignalConnection(
                to: UnsafeMutableRawPointer(factory!), signal: "media-configure",
                handler: Target(onSample: onSample), trampoline: configure)
        } catch {
            throw .setup(error.description)
        }
        let mounts = ObjectReference(adopting: gst_rtsp_server_get_mount_points(server))
        defer { withExtendedLifetime(mounts) {} }
        // The mount points take over the factory (transfer full).
        gst_rtsp_mount_points_add_factory(mounts.pointer(to: GstRTSPMountPoints.self), path, factory)
        sourceID = gst_rtsp_server_attach(server, thread.context)
        guard sourceID != 0 else {
            throw .cannotListen(address: address, port: port, reason: "in use, or not an address of this machine")
        }
        thread.start()
    }

    func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        CGstRTSPServer_remove_source(thread.context, sourceID)
        CGstRTSPServer_close_all_clients(server.pointer(to: GstRTSPServer.self))
        thread.stop()
        connection.disconnect()
    }

    deinit {
        stop()
    }
}
