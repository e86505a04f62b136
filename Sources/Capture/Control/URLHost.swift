import Glibc

/// How a listening address is written in a URL people open: an IPv6 address in brackets, and for "every interface"
/// (`0.0.0.0`, `::`) each address another machine can use, since a wildcard address opens nothing and this machine's
/// name (`gethostname`) is seldom one the other machine resolves.
public enum URLHost {
    /// The host part of a URL for a server bound to `address`: the first of `reachable(forAddress:)`.
    public static func forAddress(_ address: String) -> String {
        reachable(forAddress: address)[0]
    }

    /// The host parts of the URLs for a server bound to `address`, never empty: the address itself, or for every
    /// interface each address of an interface that is up, but loopback (IPv4 first; IPv6 on `::` only, without its
    /// link-local ones, which a browser cannot use without naming the interface). Loopback when there is no other.
    public static func reachable(forAddress address: String) -> [String] {
        guard address == "0.0.0.0" || address == "::" else { return [bracketed(address)] }
        let found = interfaceAddresses(includingIPv6: address == "::")
        return found.isEmpty ? ["127.0.0.1"] : found.map(bracketed)
    }

    private static func bracketed(_ address: String) -> String {
        address.contains(":") ? "[\(address)]" : address
    }

    /// The numeric addresses of the interfaces that are up, loopback and IPv6 link-local left out, IPv4 first.
    private static func interfaceAddresses(includingIPv6: Bool) -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var ipv4: [String] = [], ipv6: [String] = []
        var entry = list
        while let current = entry?.pointee {
            defer { entry = current.ifa_next }
            let flags = Int32(bitPattern: current.ifa_flags)
            guard flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0, let socketAddress = current.ifa_addr
            else { continue }
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            switch Int32(socketAddress.pointee.sa_family) {
            case AF_INET:
                var address = UnsafeRawPointer(socketAddress).loadUnaligned(as: sockaddr_in.self).sin_addr
                guard inet_ntop(AF_INET, &address, &text, socklen_t(text.count)) != nil else { continue }
                ipv4.append(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            case AF_INET6 where includingIPv6:
                var address = UnsafeRawPointer(socketAddress).loadUnaligned(as: sockaddr_in6.self).sin6_addr
                // fe80::/10
                let linkLocal = withUnsafeBytes(of: address) { $0[0] == 0xfe && $0[1] & 0xc0 == 0x80 }
                guard !linkLocal, inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil else { continue }
                ipv6.append(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            default:
                continue
            }
        }
        var seen = Set<String>()
        return (ipv4 + ipv6).filter { seen.insert($0).inserted }
    }
}
