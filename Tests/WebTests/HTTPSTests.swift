import Foundation
import Glibc
import TestSupport
import Testing

@testable import Web

/// The page over HTTPS: the host's own certificate, made once and kept, or the user's files; checked with a TLS client
/// that is not ours (`openssl s_client`, verifying the certificate and its address against the kept file).
@Suite(
    .serialized, .enabled(if: NetworkIsolation.isolated, "needs a network namespace with only lo: scripts/test.sh web"),
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"), "needs the openssl command"))
struct HTTPSTests {
    /// One request over TLS to 127.0.0.1:`port`, the server's certificate verified against `trusted` (a PEM file) and
    /// its name against 127.0.0.1; the status, headers (lower-case names) and body, or the client's failure.
    static func exchange(port: Int, trusted: String, _ request: String) throws -> (status: Int, headers: [String: String], body: String) {
        let result = try ChildProcess.run(
            [
                "/usr/bin/openssl", "s_client", "-connect", "127.0.0.1:\(port)", "-CAfile", trusted, "-verify_return_error",
                "-verify_ip", "127.0.0.1", "-quiet"
            ], input: request)
        let text = result.out
        guard result.status == 0, let split = text.range(of: "\r\n\r\n") else {
            throw WebTestError("openssl s_client: \(result.status) \(result.err.suffix(400)) \(text.prefix(200))")
        }
        let lines = text[..<split.lowerBound].split(separator: "\r\n")
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let status = lines.first.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) } ?? 0
        return (status, headers, String(text[split.upperBound...]))
    }

    static func get(
        _ path: String, port: Int, trusted: String, headers: [String] = []
    ) throws -> (
        status: Int, headers: [String: String], body: String
    ) {
        let extra = headers.map { $0 + "\r\n" }.joined()
        return try exchange(
            port: port, trusted: trusted, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\(extra)\r\n")
    }

    /// The SHA-256 fingerprint of the first certificate in `file`, as `openssl x509` prints it.
    static func fingerprint(of file: String) throws -> String {
        let printed = try ChildProcess.run(["/usr/bin/openssl", "x509", "-in", file, "-noout", "-fingerprint", "-sha256"]).out
        return try #require(printed.split(separator: "=").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
    }

    /// The printed certificate line: `certificate SHA-256 AB:… (WHERE)`.
    static func printedCertificate(_ host: WebHost) throws -> (fingerprint: String, origin: String) {
        let line = try #require(host.outputText.split(separator: "\n").first { $0.hasPrefix("certificate SHA-256 ") }, "\(host.outputText)")
        let parts = line.dropFirst("certificate SHA-256 ".count).split(separator: " ", maxSplits: 1)
        return (String(parts[0]), String(parts[1].dropFirst().dropLast()))
    }

    @Test func theHostMakesKeepsAndServesItsOwnCertificate() async throws {
        let token = "https-token-0123456789"
        let first = try WebHost(config: "switch", arguments: ["--http", "https://127.0.0.1:0", "--token", token])
        let kept = first.stateHome.appendingPathComponent("swiftcam/web/switch.pem").path
        #expect(first.outputText.contains("HTTPS certificate made and kept in \(kept)"), "\(first.outputText)")
        #expect(first.outputText.contains("camera screen https://127.0.0.1:\(first.port)/?token=\(token)"), "\(first.outputText)")
        let printed = try Self.printedCertificate(first)
        #expect(printed.fingerprint == (try Self.fingerprint(of: kept)) && printed.origin == kept, "what a browser shows, to compare")
        var info = stat()
        #expect(stat(kept, &info) == 0 && info.st_mode & 0o777 == 0o600, "the key is its owner's alone")

        // Verified against the kept certificate, for the address in the URL.
        let status = try Self.get("/api/status", port: first.port, trusted: kept, headers: ["X-SwiftCam-Token: \(token)"])
        #expect(status.status == 200 && status.body.contains("\"status\""), "\(status)")
        #expect(try Self.get("/api/status", port: first.port, trusted: kept).status == 401)
        // The printed URL sets a cookie only sent back over HTTPS.
        let opened = try Self.get("/?token=\(token)", port: first.port, trusted: kept)
        let cookie = opened.headers["set-cookie"] ?? ""
        #expect(opened.status == 303 && cookie.contains("swiftcam-token=\(token)") && cookie.contains("; Secure"), "\(opened.headers)")
        #expect(opened.headers["location"] == "/", "a relative redirect: an absolute one from libsoup said http://")
        // A command from the page's own origin, which is https://, passes; the same origin over http:// does not.
        for (origin, expected) in [("https://127.0.0.1:\(first.port)", 200), ("http://127.0.0.1:\(first.port)", 403)] {
            let body = #"{"chain": "mono"}"#
            let answer = try Self.exchange(
                port: first.port, trusted: kept,
                "POST /api/filter HTTP/1.1\r\nHost: 127.0.0.1:\(first.port)\r\nConnection: close\r\nOrigin: \(origin)\r\n"
                    + "X-SwiftCam-Token: \(token)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            #expect(answer.status == expected, "\(origin): \(answer)")
        }
        // The gate screens the plain bytes: a path with a dot segment is still a 404.
        #expect(try Self.get("/captures/%2e%2e/x", port: first.port, trusted: kept, headers: ["X-SwiftCam-Token: \(token)"]).status == 404)
        // Plain HTTP to the HTTPS port is told the URL that works, in plain text.
        let plain = try rawHTTP(port: first.port, "GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(plain.status == 400 && plain.body.contains("serves HTTPS on this port: open https://127.0.0.1:\(first.port)/"), "\(plain)")
        // `swiftcam token NAME` says it too, for a host started as a service.
        let told = try ChildProcess.run(
            [Built.swiftcam, "token", "switch", "--state", first.stateHome.appendingPathComponent("swiftcam").path])
        #expect(told.status == 0 && told.err.contains("HTTPS certificate SHA-256 \(printed.fingerprint) (\(kept))"), "\(told.err)")
        let port = first.port
        first.stop()

        // A restart serves the same certificate: a browser told to trust it goes on trusting it.
        let second = try WebHost(
            config: "switch", arguments: ["--http", "https://127.0.0.1:\(port)", "--token", token], directory: first.directory)
        #expect(!second.outputText.contains("made and kept"), "\(second.outputText)")
        #expect(try Self.printedCertificate(second).fingerprint == printed.fingerprint)
        #expect(try Self.get("/api/status", port: port, trusted: kept, headers: ["X-SwiftCam-Token: \(token)"]).status == 200)
    }

    @Test func theUsersCertificateIsServedAndBadFilesAreRefusedInOneLine() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("swiftcam-tls-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        func make(_ name: String) throws {
            let made = try ChildProcess.run([
                "/usr/bin/openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
                "-subj", "/CN=camera.test", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", "\(folder)/\(name).key", "-out",
                "\(folder)/\(name).crt"
            ])
            #expect(made.status == 0, "\(made.err)")
        }
        try make("own")
        try make("other")
        let token = "https-token-0123456789"
        let host = try WebHost(
            config: "switch",
            arguments: [
                "--http", "https://127.0.0.1:0", "--token", token, "--tls-cert", "\(folder)/own.crt", "--tls-key", "\(folder)/own.key"
            ])
        let printed = try Self.printedCertificate(host)
        #expect(printed.fingerprint == (try Self.fingerprint(of: "\(folder)/own.crt")), "\(host.outputText)")
        #expect(printed.origin == "\(folder)/own.crt with \(folder)/own.key")
        #expect(!host.outputText.contains("made and kept"))
        #expect(
            try Self.get("/api/status", port: host.port, trusted: "\(folder)/own.crt", headers: ["X-SwiftCam-Token: \(token)"]).status
                == 200)
        host.stop()

        let refusals: [([String], Int32, String)] = [
            (["--tls-cert", "\(folder)/own.crt", "--tls-key", "\(folder)/other.key"], 65, "is not the key of the certificate"),
            (
                ["--tls-cert", "\(folder)/missing.crt", "--tls-key", "\(folder)/own.key"], 66,
                "cannot read the HTTPS certificate \(folder)/missing.crt: No such file"
            ),
            (["--tls-cert", "\(folder)/own.key", "--tls-key", "\(folder)/own.key"], 65, "holds no PEM certificate"),
            (["--tls-cert", "\(folder)/own.crt"], 64, "--tls-cert FILE and --tls-key FILE go together")
        ]
        for (arguments, status, words) in refusals {
            let refused = try WebHost(
                config: "switch", arguments: ["--http", "https://127.0.0.1:0", "--token", token] + arguments, expectServing: false)
            #expect(refused.exitStatus() == status, "\(arguments)")
            #expect(refused.errorText.contains(words) && refused.errorText.split(separator: "\n").count <= 2, "\(refused.errorText)")
            #expect(!refused.outputText.contains("camera screen"))
        }
        let plain = try WebHost(
            config: "switch",
            arguments: ["--http", "http://127.0.0.1:0", "--tls-cert", "\(folder)/own.crt", "--tls-key", "\(folder)/own.key"],
            expectServing: false)
        #expect(plain.exitStatus() == 64 && plain.errorText.contains("go with an HTTPS page"), "\(plain.errorText)")
    }
}

