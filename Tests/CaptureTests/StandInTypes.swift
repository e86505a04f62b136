import CGStreamer
import GStreamer

/// Element types derived in this test process from an installed element, for stand-ins of hardware elements this
/// machine lacks (registered under their names with `Element.register(name:rank:type:)`).
enum StandInTypes {
    /// A subclass of `parent`'s element type whose `change_state` refuses READY→PAUSED, as a V4L2 M2M or VA element
    /// whose device is missing or busy does; other transitions are the parent's. 0 when `parent` is not installed.
    static func refusingToPause(parent: String, named name: String) -> GType {
        let parentType = Element.elementType(of: parent)
        guard parentType != 0 else { return 0 }
        var query = GTypeQuery()
        g_type_query(parentType, &query)
        let refuse: GClassInitFunc = { klass, _ in
            guard let klass else { return }
            klass.assumingMemoryBound(to: GstElementClass.self).pointee.change_state = { element, transition in
                guard transition != GST_STATE_CHANGE_READY_TO_PAUSED, let element else { return GST_STATE_CHANGE_FAILURE }
                // The parent's own change_state: the class above this element's class.
                let ownClass = UnsafeMutableRawPointer(element).assumingMemoryBound(to: GTypeInstance.self).pointee.g_class
                guard let parentClass = g_type_class_peek_parent(ownClass)?.assumingMemoryBound(to: GstElementClass.self),
                    let changeState = parentClass.pointee.change_state
                else { return GST_STATE_CHANGE_FAILURE }
                return changeState(element, transition)
            }
        }
        return g_type_register_static_simple(
            parentType, name, query.class_size, refuse, query.instance_size, nil,
            GTypeFlags(rawValue: 0))
    }
}
