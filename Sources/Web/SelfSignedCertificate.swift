import COpenSSL
import FoundationEssentials
import Glibc

/// An ECDSA key on P-256 and a self-signed certificate over it, made with libcrypto. Two uses:
/// - WebRTC viewers' DTLS handshakes, one made per host start. GStreamer's DTLS makes an RSA-2048 one by itself, and a
///   client that offers only ECDHE-ECDSA suites (aiortc, as the DTLS client) finds no suite it shares with it; browsers
///   offer both kinds. The peers check it by the offer's `a=fingerprint` alone, so a self-signed one is what WebRTC uses.
/// - The page's HTTPS when no certificate is named: made once and kept (`HostState`), naming the machine's addresses,
///   so a browser told to trust it (its fingerprint, printed with the URL) keeps trusting it across restarts.
public struct SelfSignedCertificate: Sendable {
    /// The certificate then its private key, PEM: what the DTLS decoder's `pem` property and GLib's TLS read.
    public let pem: String
    /// The certificate alone, PEM.
    let certificatePEM: String
    /// SHA-256 over the certificate's DER bytes: the offer's `a=fingerprint`, and what a browser shows of the HTTPS one.
    let fingerprint: Fingerprint

    /// How long a DTLS certificate says it is valid. Peers check only its fingerprint; a host that runs longer than this
    /// still serves it (DTLS peers in WebRTC do not check the dates of a self-signed certificate).
    static let validDays = 365

    /// Makes a key and a certificate valid for `days` from a day ago, for `names` (IP addresses or DNS names, its
    /// subjectAltName; none for DTLS) and for server authentication. Calls `EVP_PKEY_generate`, `X509_sign` and
    /// `PEM_write_bio_*`.
    static func generate(names: [String] = [], days: Int = validDays) throws(SelfSignedCertificateError) -> SelfSignedCertificate {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw .failed(step: "a key context", library: lastLibraryError())
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_group_name(context, "P-256") == 1,
            EVP_PKEY_generate(context, &key) == 1, let key
        else {
            throw .failed(step: "a P-256 key", library: lastLibraryError())
        }
        defer { EVP_PKEY_free(key) }
        guard let certificate = X509_new() else { throw .failed(step: "a certificate", library: lastLibraryError()) }
        defer { X509_free(certificate) }
        let serial = Int.random(in: 1...Int(Int32.max))
        let name = X509_get_subject_name(certificate)
        guard X509_set_version(certificate, 2) == 1,  // X.509 v3
            ASN1_INTEGER_set(X509_get_serialNumber(certificate), serial) == 1,
            X509_gmtime_adj(X509_getm_notBefore(certificate), -86_400) != nil,  // a peer's clock a little behind
            X509_gmtime_adj(X509_getm_notAfter(certificate), days * 86_400) != nil,
            X509_set_pubkey(certificate, key) == 1,
            X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, "swiftcam", -1, -1, 0) == 1,
            X509_set_issuer_name(certificate, name) == 1,
            names.isEmpty || addExtensions(to: certificate, names: names),
            X509_sign(certificate, key, EVP_sha256()) > 0
        else {
            throw .failed(step: "the self-signed certificate", library: lastLibraryError())
        }
        guard let certificateText = pemText({ PEM_write_bio_X509($0, certificate) }),
            let keyText = pemText({ PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) })
        else {
            throw .failed(step: "its PEM text", library: lastLibraryError())
        }
        guard let fingerprint = Fingerprint.of(pem: certificateText, hash: .sha256) else {
            throw .failed(step: "its fingerprint", library: "the PEM text holds no certificate")
        }
        return SelfSignedCertificate(pem: certificateText + keyText, certificatePEM: certificateText, fingerprint: fingerprint)
    }

    /// A server's extensions: its names (`IP:` for addresses, `DNS:` for the rest), not a CA, for TLS servers; false
    /// when libcrypto refused one.
    private static func addExtensions(to certificate: OpaquePointer, names: [String]) -> Bool {
        let alternatives = names.map { name in
            var address = in6_addr()
            let isAddress = inet_pton(AF_INET6, name, &address) == 1 || inet_pton(AF_INET, name, &address) == 1
            return (isAddress ? "IP:" : "DNS:") + name
        }.joined(separator: ",")
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, certificate, certificate, nil, nil, 0)
        let extensions: [(Int32, String)] = [
            (NID_subject_alt_name, alternatives), (NID_basic_constraints, "critical,CA:FALSE"),
            (NID_key_usage, "critical,digitalSignature"), (NID_ext_key_usage, "serverAuth")
        ]
        return extensions.allSatisfy { nid, value in
            guard let made = X509V3_EXT_conf_nid(nil, &context, nid, value) else { return false }
            defer { X509_EXTENSION_free(made) }
            return X509_add_ext(certificate, made, -1) == 1
        }
    }

    /// What `write` put into a memory BIO, as text; nil when it failed.
    private static func pemText(_ write: (OpaquePointer) -> Int32) -> String? {
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { return nil }
        let size = Int(BIO_ctrl_pending(bio))
        var bytes = [UInt8](repeating: 0, count: size)
        guard size > 0, BIO_read(bio, &bytes, Int32(size)) == Int32(size) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// libcrypto's last error on this thread (for the debug log), cleared.
    private static func lastLibraryError() -> String {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return "no error recorded" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Why the camera has no ECDSA certificate (its WebRTC viewers then get GStreamer's RSA one; HTTPS does not start).
public enum SelfSignedCertificateError: Error, CustomStringConvertible {
    /// libcrypto could not make `step`; `library` is its own text, for the debug log.
    case failed(step: String, library: String)

    public var description: String {
        switch self {
        case let .failed(step, _): "libcrypto could not make \(step) of a self-signed ECDSA certificate"
        }
    }

    /// libcrypto's own words.
    var libraryText: String {
        switch self {
        case let .failed(_, library): library
        }
    }
}
