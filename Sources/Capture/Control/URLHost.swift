import Glibc

/// How a listening address is written in a URL people open: an IPv6 address in brackets, and for "every interface"
/// (`0.0.0.0`, `::`) this machine's name (`gethostname`), since a wildcard address opens nothing from another machine.
public enum URLHost {
    /// The host part of a URL for a server bound to `address`.
    public static func forAddress(_ address: String) -> String {
        if address == "0.0.0.0" || address == "::" {
            var name = [CChar](repeating: 0, count: 256)
            guard gethostname(&name, name.count) == 0 else { return "HOST" }
            return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return address.contains(":") ? "[\(address)]" : address
    }
}
