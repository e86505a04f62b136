import Base
import Filters

#if canImport(Glibc)
import Glibc
#endif

/// `filters-bench --paths --json FILE`: the per-path table as JSON for scripts/bench-doc.py, with the machine it ran on
/// and no date (the document it feeds states the machine, not the day).
enum PathsJSON {
    /// The JSON text: the machine, the memcpy floor, and each filter's ms per path (null where it did not run).
    static func text(memcpy: Double, paths: [SIMDPath], rows: [(name: String, chain: String, ms: [Double])]) -> String {
        var cpu = "unknown"
        #if os(Linux)
        if let line = SIMDPath.cpuInfoLine(startingWith: "model name"), let colon = line.firstIndex(of: ":") {
            cpu = String(line[line.index(after: colon)...].drop(while: { $0 == " " || $0 == "\t" }))
        }
        #endif
        let cores = max(sysconf(Int32(_SC_NPROCESSORS_ONLN)), 1)
        let names = paths.map { quoted($0.description) }.joined(separator: ", ")
        var lines = [
            "{",
            "  \"tool\": \"filters-bench --paths\",",
            "  \"machine\": {\"cores\": \(cores), \"cpu\": \(quoted(cpu)), \"simdPath\": \(quoted(SIMDPath.best.description)), "
                + "\"availablePaths\": [\(names)]},",
            "  \"width\": 1920, \"height\": 1080, \"format\": \"RGBA\", \"threads\": 1, \"rounds\": 3,",
            "  \"memcpyMs\": \(number(memcpy)),",
            "  \"paths\": [\(names)],",
            "  \"rows\": ["
        ]
        for (index, row) in rows.enumerated() {
            let times = zip(paths, row.ms).map { "\(quoted($0.description)): \(number($1))" }.joined(separator: ", ")
            lines.append(
                "    {\"name\": \(quoted(row.name)), \"chain\": \(quoted(row.chain)), \"ms\": {\(times)}}"
                    + (index + 1 < rows.count ? "," : ""))
        }
        lines += ["  ]", "}"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// Why `path` cannot be written, or nil: a file beside it is created and removed.
    static func problemWriting(_ path: String) -> String? {
        let temporary = path + ".tmp-\(getpid())"
        guard let file = fopen(temporary, "w") else { return String(cString: strerror(errno)) }
        fclose(file)
        unlink(temporary)
        return nil
    }

    /// Writes `text` to `path` whole or not at all (a file beside it, renamed over it); the reason when it cannot.
    static func write(_ text: String, to path: String) -> String? {
        let temporary = path + ".tmp-\(getpid())"
        guard let file = fopen(temporary, "w") else { return String(cString: strerror(errno)) }
        let written = fputs(text, file) >= 0
        let closed = fclose(file) == 0
        guard written, closed, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            return reason
        }
        return nil
    }

    /// A JSON number with microsecond precision, or null for a time that was not measured.
    static func number(_ value: Double) -> String {
        value.isFinite ? String((value * 1_000_000).rounded() / 1_000_000) : "null"
    }

    /// A JSON string.
    static func quoted(_ text: String) -> String { JSONValue.quoted(text) }
}
