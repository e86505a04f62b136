public import Filters

/// One thing the bench times: a pipeline fragment between `appsrc` and `fakesink`, or a plain memcpy.
public struct BenchmarkVariant: Sendable, Hashable, Codable {
    /// What the table and JSON call it, e.g. "coloreffects preset=sepia".
    public var label: String
    /// The GStreamer format of the frames pushed into it, e.g. "RGBA".
    public var input: String
    /// The gst-launch text between `appsrc` and `fakesink sync=false`; nil for a memcpy or a libyuv call.
    public var pipeline: String?
    /// A libyuv function called on each frame in this process (`LibYUV`), e.g. "ARGBSepia"; nil otherwise.
    public var library: String?
    /// For a copy split over threads: how many (Filters' row bands and worker pool); nil for everything else.
    public var copyThreads: Int?
    /// For a chain run in this process on one SIMD path (`filters(_:input:path:)`): the chain text; nil otherwise.
    public var chain: String?
    /// The SIMD path that chain is compiled for, as Filters prints it ("portable", "SSE2", "AVX2", "AVX-512").
    public var simdPath: String?
    /// Frame analysis work called on each frame in this process: `motion` (the motion detector on the luma plane),
    /// `luma-copy` (a memcpy of the luma plane alone), `preroll` (the pre-roll ring taking a 2 Mbit/s stream's frames).
    public var analysis: String?

    /// A pipeline fragment fed `input` frames.
    public init(_ label: String, input: String, pipeline: String) {
        self.label = label
        self.input = input
        self.pipeline = pipeline
    }

    /// A memcpy of each `input` frame into one destination, in this process: the floor no filter can beat.
    public static func memcpy(_ input: String) -> BenchmarkVariant {
        BenchmarkVariant(label: "memcpy", input: input, pipeline: nil)
    }

    /// Each `input` frame copied into one destination by `threads` threads, the rows split as a point filter splits
    /// them (an empty chain compiled for `threads`): how far memory bandwidth lets a pass over the frame scale.
    public static func memcpy(_ input: String, threads: Int) -> BenchmarkVariant {
        BenchmarkVariant(label: "memcpy in \(threads) row bands", input: input, pipeline: nil, copyThreads: max(threads, 1))
    }

    init(
        label: String, input: String, pipeline: String?, library: String? = nil, copyThreads: Int? = nil, chain: String? = nil,
        simdPath: String? = nil, analysis: String? = nil
    ) {
        self.label = label
        self.input = input
        self.pipeline = pipeline
        self.library = library
        self.copyThreads = copyThreads
        self.chain = chain
        self.simdPath = simdPath
        self.analysis = analysis
    }

    /// `chain` compiled for one thread on `path` and run on each `input` frame in this process (no pipeline): the
    /// rows per SIMD path, every path this machine has in one run.
    public static func filters(_ chain: String, input: String = "RGBA", path: SIMDPath) -> BenchmarkVariant {
        BenchmarkVariant(label: "Filters \(chain) on \(path)", input: input, pipeline: nil, chain: chain, simdPath: path.description)
    }

    /// The motion detector (default settings) on each `input` frame's luma plane.
    public static func motion(_ input: String = "NV12") -> BenchmarkVariant {
        BenchmarkVariant(label: "motion analysis", input: input, pipeline: nil, analysis: "motion")
    }

    /// A memcpy of each `input` frame's luma plane: what handing the luma to an analyser costs at least.
    public static func lumaCopy(_ input: String = "NV12") -> BenchmarkVariant {
        BenchmarkVariant(label: "memcpy of the luma plane", input: input, pipeline: nil, analysis: "luma-copy")
    }

    /// The pre-roll ring (5 s) taking a modelled 2 Mbit/s, 30 fps stream with a key frame each second; the row
    /// also says the bytes the ring held at most.
    public static func preRoll(_ input: String = "NV12") -> BenchmarkVariant {
        BenchmarkVariant(label: "pre-roll ring append", input: input, pipeline: nil, analysis: "preroll")
    }

    /// libyuv's `function` on each `input` frame, loaded with `dlopen` (skipped when libyuv0 is absent).
    public static func libyuv(_ function: String, _ input: String = "RGBA") -> BenchmarkVariant {
        BenchmarkVariant(
            label: "libyuv \(function)" + (function.hasSuffix("Sepia") || function.hasSuffix("Gray") ? " (in place)" : ""),
            input: input, pipeline: nil, library: function)
    }

