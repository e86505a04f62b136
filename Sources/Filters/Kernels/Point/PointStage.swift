/// One step of a float point pass (`RGBPointKernel`, and `YUVPointKernel`'s general path), in the list the pass walks
/// per block or sample. Trivial (no references), so walking the list costs no ARC traffic; the tables a stage points
/// into belong to the kernel that made it, which frees them.
struct PointStage {
    enum Kind { case affine, curve, vignette, lut3D }
    var kind: Kind
    /// The step's numbers, laid out as the kernel's `Stage` says.
    var m: SIMD16<Float> = .zero
    /// `curve`: 256 outputs; `lut3D`: the grid; anything else the kernel's `Stage` names.
    var table: UnsafeMutablePointer<Float>?
    /// `lut3D`: grid points per side.
    var size: Int = 0
}
