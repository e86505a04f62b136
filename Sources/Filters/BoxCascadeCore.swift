// This file is compiled twice: into Filters for baseline x86-64 (SSE2) and, through a symlink,
// into FiltersAVX2 for x86-64-v3 (AVX2), where each 8-lane vector is one ymm register. The
// arithmetic is lane-wise and in the same order on both, so both give the same bits.

/// The 1-D box cascade of blur, the loop worth a wider instruction set.
package enum BoxCascadeCore {
    /// One pass: `inner` weights the 2r + 1 central samples, `outer` the two at distance r + 1.
    package struct Box: Equatable, Sendable {
        package var radius: Int
        package var inner: Float
        package var outer: Float

        package init(radius: Int, inner: Float, outer: Float) {
            self.radius = radius
            self.inner = inner
            self.outer = outer
        }
    }

    /// Samples of one lane group per position.
    package typealias Lanes = SIMD8<Float>

    /// `passes` box passes along positions `stride` vectors apart, ping-ponging between `a` and `b`;
    /// returns the buffer holding the result. Pass k leaves positions k·(r+1)..<positions − k·(r+1) valid.
    ///
    /// Unnormalised: each pass computes `S + β·(ends)` with β = outer/inner, so the result is the
    /// blur times `gain(box, passes)`, which the caller folds into its final scale (one multiply
    /// fewer per pass; in float the growth, < 2³² at σ = 50, costs no precision).
    // Not inlined: inside `run` LLVM split the lanes into even/odd halves around the loop (shufps/unpcklps per position).
    @inline(never)
    package static func cascade(_ a: UnsafeMutablePointer<Lanes>, _ b: UnsafeMutablePointer<Lanes>, positions: Int, stride: Int,
                        box: Box, passes: Int) -> UnsafeMutablePointer<Lanes> {
        let r = box.radius, reach = r + 1
        let beta = Lanes(repeating: box.outer / box.inner)
        var input = a, output = b
        for pass in 1...passes {
            let start = pass * reach, end = positions - pass * reach
            if start < end {
                var sum = Lanes()
                for j in (start - r)...(start + r) { sum += input[j &* stride] }
                output[start &* stride] = sum + beta * (input[(start - reach) &* stride] + input[(start + reach) &* stride])
                // Pointers to the sample leaving the window, the one entering it and the far end, one stride per position.
                var leaving = input + (start + 1 - reach) &* stride
                var entering = input + (start + 1 + r) &* stride
                var out = output + (start + 1) &* stride
                let last = output + end &* stride
                while out < last {
                    let l = leaving.pointee, e = entering.pointee
                    entering += stride
                    sum += e - l
                    out.pointee = sum + beta * (l + entering.pointee)
                    leaving += stride
                    out += stride
                }
            }
            swap(&input, &output)
        }
        return input
    }
}
