import Capture
import Filters
import Foundation
import Glibc
import Testing

@testable import Web

@Suite struct WebOptionsTests {
    @Test(arguments: [
        ("8080", "127.0.0.1", 8080), ("127.0.0.1:9000", "127.0.0.1", 9000), ("[::1]:81", "::1", 81),
        ("0.0.0.0:0", "0.0.0.0", 0), ("", "127.0.0.1", 8080)
    ])
    func parses(text: String, host: String, port: Int) throws {
        let options = try WebOptions(parsing: text)
        #expect(options.host == host)
        #expect(options.port == port)
    }

    @Test(arguments: ["http://x:1", "127.0.0.1:", "127.0.0.1:70000", "host:80", ":80", "1.2.3.4:-1", "[::1]80", "80\u{1B}[2J"])
    func refusesWhatIsNotAddressAndPort(text: String) {
        do {
            _ = try WebOptions(parsing: text)
            Issue.record("\(text) was accepted")
        } catch {
            #expect(!error.description.contains("\u{1B}"))
        }
    }

    /// HTTPS beyond loopback by default; plain HTTP there only when `http://` names it; `https://` on loopback too.
    @Test(arguments: [
        ("127.0.0.1:8080", false, false), ("0.0.0.0:8080", true, false), ("10.1.2.3:80", true, false),
        ("http://0.0.0.0:8080", false, true), ("https://127.0.0.1:8443/", true, false), ("HTTP://[::1]:80", false, false)
    ])
    func theSchemeIsHTTPSBeyondLoopbackUnlessPlainIsNamed(text: String, tls: Bool, clear: Bool) throws {
        let options = try WebOptions(parsing: text, token: "abcdefgh")
        #expect(options.servesTLS == tls)
        #expect(options.sendsTokenInClear == clear)
        #expect(options.url().hasPrefix(tls ? "https://" : "http://"))
        if tls {
            #expect(throws: WebOptionsError.certificateRequired) { try options.checked() }
        } else {
            #expect(try options.checked() == options)
        }
        var metrics = try WebOptions(parsing: text)
        metrics.servesPage = false
        #expect(metrics.servesTLS == text.hasPrefix("https://"), "/metrics alone stays plain unless https:// is named")
    }

    @Test func aNonLoopbackAddressNeedsAToken() throws {
        let open = try WebOptions(parsing: "0.0.0.0:8080")
        #expect(throws: WebOptionsError.tokenRequired(host: "0.0.0.0")) { try open.checked() }
        #expect(throws: Never.self) { try WebOptions(parsing: "0.0.0.0:8080", token: WebOptions.newToken()).checkedToken() }
        #expect(try WebOptions(parsing: "127.0.0.1:1").checked().token == nil)
        #expect(throws: WebOptionsError.weakToken) { try WebOptions(parsing: "0.0.0.0:1", token: "short").checked() }
    }

