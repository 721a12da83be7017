import Glibc

/// The trigger situation of a buffered device.
///
/// Drivers name their data-ready trigger `<name>-dev<N>` (inv_mpu6050, HID: `accel_3d-dev0`)
/// or `<name>-trigger`; devices with a hardware FIFO need none.
enum BufferTrigger {
    /// The device has no `trigger/current_trigger`: it needs no trigger.
    case notSupported
    /// A trigger is already attached.
    case attached(String)
    /// None attached; this matching trigger exists and will be attached.
    case available(IIODevice)
    /// None attached and no matching trigger exists.
    case none

    /// Whether the trigger named `name` is the one attached.
    func isAttached(_ name: String) -> Bool {
        if case .attached(let attached) = self { return attached == name }
        return false
    }

    static func find(for device: IIODevice, among devices: [IIODevice]) -> BufferTrigger {
        let current: IIODevice?
        do {
            current = try device.currentTrigger()
        } catch {
            // ENOENT: no trigger/current_trigger at all. Anything else (an attached trigger this
            // context does not list): treat as unattached and look for the device's own.
            if error.code == ENOENT { return .notSupported }
            current = nil
        }
        if let current { return .attached(current.name ?? current.id) }
        guard let name = device.name else { return .none }
        var wanted = ["\(name)-trigger"]
        if let number = device.number { wanted.insert("\(name)-dev\(number)", at: 0) }
        for candidate in wanted {
            if let trigger = devices.first(where: { $0.isTrigger && $0.name == candidate }) { return .available(trigger) }
        }
        return .none
    }
}
