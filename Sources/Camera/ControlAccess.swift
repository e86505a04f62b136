import CV4L2
import Glibc

/// Control enumeration and the extended-control get/set ioctls, shared by video nodes and sub-devices.
extension DeviceNode {
    /// Every enabled control, in driver order, via `VIDIOC_QUERY_EXT_CTRL` with
    /// `V4L2_CTRL_FLAG_NEXT_CTRL | V4L2_CTRL_FLAG_NEXT_COMPOUND`; class headings are skipped.
    func queryControls() throws(DeviceError) -> [CameraControl] {
        let next = UInt32(V4L2_CTRL_FLAG_NEXT_CTRL) | UInt32(V4L2_CTRL_FLAG_NEXT_COMPOUND)
        var controls: [CameraControl] = []
        var id = next
        // A driver that never ends the list would loop forever; no real one has more than a few hundred.
        for _ in 0..<4096 {
            var query = v4l2_query_ext_ctrl()
            query.id = id
            let code = attempt(CV4L2_VIDIOC_QUERY_EXT_CTRL, &query)
            if code == EINVAL { break }
            if code == ENOTTY { return controls }
            if code != 0 { throw DeviceError.ioctl("VIDIOC_QUERY_EXT_CTRL", errno: code, path: path) }
            id = query.id | next
            let flags = ControlFlags(rawValue: query.flags)
            let type = ControlType(code: query.type)
            if flags.contains(.disabled) || type == .controlClass { continue }
            controls.append(control(from: query, type: type, flags: flags))
        }
        return controls
    }

    /// The control with `id`, via `VIDIOC_QUERY_EXT_CTRL`; nil when the node has none.
    func queryControl(id: UInt32) throws(DeviceError) -> CameraControl? {
        var query = v4l2_query_ext_ctrl()
        query.id = id
        let code = attempt(CV4L2_VIDIOC_QUERY_EXT_CTRL, &query)
        if code == EINVAL || code == ENOTTY { return nil }
        if code != 0 { throw DeviceError.ioctl("VIDIOC_QUERY_EXT_CTRL", errno: code, path: path) }
        let flags = ControlFlags(rawValue: query.flags)
        if flags.contains(.disabled) || query.id != id { return nil }
        return control(from: query, type: ControlType(code: query.type), flags: flags)
    }

    private func control(from query: v4l2_query_ext_ctrl, type: ControlType, flags: ControlFlags) -> CameraControl {
        let dims = withUnsafeBytes(of: query.dims) { Array($0.bindMemory(to: UInt32.self)) }
        let menu = (type == .menu || type == .integerMenu) ? menuItems(query, integer: type == .integerMenu) : []
        return CameraControl(
            id: query.id, label: cString(query.name), type: type,
            minimum: query.minimum, maximum: query.maximum, step: query.step,
            defaultValue: query.default_value, flags: flags,
            elementSize: query.elem_size, elements: query.elems,
            dimensions: Array(dims.prefix(Int(min(query.nr_of_dims, 4)))), menu: menu)
    }

    /// `VIDIOC_QUERYMENU` for every index in range; indexes the driver rejects are skipped (menu_skip_mask).
    private func menuItems(_ query: v4l2_query_ext_ctrl, integer: Bool) -> [MenuItem] {
        guard query.minimum >= 0, query.maximum >= query.minimum, query.maximum - query.minimum < 1024,
            query.maximum <= Int64(UInt32.max)
        else { return [] }
        var items: [MenuItem] = []
        for index in query.minimum...query.maximum {
            var item = v4l2_querymenu()
            item.id = query.id
            item.index = UInt32(index)
            guard attempt(CV4L2_VIDIOC_QUERYMENU, &item) == 0 else { continue }
            if integer {
                items.append(MenuItem(index: index, name: nil, value: item.value))
            } else {
                items.append(MenuItem(index: index, name: cString(item.name), value: nil))
            }
        }
        return items
    }

