// The general path's stages: each step of a point program as a stage on normalized Y'CbCr, a 3D LUT resampled there.
extension YUVPointKernel {
    /// The program's steps as stages; tables the stages point into are appended to `owned` (freed with the kernel).
    static func generalStages(
        _ program: PointProgram, color: ColorDescription, owned: inout [UnsafeMutablePointer<Float>]
    ) -> [Stage] {
        program.steps.map { step in
            switch step {
            case let .affine(rgb):
                let a = rgb.inYCbCr(color)
                var m = SIMD16<Float>.zero
                for (i, v) in (a.m + a.o).enumerated() { m[i] = Float(v) }
                return Stage(kind: .affine, m: m)
            case let .curve(f):
                let table = UnsafeMutablePointer<Float>.allocate(capacity: 256)
                for i in 0..<256 { table[i] = Float(clampUnit(f(Double(i) / 255))) }
                owned.append(table)
                return Stage(kind: .curve, table: table)
            case let .vignette(shape):
                var m = SIMD16<Float>.zero
                m[0] = Float(shape.intensity); m[1] = Float(shape.radius)
                return Stage(kind: .vignette, m: m)
            case let .lut3D(cube):
                let yuv = Self.resample(cube, color: color)
                let table = UnsafeMutablePointer<Float>.allocate(capacity: yuv.table.count)
                for i in yuv.table.indices { table[i] = yuv.table[i] }
                owned.append(table)
                var m = SIMD16<Float>.zero
                let n = Float(yuv.size - 1)
                m[0] = n
                // Domain Y 0...1, Cb and Cr −0.5...0.5, all one unit wide.
                m[1] = n; m[2] = n; m[3] = n
                m[4] = 0; m[5] = n / 2; m[6] = n / 2
                return Stage(kind: .lut3D, m: m, table: table, size: yuv.size)
            }
        }
    }

    /// The cube re-expressed on normalized Y'CbCr (Y 0...1, Cb and Cr −0.5...0.5).
    private static func resample(_ cube: Cube3D, color: ColorDescription) -> Cube3D {
        let n = min(max(cube.size, 17), 33)
        let toRGB = Affine3.yCbCrToRGB(color), toYUV = Affine3.rgbToYCbCr(color)
        var table = [Float](repeating: 0, count: n * n * n * 3)
        var index = 0
        let step = 1 / Double(n - 1)
        for vi in 0..<n {
            for ui in 0..<n {
                for yi in 0..<n {
                    let rgb = toRGB.apply((Double(yi) * step, Double(ui) * step - 0.5, Double(vi) * step - 0.5))
                    let mapped = cube.sample(clampUnit(rgb.0), clampUnit(rgb.1), clampUnit(rgb.2))
                    let yuv = toYUV.apply(mapped)
                    table[index] = Float(yuv.0); table[index + 1] = Float(yuv.1); table[index + 2] = Float(yuv.2)
                    index += 3
                }
            }
        }
        return Cube3D(size: n, table: table, domainMin: (0, -0.5, -0.5), domainMax: (1, 0.5, 0.5)) ?? cube
    }

    /// The work splits into luma rows (for tables) or chroma rows (general); this is the row count to band over.
    func rowCount(format: PixelFormat, height: Int) -> (rows: Int, alignment: Int) {
        guard let layout = YUVLayout(format) else { return (height, 1) }
        return (height, layout.verticalSubsampling)
    }

    /// Processes luma rows `rows` (a multiple of the vertical subsampling, except at the end).
    /// Per-size tables of the fixed-point pass; call on the streaming thread before `run`.
    func prepare(width: Int, height: Int) {
        fixed420?.prepare(width: width, height: height)
        segments420.forEach { $0.prepare(width: width, height: height) }
    }

    /// True when `run` mirrors as it writes (`mirror` given): the 4:2:0 fixed-point pass. Otherwise the caller mirrors.
    func mirrorsWhileWriting(_ format: PixelFormat) -> Bool {
        (fixed420 != nil || !segments420.isEmpty) && (format == .nv12 || format == .i420)
    }

    /// `mirror`: scratch of 4 × width bytes when the output is also mirrored and `mirrorsWhileWriting`.
}
