// FiltersPortable: Filters' shared cores (grey pass, edges' rows, the box cascades: Shared/, a link) compiled without
// SWIFTCAM_INTRINSICS, so in Swift's SIMD types only: the code a build without the NativeSIMD trait (ARM64, a package
// depending on SwiftCam, `SWIFTCAM_PORTABLE=1`) runs. Filters imports it only with the trait, as the kernels of its
// portable path (SIMDKernels) beside the x86 ones; it imports nothing of ours.
