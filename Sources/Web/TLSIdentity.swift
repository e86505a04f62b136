import Base
import COpenSSL
import CSoup
import Filters
import FoundationEssentials
import GStreamer
import Glibc

/// The certificate (with its chain) and private key the page's HTTPS serves, and what a user checks of it: the SHA-256
/// fingerprint a browser shows for it. Either the user's own files (`--tls-cert`/`--tls-key`, config `"https"`) or the
/// host's kept self-signed one (`HostState.certificate`). Checked when made: both parse, the key is the certificate's,
/// and GLib's TLS backend (glib-networking) takes them, so a value that exists starts a server.
public struct TLSIdentity: Sendable, Equatable {
    /// The certificates, then the key, PEM.
    public let pem: String
    /// SHA-256 over the first certificate's DER bytes, `AB:CD:…` as browsers show it.
    public let fingerprint: String
    /// Where it came from, in the user's words: the files named, or the kept one's path.
    public let origin: String

    /// Reads the user's certificate (PEM, the server's first, then any intermediates) and its key (PEM).
    public init(certificateFile: String, keyFile: String) throws(TLSIdentityError) {
        let certificate = try Self.read(certificateFile, what: "certificate")
        let key = try Self.read(keyFile, what: "key")
        try self.init(
            certificates: certificate, key: key, origin: "\(certificateFile) with \(keyFile)",
            names: (certificate: certificateFile, key: keyFile))
    }

    /// A PEM text holding certificates and a key (a kept identity), `origin` its path.
    init(pem: String, origin: String) throws(TLSIdentityError) {
        try self.init(certificates: pem, key: pem, origin: origin, names: (certificate: origin, key: origin))
    }

    private init(certificates: String, key: String, origin: String, names: (certificate: String, key: String)) throws(TLSIdentityError) {
        guard let first = Self.firstCertificate(in: certificates) else { throw .notACertificate(path: names.certificate) }
        guard let privateKey = Self.privateKey(in: key) else { throw .notAKey(path: names.key) }
        defer { EVP_PKEY_free(privateKey) }
        defer { X509_free(first) }
        guard X509_check_private_key(first, privateKey) == 1 else {
            ERR_clear_error()
            throw .keyMismatch(certificate: names.certificate, key: names.key)
        }
        let pem = Self.blocks(in: certificates, kind: "CERTIFICATE") + Self.keyBlock(in: key)
        guard let fingerprint = Fingerprint.of(pem: pem, hash: .sha256) else { throw .notACertificate(path: names.certificate) }
        self.pem = pem
        self.fingerprint = String(fingerprint.text.split(separator: " ").last ?? "")
        self.origin = origin
        // GLib's own check: the backend is there and reads them as it will when serving.
        _ = try certificate()
    }

    /// Whether GLib has a TLS backend (glib-networking) to serve any identity with.
    static var backendAvailable: Bool { g_tls_backend_supports_tls(g_tls_backend_get_default()) != 0 }

    /// GLib's certificate object for this identity. Calls `g_tls_certificate_new_from_pem`.
    func certificate() throws(TLSIdentityError) -> ObjectReference {
        guard Self.backendAvailable else { throw .noBackend }
        var error: UnsafeMutablePointer<GError>?
        guard let made = g_tls_certificate_new_from_pem(pem, -1, &error) else {
            let reason = error != nil ? GLibError(consuming: &error).message : "no reason given"
            throw .refusedByGLib(origin: origin, reason: reason)
        }
        return ObjectReference(adopting: made)
    }

    /// The file's text; in the user's words when it cannot be read.
    private static func read(_ path: String, what: String) throws(TLSIdentityError) -> String {
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            let reason = access(path, R_OK) != 0 ? SystemError.message(errno) : "not UTF-8 text (PEM expected)"
            throw .unreadable(what: what, path: path, reason: reason)
        }
    }

    /// The `-----BEGIN KIND-----` blocks of `text`, each with its lines, joined.
    private static func blocks(in text: String, kind: String) -> String {
        var result = ""
        var inside = false
        for line in text.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("-----BEGIN \(kind)-----") { inside = true }
            if inside { result += line + "\n" }
            if line.hasPrefix("-----END \(kind)-----") { inside = false }
        }
        return result
    }

    /// The private key block, whatever its kind (`PRIVATE KEY`, `EC PRIVATE KEY`, `RSA PRIVATE KEY`).
    private static func keyBlock(in text: String) -> String {
        for kind in ["PRIVATE KEY", "EC PRIVATE KEY", "RSA PRIVATE KEY"] {
            let block = blocks(in: text, kind: kind)
            if !block.isEmpty { return block }
        }
        return ""
    }

    /// Whether the first certificate of `pem` is still valid `seconds` from now.
    static func isValid(pem: String, forAnother seconds: Int) -> Bool {
        guard let certificate = firstCertificate(in: pem) else { return false }
        defer { X509_free(certificate) }
        var then = time(nil) + seconds
        return X509_cmp_time(X509_get0_notAfter(certificate), &then) > 0
    }

    private static func firstCertificate(in text: String) -> OpaquePointer? {
        withMemoryBIO(text) { PEM_read_bio_X509($0, nil, nil, nil) }
    }

    private static func privateKey(in text: String) -> OpaquePointer? {
        let block = keyBlock(in: text)
        guard !block.isEmpty else { return nil }
        // A callback that gives no passphrase: OpenSSL's own would ask on the terminal for an encrypted key.
        return withMemoryBIO(block) { PEM_read_bio_PrivateKey($0, nil, { _, _, _, _ in 0 }, nil) }
    }

    private static func withMemoryBIO(_ text: String, _ body: (OpaquePointer) -> OpaquePointer?) -> OpaquePointer? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { raw -> OpaquePointer? in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            let result = body(bio)
            ERR_clear_error()
            return result
        }
    }
}

/// Why the page's HTTPS has no certificate to serve.
public enum TLSIdentityError: Error, Equatable, CustomStringConvertible {
    case unreadable(what: String, path: String, reason: String)
    case notACertificate(path: String)
    case notAKey(path: String)
    case keyMismatch(certificate: String, key: String)
    /// GLib has no TLS backend: glib-networking is not installed.
    case noBackend
    /// GLib's backend did not take it; `reason` is its text.
    case refusedByGLib(origin: String, reason: String)

    /// Whether a file named was not there.
    public var isMissingFile: Bool {
        if case let .unreadable(_, _, reason) = self { return reason == SystemError.message(ENOENT) }
        return false
    }

    public var description: String {
        switch self {
        case let .unreadable(what, path, reason): "cannot read the HTTPS \(what) \(path.escapingControls): \(reason)"
        case let .notACertificate(path): "\(path.escapingControls) holds no PEM certificate (-----BEGIN CERTIFICATE-----)"
        case let .notAKey(path): "\(path.escapingControls) holds no PEM private key (-----BEGIN PRIVATE KEY-----) without a passphrase"
        case let .keyMismatch(certificate, key):
            "the key \(key.escapingControls) is not the key of the certificate \(certificate.escapingControls)"
        case .noBackend: "HTTPS needs GLib's TLS backend, which is not installed: apt install glib-networking"
        case let .refusedByGLib(origin, reason): "GLib's TLS does not take the certificate \(origin.escapingControls): \(reason)"
        }
    }
}
