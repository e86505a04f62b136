// Benchmark: `swiftcam bench`. Cases (SwiftCam's `swiftfilter` beside GStreamer's C elements), the
// pre-made frames, the runner (appsrc ! CASE ! fakesink, timed from first push to last buffer seen), the
// statistics, the table and the JSON report. Imports GStreamer, SwiftFilterElement and Filters; only the
// `swiftcam` executable imports it.
