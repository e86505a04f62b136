public import Capture

/// What a running host reports on `/metrics`: the session's counters, the browser viewers and what it publishes. The
/// host fills it at each scrape (`WebServer`'s `metrics` source); `families` names and types each figure.
public struct HostMetrics: Sendable, Equatable {
    /// The session's counters and the recordings' and storage's.
    public var session: SessionMetrics
    /// Browser viewers now, by kind (`webrtc`, `mjpeg`).
    public var viewers: [String: Int]
    /// Each output beyond this machine (the RTSP server, the pushes).
    public var publish: [PublishMetrics]
    /// WebRTC viewers now, by the codec their answer chose (`h264`, `vp8`, `vp9`; `negotiating` until it came).
    public var webrtcCodecs: [String: Int] = [:]

    public init(session: SessionMetrics, viewers: [String: Int] = ["webrtc": 0, "mjpeg": 0], publish: [PublishMetrics] = []) {
        (self.session, self.viewers, self.publish) = (session, viewers, publish)
    }

    /// One output: `rtsp` (the server) or `push`, where it stands, its clients, failures and frames sent.
    public struct PublishMetrics: Sendable, Equatable {
        /// `rtsp` or `push`.
        public var output: String
        /// `serving` for the RTSP server; `connecting`, `connected`, `retrying` or `stopped` for a push.
        public var state: String
        /// The states `state` can take, each written as a sample (1 for the one now, 0 for the others).
        public var states: [String]
        /// Clients reading now (the RTSP server; 1 for a connected push).
        public var clients: Int
        /// Attempts that failed (a push's connection errors).
        public var failures: Int
        /// Frames handed to the output.
        public var framesSent: Int

        /// The RTSP server, always `serving`.
        public static func rtspServer(clients: Int, framesSent: Int) -> PublishMetrics {
            PublishMetrics(output: "rtsp", state: "serving", states: ["serving"], clients: clients, failures: 0, framesSent: framesSent)
        }

        /// A push in `state` (`connecting`, `connected`, `retrying` or `stopped`); a connected push is one client.
        /// `output` names it: `push` for `publish.to`, `rtmp` (then `rtmp-2`, …) for each RTMP ingest.
        public static func push(output: String = "push", state: String, failures: Int, framesSent: Int) -> PublishMetrics {
            PublishMetrics(
                output: output, state: state, states: ["connecting", "connected", "retrying", "stopped"],
                clients: state == "connected" ? 1 : 0, failures: failures, framesSent: framesSent)
        }
    }

    /// The status names a session can have, each written as a sample of `swiftcam_status`.
    static let statuses = ["configured", "unconfigured", "unauthorized", "failed", "busy"]

