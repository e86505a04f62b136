/// Swift closures handed to C callbacks (appsink, pad probes) by number rather than by pointer.
///
/// GStreamer passes `user_data` to its streaming threads under GLib's own futex locks, which
/// ThreadSanitizer cannot see; a closure object published that way reads as a race. Looking the closure
/// up here, under a pthread mutex, makes the hand-over visible, so `--sanitize=thread` stays meaningful.

import Base

enum CallbackRegistry {
    private static let entries = Locked((next: UInt(1), boxes: [UInt: any AnyObject & Sendable]()))

    /// Stores a box (it is called from streaming threads, so it must be Sendable) and returns the `user_data` that finds it (never nil).
    static func register(_ box: any AnyObject & Sendable) -> UnsafeMutableRawPointer? {
        let id = entries.withLock { state in
            let id = state.next
            state.next += 1
            state.boxes[id] = box
            return id
        }
        return UnsafeMutableRawPointer(bitPattern: id)
    }

    /// The box behind a `user_data`, typed as asked.
    static func lookup<Box: AnyObject & Sendable>(_ userData: UnsafeMutableRawPointer?, as type: Box.Type) -> Box? {
        guard let userData else { return nil }
        let id = UInt(bitPattern: userData)
        return entries.withLock { $0.boxes[id] } as? Box
    }

    /// Drops a box (from a GDestroyNotify).
    static func remove(_ userData: UnsafeMutableRawPointer?) {
        guard let userData else { return }
        let id = UInt(bitPattern: userData)
        _ = entries.withLock { $0.boxes.removeValue(forKey: id) }
    }
}
