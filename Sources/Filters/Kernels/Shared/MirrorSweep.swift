// Compiled into Filters and, through their Shared links, into FiltersAVX2 and FiltersAVX512: the one order in which every
// mirror row loop visits its groups, whatever the group's width.

/// Calls `group` with the destination offsets `start`, `start + step`, … below `end`. With `readForward` they come
/// from the last down, so the source (read from the row's end backwards per group) is walked from its start, as the
/// prefetchers follow a source in memory row after row; otherwise the destination is written from its start.
@inline(__always)
func sweepMirrorGroups(from start: Int, to end: Int, step: Int, readForward: Bool, _ group: (Int) -> Void) {
    if readForward {
        var o = end
        while o > start {
            o &-= step
            group(o)
        }
    } else {
        var o = start
        while o < end {
            group(o)
            o &+= step
        }
    }
}
