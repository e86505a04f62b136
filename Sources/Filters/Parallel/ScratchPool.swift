/// Scratch memory kept across frames: each slot grows to the largest size asked for and is then reused.
///
/// After the first frame of a given size no further allocation happens. Not thread-safe: slots are
/// fetched on the streaming thread before bands are dispatched.
final class ScratchPool {
    private var slots: [Int: (pointer: UnsafeMutableRawPointer, bytes: Int)] = [:]

    /// Number of allocations made so far; tests use it to check reuse.
    private(set) var allocationCount = 0

    /// At least `bytes` bytes of 64-byte-aligned memory for `slot`; contents are unspecified.
    func buffer(_ slot: Int, bytes: Int) -> UnsafeMutableRawPointer {
        let needed = max(bytes, 64)
        if let existing = slots[slot], existing.bytes >= needed { return existing.pointer }
        slots[slot]?.pointer.deallocate()
        let pointer = UnsafeMutableRawPointer.allocate(byteCount: needed, alignment: 64)
        slots[slot] = (pointer, needed)
        allocationCount += 1
        return pointer
    }

    deinit {
        for slot in slots.values { slot.pointer.deallocate() }
    }
}
