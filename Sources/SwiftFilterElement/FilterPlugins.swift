import Analysis
import Base
import CFilterPlugin
import CGStreamer
import Filters
import GStreamer
import Glibc

/// Why a filter plugin was not loaded; each names the file and what to do.
public enum FilterPluginError: Error, Equatable, CustomStringConvertible {
    /// The file could not be read or GStreamer could not load it.
    case cannotLoad(path: String, reason: String)
    /// The file is not a plugin built with SwiftCam's FilterPlugin module.
    case notAFilterPlugin(path: String)
    /// The plugin was built against another SwiftCam: its C table may differ from ours, so none of it is used.
    case versionMismatch(path: String, plugin: String, host: String)
    /// One of its filters could not be registered (a taken name, a bad declaration).
    case registration(path: String, reason: String)

    /// One sentence naming the file and what to do.
    public var description: String {
        switch self {
        case let .cannotLoad(path, reason): "Filter plugin \(path) cannot be loaded: \(reason)."
        case let .notAFilterPlugin(path):
            "\(path) is not a SwiftCam filter plugin (it has no FilterPlugin table); build it with SwiftCam's FilterPlugin module."
        case let .versionMismatch(path, plugin, host):
            "Filter plugin \(path) was built against SwiftCam \(plugin), but this is SwiftCam \(host); rebuild the plugin against \(host)."
        case let .registration(path, reason): "Filter plugin \(path): \(reason)"
        }
    }
}

/// Loads filter plugins (libgstNAME.so built with the FilterPlugin module) and registers their filters in the
/// process's ``FilterRegistry``, so chains, `swiftcam filters` and the page know them like built-ins, and their
/// analysers in the ``AnalyzerRegistry``, so a config's `"analyze"` names and checks them like `motion`.
///
/// A plugin's stamp (its SwiftCam version) is read from the file before GStreamer loads it, and again from its table,
/// so a plugin built against another SwiftCam is refused before any of its code runs here.
public enum FilterPlugins {
    private struct State: Sendable {
        var loaded: [String: [String]] = [:]
        var scanned = false
        var scanErrors: [FilterPluginError] = []
    }

    /// Behind pthread mutexes (`Locked`), not `Synchronization.Mutex`: ThreadSanitizer does not see the futex that one
    /// waits on when two threads meet, and reported the locked accesses of two sessions loading plugins as a race.
    private static let state = Locked(State())

    /// Loads the plugin file at `path` (a config's `plugins`) and returns the names of its filters; loading the same
    /// file again returns the same names.
    @discardableResult
    public static func load(path: String) throws(FilterPluginError) -> [String] {
        // One load at a time, so two threads loading the same file register its filters once.
        try loading.withLock { _ in Result { () throws(FilterPluginError) in try loadAlone(path: path) } }.get()
    }

    private static let loading = Locked(())

    private static func loadAlone(path: String) throws(FilterPluginError) -> [String] {
        let resolved =
            realpath(path, nil).map { pointer in
                defer { free(pointer) }
                return String(cString: pointer)
            } ?? path
        if let names = state.withLock({ $0.loaded[resolved] }) { return names }
        try checkStamp(file: resolved)
        GStreamer.initialize()
        var error: UnsafeMutablePointer<GError>?
        guard let plugin = gst_plugin_load_file(resolved, &error) else {
            let reason = error.map { String(cString: $0.pointee.message) } ?? "GStreamer refused it"
            if error != nil { g_error_free(error) }
            throw .cannotLoad(path: resolved, reason: reason)
        }
        defer { gst_object_unref(UnsafeMutableRawPointer(plugin)) }
        return try register(plugin, path: resolved)
    }

    /// Loads every filter plugin GStreamer's registry knows (GST_PLUGIN_PATH, the system plugin directory), once per
    /// process; returns the plugins refused, the same list on every call.
    @discardableResult
    public static func loadInstalled() -> [FilterPluginError] {
        if let errors = state.withLock({ $0.scanned ? $0.scanErrors : nil }) { return errors }
        GStreamer.initialize()
        var errors: [FilterPluginError] = []
        let list = gst_registry_get_plugin_list(gst_registry_get())
        defer { gst_plugin_list_free(list) }
        var node = list
        while let current = node {
            node = current.pointee.next
            guard let data = current.pointee.data else { continue }
            let plugin = OpaquePointer(data)
            guard isFilterPlugin(plugin), let file = gst_plugin_get_filename(plugin) else { continue }
            let path = String(cString: file)
            do throws(FilterPluginError) {
                try load(path: path)
            } catch {
                errors.append(error)
            }
        }
        return state.withLock { state in
            if !state.scanned {
                state.scanned = true
                state.scanErrors = errors
            }
            return state.scanErrors
        }
    }