    /// `camera screen http://vm:8080/?token=…` (the machine's name) opened nothing from a machine that cannot resolve it:
    /// a wildcard bind prints a URL for each of the machine's addresses, and each of them reaches a socket bound so.
    @Test func theURLsNameAddressesThatReachAWildcardBind() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        #expect(bound && listen(listener, 8) == 0)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let urls = WebOptions(host: "0.0.0.0", port: port, token: "abcdefgh").urls()
        #expect(!urls.isEmpty)
        for url in urls {
            let host = try #require(URL(string: url)?.host)
            #expect(url == "https://\(host):\(port)/?token=abcdefgh", "beyond loopback the page is HTTPS")
            var numeric = in_addr()
            #expect(inet_pton(AF_INET, host, &numeric) == 1, "\(url) names no IPv4 address")
            let fd = try connectTo(host: host, port: port)
            close(fd)
        }
        #expect(WebOptions(host: "::", port: 8081, token: nil).urls().allSatisfy { !$0.contains("//::") && !$0.contains("[fe80") })
        #expect(WebOptions(host: "::1", port: 8081, token: nil).url() == "http://[::1]:8081/")
        #expect(WebOptions(host: "192.168.1.5", port: 80, token: nil).url(port: 81) == "https://192.168.1.5:81/")
    }

    /// A TCP connection to `host:port` (IPv4), or an error naming why not.
    private func connectTo(host: String, port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw WebTestError("cannot connect to \(host):\(port): \(reason)")
        }
        return fd
    }

    /// The kept token: made once, read back on the next start, replaced only when asked; a damaged file is said, not
    /// replaced; the file and its folders are its owner's alone.
    @Test func aGeneratedTokenIsKeptAcrossStarts() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("swiftcam-state-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let state = HostState(directory: directory.appendingPathComponent("swiftcam").path)
        #expect(try state.existingToken(for: "cam") == nil)
        let first = try state.token(for: "cam")
        #expect(first.made && first.token.count == 32)
        let again = try state.token(for: "cam")
        #expect(!again.made && again.token == first.token)
        #expect(try state.existingToken(for: "cam") == first.token)
        #expect(try state.token(for: "other").token != first.token, "one token per session name")
        let renewed = try state.token(for: "cam", renew: true)
        #expect(renewed.made && renewed.token != first.token)
        #expect(try state.existingToken(for: "cam") == renewed.token)
        let attributes = try FileManager.default.attributesOfItem(atPath: state.tokenPath(for: "cam"))
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let folder = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("swiftcam/web").path)
        #expect((folder[.posixPermissions] as? Int) == 0o700)
        try "x\n".write(toFile: state.tokenPath(for: "cam"), atomically: true, encoding: .utf8)
        #expect(throws: HostStateError.notAToken(path: state.tokenPath(for: "cam"))) { try state.token(for: "cam") }
        #expect(throws: HostStateError.badName("..")) { try state.token(for: "..") }
        #expect(
            HostState.standard(environment: ["STATE_DIRECTORY": "/var/lib/swiftcam:/var/lib/other", "HOME": "/root"])?.directory
                == "/var/lib/swiftcam")
        #expect(HostState.standard(environment: ["XDG_STATE_HOME": "/x/state", "HOME": "/root"])?.directory == "/x/state/swiftcam")
        #expect(HostState.standard(environment: ["HOME": "/home/a"])?.directory == "/home/a/.local/state/swiftcam")
        #expect(HostState.standard(environment: [:]) == nil)
    }

    @Test func tokensCompareWholly() {
        #expect(constantTimeEqual("abcdefgh", "abcdefgh"))
        #expect(!constantTimeEqual("abcdefgh", "abcdefgx"))
        #expect(!constantTimeEqual("abcdefgh", "abcdefg"))
        #expect(!constantTimeEqual("", "a"))
    }
}

@Suite struct APICommandTests {
    private func parse(_ name: String, _ body: String = "") throws -> String {
        try APICommand.parse(name: name, body: Data(body.utf8), permissions: .page).description
    }

    @Test func everyControlIsACommandLine() throws {
        #expect(try parse("snap") == "snap")
        #expect(try parse("switch") == "switch")
        #expect(try parse("zoom", #"{"factor": 2}"#) == "zoom 2.0")
        #expect(try parse("focus", #"{"x": 0.25, "y": 0.5}"#) == "focus 0.25 0.5")
        #expect(try parse("exposure", #"{"x": 0.1, "y": 0.9}"#) == "exposure 0.1 0.9")
        #expect(try parse("exposure", #"{"ev": -1}"#) == "exposure ev=-1.0")
        #expect(try parse("torch", #"{"on": true}"#) == "torch on")
        #expect(try parse("mirror", #"{"on": false}"#) == "mirror off")
        #expect(try parse("wb", #"{"mode": "auto"}"#) == "wb auto")
        #expect(try parse("wb", #"{"kelvin": 5000}"#) == "wb 5000")
        #expect(try parse("wb", #"{"mode": "5000K"}"#) == "wb 5000")
        #expect(try parse("saturation", #"{"value": 0.5}"#) == "saturation 0.5")
        #expect(try parse("filter", #"{"chain": "sepia | vignette"}"#) == "filter sepia | vignette")
        #expect(try parse("filter", #"{"chain": ""}"#) == "filter none")
        #expect(try parse("record", #"{"action": "start"}"#) == "record start")
        #expect(try parse("record/stop") == "record stop")
        #expect(try parse("stats") == "stats --json")
        #expect(try parse("command", #"{"line": "zoom 3"}"#) == "zoom 3.0")
    }

