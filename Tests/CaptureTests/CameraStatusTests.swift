import Camera
import Testing

@testable import Capture

@Suite struct CameraStatusTests {
    /// A camera that cannot be used maps to the status a person can act on, its path said once.
    @Test func aDeviceErrorBecomesItsStatus() {
        let path = "/tmp/not-a-camera"
        #expect(
            CameraStatus(opening: path, error: .notACamera(path: path)).description
                == "failed: \(path) is not a video capture device; run `swiftcam devices` to list the cameras present.")
        #expect(CameraStatus(opening: path, error: .permissionDenied(path: path)).name == "unauthorized")
        #expect(CameraStatus(opening: path, error: .deviceNotFound(path: path, available: [])).name == "unconfigured")
        // GStreamer's errors name the element, then say what happened.
        #expect(
            CameraStatus.failed(element: "source0", message: "Could not read from resource.").description
                == "failed: source0: Could not read from resource.")
    }
}
