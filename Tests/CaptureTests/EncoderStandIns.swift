import CGStreamer
import GStreamer

/// Elements registered in this test process under the names of hardware encoders this machine lacks, each
/// x264enc underneath so the ones that start really encode:
/// - `v4l2h264enc` refuses READY→PAUSED, as a V4L2 M2M encoder whose device is missing or busy does;
/// - `vah264enc` starts, then posts an error going to PLAYING, before any frame (a VA driver refusing the stream);
/// - `nvh264enc` works: x264enc set up for low latency as the real one would be (`tune=zerolatency`,
///   `speed-preset=ultrafast`), so a session of another test that lands on it streams as it would with x264enc.
/// `vaapih264enc` stays absent. Registration is for the whole process and cannot be undone, so every test that
/// relies on the stand-ins' failures uses a `FailedEncoders` of its own, and the others' sessions (which share
/// `EncoderChoice.failed`) only ever fall back to a working encoder.
enum EncoderStandIns {
    static let refusing = "v4l2h264enc"
    static let erroring = "vah264enc"
    static let working = "nvh264enc"

    /// Registers them once; false when x264enc, which they are made of, is not installed.
    static func register() -> Bool { registered }

    private static let registered: Bool = {
        guard Element.factoryExists("x264enc") else { return false }
        return Element.register(name: working, type: workingType())
            && Element.register(name: refusing, type: failingType(named: "SwiftCamRefusingEncoder", refusing: true))
            && Element.register(name: erroring, type: failingType(named: "SwiftCamErroringEncoder", refusing: false))
    }()

    /// A subclass of x264enc whose instances start with x264enc's low-latency settings.
    private static func workingType() -> GType {
        var query = GTypeQuery()
        g_type_query(parentType, &query)
        let setUp: GInstanceInitFunc = { instance, _ in
            guard let instance else { return }
            let object = UnsafeMutableRawPointer(instance).assumingMemoryBound(to: GObject.self)
            gst_util_set_object_arg(object, "tune", "zerolatency")
            gst_util_set_object_arg(object, "speed-preset", "ultrafast")
        }
        return g_type_register_static_simple(
            parentType, "SwiftCamWorkingEncoder", query.class_size, nil,
            query.instance_size, setUp, GTypeFlags(rawValue: 0))
    }

    /// x264enc's element type, the parent of the failing ones.
    private static let parentType = Element.elementType(of: "x264enc")

    /// A subclass of x264enc whose `change_state` refuses READY→PAUSED (`refusing`) or posts an error at PAUSED→PLAYING.
    private static func failingType(named name: String, refusing: Bool) -> GType {
        var query = GTypeQuery()
        g_type_query(parentType, &query)
        let refuse: GClassInitFunc = { klass, _ in
            guard let klass else { return }
            klass.assumingMemoryBound(to: GstElementClass.self).pointee.change_state = { element, transition in
                transition == GST_STATE_CHANGE_READY_TO_PAUSED ? GST_STATE_CHANGE_FAILURE : EncoderStandIns.chainUp(element, transition)
            }
        }
        let error: GClassInitFunc = { klass, _ in
            guard let klass else { return }
            klass.assumingMemoryBound(to: GstElementClass.self).pointee.change_state = { element, transition in
                let result = EncoderStandIns.chainUp(element, transition)
                if transition == GST_STATE_CHANGE_PAUSED_TO_PLAYING, let element {
                    let failure = g_error_new_literal(
                        gst_core_error_quark(), gint(GST_CORE_ERROR_FAILED.rawValue), "no VA display for the stand-in")
                    let source = UnsafeMutableRawPointer(element).assumingMemoryBound(to: GstObject.self)
                    gst_element_post_message(element, gst_message_new_error(source, failure, "stand-in for a hardware encoder"))
                    g_error_free(failure)
                }
                return result
            }
        }
        return g_type_register_static_simple(
            parentType, name, query.class_size, refusing ? refuse : error,
            query.instance_size, nil, GTypeFlags(rawValue: 0))
    }

    /// x264enc's own `change_state`.
    private static func chainUp(_ element: UnsafeMutablePointer<GstElement>?, _ transition: GstStateChange) -> GstStateChangeReturn {
        guard let parent = g_type_class_peek(parentType)?.assumingMemoryBound(to: GstElementClass.self),
            let changeState = parent.pointee.change_state
        else { return GST_STATE_CHANGE_FAILURE }
        return changeState(element, transition)
    }
}
