import Dispatch
import Testing

@testable import Filters

/// The kernels with a wider version (blur's box cascades, float and 16-bit, and direct kernel, edges, the fixed-point colour passes, byte tables, zoom's blend, mirror) give the same bytes on every SIMD path.
/// Each case compiles its chain for the path it checks (the path is the compiled chain's, not the process's), so these
/// run in parallel with every other suite.
struct SIMDPathTests {
    @Test func everySIMDPathGivesTheSameBytes() throws {
        for (format, chain) in [
            (PixelFormat.rgba, "blur radius=5"), (.nv12, "sharpen amount=2 radius=3"), (.i420, "blur radius=20"),
            (.rgba, "blur radius=8"), (.bgrx, "sharpen amount=1 radius=4"), (.i420, "blur radius=4"), (.nv12, "blur radius=6"),
            (.rgba, "edges"), (.bgrx, "edges"), (.argb, "edges"), (.nv12, "edges"),
            (.rgba, "sepia | vignette"), (.argb, "colorcontrols contrast=1.2 saturation=0.8 | vignette"), (.bgrx, "mono"),
            (.rgba, "zoom factor=2"), (.nv12, "zoom factor=1.7 x=0.3"),
            (.rgba, "mirror"), (.i420, "mirror"), (.nv12, "mirror"),
            (.rgba, "sharpen amount=1.5 radius=1"), (.i420, "blur radius=1.5"),
            (.nv12, "gamma value=1.2 | colorcontrols contrast=1.2 saturation=0.8 | sepia | vignette | mirror | invert"),
            (.i420, "exposure ev=0.4 | gamma value=0.7 | temperature kelvin=4000 | vignette | invert"),
            (.i420, "threshold level=0.4 | vignette intensity=2"), (.nv12, "posterize levels=5 | sepia"),
            (.rgba, "gamma value=1.2 | colorcontrols contrast=1.2 saturation=0.8 | sepia | vignette | mirror | invert"),
            (.bgrx, "temperature kelvin=3000 | gamma value=0.8"), (.argb, "posterize levels=3"),
            (.nv12, "temperature kelvin=4000 | vignette | invert"), (.i420, "temperature kelvin=3000 tint=30"),
            (.i420, "temperature kelvin=9000 tint=-20 | mirror | vignette intensity=1.5"),
            (.nv12, "temperature kelvin=4000 | gamma value=1.2 | mirror | vignette | gamma value=0.8"),
            (.argb, "gamma value=1.3 | sepia | vignette | mirror"), (.bgrx, "colorcontrols contrast=1.3 | vignette | mirror"),
            (.i420, "gamma value=1.2 | colorcontrols contrast=1.2 saturation=0.8 | sepia | vignette | mirror | invert"),
            // A table the AVX-512 16-bit pass applies itself: no gain, and with ARGB's alpha first, mirrored.
            (.rgba, "gamma value=1.3 | colorcontrols contrast=1.2 saturation=0.8"), (.bgrx, "posterize levels=6 | sepia | vignette"),
            (.argb, "gamma value=0.8 | colorcontrols saturation=1.3 | mirror")
        ] {
            try expectSameBytesOnEveryPath(format, chain, width: 211, height: 157)
        }
        // The point passes' wide groups with no tail (256: whole 32- and 64-sample groups) and with none at all (27), each
        // in place and mirrored into another frame, where the wide rows store mirrored themselves.
        for (width, height) in [(256, 34), (27, 9)] {
            for (format, chain) in [
                (PixelFormat.nv12, "gamma value=1.2 | colorcontrols contrast=1.2 saturation=0.8 | sepia | vignette | mirror | invert"),
                (.i420, "sepia | vignette | mirror"), (.nv12, "temperature kelvin=4000 | mirror | vignette"),
                (.rgba, "gamma value=1.2 | colorcontrols contrast=1.2 saturation=0.8 | sepia | vignette | mirror | invert"),
                (.argb, "colorcontrols contrast=1.3 | vignette | mirror"), (.bgrx, "vignette | mirror")
            ] {
                try expectSameBytesOnEveryPath(format, chain, width: width, height: height)
            }
        }
        // The 4:2:0 pass with Cb and Cr crossed, which no filter gives yet.
        for format in [PixelFormat.nv12, .i420] {
            let frame = TestFrame(format, 211, 9)
            frame.fillPattern(seed: 5)
            let outputs = try SIMDPath.available.map { path in
                let kernel = try #require(
                    YUV420FixedKernel(
                        PointProgram(FixedKernelTests.crossedChroma, color: frame.color), color: frame.color,
                        kernels: KernelSet(path: path)))
                kernel.prepare(width: frame.width, height: frame.height)
                let out = frame.copy()
                kernel.run(source: frame.frame, destination: out.frame, rows: 0..<frame.height)
                return out
            }
            for (path, out) in zip(SIMDPath.available, outputs) {
                #expect(out.canariesIntact && out.difference(from: outputs[0]) == nil, "\(path) \(format) crossed chroma")
            }
        }
    }

    /// Chains compiled for different paths run at the same time, each on its own path, and agree: the path belongs to
    /// the compiled chain, so nothing one thread picks reaches another.
    @Test func chainsOnDifferentPathsRunAtOnce() throws {
        let chain = try FilterChain(
            parsing: "gamma value=1.2 | colorcontrols contrast=1.2 saturation=0.8 | sepia | vignette | blur radius=3")
        let frame = TestFrame(.rgba, 211, 157)
        frame.fillPattern(seed: 21)
        let reference = frame.copy()
        try chain.compile(threads: 1, kernels: KernelSet(path: .portable)).process(reference.frame)
        let paths = SIMDPath.available
        // Each iteration writes only its own frames.
        nonisolated(unsafe) let outputs = paths.map { _ in (0..<8).map { _ in frame.copy() } }
        DispatchQueue.concurrentPerform(iterations: paths.count) { index in
            let compiled = chain.compile(threads: 1, kernels: KernelSet(path: paths[index]))
            for out in outputs[index] { try? compiled.process(out.frame) }
        }
        for (path, frames) in zip(paths, outputs) {
            for out in frames { #expect(out.difference(from: reference) == nil, "\(path)") }
        }
    }

    /// The chains above meant to have their table applied inside the AVX-512 3×3 pass do (else the comparison of the two
    /// settings would compare the table pass with itself); a chain with no table before the pass (temperature fuses into
    /// the matrix), or with a curve after it (the float pass then), does not.
    @Test func tablesGoInsideThePassWhereTheyCan() throws {
        guard SIMDPath.available.contains(.avx512) else { return }
        func kernel(_ text: String, _ format: PixelFormat, fused: Bool) throws -> RGBTableKernel? {
            let operations = try FilterChain(parsing: text).filters.flatMap { $0.kernel.operations }.compactMap { op -> PointOperation? in
                if case let .point(p) = op { return p } else { return nil }
            }
            return RGBTableKernel(
                PointProgram(operations, color: .bt601Limited), format: format,
                kernels: KernelSet(path: .avx512, fusesTables: fused))
        }
        do {
            // The 6-chain's map is of rank one (sepia, then a vignette and invert): the tone pass takes it and its table.
            for (text, format, inside) in [
                (
                    "gamma value=1.2 | colorcontrols contrast=1.2 saturation=0.8 | sepia | vignette | mirror | invert", PixelFormat.rgba,
                    true
                ),
                ("gamma value=1.3 | colorcontrols contrast=1.2 saturation=0.8", .bgrx, true),
                ("gamma value=0.8 | colorcontrols saturation=1.3", .argb, true),
                ("temperature kelvin=3000 | colorcontrols saturation=0.8", .rgba, false),
                ("gamma value=1.2 | colorcontrols saturation=0.8 | posterize levels=4", .rgba, false)
            ] as [(String, PixelFormat, Bool)] {
                for fused in [true, false] {
                    let table = try kernel(text, format, fused: fused)
                    #expect((table?.appliesTableInPass ?? false) == (inside && fused), "\(format) \(text), fused \(fused)")
                }
            }
        }
    }

    /// `chain` gives the portable path's bytes on every path the machine has, in place and into another (padded) frame.
    private func expectSameBytesOnEveryPath(_ format: PixelFormat, _ chain: String, width: Int, height: Int) throws {
        let reference = TestFrame(format, width, height)
        reference.fillPattern(seed: 12)
        let parsed = try FilterChain(parsing: chain)
        let original = reference.copy()
        try parsed.compile(kernels: KernelSet(path: .portable)).process(reference.frame)
        #expect(reference.difference(from: original) != nil)
        // On AVX-512 with the byte tables before the RGB 3×3 pass applied by the pass and by a table pass (`fusesTables`).
        for path in SIMDPath.available {
            for fused in path == .avx512 ? [true, false] : [KernelSet(path: path).fusesTables] {
                let compiled = parsed.compile(kernels: KernelSet(path: path, fusesTables: fused))
                #expect(compiled.kernels.path == path)
                let frame = original.copy()
                let label =
                    "\(path)\(path == .avx512 ? fused ? " (tables fused)" : " (table pass)" : "") \(format) \(chain) \(width)x\(height)"
                try compiled.process(frame.frame)
                #expect(frame.difference(from: reference) == nil, "\(label)")
                // Into another frame, where mirror reads the source forwards (in place it reads a row buffer).
                let copied = TestFrame(format, width, height, padding: 7)
                try compiled.process(from: original.frame, to: copied.frame)
                #expect(copied.canariesIntact && copied.difference(from: reference) == nil, "\(label) into another frame")
            }
        }
    }
}
