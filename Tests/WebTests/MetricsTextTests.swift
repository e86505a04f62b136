import Testing

@testable import Capture
@testable import Web

/// The exposition writer: Prometheus's text format 0.0.4, read back by a scraper whatever the names and values hold.
struct MetricsTextTests {
    typealias Family = MetricFamily
    typealias Sample = MetricFamily.Sample
    typealias Label = MetricFamily.Label

    @Test func eachFamilyHasHelpTypeAndItsSamples() {
        let text = MetricsText.render([
            Family(name: "swiftcam_frames_in_total", help: "Frames in.", kind: .counter, value: 42),
            Family(
                name: "swiftcam_filter_duration_seconds", help: "Filter time.", kind: .summary,
                samples: [Sample(suffix: "_sum", value: 0.25), Sample(suffix: "_count", value: 10)])
        ])
        #expect(
            text == """
                # HELP swiftcam_filter_duration_seconds Filter time.
                # TYPE swiftcam_filter_duration_seconds summary
                swiftcam_filter_duration_seconds_sum 0.25
                swiftcam_filter_duration_seconds_count 10
                # HELP swiftcam_frames_in_total Frames in.
                # TYPE swiftcam_frames_in_total counter
                swiftcam_frames_in_total 42

                """)
    }

    /// Families sorted by name; one given twice is written once, its samples together, in the order given.
    @Test func familiesAreSortedAndMerged() {
        let text = MetricsText.render([
            Family(name: "b_gauge", help: "B.", kind: .gauge, samples: [Sample(labels: [Label(name: "kind", value: "z")], value: 1)]),
            Family(name: "a_total", help: "A.", kind: .counter, value: 1),
            Family(name: "b_gauge", help: "B again.", kind: .gauge, samples: [Sample(labels: [Label(name: "kind", value: "a")], value: 2)])
        ])
        let lines = text.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "# HELP a_total A.", "# TYPE a_total counter", "a_total 1",
                "# HELP b_gauge B.", "# TYPE b_gauge gauge", "b_gauge{kind=\"z\"} 1", "b_gauge{kind=\"a\"} 2"
            ])
        #expect(lines.filter { $0.hasPrefix("# TYPE b_gauge") }.count == 1)
    }

    @Test func labelValuesAndHelpAreEscaped() {
        let text = MetricsText.render([
            Family(
                name: "swiftcam_encoder_info", help: "Back\\slash and\nnew line.", kind: .gauge,
                samples: [Sample(labels: [Label(name: "element", value: "a\"b\\c\nd\r\ne"), Label(name: "codec", value: "h264")], value: 1)]
            )
        ])
        #expect(text.contains("# HELP swiftcam_encoder_info Back\\\\slash and\\nnew line.\n"))
        #expect(text.contains("swiftcam_encoder_info{element=\"a\\\"b\\\\c\\nd\r\\ne\",codec=\"h264\"} 1\n"))
        // Every line break in the text ends a line of the format: none comes from a value.
        #expect(text.split(separator: "\n", omittingEmptySubsequences: false).count == 4)
    }

    @Test func namesAreMadeValid() {
        let text = MetricsText.render([
            Family(
                name: "9 bad-name.é", help: "x", kind: .untyped, samples: [Sample(labels: [Label(name: "la-bel:x", value: "v")], value: 1)])
        ])
        #expect(text == "# HELP _9_bad_name__ x\n# TYPE _9_bad_name__ untyped\n_9_bad_name__{la_bel_x=\"v\"} 1\n")
    }

    @Test(arguments: [
        (0.0, "0"), (3.0, "3"), (-2.0, "-2"), (0.5, "0.5"), (1e20, "1e+20"), (Double.nan, "NaN"),
        (Double.infinity, "+Inf"), (-Double.infinity, "-Inf")
    ])
    func numbers(value: Double, text: String) {
        #expect(MetricsText.number(value) == text)
    }

    /// The host's families: every status and viewer kind written, the status now 1 and the others 0, units in the names.
    @Test func hostFamiliesFollowTheConventions() {
        var host = HostMetrics(
            session: .init(
                status: "unconfigured", framesIn: 5, framesOut: 4, drops: ["queue": 1, "qos": 0, "source": 2],
                filterFrames: 4, filterSeconds: 0.01, filterMaxSeconds: 0.004, stills: 1, recording: true,
                storage: StorageMetrics(recordingBytes: 100, recordingsWritten: 1, usedBytes: 7, freeBytes: 8),
                encoders: [.init(use: "record", element: "jpegenc", codec: "jpeg")], restarts: 0, uptime: 1.5))
        host.publish = [
            .init(
                output: "push", state: "retrying", states: ["connecting", "connected", "retrying"], clients: 0, failures: 3,
                framesSent: 0)
        ]
        let text = host.text
        for line in [
            "swiftcam_status{status=\"unconfigured\"} 1", "swiftcam_status{status=\"configured\"} 0",
            "swiftcam_frames_dropped_total{cause=\"source\"} 2", "swiftcam_viewers{kind=\"mjpeg\"} 0",
            "swiftcam_encoder_info{use=\"record\",element=\"jpegenc\",codec=\"jpeg\"} 1",
            "swiftcam_publish_state{output=\"push\",state=\"retrying\"} 1", "swiftcam_publish_failures_total{output=\"push\"} 3",
            "swiftcam_recording_bytes_total 100", "swiftcam_storage_free_bytes 8", "swiftcam_filter_duration_seconds_count 4"
        ] {
            #expect(text.contains(line + "\n"), "missing \(line)")
        }
        for family in host.families {
            #expect(family.name.hasPrefix("swiftcam_"))
            #expect((family.kind == .counter) == family.name.hasSuffix("_total"), "\(family.name)")
        }
    }

    /// Analysers' frames by outcome, events by name and the pre-roll ring, only when the session has them.
    @Test func analysisFamilies() {
        var session = SessionMetrics(
            status: "configured", framesIn: 5, framesOut: 5, drops: [:], filterFrames: 5, filterSeconds: 0,
            filterMaxSeconds: 0, stills: 0, recording: false, storage: StorageMetrics(), encoders: [],
            restarts: 0, uptime: 1)
        #expect(!HostMetrics(session: session).text.contains("swiftcam_analysis"))
        session.analysis = [AnalyzerStats(name: "motion", frames: 30, analysed: 12, dropped: 18, unreadable: 0, events: 2)]
        session.events = ["motion start": 1, "motion end": 1]
        session.preRollBytes = 1_500_000
        let text = HostMetrics(session: session).text
        for line in [
            "swiftcam_analysis_frames_total{analyzer=\"motion\",outcome=\"analysed\"} 12",
            "swiftcam_analysis_frames_total{analyzer=\"motion\",outcome=\"dropped\"} 18",
            "swiftcam_events_total{event=\"motion start\"} 1", "swiftcam_preroll_bytes 1500000"
        ] {
            #expect(text.contains(line + "\n"), "missing \(line)")
        }
    }
}