    /// The families, named by Prometheus's conventions: the `swiftcam_` prefix, `_total` on counters, base units
    /// (`_seconds`, `_bytes`), states and facts as labels.
    public var families: [MetricFamily] {
        typealias Sample = MetricFamily.Sample
        typealias Label = MetricFamily.Label
        let s = session, storage = session.storage
        func count(_ value: Int) -> Double { Double(value) }
        func byKey(_ counts: [String: Int]) -> [(String, Double)] { counts.keys.sorted().map { ($0, count(counts[$0] ?? 0)) } }
        func perOutput(_ value: (PublishMetrics) -> Int) -> [(String, Double)] { publish.map { ($0.output, count(value($0))) } }
        let statuses = Self.statuses.contains(s.status) ? Self.statuses : Self.statuses + [s.status]
        var families: [MetricFamily] = [
            .counter("swiftcam_frames_in_total", "Frames that reached the filter.", s.framesIn),
            .counter("swiftcam_frames_out_total", "Frames that left the filter.", s.framesOut),
            .init(
                name: "swiftcam_frames_dropped_total",
                help:
                    "Frames dropped, by cause: queue (a branch fell behind), qos (late before filtering), source (the driver's sequence gaps).",
                kind: .counter, label: "cause", values: byKey(s.drops)),
            .init(
                name: "swiftcam_filter_duration_seconds", help: "Time the filter chain spent on frames.", kind: .summary,
                samples: [Sample(suffix: "_sum", value: s.filterSeconds), Sample(suffix: "_count", value: count(s.filterFrames))]),
            .gauge("swiftcam_filter_slowest_frame_seconds", "The filter's slowest frame since the graph started.", s.filterMaxSeconds),
            .stateSet(
                "swiftcam_status", "The session's status: 1 for the status now, 0 for the others.", label: "status", states: statuses,
                current: s.status),
            .gauge("swiftcam_uptime_seconds", "Seconds since the graph now playing started.", s.uptime),
            .counter("swiftcam_restarts_total", "Times the graph was restarted after a camera failed or stalled.", s.restarts),
            .counter("swiftcam_stills_total", "Stills written.", s.stills),
            .gauge("swiftcam_recording_active", "1 while a recording is being written.", s.recording ? 1 : 0),
            .counter("swiftcam_recording_bytes_total", "Bytes written into recordings.", storage.recordingBytes),
            .counter("swiftcam_recordings_total", "Recording files finished.", storage.recordingsWritten),
            .counter("swiftcam_recording_segments_total", "Segments of continuous recordings closed.", storage.segmentsWritten),
            .counter("swiftcam_storage_deletions_total", "Files deleted to keep within the storage budget.", storage.deletions),
            .init(
                name: "swiftcam_viewers", help: "Browser viewers now, by kind (webrtc, mjpeg).", kind: .gauge, label: "kind",
                values: byKey(viewers)),
            .init(
                name: "swiftcam_encoder_info",
                help: "The encoder of each stream (video, mjpeg: running or next; record: while recording): element and codec.",
                kind: .gauge,
                samples: s.encoders.map {
                    let labels = [("use", $0.use), ("element", $0.element), ("codec", $0.codec)]
                    return Sample(labels: labels.map { Label(name: $0.0, value: $0.1) }, value: 1)
                }),
            .init(
                name: "swiftcam_webrtc_viewers", help: "WebRTC viewers now, by the codec their answer chose (negotiating until it came).",
                kind: .gauge, label: "codec", values: byKey(webrtcCodecs)),
            .init(
                name: "swiftcam_live_keyframes_forced_total",
                help: "Key frames the shared live encoder was made to give: a viewer joining, a PLI or FIR (at most 2 a second).",
                kind: .counter, label: "stream", values: byKey(s.keyFramesForced)),
            .init(
                name: "swiftcam_publish_state", help: "Where each output (rtsp, push) stands: 1 for the state now, 0 for the others.",
                kind: .gauge,
                samples: publish.flatMap { output in
                    output.states.map {
                        Sample(
                            labels: [Label(name: "output", value: output.output), Label(name: "state", value: $0)],
                            value: $0 == output.state ? 1 : 0)
                    }
                }),
            .init(
                name: "swiftcam_publish_clients", help: "Clients reading each output now.", kind: .gauge, label: "output",
                values: perOutput(\.clients)),
            .init(
                name: "swiftcam_publish_failures_total", help: "Connection attempts of each output that failed.", kind: .counter,
                label: "output", values: perOutput(\.failures)),
            .init(
                name: "swiftcam_publish_frames_total", help: "Encoded frames handed to each output.", kind: .counter, label: "output",
                values: perOutput(\.framesSent))
        ]
        if !s.analysis.isEmpty {
            families.append(
                .init(
                    name: "swiftcam_analysis_frames_total",
                    help: "Frames offered to each analyser, by outcome: analysed, or dropped because it was busy with an earlier one.",
                    kind: .counter,
                    samples: s.analysis.flatMap { analyser in
                        [
                            Sample(
                                labels: [Label(name: "analyzer", value: analyser.name), Label(name: "outcome", value: "analysed")],
                                value: count(analyser.analysed)),
                            Sample(
                                labels: [Label(name: "analyzer", value: analyser.name), Label(name: "outcome", value: "dropped")],
                                value: count(analyser.dropped))
                        ]
                    }))
            families.append(
                .init(
                    name: "swiftcam_events_total", help: "Analysis events, by name (motion start, motion end).", kind: .counter,
                    label: "event", values: byKey(s.events)))
        }
        if let bytes = s.preRollBytes {
            families.append(
                .gauge("swiftcam_preroll_bytes", "Encoded bytes the pre-roll ring of recordings on events holds.", count(bytes)))
        }
        if let used = storage.usedBytes {
            families.append(
                .gauge("swiftcam_storage_used_bytes", "Bytes the stills and recordings in the capture folders take.", count(used)))
        }
        if let free = storage.freeBytes {
            families.append(.gauge("swiftcam_storage_free_bytes", "Bytes free on the file system of the recordings folder.", count(free)))
        }
        return families
    }

    /// The text `/metrics` answers.
    public var text: String { MetricsText.render(families) }
}
