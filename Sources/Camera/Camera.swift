// Camera: V4L2 cameras, spoken to through their own ioctls. Device discovery and identity, formats,
// controls (read, set, every type), the seeds' camera features on real controls (torch, zoom, focus,
// exposure, white balance, colour, mirror), the media topology, preflight, and `DeviceError`, whose
// messages say what to do. Imports CV4L2 only: never GStreamer (a graph is the session's business) and
// nothing of the session (mapping a `DeviceError` to a session status is `Capture`'s job).
