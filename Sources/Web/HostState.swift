import Base
import Filters
import FoundationEssentials
import Glibc

/// What a host makes once and keeps across its restarts, per session name, readable by its owner alone: the page's
/// generated token (`web/NAME.token`) and its self-signed HTTPS certificate with its key (`web/NAME.pem`). The folder is the service's `StateDirectory` (`$STATE_DIRECTORY`,
/// set by systemd), else `$XDG_STATE_HOME/swiftcam`, else `~/.local/state/swiftcam`; `swiftcam token NAME --state DIR`
/// names another.
public struct HostState: Sendable, Equatable {
    /// The state folder.
    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    /// The folder for this process's environment; nil when it names none (no `HOME` either).
    public static func standard() -> HostState? {
        standard(environment: ProcessInfo.processInfo.environment)
    }

    /// The folder `environment` names; nil when it names none.
    public static func standard(environment: [String: String]) -> HostState? {
        // systemd passes a colon-separated list when a unit names several; the first is the unit's own.
        if let state = environment["STATE_DIRECTORY"]?.split(separator: ":").first, state.hasPrefix("/") {
            return HostState(directory: String(state))
        }
        if let xdg = environment["XDG_STATE_HOME"], xdg.hasPrefix("/") { return HostState(directory: xdg + "/swiftcam") }
        if let home = environment["HOME"], home.hasPrefix("/") { return HostState(directory: home + "/.local/state/swiftcam") }
        return nil
    }

    /// Where the token of session `name` is kept.
    public func tokenPath(for name: String) -> String {
        "\(directory)/web/\(name).token"
    }

    /// The kept token of session `name`, made (and kept) when there is none or `renew` asks for a new one; `made` says
    /// which.
    public func token(for name: String, renew: Bool = false) throws(HostStateError) -> (token: String, made: Bool) {
        if !renew, let kept = try existingToken(for: name) { return (kept, false) }
        let path = tokenPath(for: name)
        let token = WebOptions.newToken()
        try write(token + "\n", to: path)
        return (token, true)
    }

    /// Where the self-signed HTTPS certificate of session `name` is kept, with its key.
    public func certificatePath(for name: String) -> String {
        "\(directory)/web/\(name).pem"
    }

    /// Days a made certificate is valid, and how many before its end a new one is made instead.
    static let certificateDays = 825
    static let certificateRenewalDays = 30

    /// The kept HTTPS certificate of session `name`: made for `names` (the addresses and host names it serves) when
    /// there is none that serves, or when the kept one ends within `certificateRenewalDays`; `made` says which. A kept
    /// one is served whatever names it holds, so its fingerprint stays what a browser was told to trust.
    public func certificate(for name: String, names: [String]) throws(HostStateError) -> (identity: TLSIdentity, made: Bool) {
        guard Self.isSessionName(name) else { throw .badName(name) }
        // Without GLib's TLS no kept certificate would load: say so, and leave the kept one for when it is back.
        guard TLSIdentity.backendAvailable else { throw .certificate(reason: TLSIdentityError.noBackend.description) }
        let path = certificatePath(for: name)
        if let kept = try existingCertificate(for: name),
            TLSIdentity.isValid(pem: kept.pem, forAnother: Self.certificateRenewalDays * 86_400)
        {
            return (kept, false)
        }
        let made: SelfSignedCertificate
        do {
            made = try SelfSignedCertificate.generate(names: names, days: Self.certificateDays)
        } catch {
            throw .certificate(reason: error.description)
        }
        try write(made.pem, to: path)
        do {
            return (try TLSIdentity(pem: made.pem, origin: path), true)
        } catch {
            throw .certificate(reason: error.description)
        }
    }

    /// The kept HTTPS certificate of session `name`; nil when there is none that GLib's TLS would serve.
    public func existingCertificate(for name: String) throws(HostStateError) -> TLSIdentity? {
        guard Self.isSessionName(name) else { throw .badName(name) }
        let path = certificatePath(for: name)
        return try keptText(at: path).flatMap { try? TLSIdentity(pem: $0, origin: path) }
    }

    private static func isSessionName(_ name: String) -> Bool {
        !name.isEmpty && !name.contains("/") && name != "." && name != ".."
    }

    /// The kept token of session `name`; nil when none was made.
    public func existingToken(for name: String) throws(HostStateError) -> String? {
        guard Self.isSessionName(name) else { throw .badName(name) }
        return try keptToken(at: tokenPath(for: name))
    }

    /// The text of `path`; nil when there is no such file.
    private func keptText(at path: String) throws(HostStateError) -> String? {
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            if access(path, F_OK) != 0, errno == ENOENT { return nil }
            throw .unreadable(path: path, reason: access(path, R_OK) != 0 ? SystemError.message(errno) : "not UTF-8 text")
        }
    }

    /// The token in `path`; nil when there is no such file.
    private func keptToken(at path: String) throws(HostStateError) -> String? {
        guard let text = try keptText(at: path) else { return nil }
        let token = text.trimmed
        guard token.count >= 8, token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else { throw .notAToken(path: path) }
        return token
    }

    /// Writes `text` to `path` whole or not at all (a file beside it, renamed over it), readable by its owner only; the
    /// folders are made as needed, for their owner only too.
    private func write(_ text: String, to path: String) throws(HostStateError) {
        let folder = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        var made = ""
        for part in folder.split(separator: "/") {
            made += "/" + part
            if mkdir(made, 0o700) != 0, errno != EEXIST { throw .unwritable(path: made, reason: SystemError.message(errno)) }
        }
        let temporary = path + ".new"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .unwritable(path: temporary, reason: SystemError.message(errno)) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        var failure = written == bytes.count ? nil : SystemError.message(written < 0 ? errno : ENOSPC)
        if failure == nil, fsync(fd) != 0 { failure = SystemError.message(errno) }
        close(fd)
        if failure == nil, rename(temporary, path) != 0 { failure = SystemError.message(errno) }
        if let failure {
            unlink(temporary)
            throw .unwritable(path: path, reason: failure)
        }
    }
}

/// Why the host's kept state could not be read or written.
public enum HostStateError: Error, Equatable, CustomStringConvertible {
    case badName(String)
    case unreadable(path: String, reason: String)
    case unwritable(path: String, reason: String)
    case notAToken(path: String)
    /// No certificate could be made or served: `reason` says why.
    case certificate(reason: String)

    public var description: String {
        switch self {
        case let .badName(name): "'\(name.escapingControls)' is not a session name"
        case let .unreadable(path, reason): "cannot read the kept \(Self.what(path)) \(path.escapingControls): \(reason)"
        case let .unwritable(path, reason): "cannot keep the \(Self.what(path)) in \(path.escapingControls): \(reason)"
        case let .notAToken(path):
            "\(path.escapingControls) holds no token (8 or more printable characters): remove it, or make a new one with swiftcam token NAME --renew"
        case let .certificate(reason): reason
        }
    }

    /// What a kept file holds, by its name.
    private static func what(_ path: String) -> String {
        path.hasSuffix(".pem") ? "HTTPS certificate" : "token"
    }
}
