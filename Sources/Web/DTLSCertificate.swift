import COpenSSL
import FoundationEssentials

/// The certificate the camera serves in WebRTC viewers' DTLS handshakes: an ECDSA key on P-256 and a self-signed
/// certificate over it, made once per host start with libcrypto. GStreamer's DTLS makes an RSA-2048 one by itself, and a
/// client that offers only ECDHE-ECDSA suites (aiortc, as the DTLS client) finds no suite it shares with it; browsers
/// offer both kinds. The peers check it by the offer's `a=fingerprint` alone, so a self-signed one is what WebRTC uses.
struct DTLSCertificate: Sendable {
    /// The certificate then its private key, PEM: what the DTLS decoder's `pem` property reads.
    let pem: String
    /// The certificate alone, PEM.
    let certificatePEM: String
    /// SHA-256 over the certificate's DER bytes: the offer's `a=fingerprint`.
    let fingerprint: Fingerprint

    /// How long the certificate says it is valid. Peers check only its fingerprint; a host that runs longer than this
    /// still serves it (DTLS peers in WebRTC do not check the dates of a self-signed certificate).
    static let validDays = 365

    /// Makes a key and a certificate. Calls `EVP_PKEY_generate`, `X509_sign` and `PEM_write_bio_*`.
    static func generate() throws(DTLSCertificateError) -> DTLSCertificate {
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
            X509_gmtime_adj(X509_getm_notAfter(certificate), Int(validDays) * 86_400) != nil,
            X509_set_pubkey(certificate, key) == 1,
            X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, "swiftcam", -1, -1, 0) == 1,
            X509_set_issuer_name(certificate, name) == 1,
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
        return DTLSCertificate(pem: certificateText + keyText, certificatePEM: certificateText, fingerprint: fingerprint)
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

/// Why the camera has no ECDSA certificate (its viewers then get GStreamer's RSA one).
enum DTLSCertificateError: Error, CustomStringConvertible {
    /// libcrypto could not make `step`; `library` is its own text, for the debug log.
    case failed(step: String, library: String)

    var description: String {
        switch self {
        case let .failed(step, _): "libcrypto could not make \(step) of the ECDSA DTLS certificate"
        }
    }

    /// libcrypto's own words.
    var libraryText: String {
        switch self {
        case let .failed(_, library): library
        }
    }
}