    /// Marked by its `source` (and its cache data) without loading it.
    private static func isFilterPlugin(_ plugin: OpaquePointer) -> Bool {
        if let source = gst_plugin_get_source(plugin), String(cString: source) == SWIFTCAM_FILTER_PLUGIN_KEY { return true }
        if let mark = gst_plugin_get_cache_data(plugin), gst_structure_has_name(mark, SWIFTCAM_FILTER_PLUGIN_KEY) != 0 { return true }
        return false
    }

    /// Finds the stamp in the file's bytes and compares it with ours, without loading the file.
    static func checkStamp(file path: String) throws(FilterPluginError) {
        let host = String(cString: CFilterPlugin_stamp())
        let bytes: [UInt8]
        do {
            bytes = try readFile(path)
        } catch {
            throw .cannotLoad(path: path, reason: error.reason)
        }
        let prefix = Array(SWIFTCAM_FILTER_PLUGIN_STAMP_PREFIX.utf8)
        guard let start = find(prefix, in: bytes) else { throw .notAFilterPlugin(path: path) }
        let end = bytes[start...].firstIndex(of: 0) ?? bytes.endIndex
        let stamp = String(decoding: bytes[start..<min(end, start + 200)], as: UTF8.self)
        guard stamp == host else {
            throw .versionMismatch(path: path, plugin: version(in: stamp), host: version(in: host))
        }
    }

    /// The SwiftCam version in a stamp, and its table's ABI when that is not this build's (the same version with
    /// another table would otherwise read as no difference at all).
    private static func version(in stamp: String) -> String {
        let version = stamp.split(separator: " ").last.map(String.init) ?? stamp
        let abi = { (text: String) in text.dropFirst(SWIFTCAM_FILTER_PLUGIN_STAMP_PREFIX.count).prefix { $0 != "," } }
        let host = String(cString: CFilterPlugin_stamp())
        return abi(stamp) == abi(host) ? version : "\(version) (plugin table \(abi(stamp)))"
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard let first = needle.first, haystack.count >= needle.count else { return nil }
        var index = 0
        let last = haystack.count - needle.count
        while index <= last {
            guard let hit = haystack[index...last].firstIndex(of: first) else { return nil }
            if haystack[hit..<hit + needle.count].elementsEqual(needle) { return hit }
            index = hit + 1
        }
        return nil
    }

    private struct ReadError: Error { let reason: String }

    /// The whole regular file, at most 1 GB.
    private static func readFile(_ path: String) throws(ReadError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ReadError(reason: SystemError.message(errno)) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw ReadError(reason: "it is not a regular file")
        }
        guard status.st_size <= 1 << 30 else { throw ReadError(reason: "it is larger than 1 GB") }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeMutableBytes { raw in
                SystemCall.retrying { pread(descriptor, raw.baseAddress! + offset, raw.count - offset, off_t(offset)) }
            }
            guard count > 0 else { break }
            offset += count
        }
        return Array(bytes[0..<offset])
    }

    /// Reads the table plugin_init left on the plugin, checks its stamp and registers its filters.
    private static func register(_ plugin: OpaquePointer, path: String) throws(FilterPluginError) -> [String] {
        let object = UnsafeMutablePointer<GObject>(plugin)
        guard let raw = g_object_get_data(object, SWIFTCAM_FILTER_PLUGIN_KEY) else { throw .notAFilterPlugin(path: path) }
        let table = raw.assumingMemoryBound(to: SwiftCamFilterPlugin.self)
        let host = String(cString: CFilterPlugin_stamp())
        let stamp = table.pointee.stamp.map { String(cString: $0) } ?? ""
        guard stamp == host else { throw .versionMismatch(path: path, plugin: version(in: stamp), host: version(in: host)) }
        var names: [String] = []
        var firstError: FilterPluginError?
        for index in 0..<max(0, Int(table.pointee.filter_count)) {
            guard let descriptor = table.pointee.filters?.advanced(by: index) else { break }
            do throws(FilterRegistrationError) {
                let registration = PluginFilterFactory.registration(descriptor, index: Int32(index))
                try FilterRegistry.registerShared(registration)
                names.append(registration.info.name)
            } catch {
                firstError = firstError ?? .registration(path: path, reason: error.description)
            }
        }
        for index in 0..<max(0, Int(table.pointee.analyzer_count)) {
            guard let descriptor = table.pointee.analyzers?.advanced(by: index) else { break }
            do throws(AnalyzerOptionError) {
                try AnalyzerRegistry.registerShared(PluginAnalyzerFactory.kind(descriptor, index: Int32(index)))
            } catch {
                firstError = firstError ?? .registration(path: path, reason: error.description)
            }
        }
        state.withLock { $0.loaded[path] = names }
        if let firstError { throw firstError }
        return names
    }
}
