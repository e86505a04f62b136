// FiltersPortable: Filters' shared cores (grey pass, edges' rows, the box cascades; symlinks) compiled with
// SWIFTCAM_PORTABLE, so without x86 intrinsics, in Swift's SIMD types only: the code a `SWIFTCAM_PORTABLE=1` or
// ARM64 build runs. Filters alone imports it, as the kernels of its portable KernelSet; it imports nothing of ours.
