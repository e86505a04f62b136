import Base
import GStreamer
import Testing

/// Counts handlers (and everything they captured) freed: a box GLib frees through its destroy notify takes its
/// handler, and with it this, along.
private final class Freed: Sendable {
    let count: Locked<Int>
    init(_ count: Locked<Int>) { self.count = count }
    deinit { count.withLock { $0 += 1 } }
}

/// `GstBin::element-added`'s C signature: the bin, the element, the connection's data.
private typealias ElementAdded = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void

/// The handler type these tests connect: counts calls, and holds a `Freed` to count its own release.
private struct Counting: Sendable {
    let calls: Locked<Int>
    let freed: Freed
}

private let countCall: ElementAdded = { _, _, data in
    SignalConnection.handler(data, as: Counting.self)?.calls.withLock { $0 += 1 }
}

@Suite("SignalConnection")
struct SignalConnectionTests {
    private func connect(_ bin: Bin, calls: Locked<Int>, freed: Locked<Int>) throws -> SignalConnection {
        try SignalConnection(
            to: UnsafeMutableRawPointer(bin.pointer), signal: "element-added",
            handler: Counting(calls: calls, freed: Freed(freed)), trampoline: countCall)
    }

    /// A handler runs for each emission while connected; after `disconnect` an emission does not reach it, and its box
    /// (with what it captured) is freed by then.
    @Test func disconnectStopsEmissionsAndFreesTheBox() throws {
        let bin = Bin(name: "signals")
        let calls = Locked(0), freed = Locked(0)
        let connection = try connect(bin, calls: calls, freed: freed)
        try bin.add(try Element.make("fakesink"))
        #expect(calls.withLock { $0 } == 1)
        #expect(connection.isConnected)
        connection.disconnect()
        #expect(!connection.isConnected)
        #expect(freed.withLock { $0 } == 1, "the destroy notify did not free the box at disconnect")
        try bin.add(try Element.make("fakesink"))
        #expect(calls.withLock { $0 } == 1, "an emission after disconnect called the handler")
        connection.disconnect()  // idempotent
        #expect(freed.withLock { $0 } == 1)
    }

    /// Dropping the connection disconnects it: the next emission calls nothing.
    @Test func droppingTheConnectionDisconnects() throws {
        let bin = Bin(name: "dropped")
        let calls = Locked(0), freed = Locked(0)
        do {
            let connection = try connect(bin, calls: calls, freed: freed)
            try bin.add(try Element.make("fakesink"))
            withExtendedLifetime(connection) {}
        }
        #expect(freed.withLock { $0 } == 1)
        try bin.add(try Element.make("fakesink"))
        #expect(calls.withLock { $0 } == 1)
    }

    /// An object finalized before its connection frees the box at once (the connection holds it only weakly), and the
    /// later disconnect finds no object and does nothing.
    @Test func objectFinalizedFirstFreesTheBox() throws {
        let calls = Locked(0), freed = Locked(0)
        var bin: Bin? = Bin(name: "short-lived")
        let connection = try connect(bin!, calls: calls, freed: freed)
        bin = nil
        #expect(freed.withLock { $0 } == 1, "the connection kept the object (or the box) alive")
        connection.disconnect()
        #expect(!connection.isConnected)
        #expect(calls.withLock { $0 } == 0)
    }

    /// A connection for the object's lifetime stays until the object goes, then its box is freed.
    @Test func lifetimeConnectionEndsWithTheObject() throws {
        let calls = Locked(0), freed = Locked(0)
        var bin: Bin? = Bin(name: "lifetime")
        try SignalConnection.forLifetime(
            of: UnsafeMutableRawPointer(bin!.pointer), signal: "element-added",
            handler: Counting(calls: calls, freed: Freed(freed)), trampoline: countCall)
        try bin!.add(try Element.make("fakesink"))
        #expect(calls.withLock { $0 } == 1)
        #expect(freed.withLock { $0 } == 0)
        bin = nil
        #expect(freed.withLock { $0 } == 1)
    }

    /// A signal the type does not have is an error naming both, not a GLib warning and a dead connection.
    @Test func unknownSignalThrows() throws {
        let bin = Bin(name: "unknown")
        let freed = Locked(0)
        #expect(throws: GStreamerError.signalNotFound(type: "GstBin", signal: "no-such-signal")) {
            try SignalConnection(
                to: UnsafeMutableRawPointer(bin.pointer), signal: "no-such-signal",
                handler: Counting(calls: Locked(0), freed: Freed(freed)), trampoline: countCall)
        }
        #expect(freed.withLock { $0 } == 1, "a refused connection kept its handler")
    }
}

@Suite("ObjectReference")
struct ObjectReferenceTests {
    /// A retained reference keeps the object alive after its other owner let go, and dropping it finalizes the object
    /// (seen through a lifetime connection's box, which GLib frees at finalization).
    @Test func retainedReferenceOwnsTheObject() throws {
        let freed = Locked(0)
        var bin: Bin? = Bin(name: "owned")
        try SignalConnection.forLifetime(
            of: UnsafeMutableRawPointer(bin!.pointer), signal: "element-added",
            handler: Counting(calls: Locked(0), freed: Freed(freed)), trampoline: countCall)
        var reference: ObjectReference? = ObjectReference(retaining: bin!.pointer)
        #expect(reference?.typeName == "GstBin")
        bin = nil
        #expect(freed.withLock { $0 } == 0, "the object went while a reference still owned it")
        reference = nil
        #expect(freed.withLock { $0 } == 1, "dropping the last reference did not finalize the object")
    }
}
