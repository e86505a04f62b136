import CGStreamer

extension GStreamer {
    /// glibc's initial threshold for serving an allocation from a mapping of its own (128 KiB).
    public static let defaultMapThreshold = 128 * 1024

    /// Keeps every allocation of `bytes` or more (video frames, encoder buffers) in a mapping of its own, which
    /// goes back to the system when freed, for the rest of the process. Returns false if glibc refused.
    ///
    /// glibc otherwise raises that threshold to the size of the largest mapped block freed so far (up to
    /// 32 MiB). A pipeline that is built and torn down again — an encoder started per recording — frees its
    /// multi-megabyte buffers once; from then on frame-sized buffers are carved from the per-thread malloc arenas,
    /// whose free fragments stay resident: a VP8 recording a minute grew RSS by ~40 MB in 7 minutes, though
    /// nothing leaked. Setting the threshold turns that adjustment off. Calls `mallopt(M_MMAP_THRESHOLD)`.
    @discardableResult
    public static func mapLargeBlocks(from bytes: Int = defaultMapThreshold) -> Bool {
        guard let bytes = Int32(exactly: bytes), bytes > 0 else { return false }
        return mallopt(M_MMAP_THRESHOLD, bytes) == 1
    }

    /// Gives the heap's free memory back to the system (glibc keeps what its arenas freed otherwise): for a host whose
    /// last pipeline of many just went. Calls `malloc_trim`.
    public static func returnFreeMemory() {
        malloc_trim(0)
    }
}
