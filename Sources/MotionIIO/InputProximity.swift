import MotionCore

/// An input proximity switch (`SW_FRONT_PROXIMITY` of an evdev node, e.g. a phone's
/// gpio-keys): its state, asked with `EVIOCGSW` on the first tick and whenever the events read
/// since say the switch moved (or the kernel dropped events); reported only when it changes,
/// as ``PlatformSensor/switchNear`` or ``PlatformSensor/switchFar``.
final class InputProximity: PlatformReading {
    private let device: EvdevDevice
    private var last: Bool?

    init(device: EvdevDevice) {
        self.device = device
    }

    func read() throws(ReadFault) -> Vector3? {
        let near: Bool
        do {
            let events = try device.pendingEvents()
            let moved = events.contains { event in
                event.type == EvdevDevice.switchEvent && Int(event.code) == EvdevDevice.frontProximity
                    || event.type == EvdevDevice.synchronization && event.code == EvdevDevice.dropped
            }
            guard last == nil || moved else { return nil }
            near = try device.isSwitchOn(EvdevDevice.frontProximity)
        } catch {
            throw .io(error)
        }
        guard near != last else { return nil }
        last = near
        return Vector3(near ? PlatformSensor.switchNear : PlatformSensor.switchFar, 0, 0)
    }
}
