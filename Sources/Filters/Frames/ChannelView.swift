/// One component group of a plane as spatial kernels see it: `channels` bytes per pixel, pixels
/// `step` bytes apart, rows `stride` bytes apart; source and destination side by side.
///
/// RGB is one 4-channel view; I420 three 1-channel views; NV12 a Y view and a 2-channel UV view;
/// YUY2 a Y view with step 2 and U, V views with step 4. `subX`/`subY` say how many luma pixels one
/// pixel of the view covers, so geometry (zoom, pixelate, blur radius) scales with the plane.
struct ChannelView {
    var source: UnsafeMutablePointer<UInt8>
    var sourceStride: Int
    var destination: UnsafeMutablePointer<UInt8>
    var destinationStride: Int
    var width, height, channels, step, subX, subY: Int
    var isLuma: Bool

    @inline(__always) func sourceRow(_ y: Int) -> UnsafeMutablePointer<UInt8> { source + y * sourceStride }
    @inline(__always) func destinationRow(_ y: Int) -> UnsafeMutablePointer<UInt8> { destination + y * destinationStride }

    /// Samples per row when packed contiguously.
    var rowSamples: Int { width * channels }

    /// Copies one source row into `buffer`, packed (`channels` bytes per pixel, no gaps).
    @inline(__always)
    func gather(row y: Int, into buffer: UnsafeMutablePointer<UInt8>) {
        copyRow(from: sourceRow(y), step: step, to: buffer, step: channels)
    }

    /// Source row `y` packed: the row itself when the view is packed, else gathered into `buffer`.
    @inline(__always)
    func packedSourceRow(_ y: Int, buffer: UnsafeMutablePointer<UInt8>) -> UnsafePointer<UInt8> {
        guard step != channels else { return UnsafePointer(sourceRow(y)) }
        gather(row: y, into: buffer)
        return UnsafePointer(buffer)
    }

    /// Writes a packed row into destination row `y`.
    @inline(__always)
    func scatter(row y: Int, from buffer: UnsafePointer<UInt8>) {
        copyRow(from: buffer, step: channels, to: destinationRow(y), step: step)
    }

    /// Copies `width` pixels of `channels` bytes, `sourceStep` and `destinationStep` bytes apart; one block copy when
    /// the view is packed.
    @inline(__always)
    private func copyRow(
        from source: UnsafePointer<UInt8>, step sourceStep: Int, to destination: UnsafeMutablePointer<UInt8>,
        step destinationStep: Int
    ) {
        if step == channels {
            destination.update(from: source, count: rowSamples)
        } else {
            for x in 0..<width {
                for c in 0..<channels { destination[x * destinationStep + c] = source[x * sourceStep + c] }
            }
        }
    }

    /// The views of a frame pair (same format and size).
    static func views(source: Frame, destination: Frame) -> [ChannelView] {
        func view(
            _ plane: Int, offset: Int, width: Int, height: Int, channels: Int, step: Int, subX: Int, subY: Int, luma: Bool
        ) -> ChannelView {
            ChannelView(
                source: (source.planes[plane].base + offset).assumingMemoryBound(to: UInt8.self),
                sourceStride: source.planes[plane].stride,
                destination: (destination.planes[plane].base + offset).assumingMemoryBound(to: UInt8.self),
                destinationStride: destination.planes[plane].stride,
                width: width, height: height, channels: channels, step: step, subX: subX, subY: subY, isLuma: luma)
        }
        let w = source.width, h = source.height
        let cw = (w + 1) / 2, ch = (h + 1) / 2
        switch source.format {
        case .rgba, .bgra, .rgbx, .bgrx, .argb, .xrgb:
            return [view(0, offset: 0, width: w, height: h, channels: 4, step: 4, subX: 1, subY: 1, luma: false)]
        case .i420:
            return [
                view(0, offset: 0, width: w, height: h, channels: 1, step: 1, subX: 1, subY: 1, luma: true),
                view(1, offset: 0, width: cw, height: ch, channels: 1, step: 1, subX: 2, subY: 2, luma: false),
                view(2, offset: 0, width: cw, height: ch, channels: 1, step: 1, subX: 2, subY: 2, luma: false)
            ]
        case .nv12:
            return [
                view(0, offset: 0, width: w, height: h, channels: 1, step: 1, subX: 1, subY: 1, luma: true),
                view(1, offset: 0, width: cw, height: ch, channels: 2, step: 2, subX: 2, subY: 2, luma: false)
            ]
        case .yuy2:
            return [
                view(0, offset: 0, width: w, height: h, channels: 1, step: 2, subX: 1, subY: 1, luma: true),
                view(0, offset: 1, width: cw, height: h, channels: 1, step: 4, subX: 2, subY: 1, luma: false),
                view(0, offset: 3, width: cw, height: h, channels: 1, step: 4, subX: 2, subY: 1, luma: false)
            ]
        }
    }
}

extension Frame {
    /// True when `other` is exactly the same memory (same bases and strides).
    func isSameMemory(as other: Frame) -> Bool {
        planes.count == other.planes.count && zip(planes, other.planes).allSatisfy { $0.base == $1.base && $0.stride == $1.stride }
    }

    /// Copies the visible bytes of every plane into `destination` (same format and size).
    func copyPlanes(to destination: Frame) {
        for index in planes.indices {
            let bytes = rowBytes(plane: index)
            for row in 0..<rows(plane: index) {
                (destination.planes[index].base + row * destination.planes[index].stride)
                    .copyMemory(from: planes[index].base + row * planes[index].stride, byteCount: bytes)
            }
        }
    }
}