    /// `appsrc ! identity ! fakesink` for `input` frames: the cost every pipeline variant has taken off.
    public static func baseline(_ input: String) -> BenchmarkVariant {
        BenchmarkVariant("identity (baseline)", input: input, pipeline: "identity")
    }

    /// `swiftfilter chain="…" n-threads=N` on `input` frames.
    public static func swiftfilter(_ chain: String, input: String, threads: Int = 1) -> BenchmarkVariant {
        BenchmarkVariant(
            "swiftfilter \(chain)" + (threads == 1 ? "" : " n-threads=\(threads)"), input: input,
            pipeline: swiftfilterElement(chain, threads: threads))
    }

    /// The gst-launch text of one `swiftfilter`.
    public static func swiftfilterElement(_ chain: String, threads: Int = 1) -> String {
        "swiftfilter n-threads=\(threads) chain=\"\(chain)\""
    }

    /// The element factories the fragment needs, in order (caps filters left out).
    public var factories: [String] {
        guard let pipeline else { return [] }
        var names: [String] = []
        var quoted = false
        var segment = ""
        for character in pipeline + "!" {
            if character == "\"" { quoted.toggle() }
            if character == "!" && !quoted {
                let word = segment.split(separator: " ").first.map(String.init) ?? ""
                if !word.isEmpty, !word.contains("/"), !names.contains(word) { names.append(word) }
                segment = ""
            } else {
                segment.append(character)
            }
        }
        return names
    }
}

/// A row of the bench table: SwiftCam's way against GStreamer's own C elements (or another reference).
public struct BenchmarkCase: Sendable, Hashable {
    /// A stable key for scripts reading the JSON, e.g. "sepia", "nv12-roundtrip".
    public var id: String
    /// What the row says, e.g. "sepia vs coloreffects".
    public var title: String
    /// The SwiftCam column; nil for rows that only time a reference (e.g. a conversion alone).
    public var subject: BenchmarkVariant?
    /// The "C" column; nil for rows without a counterpart (memcpy).
    public var reference: BenchmarkVariant?

    /// A row; `subject` and `reference` should read the same frames (`input`) unless the title says otherwise.
    public init(id: String, title: String, subject: BenchmarkVariant?, reference: BenchmarkVariant?) {
        (self.id, self.title, self.subject, self.reference) = (id, title, subject, reference)
    }

    /// A row of a table of rows: `id`, `title`, `subject`, `reference`.
    init(_ id: String, _ title: String, _ subject: BenchmarkVariant?, _ reference: BenchmarkVariant?) {
        self.init(id: id, title: title, subject: subject, reference: reference)
    }

    /// Every variant of the row.
    public var variants: [BenchmarkVariant] { [subject, reference].compactMap { $0 } }
}

extension BenchmarkCase {
    /// The three-filter chain the bench compares, in SwiftCam's grammar.
    public static let chain3 = "sepia | colorcontrols contrast=1.2 saturation=0.8 | vignette"
    /// Its C counterpart.
    public static let chain3C = "coloreffects preset=sepia ! videobalance contrast=1.2 saturation=0.8 ! frei0r-filter-vignette"
    /// A six-filter chain with a C element for every link.
    public static let chain6 = "gamma value=1.2 | colorcontrols contrast=1.2 saturation=0.8 | sepia | vignette | mirror | invert"
    /// Its C counterpart, element for element.
    public static let chain6C =
        "gamma gamma=1.2 ! videobalance contrast=1.2 saturation=0.8 ! coloreffects preset=sepia"
        + " ! frei0r-filter-vignette ! videoflip method=horizontal-flip ! frei0r-filter-invert0r"