/// The kept certificate's life, without a server.
@Suite struct KeptCertificateTests {
    @Test func aKeptCertificateStaysUntilItNearsItsEndThenANewOneIsMade() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("swiftcam-state-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let state = HostState(directory: folder)
        let made = try state.certificate(for: "cam", names: ["10.0.0.7", "camera.local"])
        #expect(made.made && made.identity.origin == "\(folder)/web/cam.pem")
        let again = try state.certificate(for: "cam", names: ["10.0.0.8"])
        #expect(!again.made && again.identity.fingerprint == made.identity.fingerprint, "kept, whatever the names now")

        // One that ends within the renewal window is replaced.
        let ending = try SelfSignedCertificate.generate(names: ["10.0.0.7"], days: HostState.certificateRenewalDays - 1)
        try ending.pem.write(toFile: "\(folder)/web/cam.pem", atomically: true, encoding: .utf8)
        let renewed = try state.certificate(for: "cam", names: ["10.0.0.7"])
        #expect(renewed.made && renewed.identity.fingerprint != made.identity.fingerprint)

        // So is a file that holds no certificate (the state folder is the host's own).
        try "not a certificate".write(toFile: "\(folder)/web/cam.pem", atomically: true, encoding: .utf8)
        let replaced = try state.certificate(for: "cam", names: [])
        #expect(replaced.made && replaced.identity.fingerprint != renewed.identity.fingerprint)
    }
}