    /// Reads the current (or, with `default`, the default) value via `VIDIOC_G_EXT_CTRLS`;
    /// nil for controls without a readable scalar value (buttons, arrays, compound, write-only).
    func value(of control: CameraControl, which: UInt32 = UInt32(V4L2_CTRL_WHICH_CUR_VAL)) throws(DeviceError) -> ControlValue? {
        guard control.isReadable else { return nil }
        var ext = v4l2_ext_control()
        ext.id = control.id
        if control.type == .string {
            // The maximum is the longest length in bytes; a driver claiming more than 1 MiB is not believed.
            let capacity = Int(min(max(control.maximum, 0), 1 << 20)) + 1
            var buffer = [CChar](repeating: 0, count: capacity)
            ext.size = UInt32(capacity)
            let code = buffer.withUnsafeMutableBufferPointer { storage -> Int32 in
                ext.string = storage.baseAddress
                return run(CV4L2_VIDIOC_G_EXT_CTRLS, &ext, which: which)
            }
            if code != 0 { throw DeviceError.ioctl("VIDIOC_G_EXT_CTRLS", errno: code, path: path) }
            let bytes = buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }
            return .string(String(decoding: bytes, as: UTF8.self))
        }
        let code = run(CV4L2_VIDIOC_G_EXT_CTRLS, &ext, which: which)
        if code != 0 { throw DeviceError.ioctl("VIDIOC_G_EXT_CTRLS", errno: code, path: path) }
        switch control.type {
        case .integer64: return .integer(ext.value64)
        case .boolean: return .boolean(ext.value != 0)
        case .bitmask: return .integer(Int64(UInt32(bitPattern: ext.value)))
        default: return .integer(Int64(ext.value))
        }
    }

    /// Writes `value` via `VIDIOC_S_EXT_CTRLS` after checking it against the control's type and range;
    /// a button is pressed by writing any integer.
    func setValue(_ value: ControlValue, of control: CameraControl) throws(DeviceError) {
        try validate(value, for: control)
        var ext = v4l2_ext_control()
        ext.id = control.id
        let code: Int32
        switch (control.type, value) {
        case let (.string, .string(text)):
            var bytes = Array(text.utf8CString)
            ext.size = UInt32(clamping: bytes.count)
            code = bytes.withUnsafeMutableBufferPointer { storage -> Int32 in
                ext.string = storage.baseAddress
                return run(CV4L2_VIDIOC_S_EXT_CTRLS, &ext, which: UInt32(V4L2_CTRL_WHICH_CUR_VAL))
            }
        case (.integer64, _):
            ext.value64 = value.integerValue ?? 0
            code = run(CV4L2_VIDIOC_S_EXT_CTRLS, &ext, which: UInt32(V4L2_CTRL_WHICH_CUR_VAL))
        default:
            ext.value = Int32(truncatingIfNeeded: value.integerValue ?? 0)
            code = run(CV4L2_VIDIOC_S_EXT_CTRLS, &ext, which: UInt32(V4L2_CTRL_WHICH_CUR_VAL))
        }
        switch code {
        case 0: return
        case EACCES: throw DeviceError.invalidControlValue(control: control.name, reason: "the driver does not allow writing it")
        case ERANGE, EINVAL:
            throw DeviceError.invalidControlValue(
                control: control.name, reason: "the driver rejected \(value) (\(DeviceError.errnoText(code)))")
        default: throw DeviceError.ioctl("VIDIOC_S_EXT_CTRLS", errno: code, path: path)
        }
    }

    /// Checks type, access and range so a bad value gets a clear message instead of a bare errno.
    private func validate(_ value: ControlValue, for control: CameraControl) throws(DeviceError) {
        func reject(_ reason: String) -> DeviceError { .invalidControlValue(control: control.name, reason: reason) }
        guard control.isWritable else {
            if control.isArrayOrCompound { throw reject("\(control.type) arrays and compound controls are not supported") }
            throw reject("it is read-only")
        }
        switch control.type {
        case .string:
            guard case let .string(text) = value else { throw reject("it takes a string") }
            let length = Int64(text.utf8.count)
            guard length >= control.minimum, length <= control.maximum else {
                throw reject("its length must be \(control.minimum)…\(control.maximum) bytes, not \(length)")
            }
        case .button:
            guard value.integerValue != nil else { throw reject("it is a button; press it with any integer") }
        case .boolean:
            guard let number = value.integerValue, number == 0 || number == 1 else { throw reject("it takes true or false (1 or 0)") }
        case .menu, .integerMenu:
            guard let number = value.integerValue else { throw reject("it takes a menu index") }
            guard control.menu.contains(where: { $0.index == number }) else {
                let valid = control.menu.map { String($0.index) }.joined(separator: ", ")
                throw reject("\(number) is not one of its menu indexes (\(valid))")
            }
        case .bitmask:
            guard let number = value.integerValue, number >= 0, number <= Int64(UInt32.max) else { throw reject("it takes a 32-bit mask") }
            let extra = UInt32(number) & ~UInt32(truncatingIfNeeded: control.maximum)
            guard extra == 0 else {
                throw reject(
                    "bits 0x\(String(extra, radix: 16)) are not settable (mask 0x\(String(UInt32(truncatingIfNeeded: control.maximum), radix: 16)))"
                )
            }
        case .integer, .integer64:
            guard let number = value.integerValue else { throw reject("it takes an integer") }
            guard number >= control.minimum, number <= control.maximum else {
                throw reject("\(number) is outside \(control.minimum)…\(control.maximum)")
            }
        case .controlClass, .other:
            throw reject("\(control.type) controls are not supported")
        }
    }

    /// One-control `VIDIOC_G_EXT_CTRLS`/`VIDIOC_S_EXT_CTRLS`; returns 0 or the errno.
    private func run(_ request: UInt, _ ext: inout v4l2_ext_control, which: UInt32) -> Int32 {
        withUnsafeMutablePointer(to: &ext) { pointer -> Int32 in
            var controls = v4l2_ext_controls()
            controls.which = which
            controls.count = 1
            controls.controls = pointer
            return attempt(request, &controls)
        }
    }
}
