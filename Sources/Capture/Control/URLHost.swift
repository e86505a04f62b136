import Glibc

/// How a listening address is written in a URL people open: an IPv6 address in brackets, and for "every interface"
/// (`0.0.0.0`, `::`) this machine's name (`gethostname`), since a wildcard address opens nothing from another machine.
public enum URLHost {
    /// The host part of a URL for a server bound to `address`.
    public static func forAddress(_ address: String) -> String {
        if address == "0.0.0.0" || address == "::" {
            var name = [CChar](repeating: 0, count: 256)
            return gethostname(&name, name.count) == 0 ? String(cString: name) : "HOST"
        }
        return address.contains(":") ? "[\(address)]" : address
    }
}
