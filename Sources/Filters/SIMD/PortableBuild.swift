// Without the NativeSIMD trait (SwiftCam as another package's dependency, where SwiftPM refuses the AVX targets'
// compiler flags) the AVX modules are absent. Their shared kernels then name the portable copies compiled here, and
// `SIMDPath.available` offers only the portable path, so nothing reaches them on a wider path.
#if !canImport(FiltersAVX2)
enum FiltersAVX2 {
    typealias BoxCascadeCore = Filters.BoxCascadeCore
    typealias BoxCascadeFixedCore = Filters.BoxCascadeFixedCore
    typealias EdgesCore = Filters.EdgesCore
    typealias GreyCore = Filters.GreyCore
}

enum FiltersAVX512 {
    typealias GreyCore = Filters.GreyCore
}
#endif
