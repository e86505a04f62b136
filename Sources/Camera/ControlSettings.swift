/// Control values a config keeps for a camera (`v4l2-ctl` names → values), written when the camera opens.
extension CameraDevice {
    /// The controls worth keeping in a config: user-adjustable integer, boolean and menu controls that can be
    /// read and written, that are not chosen by the camera itself (volatile), grabbed or inactive now.
    public func settableControls() throws(DeviceError) -> [CameraControl] {
        try controls().filter { control in
            switch control.type {
            case .integer, .boolean, .menu, .integerMenu: break
            default: return false
            }
            return control.isReadable && control.isWritable
                && control.flags.intersection([.volatile, .grabbed, .disabled, .inactive, .writeOnly, .executeOnWrite]).isEmpty
        }
    }

    /// The current values of `settableControls()`, by name.
    public func currentSettings() throws(DeviceError) -> [String: Int64] {
        var settings: [String: Int64] = [:]
        for control in try settableControls() {
            if let value = try? value(of: control)?.integerValue { settings[control.name] = value }
        }
        return settings
    }

    /// Writes `settings` in name order, each snapped into its control's range; returns one line per value that
    /// was not written as given (unknown name, clamped, refused). Only a device that went away throws.
    public func apply(_ settings: [String: Int64]) throws(DeviceError) -> [String] {
        let controls = Dictionary(try self.controls().map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var notes: [String] = []
        for name in settings.keys.sorted() {
            guard let requested = settings[name] else { continue }
            guard let control = controls[name] else {
                notes.append("\(path) has no control \(name); kept as it is (`swiftcam controls \(path)` lists them)")
                continue
            }
            let value = control.type == .boolean ? (requested != 0 ? 1 : 0) : control.snapped(integer: requested)
            do {
                try set(control, to: control.type == .boolean ? .boolean(value != 0) : .integer(value))
                if value != requested { notes.append("\(path) \(name) \(requested) is outside its range; set to \(value)") }
            } catch .deviceGone(let path) {
                throw .deviceGone(path: path)
            } catch {
                notes.append("\(path) \(name) could not be set: \(error)")
            }
        }
        return notes
    }
}
