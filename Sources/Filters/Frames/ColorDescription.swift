/// How Y'CbCr values relate to R'G'B': the colour matrix and the quantization range.
///
/// For RGB frames only `matrix` matters: it supplies the luma coefficients that mono, sepia,
/// saturation and threshold use, so an RGB frame and its YUV conversion agree.
public struct ColorDescription: Sendable, Hashable {
    /// The luma/chroma matrix.
    public enum Matrix: String, Sendable, Hashable, CaseIterable {
        /// ITU-R BT.601: Kr = 0.299, Kb = 0.114 (SD video, JPEG, most webcams).
        case bt601
        /// ITU-R BT.709: Kr = 0.2126, Kb = 0.0722 (HD video).
        case bt709
    }

    /// The luma/chroma matrix.
    public var matrix: Matrix

    /// The quantization range of 8-bit samples.
    public enum Range: String, Sendable, Hashable, CaseIterable {
        /// Y 0...255, Cb/Cr 0...255 centred on 128.
        case full
        /// Y 16...235, Cb/Cr 16...240 centred on 128 ("TV" or "video" range).
        case limited
    }

    /// The quantization range.
    public var range: Range

    /// Creates a colour description; the default is BT.601 limited range, what webcams send.
    public init(matrix: Matrix = .bt601, range: Range = .limited) {
        self.matrix = matrix
        self.range = range
    }

    /// BT.601, limited range: the default for YUV frames.
    public static let bt601Limited = ColorDescription(matrix: .bt601, range: .limited)
    /// BT.601, full range (JPEG).
    public static let bt601Full = ColorDescription(matrix: .bt601, range: .full)
    /// BT.709, limited range (HD video).
    public static let bt709Limited = ColorDescription(matrix: .bt709, range: .limited)
    /// BT.709, full range.
    public static let bt709Full = ColorDescription(matrix: .bt709, range: .full)

    /// The luma coefficients (Kr, Kg, Kb) of the matrix; they sum to 1.
    public var lumaCoefficients: (r: Double, g: Double, b: Double) {
        switch matrix {
        case .bt601: (0.299, 0.587, 0.114)
        case .bt709: (0.2126, 0.7152, 0.0722)
        }
    }

    /// 8-bit luma offset and scale: Y8 = offset + scale × Y for Y in 0...1.
    var lumaQuantization: (offset: Double, scale: Double) {
        range == .full ? (0, 255) : (16, 219)
    }

    /// 8-bit chroma scale: C8 = 128 + scale × C for C in -0.5...0.5.
    var chromaScale: Double {
        range == .full ? 255 : 224
    }
}
