import Base
import Glibc

/// Where the camera page's files (Assets/: index.html, app.js, style.css, …) are read from: `web/` beside the
/// executable (where the Debian package installs them, /usr/lib/swiftcam/web), else this source tree's `Assets`
/// folder (a build run where it was made: `swift run`, `swift test`). Found once, at the first request.
///
/// Not a SwiftPM resource bundle: its generated accessor is Foundation's `Bundle`, and full Foundation brings ICU's
/// 40 MB into the package.
enum WebAssets {
    static let folder: String? = {
        var candidates: [String] = []
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if length > 0 {
            let executable = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            candidates.append(executable.folder + "/web")
        }
        candidates.append(String(#filePath).folder + "/Assets")
        return candidates.first { access($0 + "/index.html", R_OK) == 0 }
    }()
}
