/// A filter of your own that maps each pixel by itself: it fuses into the compiled chain's single pass with the
/// built-in point filters (sepia, colour controls, gamma, LUTs …), however many of them surround it.
///
/// Give it a ``PointMap``: a colour matrix, a curve, per-channel curves, a `.cube` table, or any function of the
/// colour, which is sampled into a 3D table once when the chain is compiled.
public protocol PointFilter: Filter {
    /// What the filter does to one pixel, in normalized R'G'B' (0...1).
    var pointMap: PointMap { get }
}

extension PointFilter {
    /// The point map, lowered to the engine's fused point operations.
    public var kernel: FilterKernel { FilterKernel(pointMap.steps.map { .point($0.operation) }) }
}

/// A filter of your own that works on whole planes: neighbourhoods, geometry, anything a point map cannot say.
///
/// The chain hands it the frame in its own format (packed RGB in any byte order, I420, NV12 or YUY2), with per-plane
/// strides, scratch memory kept across frames and the row-parallel split. It runs as a pass of its own.
public protocol FrameFilter: Filter {
    /// Reads `input` and writes every visible byte of every plane of `output`: same format, size and colour
    /// description; the two never share memory. Called on the streaming thread: it must not trap.
    func apply(_ input: Frame, to output: Frame, context: FrameContext)
}

extension FrameFilter {
    /// The frame pass this filter lowers to.
    public var kernel: FilterKernel { FilterKernel(.frame(FrameFilterBox(filter: self))) }
}

/// What a frame filter gets besides pixels: scratch memory kept across frames and the chain's thread count.
public struct FrameContext {
    private let buffer: (Int, Int) -> UnsafeMutableRawPointer
    /// Worker threads the chain may use for this frame; 0 means one per core.
    public let threads: Int

    /// A context over `scratch` (slot, bytes) → memory; the chain makes these, and a plugin's C table forwards them.
    package init(threads: Int, scratch: @escaping (_ slot: Int, _ bytes: Int) -> UnsafeMutableRawPointer) {
        self.threads = max(0, threads)
        self.buffer = scratch
    }

    /// Slots a filter may use: 0..<100.
    public static let slots = 0..<100

    /// At least `bytes` bytes of 64-byte-aligned memory, the same block for `slot` every frame until a larger size is
    /// asked for; its contents are unspecified. Slots outside ``slots`` share the nearest one.
    public func scratch(_ slot: Int, bytes: Int) -> UnsafeMutableRawPointer {
        buffer(min(max(slot, Self.slots.lowerBound), Self.slots.upperBound - 1), max(0, bytes))
    }

    /// Runs `body` on bands of `0..<rows` across the chain's threads, each row in exactly one band, and returns when
    /// every band is done. Small frames run on this thread.
    public func forEachBand(rows: Int, samplesPerRow: Int, _ body: (_ rows: Range<Int>) -> Void) {
        guard rows > 0 else { return }
        let bands = RowParallel.bands(threads: threads, rows: rows, samples: rows * max(1, samplesPerRow))
        RowParallel.run(rows: rows, bands: bands) { _, band in body(band) }
    }
}

/// A per-pixel colour map for a ``PointFilter``, in normalized R'G'B' (0...1); consecutive ones fuse.
public struct PointMap: Sendable {
    /// One step as the engine and a plugin's C table see it.
    package enum Step: Sendable {
        /// An affine map that may depend on the frame's colour matrix (its luma weights).
        case matrix(@Sendable (ColorDescription) -> ColorMatrix)
        /// The same curve on R, G and B; on Y'CbCr frames it maps luma and keeps chroma.
        case curve(@Sendable (Double) -> Double)
        /// A 3D table, trilinear.
        case cube(Cube3D)

        var operation: PointOperation {
            switch self {
            case let .matrix(make): .affine { make($0).affine }
            case let .curve(f): .curve(f)
            case let .cube(cube): .lut3D(cube)
            }
        }
    }

    package let steps: [Step]

    package init(steps: [Step]) {
        self.steps = steps
    }

    /// Leaves every pixel as it is.
    public static let identity = PointMap(steps: [])

    /// `out = M·in + offset`, the matrix chosen for the frame's colour description (its luma weights), exact and
    /// fused with the built-in matrix filters into one.
    public static func matrix(_ make: @escaping @Sendable (ColorDescription) -> ColorMatrix) -> PointMap {
        PointMap(steps: [.matrix(make)])
    }

    /// `out = M·in + offset`.
    public static func matrix(_ matrix: ColorMatrix) -> PointMap {
        PointMap(steps: [.matrix { _ in matrix }])
    }

    /// The same curve on R, G and B, its input clamped to 0...1; on Y'CbCr frames it maps luma and keeps chroma.
    public static func curve(_ curve: @escaping @Sendable (Double) -> Double) -> PointMap {
        PointMap(steps: [.curve(curve)])
    }

    /// A 3D table, e.g. one read from a `.cube` file.
    public static func cube(_ cube: Cube3D) -> PointMap {
        PointMap(steps: [.cube(cube)])
    }

    /// Any function of the colour, sampled now into a `size`³ table (2...65) that the pass interpolates.
    /// Outputs that are not finite become 0.
    public static func function(size: Int = 33, _ map: (SIMD3<Double>) -> SIMD3<Double>) -> PointMap {
        let n = min(max(size, 2), 65)
        let scale = 1 / Double(n - 1)
        let table = Cube3D.table(size: n) { r, g, b in
            let out = map(SIMD3(Double(r), Double(g), Double(b)) * scale)
            return SIMD3(out.x.isFinite ? Float(out.x) : 0, out.y.isFinite ? Float(out.y) : 0, out.z.isFinite ? Float(out.z) : 0)
        }
        // n is in 2...65 and the table has n³ triples, so the cube always exists.
        guard let cube = Cube3D(size: n, table: table) else { return .identity }
        return PointMap(steps: [.cube(cube)])
    }

    /// A curve per channel, sampled into a `size`³ table.
    public static func curves(
        size: Int = 33, red: (Double) -> Double, green: (Double) -> Double,
        blue: (Double) -> Double
    ) -> PointMap {
        function(size: size) { SIMD3(red($0.x), green($0.y), blue($0.z)) }
    }

    /// This map, then `next`.
    public func then(_ next: PointMap) -> PointMap {
        PointMap(steps: steps + next.steps)
    }
}

/// An affine colour map `out = M·in + offset` on normalized R'G'B', by rows.
public struct ColorMatrix: Sendable, Hashable {
    /// The row that makes red.
    public var red: SIMD3<Double>
    /// The row that makes green.
    public var green: SIMD3<Double>
    /// The row that makes blue.
    public var blue: SIMD3<Double>
    /// Added after the matrix.
    public var offset: SIMD3<Double>

    /// Creates a matrix from its rows and offset.
    public init(red: SIMD3<Double>, green: SIMD3<Double>, blue: SIMD3<Double>, offset: SIMD3<Double> = .zero) {
        self.red = red
        self.green = green
        self.blue = blue
        self.offset = offset
    }

    /// Leaves colours as they are.
    public static let identity = ColorMatrix(red: [1, 0, 0], green: [0, 1, 0], blue: [0, 0, 1])

    var affine: Affine3 {
        Affine3(m: [red.x, red.y, red.z, green.x, green.y, green.z, blue.x, blue.y, blue.z], o: [offset.x, offset.y, offset.z])
    }
}
