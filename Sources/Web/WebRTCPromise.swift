import CGstWebRTC
import GStreamer

extension WebRTCViewer {
    /// A promise whose reply goes to `reply` on this viewer; the promise keeps the viewer alive until it is freed. The
    /// caller hands it to webrtcbin and lets its own reference go at once: webrtcbin holds the promise while its task
    /// waits, and a task dropped unanswered (the viewer stopped first) then frees it, with the viewer's box, rather than
    /// leaving it to a reply that never comes. `reply` gets the promise during `gst_promise_reply` and must not unref it.
    func promise(
        replyingTo reply: @escaping (WebRTCViewer) -> (UnsafeMutablePointer<GstPromise>) -> Void
    )
        -> UnsafeMutablePointer<GstPromise>?
    {
        let box = Unmanaged.passRetained(PromiseReply(viewer: self, reply: reply)).toOpaque()
        return gst_promise_new_with_change_func(
            { promise, data in
                guard let promise, let data else { return }
                let box = Unmanaged<PromiseReply>.fromOpaque(data).takeUnretainedValue()
                box.reply(box.viewer)(promise)
            }, box,
            { data in
                guard let data else { return }
                Unmanaged<PromiseReply>.fromOpaque(data).release()
            })
    }
}

/// A viewer and the method a promise's reply goes to: the user data of `gst_promise_new_with_change_func`.
private final class PromiseReply {
    let viewer: WebRTCViewer
    let reply: (WebRTCViewer) -> (UnsafeMutablePointer<GstPromise>) -> Void

    init(viewer: WebRTCViewer, reply: @escaping (WebRTCViewer) -> (UnsafeMutablePointer<GstPromise>) -> Void) {
        self.viewer = viewer
        self.reply = reply
    }
}
