import CV4L2
import Glibc

/// Finds sub-devices that belong to the same media controller graph as a video node (`MEDIA_IOC_G_TOPOLOGY`).
enum MediaTopology {
    /// Device nodes (e.g. `/dev/v4l-subdev3`) of flash entities (`MEDIA_ENT_F_FLASH`) in the media graph that
    /// contains the video node with device number `videoDevice`; empty when there is no such graph.
    static func flashSubdevices(ofVideoDevice videoDevice: UInt64, dev: String = "/dev") -> [String] {
        let entries = ProcessHolder.directoryEntries(dev)
        let subdevs = entries.filter { $0.hasPrefix("v4l-subdev") }.map { "\(dev)/\($0)" }
        guard !subdevs.isEmpty else { return [] }
        for media in entries.filter({ $0.hasPrefix("media") }).sorted() {
            guard let graph = Graph(path: "\(dev)/\(media)"),
                graph.interfaces.contains(where: { $0.type == UInt32(MEDIA_INTF_T_V4L_VIDEO) && $0.device == videoDevice })
            else { continue }
            let flashEntities = Set(graph.entities.filter { $0.function == UInt32(MEDIA_ENT_F_FLASH) }.map(\.id))
            let linkType = UInt32(truncatingIfNeeded: MEDIA_LNK_FL_LINK_TYPE)
            let interfaceLink = UInt32(truncatingIfNeeded: MEDIA_LNK_FL_INTERFACE_LINK)
            let flashInterfaces = Set(
                graph.links
                    .filter { $0.flags & linkType == interfaceLink && flashEntities.contains($0.sink) }
                    .map(\.source))
            let numbers = Set(graph.interfaces.filter { flashInterfaces.contains($0.id) }.map(\.device))
            return subdevs.filter { path in
                var info = stat()
                return stat(path, &info) == 0 && numbers.contains(UInt64(info.st_rdev))
            }.sorted()
        }
        return []
    }

    /// The parts of a media graph the flash lookup needs.
    struct Graph {
        struct Interface { let id: UInt32; let type: UInt32; let device: UInt64 }
        struct Entity { let id: UInt32; let function: UInt32 }
        struct Link { let source: UInt32; let sink: UInt32; let flags: UInt32 }
        var interfaces: [Interface] = []
        var entities: [Entity] = []
        var links: [Link] = []

        /// Reads the topology of `/dev/mediaN`; nil when it cannot be opened or read.
        init?(path: String) {
            let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            var topology = media_v2_topology()
            guard ioctl(fd, CV4L2_MEDIA_IOC_G_TOPOLOGY, &topology) == 0 else { return nil }
            // The graph can grow between the two calls; the kernel then fails with ENOSPC and we give up.
            var entities = [media_v2_entity](repeating: media_v2_entity(), count: Int(topology.num_entities))
            var interfaces = [media_v2_interface](repeating: media_v2_interface(), count: Int(topology.num_interfaces))
            var links = [media_v2_link](repeating: media_v2_link(), count: Int(topology.num_links))
            let ok = entities.withUnsafeMutableBufferPointer { e in
                interfaces.withUnsafeMutableBufferPointer { i in
                    links.withUnsafeMutableBufferPointer { l in
                        topology.ptr_entities = UInt64(UInt(bitPattern: e.baseAddress))
                        topology.ptr_interfaces = UInt64(UInt(bitPattern: i.baseAddress))
                        topology.ptr_links = UInt64(UInt(bitPattern: l.baseAddress))
                        topology.ptr_pads = 0
                        return ioctl(fd, CV4L2_MEDIA_IOC_G_TOPOLOGY, &topology) == 0
                    }
                }
            }
            guard ok else { return nil }
            self.entities = entities.prefix(Int(topology.num_entities)).map { Entity(id: $0.id, function: $0.function) }
            self.interfaces = interfaces.prefix(Int(topology.num_interfaces)).map {
                Interface(id: $0.id, type: $0.intf_type, device: MediaTopology.makeDevice(major: $0.devnode.major, minor: $0.devnode.minor))
            }
            self.links = links.prefix(Int(topology.num_links)).map { Link(source: $0.source_id, sink: $0.sink_id, flags: $0.flags) }
        }
    }

    /// glibc's `makedev` (a macro Swift cannot import), so interface numbers compare with `st_rdev`.
    static func makeDevice(major: UInt32, minor: UInt32) -> UInt64 {
        let major = UInt64(major), minor = UInt64(minor)
        return ((major & 0x0000_0fff) << 8) | ((major & 0xffff_f000) << 32) | (minor & 0x0000_00ff) | ((minor & 0xffff_ff00) << 12)
    }
}
