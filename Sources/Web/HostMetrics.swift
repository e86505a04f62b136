public import Capture

/// What a running host reports on `/metrics`: the session's counters, the browser viewers and what it publishes. The
/// host fills it at each scrape (`WebServer`'s `metrics` source); `families` names and types each figure.
public struct HostMetrics: Sendable, Equatable {
    /// The session's counters and the recordings' and storage's.
    public var session: SessionMetrics
    /// Browser viewers now, by kind (`webrtc`, `mjpeg`).
    public var viewers: [String: Int]
    /// Each output beyond this machine (the RTSP server, a push).
    public var publish: [PublishMetrics]

    public init(session: SessionMetrics, viewers: [String: Int] = ["webrtc": 0, "mjpeg": 0], publish: [PublishMetrics] = []) {
        self.session = session
        self.viewers = viewers
        self.publish = publish
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
        public static func push(state: String, failures: Int, framesSent: Int) -> PublishMetrics {
            PublishMetrics(
                output: "push", state: state, states: ["connecting", "connected", "retrying", "stopped"],
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
        var families: [MetricFamily] = [
            .init(name: "swiftcam_frames_in_total", help: "Frames that reached the filter.", kind: .counter, value: count(s.framesIn)),
            .init(name: "swiftcam_frames_out_total", help: "Frames that left the filter.", kind: .counter, value: count(s.framesOut)),
            .init(
                name: "swiftcam_frames_dropped_total",
                help:
                    "Frames dropped, by cause: queue (a branch fell behind), qos (late before filtering), source (the driver's sequence gaps).",
                kind: .counter,
                samples: s.drops.keys.sorted().map { Sample(labels: [Label(name: "cause", value: $0)], value: count(s.drops[$0] ?? 0)) }),
            .init(
                name: "swiftcam_filter_duration_seconds", help: "Time the filter chain spent on frames.", kind: .summary,
                samples: [Sample(suffix: "_sum", value: s.filterSeconds), Sample(suffix: "_count", value: count(s.filterFrames))]),
            .init(
                name: "swiftcam_filter_slowest_frame_seconds", help: "The filter's slowest frame since the graph started.",
                kind: .gauge, value: s.filterMaxSeconds),
            .init(
                name: "swiftcam_status", help: "The session's status: 1 for the status now, 0 for the others.", kind: .gauge,
                samples: (Self.statuses.contains(s.status) ? Self.statuses : Self.statuses + [s.status]).map {
                    Sample(labels: [Label(name: "status", value: $0)], value: $0 == s.status ? 1 : 0)
                }),
            .init(name: "swiftcam_uptime_seconds", help: "Seconds since the graph now playing started.", kind: .gauge, value: s.uptime),
            .init(
                name: "swiftcam_restarts_total", help: "Times the graph was restarted after a camera failed or stalled.",
                kind: .counter, value: count(s.restarts)),
            .init(name: "swiftcam_stills_total", help: "Stills written.", kind: .counter, value: count(s.stills)),
            .init(
                name: "swiftcam_recording_active", help: "1 while a recording is being written.", kind: .gauge, value: s.recording ? 1 : 0),
            .init(
                name: "swiftcam_recording_bytes_total", help: "Bytes written into recordings.", kind: .counter,
                value: count(storage.recordingBytes)),
            .init(
                name: "swiftcam_recordings_total", help: "Recording files finished.", kind: .counter,
                value: count(storage.recordingsWritten)),
            .init(
                name: "swiftcam_recording_segments_total", help: "Segments of continuous recordings closed.", kind: .counter,
                value: count(storage.segmentsWritten)),
            .init(
                name: "swiftcam_storage_deletions_total", help: "Files deleted to keep within the storage budget.", kind: .counter,
                value: count(storage.deletions)),
            .init(
                name: "swiftcam_viewers", help: "Browser viewers now, by kind (webrtc, mjpeg).", kind: .gauge,
                samples: viewers.keys.sorted().map { Sample(labels: [Label(name: "kind", value: $0)], value: count(viewers[$0] ?? 0)) }),
            .init(
                name: "swiftcam_encoder_info",
                help: "The encoder of each stream (video, mjpeg: running or next; record: while recording): element and codec.",
                kind: .gauge,
                samples: s.encoders.map {
                    Sample(
                        labels: [
                            Label(name: "use", value: $0.use), Label(name: "element", value: $0.element),
                            Label(name: "codec", value: $0.codec)
                        ], value: 1)
                }),
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
                name: "swiftcam_publish_clients", help: "Clients reading each output now.", kind: .gauge,
                samples: publish.map { Sample(labels: [Label(name: "output", value: $0.output)], value: count($0.clients)) }),
            .init(
                name: "swiftcam_publish_failures_total", help: "Connection attempts of each output that failed.", kind: .counter,
                samples: publish.map { Sample(labels: [Label(name: "output", value: $0.output)], value: count($0.failures)) }),
            .init(
                name: "swiftcam_publish_frames_total", help: "Encoded frames handed to each output.", kind: .counter,
                samples: publish.map { Sample(labels: [Label(name: "output", value: $0.output)], value: count($0.framesSent)) })
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
                    samples: s.events.keys.sorted().map {
                        Sample(labels: [Label(name: "event", value: $0)], value: count(s.events[$0] ?? 0))
                    }))
        }
        if let bytes = s.preRollBytes {
            families.append(
                .init(
                    name: "swiftcam_preroll_bytes", help: "Encoded bytes the pre-roll ring of recordings on events holds.",
                    kind: .gauge, value: count(bytes)))
        }
        if let used = storage.usedBytes {
            families.append(
                .init(
                    name: "swiftcam_storage_used_bytes", help: "Bytes the stills and recordings in the capture folders take.",
                    kind: .gauge, value: count(used)))
        }
        if let free = storage.freeBytes {
            families.append(
                .init(
                    name: "swiftcam_storage_free_bytes", help: "Bytes free on the file system of the recordings folder.",
                    kind: .gauge, value: count(free)))
        }
        return families
    }

    /// The text `/metrics` answers.
    public var text: String { MetricsText.render(families) }
}