    @Test(arguments: [
        ("zoom", #"{"factor": "#, "malformed JSON"), ("zoom", "[1]", "must be an object"),
        ("zoom", #"{"factor": "x"}"#, "must be a number"),
        ("focus", #"{"x": 0.5, "y": "top"}"#, "\"y\" must be a number"), ("torch", #"{"on": 1}"#, "true or false"),
        ("command", #"{"line": "quit"}"#, "host's own console"), ("command", #"{"line": "snap /etc"}"#, "takes no directory"),
        ("command", #"{"line": "wait 10"}"#, "host's own console"),
        // Built from the number, not from text: bounded before it becomes an Int (this one trapped).
        ("wb", #"{"kelvin": 1e300}"#, "usage: wb"), ("wb", #"{"mode": "warm"}"#, "usage: wb"),
        ("filter", #"{"chain": "mono \"unterminated"}"#, "at column 6")
    ])
    func badRequestsSayWhy(name: String, body: String, reason: String) {
        do {
            _ = try APICommand.parse(name: name, body: Data(body.utf8), permissions: .page)
            Issue.record("\(name) \(body) was accepted")
        } catch let error as APIError {
            #expect(error.status == 400)
            #expect(error.description.contains(reason), "\(error)")
        } catch {
            Issue.record("\(error)")
        }
    }

    /// `lut file=PATH` would have the host open any file the browser names, and its error quoted the first line.
    @Test(arguments: [
        ("filter", #"{"chain": "lut file=/etc/shadow"}"#), ("filter", #"{"chain": "sepia | lut file=/etc/passwd"}"#),
        ("command", #"{"line": "filter lut file=/etc/shadow"}"#),
        ("command", #"{"line": "FILTER mono |lut file=\"/etc/shadow\""}"#)
    ])
    func lutFilesAreNotTheBrowsers(name: String, body: String) {
        do {
            _ = try APICommand.parse(name: name, body: Data(body.utf8), permissions: .page)
            Issue.record("\(name) \(body) was accepted")
        } catch let error as APIError {
            #expect(error.status == 403, "\(error)")
            #expect(error.description.contains("LUT files are chosen in the config or on the command line"), "\(error)")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func unknownCommandsAreNotFound() {
        #expect(throws: APIError.self) { try APICommand.parse(name: "../../etc", body: Data(), permissions: .page) }
    }

    @Test func theCatalogHasEveryFilterWithRanges() throws {
        let catalog = FilterCatalogJSON.all
        let names = catalog.compactMap { $0["name"] as? String }
        #expect(names.contains("mono") && names.contains("sepia") && names.contains("vignette"))
        let sepia = try #require(catalog.first { $0["name"] as? String == "sepia" })
        let intensity = try #require((sepia["parameters"] as? [[String: Any]])?.first { $0["key"] as? String == "intensity" })
        #expect(intensity["min"] as? Double == 0)
        #expect(intensity["kind"] as? String == "number")
        #expect(try JSONSerialization.data(withJSONObject: ["filters": catalog]).count > 100)
    }

    /// A filter registered in the process (as a plugin's are) is in the page's picker with its keys, ranges and unit.
    @Test func theCatalogHasRegisteredFilters() throws {
        try FilterRegistry.registerShared(PageTestTint.self)
        let tint = try #require(FilterCatalogJSON.all.first { $0["name"] as? String == "pagetest-tint" })
        #expect(tint["summary"] as? String == "a test tint")
        let amount = try #require((tint["parameters"] as? [[String: Any]])?.first)
        #expect(amount["key"] as? String == "amount" && amount["max"] as? Double == 2 && amount["unit"] as? String == "stops")
        #expect(throws: FilterRegistrationError.duplicateName(name: "pagetest-tint")) {
            try FilterRegistry.registerShared(PageTestTint.self)
        }
    }
}

/// A point filter of a user's, for the picker test.
private struct PageTestTint: PointFilter {
    static let amount = NumberParameter("amount", default: 1, in: 0...2, unit: "stops", "how much")
    static let info = FilterInfo(name: "pagetest-tint", summary: "a test tint", parameters: [amount])
    var amount: Double
    init(arguments: FilterArguments) { amount = arguments[Self.amount] }
    var values: [ParameterValue] { [Self.amount.value(amount)] }
    var pointMap: PointMap { .matrix(ColorMatrix(red: [amount, 0, 0], green: [0, 1, 0], blue: [0, 0, 1])) }
}
