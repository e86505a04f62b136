import Foundation
import GStreamer
import TestSupport
import Testing

@testable import Web

/// The host's DTLS certificate: an ECDSA P-256 key and a self-signed certificate, read back by a tool that is not ours
/// (the openssl command) and taken by GStreamer's DTLS decoder. No sockets: these run anywhere.
@Suite struct SelfSignedCertificateTests {
    /// Runs `openssl arguments` on `input`; its stdout.
    static func openssl(_ arguments: [String], input: String) throws -> String {
        let result = try ChildProcess.run(["/usr/bin/openssl"] + arguments, input: input)
        guard result.status == 0 else { throw WebTestError("openssl \(arguments.joined(separator: " ")) exited \(result.status)") }
        return result.out
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"), "needs the openssl command"))
    func theCertificateIsAnECDSAP256OneWithTheFingerprintOpenSSLComputes() throws {
        let certificate = try SelfSignedCertificate.generate()
        #expect(certificate.pem.hasPrefix(certificate.certificatePEM))
        #expect(certificate.pem.contains("-----BEGIN PRIVATE KEY-----"))
        #expect(!certificate.certificatePEM.contains("PRIVATE KEY"))
        let text = try Self.openssl(["x509", "-noout", "-text"], input: certificate.certificatePEM)
        #expect(text.contains("ecdsa-with-SHA256") && text.contains("id-ecPublicKey") && text.contains("prime256v1"), "\(text)")
        let key = try Self.openssl(["pkey", "-noout", "-text"], input: certificate.pem)
        #expect(key.contains("prime256v1"), "\(key)")
        let printed = try Self.openssl(["x509", "-noout", "-fingerprint", "-sha256"], input: certificate.certificatePEM)
        // "sha256 Fingerprint=AB:CD:…"
        let digest = printed.split(separator: "=").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
        #expect(certificate.fingerprint.text == "sha-256 " + digest, "\(printed)")
        #expect(try SelfSignedCertificate.generate().fingerprint != certificate.fingerprint, "each host start makes its own")
    }

    /// GStreamer's DTLS decoder parses the PEM (certificate, then key) and serves it: its `pem` reads back what was set
    /// only when its certificate object read both.
    @Test func gstreamersDTLSDecoderTakesIt() throws {
        GStreamer.initialize()
        let certificate = try SelfSignedCertificate.generate()
        let decoder = try Element.make("dtlssrtpdec")
        try decoder.set("connection-id", "certificate-test-\(UUID().uuidString)")
        let generated = try decoder.get("pem", as: String.self)
        try decoder.set("pem", certificate.pem)
        #expect(try decoder.get("pem", as: String.self) == certificate.pem)
        #expect(generated != certificate.pem)
    }
}
