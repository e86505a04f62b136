/// A weak reference that can be handed across threads: what a signal handler or a source holds of its owner, so the
/// owner's lifetime stays its own and a call that comes after the owner went finds nil.
public final class WeakReference<Object: AnyObject & Sendable>: Sendable {
    /// The object, while something else keeps it alive.
    public weak let object: Object?

    /// Refers to `object` without keeping it.
    public init(_ object: Object) {
        self.object = object
    }
}
