import GStreamer

#if canImport(Glibc)
import Glibc
#endif

/// libyuv (`libyuv.so.0`, Debian `libyuv0`) loaded with `dlopen` when present: an anchor timed in the
/// same run as SwiftCam, on the same frames. Not linked, so the bench builds and runs without it.
///
/// libyuv's "ARGB" is B, G, R, A in memory; on RGBA frames it computes with the channels swapped,
/// which costs the same.
enum LibYUV {
    /// The library handle, opened once; nil when it is not installed.
    nonisolated(unsafe) static let handle: UnsafeMutableRawPointer? = dlopen("libyuv.so.0", RTLD_NOW | RTLD_LOCAL)

    static let missing = "libyuv.so.0 not installed (apt-get install libyuv0)"

    typealias InPlace = @convention(c) (UnsafeMutableRawPointer?, Int32, Int32, Int32, Int32, Int32) -> Int32
    typealias Copying = @convention(c) (UnsafeRawPointer?, Int32, UnsafeMutableRawPointer?, Int32, Int32, Int32) -> Int32
    typealias Matrix = @convention(c) (UnsafeRawPointer?, Int32, UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32, Int32) -> Int32
    typealias Planar =
        @convention(c) (
            UnsafeRawPointer?, Int32, UnsafeRawPointer?, Int32, UnsafeRawPointer?, Int32,
            UnsafeMutableRawPointer?, Int32, UnsafeMutableRawPointer?, Int32, UnsafeMutableRawPointer?, Int32,
            Int32, Int32
        ) -> Int32

    /// A sepia-like matrix in libyuv's signed 1/64 units (B, G, R, A rows).
    static let matrix: [Int8] = [17, 68, 35, 0, 22, 88, 45, 0, 24, 98, 50, 0, 0, 0, 0, 64]

    /// `body(source, destination)` running `function` on one frame of `info`'s layout, or nil when
    /// libyuv or the function is missing, or the function does not take this layout.
    static func operation(_ function: String, info: VideoInfo) -> ((UnsafeRawPointer, UnsafeMutableRawPointer) -> Void)? {
        guard let handle, let symbol = dlsym(handle, function) else { return nil }
        let w = Int32(info.width), h = Int32(info.height)
        let s0 = Int32(info.stride(plane: 0))
        switch function {
        case "ARGBSepia", "ARGBGray":
            let f = unsafeBitCast(symbol, to: InPlace.self)
            // In place on the destination, which the caller filled from the frame once.
            return { _, d in _ = f(d, s0, 0, 0, w, h) }
        case "ARGBMirror":
            let f = unsafeBitCast(symbol, to: Copying.self)
            return { s, d in _ = f(s, s0, d, s0, w, h) }
        case "ARGBColorMatrix":
            let f = unsafeBitCast(symbol, to: Matrix.self)
            return { s, d in matrix.withUnsafeBytes { m in _ = f(s, s0, d, s0, m.baseAddress, w, h) } }
        case "I420Mirror":
            guard info.planeCount == 3 else { return nil }
            let f = unsafeBitCast(symbol, to: Planar.self)
            let o = (info.offset(plane: 1), info.offset(plane: 2))
            let s1 = Int32(info.stride(plane: 1)), s2 = Int32(info.stride(plane: 2))
            return { s, d in _ = f(s, s0, s + o.0, s1, s + o.1, s2, d, s0, d + o.0, s1, d + o.1, s2, w, h) }
        default:
            return nil
        }
    }
}
