// Which kernels a build has is one switch, the package's NativeSIMD trait (on by default), and one compilation
// condition it sets, SWIFTCAM_INTRINSICS ("this copy may use x86 intrinsics"):
//
// - With the trait, on x86-64, Filters is compiled with SWIFTCAM_INTRINSICS (its own SSE2 code) and links three
//   more copies of the shared cores: FiltersAVX2 and FiltersAVX512 (intrinsics at those widths) and FiltersPortable
//   (without SWIFTCAM_INTRINSICS: Swift's SIMD types only). A chain runs on any of the four (KernelSet).
// - Without it (a package that depends on SwiftCam, where SwiftPM refuses the AVX targets' compiler flags; or
//   `SWIFTCAM_PORTABLE=1` / `--disable-default-traits` here; or any non-x86 machine) nothing defines
//   SWIFTCAM_INTRINSICS: Filters compiles as it does on ARM64, its own copies of the shared cores are the portable
//   kernels, and `SIMDPath.available` is `[.portable]`.
//
// So a file asks one question, `#if SWIFTCAM_INTRINSICS`, and the portable set calls `FiltersPortable.…` in both
// builds: below, without the module, that name is Filters' own (portable) copy.
#if !SWIFTCAM_INTRINSICS
enum FiltersPortable {
    typealias BoxCascadeFixedCore = Filters.BoxCascadeFixedCore
    typealias EdgesCore = Filters.EdgesCore
    typealias GreyCore = Filters.GreyCore
    typealias ToneCore = Filters.ToneCore
}
#endif