    /// The standard cases. SwiftCam runs on one thread in every comparison (GStreamer's C filters are
    /// single-threaded); the scaling rows compare `cores` threads with one.
    public static func standard(cores: Int) -> [BenchmarkCase] {
        func swift(_ chain: String, _ input: String = "RGBA", threads: Int = 1) -> BenchmarkVariant {
            .swiftfilter(chain, input: input, threads: threads)
        }
        func c(_ pipeline: String, _ input: String = "RGBA", label: String? = nil) -> BenchmarkVariant {
            BenchmarkVariant(label ?? pipeline, input: input, pipeline: pipeline)
        }
        let toAYUV = "videoconvert ! video/x-raw,format=AYUV"
        let toRGBA = "videoconvert ! video/x-raw,format=RGBA"
        let toNV12 = "videoconvert ! video/x-raw,format=NV12"
        let toI420 = "videoconvert ! video/x-raw,format=I420"
        let threads = max(cores, 1)
        func scaling(_ id: String, _ chain: String, _ input: String = "RGBA") -> BenchmarkCase {
            Self.scaling(id, chain, input, cores: cores)
        }
        return [
            BenchmarkCase("sepia", "sepia vs coloreffects", swift("sepia"), c("coloreffects preset=sepia")),
            BenchmarkCase(
                "colorcontrols", "colorcontrols vs videobalance", swift("colorcontrols brightness=0.1 contrast=1.2 saturation=0.8"),
                c("videobalance brightness=0.1 contrast=1.2 saturation=0.8")),
            BenchmarkCase("vignette", "vignette vs frei0r vignette", swift("vignette"), c("frei0r-filter-vignette")),
            BenchmarkCase(
                "blur", "blur radius=4 vs gaussianblur (+AYUV conv.)", swift("blur radius=4"),
                c("\(toAYUV) ! gaussianblur sigma=4 ! \(toRGBA)", label: "videoconvert ! AYUV ! gaussianblur sigma=4 ! videoconvert ! RGBA")
            ),
            BenchmarkCase(
                "blur-conversion", "  of which RGBA>AYUV>RGBA conv.", nil,
                c("\(toAYUV) ! \(toRGBA)", label: "videoconvert ! AYUV ! videoconvert ! RGBA")),
            BenchmarkCase("gaussianblur-ayuv", "  gaussianblur alone on AYUV", nil, c("gaussianblur sigma=4", "AYUV")),
            BenchmarkCase("edges", "edges vs frei0r sobel", swift("edges"), c("frei0r-filter-sobel")),
            BenchmarkCase("libyuv-sepia", "sepia vs libyuv", swift("sepia"), .libyuv("ARGBSepia")),
            BenchmarkCase(
                "libyuv-matrix", "colorcontrols vs libyuv matrix", swift("colorcontrols contrast=1.2 saturation=0.8"),
                .libyuv("ARGBColorMatrix")),
            BenchmarkCase("libyuv-gray", "mono vs libyuv gray", swift("mono"), .libyuv("ARGBGray")),
            BenchmarkCase("libyuv-mirror", "mirror vs libyuv", swift("mirror"), .libyuv("ARGBMirror")),
            BenchmarkCase("libyuv-mirror-i420", "mirror I420 vs libyuv", swift("mirror", "I420"), .libyuv("I420Mirror", "I420")),
            BenchmarkCase("chain3", "3-chain vs C chain", swift(chain3), c(chain3C)),
            BenchmarkCase("chain6", "6-chain vs C chain", swift(chain6), c(chain6C)),
            BenchmarkCase("memcpy-rgba", "memcpy RGBA frame (floor)", .memcpy("RGBA"), nil),
            BenchmarkCase(
                "nv12-roundtrip", "NV12 3-chain native vs via RGBA", swift(chain3, "NV12"),
                c(
                    "\(toRGBA) ! \(BenchmarkVariant.swiftfilterElement(chain3)) ! \(toNV12)", "NV12",
                    label: "videoconvert ! RGBA ! swiftfilter \(chain3) ! videoconvert ! NV12")),
            BenchmarkCase(
                "nv12-c-chain", "NV12 3-chain native vs C chain+conv.", swift(chain3, "NV12"),
                c("\(toRGBA) ! \(chain3C) ! \(toNV12)", "NV12", label: "videoconvert ! RGBA ! \(chain3C) ! videoconvert ! NV12")),
            BenchmarkCase(
                "nv12-conversion", "  of which NV12>RGBA>NV12 conv.", nil,
                c("\(toRGBA) ! \(toNV12)", "NV12", label: "videoconvert ! RGBA ! videoconvert ! NV12")),
            BenchmarkCase("memcpy-nv12", "memcpy NV12 frame (floor)", .memcpy("NV12"), nil),
            // Frame analysis: the motion detector against a copy of the plane it reads (speed-up over 1: it costs less).
            BenchmarkCase("motion-nv12", "motion analysis per NV12 frame vs luma memcpy", .motion(), .lumaCopy()),
            BenchmarkCase("preroll-memory", "pre-roll ring 5 s at 2 Mbit/s (held bytes)", .preRoll(), nil),
            // What an MJPEG camera costs: its 4:2:2 JPEG frames decoded and brought to I420, against a raw YUYV
            // camera's frames brought to I420 (the same path without the decoder).
            BenchmarkCase(
                "mjpeg-decode", "MJPEG camera: jpegdec vs raw YUY2",
                c("jpegdec ! \(toI420)", BenchmarkFrames.jpeg, label: "jpegdec ! videoconvert ! I420"),
                c(toI420, "YUY2", label: "raw YUY2: videoconvert ! I420")),
            scaling("chain3", chain3),
            scaling("blur", "blur radius=4"),
            scaling("sharpen", "sharpen"),
            scaling("edges", "edges"),
            scaling("zoom", "zoom factor=2"),
            scaling("pixelate", "pixelate"),
            scaling("mirror", "mirror"),
            scaling("nv12-chain3", chain3, "NV12"),
            // No filter can scale past what the memory does: the frames do not fit in the last-level cache.
            BenchmarkCase("scaling-memcpy", "memcpy \(threads) row bands vs 1", .memcpy("RGBA", threads: threads), .memcpy("RGBA"))
        ]
    }

    /// The main filters on every SIMD path this machine has, in this process (`swiftcam bench --paths`): each row a
    /// path against the SSE2 one (the portable path is held to 2× it), sepia on each path against libyuv, and the
    /// memcpy floor. Ids are "path-FILTER-PATH", e.g. "path-chain6-avx2".
    public static func paths(_ available: [SIMDPath] = SIMDPath.available) -> [BenchmarkCase] {
        let filters = [
            ("sepia", "sepia"), ("mono", "mono"), ("colorcontrols", "colorcontrols contrast=1.2 saturation=0.8"),
            ("vignette", "vignette"), ("blur", "blur radius=4"), ("edges", "edges"), ("chain3", chain3), ("chain6", chain6)
        ]
        let reference = available.contains(.sse2) ? SIMDPath.sse2 : nil
        func id(_ path: SIMDPath) -> String { path.description.lowercased().filter { $0 != "-" } }
        var cases = filters.flatMap { name, chain in
            available.map { path in
                BenchmarkCase(
                    id: "path-\(name)-\(id(path))", title: "\(name) on \(path)" + (reference == nil || path == reference ? "" : " vs SSE2"),
                    subject: .filters(chain, path: path),
                    reference: reference.flatMap { $0 == path ? nil : .filters(chain, path: $0) })
            }
        }
        cases += available.map { path in
            BenchmarkCase(
                id: "path-libyuv-sepia-\(id(path))", title: "sepia on \(path) vs libyuv",
                subject: .filters("sepia", path: path), reference: .libyuv("ARGBSepia"))
        }
        cases.append(BenchmarkCase(id: "memcpy-rgba", title: "memcpy RGBA frame (floor)", subject: .memcpy("RGBA"), reference: nil))
        return cases
    }

    /// A row timing `chain` on all cores (`n-threads=0`) against one thread.
    static func scaling(_ id: String, _ chain: String, _ input: String = "RGBA", cores: Int) -> BenchmarkCase {
        let threads = max(cores, 1)
        let name = chain == BenchmarkCase.chain3 ? "3-chain" : chain
        return BenchmarkCase(
            id: "scaling-\(id)", title: (input == "RGBA" ? "" : "\(input) ") + "\(name) \(threads) threads vs 1",
            subject: .swiftfilter(chain, input: input, threads: 0)
                .relabelled("swiftfilter \(chain) n-threads=0 (\(threads) cores)"),
            reference: .swiftfilter(chain, input: input))
    }
}

extension BenchmarkVariant {
    /// The same work under another label.
    func relabelled(_ label: String) -> BenchmarkVariant {
        var copy = self
        copy.label = label
        return copy
    }
}
