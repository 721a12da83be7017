import Glibc
import MotionCore

/// Finds the accelerometers, gyroscopes, magnetometers, light and proximity sensors of an IIO
/// context and works out how to read each one (see ``SensorDescriptor``).
///
/// A motion sensor is three input channels `<type>_x/y/z` of one device (`accel`, `anglvel`,
/// `magn`): one device may carry several sensors (mpu6050), each sensor may be its own device
/// (st_lsm6dsx), or they come from a HID sensor hub (`accel_3d`, `gyro_3d`, `magn_3d`). A light
/// or proximity sensor is one channel (``channelGroups(_:)``); a proximity sensor needs a near
/// level. A device missing an axis or with an unparseable attribute is skipped with the reason.
public struct SensorDiscovery: Sendable {
    /// Mount matrices from configuration (highest precedence).
    public var overrides: [MountMatrixOverride]
    /// Whether to consult udev properties (hwdb `ACCEL_MOUNT_MATRIX`, `ACCEL_LOCATION`);
    /// only meaningful for the local backend.
    public var useUdev: Bool
    /// Whether a device that can buffer but has no trigger of its own gets an `hrtimer`
    /// software trigger (``SoftwareTrigger``; local devices only).
    public var softwareTrigger: SoftwareTriggerMode
    /// Whether iio-sensor-proxy runs, asked when a buffer is found enabled with nobody holding
    /// it (``BufferOwnership``); unknown unless the caller can tell.
    public var sensorProxy: @Sendable () -> SensorProxyPresence = { .unknown("nothing asked the system bus") }
    /// Where software triggers are made (another root in tests).
    var softwareTriggerRoots = SoftwareTrigger.Roots()

    public init(overrides: [MountMatrixOverride] = [], useUdev: Bool = true, softwareTrigger: SoftwareTriggerMode = .auto) {
        self.overrides = overrides
        self.useUdev = useUdev
        self.softwareTrigger = softwareTrigger
    }

    /// Why `device`, which has no trigger of its own, gets no software trigger; `nil` when it
    /// gets one.
    func withoutSoftwareTrigger(_ device: IIODevice) -> String? {
        guard softwareTrigger == .auto else { return "software-trigger = off" }
        guard device.context.isLocal else { return "a remote device" }
        return SoftwareTrigger.unavailable(softwareTriggerRoots)
    }

    /// What discovery found.
    public struct Result: Sendable {
        public var sensors: [SensorDescriptor]
        public var skipped: [SkippedSensor]
        /// Devices udevd may not have processed yet (no database entry while it has events
        /// queued): their sensors are described without udev's properties, and their device
        /// nodes may still be root-only. A caller that can wait
        /// for udev's `add` does so (``IIOSource``).
        public var unprocessed: Set<String> = []

        /// The sensor used for `kind`: a display-located one first, then the lowest device.
        /// (Light and proximity sensors sit by the display; the location matters for the
        /// accelerometer.)
        public func primary(_ kind: SensorKind) -> SensorDescriptor? {
            let candidates = sensors.filter { $0.kind == kind }
            return candidates.first(where: { $0.location == .display }) ?? candidates.first
        }
    }

    /// Discovers every device of `context`; devices named in `keeping` are not probed and
    /// their given descriptors are used (they are being read right now).
    public func discover(_ context: IIOContext, keeping: [String: [SensorDescriptor]] = [:]) -> Result {
        var result = Result(sensors: [], skipped: [])
        let devices = context.devices
        let udevBusy = useUdev && context.isLocal && UdevDevice.isDaemonBusy
        for device in devices where !device.isTrigger {
            if let kept = keeping[device.id] {
                result.sensors += kept
                continue
            }
            let udev = useUdev && context.isLocal ? UdevDevice(iioDevice: device.id) : nil
            if let udev, !udev.isInitialized, udevBusy { result.unprocessed.insert(device.id) }
            for kind in SensorKind.allCases {
                do {
                    if let sensor = try describe(kind, on: device, udev: udev, devices: devices) {
                        result.sensors.append(sensor)
                    }
                } catch {
                    result.skipped.append(SkippedSensor(device: device.id, driver: device.name, kind: kind, reason: error.reason))
                }
            }
        }
        // A machine whose only accelerometer says it sits in the base (a wrong label, or a
        // base alone) still has an accelerometer: that one — and its base gyroscope then serves
        // as the gyroscope if there is no other (the fusion reads sensors of one half only).
        if !result.sensors.contains(where: { $0.kind == .accelerometer }),
           let index = result.sensors.firstIndex(where: { $0.kind == .baseAccelerometer }) {
            result.sensors[index].kind = .accelerometer
            result.sensors[index].conversion.kind = .accelerometer
            if !result.sensors.contains(where: { $0.kind == .gyroscope }),
               let gyroscope = result.sensors.firstIndex(where: { $0.kind == .baseGyroscope }) {
                result.sensors[gyroscope].kind = .gyroscope
                result.sensors[gyroscope].conversion.kind = .gyroscope
            }
        }
        return result
    }

    private struct Skip: Error {
        var reason: String
    }

    /// The channel ids that may carry `kind`, in order of preference: the x, y, z channels of a
    /// motion sensor; for light the illuminance (`in_illuminance[0]_input`/`_raw`), then a HID
    /// light sensor's `in_intensity_both`, then the clear channels; for proximity
    /// `in_proximity[0]_raw`. The first group the device has a channel of is the sensor.
    static func channelGroups(_ kind: SensorKind) -> [[String]] {
        let type = kind.iioChannelType
        switch kind {
        case .accelerometer, .baseAccelerometer, .gyroscope, .baseGyroscope, .magnetometer:
            return [["x", "y", "z"].map { "\(type)_\($0)" }]
        case .light:
            return [["illuminance"], ["illuminance0"], ["intensity_both"], ["illuminance_clear"], ["intensity_clear"]]
        case .proximity:
            return [["proximity"], ["proximity0"]]
        }
    }

    private func describe(_ kind: SensorKind, on device: IIODevice, udev: UdevDevice?, devices: [IIODevice]) throws(Skip) -> SensorDescriptor? {
        guard let group = Self.channelGroups(kind).first(where: { ids in ids.contains { device.inputChannel($0) != nil } }) else {
            return nil
        }
        let location = resolveLocation(device, udev: udev)
        // An accelerometer or gyroscope in a convertible's base is the base's (the hinge's
        // second half); every other one may serve as the accelerometer or gyroscope. A base
        // gyroscope never feeds the display's attitude: the base turns about the hinge alone.
        if kind == .accelerometer || kind == .gyroscope, location.value == .base { return nil }
        if kind == .baseAccelerometer || kind == .baseGyroscope, location.value != .base { return nil }
        let found = group.map { device.inputChannel($0) }
        let missing = zip(group, found).filter { $0.1 == nil }.map { "in_\($0.0)" }
        guard missing.isEmpty else {
            throw Skip(reason: "has \(kind.iioChannelType) channels but no \(missing.joined(separator: ", "))")
        }
        let channels = found.compactMap { $0 }

        var axes: [SensorDescriptor.Axis] = []
        var scale = Vector3(1, 1, 1), offset = Vector3.zero
        let correction = DriverScaleCorrection(driver: device.name, kind: kind)
        for (index, channel) in channels.enumerated() {
            let prefix = channel.sysfsPrefix
            let hasRaw = channel.filename(of: "raw") != nil
            // A light sensor may offer only the processed value, already in lux.
            let processed = !kind.isMotion && !hasRaw && channel.filename(of: "input") != nil
            let scaleFound = processed ? nil : try lookup("scale", of: channel, on: device)
            let offsetFound = processed ? nil : try lookup("offset", of: channel, on: device)
            if let s = scaleFound {
                guard s.value != 0 else { throw Skip(reason: "\(s.attribute) is 0 (a kernel bug): values would all be zero") }
                // Sysfs gives at most nine decimals: scaled in nano units, the product prints
                // as plainly as the kernel's value (0.0009174, not 0.0009174000000000001).
                scale[index] = correction.map { (s.value * 1e9).rounded() * $0.factor / 1e9 } ?? s.value
            }
            offset[index] = offsetFound?.value ?? 0
            let valueAttribute = processed ? "input" : "raw"
            if hasRaw || processed {
                // EBUSY: the driver refuses direct reads while another program's buffer runs;
                // the channel is there all the same.
                _ = try readNumber("\(prefix)_\(valueAttribute)") { () throws(IIOError) in
                    do throws(IIOError) { return try channel.read(valueAttribute) } catch where error.isBusy { return "0" }
                }
            } else if !channel.isScanElement {
                throw Skip(reason: "\(prefix) has neither a \(prefix)_raw attribute nor a scan element")
            }
            axes.append(SensorDescriptor.Axis(
                channel: prefix, id: channel.id, valueAttribute: valueAttribute,
                scaleAttribute: scaleFound.map { found in
                    correction.map { "\(found.attribute) × \(SysfsNumber.format($0.factor)) (\($0.reason))" } ?? found.attribute
                }, offsetAttribute: offsetFound?.attribute,
                scanType: channel.isScanElement ? channel.format.description : nil,
                scanIndex: channel.isScanElement ? channel.scanIndex : nil))
        }

        var nearLevel: SensorDescriptor.NearLevel?
        if kind == .proximity {
            // Readings count in near levels: the level is the scale, the sensor's own is moot.
            let level = try resolveNearLevel(channels[0], on: device, udev: udev)
            nearLevel = level
            scale = Vector3(1 / level.value, 1, 1)
            offset = .zero
        }
        let matrix = kind.isMotion ? resolveMountMatrix(kind, on: device, channel: channels.first, udev: udev)
            : (.identity, .init(source: "none (not a motion sensor)", given: MountMatrix.identity.description, correctedImproper: false, specificForce: false, notes: []))
        let plan = axes.contains(where: { $0.valueAttribute == "input" })
            ? (mode: ReadMode.polling, reason: "only the processed \(axes.map { "\($0.channel)_input" }.joined(separator: ", ")): sysfs polling", trigger: nil)
            : planReadMode(device, channels: channels, devices: devices)
        return SensorDescriptor(
            kind: kind, device: device.id, driver: device.name ?? device.id, label: device.label,
            location: location.value, locationSource: location.source, axes: axes,
            conversion: SampleConversion(kind: kind, scale: scale, offset: offset, mountMatrix: matrix.applied),
            mountMatrix: matrix.choice, samplingFrequency: samplingFrequency(channels[0], on: device),
            readMode: plan.mode, readModeReason: plan.reason, trigger: plan.trigger, nearLevel: nearLevel)
    }

    /// A proximity sensor's near level: udev's `PROXIMITY_NEAR_LEVEL` (hwdb), else the driver's
    /// `nearlevel` attribute. Without one, near cannot be told from far: the sensor is skipped
    /// (as iio-sensor-proxy does).
    private func resolveNearLevel(_ channel: IIOChannel, on device: IIODevice, udev: UdevDevice?) throws(Skip) -> SensorDescriptor.NearLevel {
        if let text = udev?.properties["PROXIMITY_NEAR_LEVEL"] {
            guard let value = SysfsNumber.parse(text), value > 0 else {
                throw Skip(reason: "udev PROXIMITY_NEAR_LEVEL '\(text)' is not a positive number")
            }
            return .init(value: value, source: "udev PROXIMITY_NEAR_LEVEL")
        }
        guard let found = try lookup("nearlevel", of: channel, on: device) else {
            throw Skip(reason: "no near level (udev PROXIMITY_NEAR_LEVEL from the hwdb, or \(channel.sysfsPrefix)_nearlevel): near cannot be told from far")
        }
        guard found.value > 0 else { throw Skip(reason: "\(found.attribute) is \(SysfsNumber.format(found.value)): near cannot be told from far") }
        return .init(value: found.value, source: "sysfs \(found.attribute)")
    }

    /// Reads an attribute as a number: `nil` if it does not exist; a skip if unreadable or not
    /// a number.
    private func readNumber(_ attribute: String, _ read: () throws(IIOError) -> String) throws(Skip) -> Double? {
        let text: String
        do {
            text = try read()
        } catch {
            if error.code == ENOENT { return nil }
            throw Skip(reason: "cannot read \(attribute): \(error.message)")
        }
        guard let value = SysfsNumber.parse(text) else {
            throw Skip(reason: "\(attribute) has unparseable value '\(text)'")
        }
        return value
    }

    /// The kernel's sharing levels, most specific first: separate (`in_accel_x_scale`), shared
    /// by type (`in_accel_scale`), by direction (`in_scale`), by all (`scale`). libiio files the
    /// first two under the channel's `scale`; locally the separate file is read by name first,
    /// in case a driver exposes both.
    private func lookup(_ info: String, of channel: IIOChannel, on device: IIODevice) throws(Skip) -> (attribute: String, value: Double)? {
        let separate = "\(channel.sysfsPrefix)_\(info)"
        if device.context.isLocal, let value = try readNumber(separate, { () throws(IIOError) in try channel.read(separate) }) {
            return (separate, value)
        }
        if let file = channel.filename(of: info), let value = try readNumber(file, { () throws(IIOError) in try channel.read(info) }) {
            return (file, value)
        }
        for attribute in ["in_\(info)", info] {
            if let value = try readNumber(attribute, { () throws(IIOError) in try device.read(attribute) }) { return (attribute, value) }
        }
        return nil
    }

    /// The matrix in force for `kind` on `device` and where it came from: the first source that
    /// parses, read by ``MountMatrix/applied(for:specificForce:)`` — a HID sensor hub reports
    /// the gravity vector (its improper matrix has its z row negated, with a note), every other
    /// driver the specific force.
    private func resolveMountMatrix(_ kind: SensorKind, on device: IIODevice, channel: IIOChannel?, udev: UdevDevice?) -> (applied: MountMatrix, choice: SensorDescriptor.MountMatrixChoice) {
        let specificForce = !Self.reportsGravityVector(device)
        var notes: [String] = []
        var candidates: [(source: String, parse: () throws -> MountMatrix, text: String)] = []
        for override in overrides where override.matches(device, kind: kind) {
            candidates.append(("configuration", { override.matrix }, override.matrix.description))
        }
        // hwdb's ACCEL_MOUNT_MATRIX describes an accelerometer only (the base's its own).
        if kind.isAccelerometer, let text = udev?.properties["ACCEL_MOUNT_MATRIX"] {
            candidates.append(("udev ACCEL_MOUNT_MATRIX", { try MountMatrix(parsing: text) }, text))
        }
        // By type (a channel attribute for libiio), then by direction, then shared by all.
        if let channel, let file = channel.filename(of: "mount_matrix"), let text = try? channel.read("mount_matrix") {
            candidates.append(("sysfs \(file)", { try MountMatrix(parsing: text) }, text))
        }
        for attribute in ["in_mount_matrix", "mount_matrix"] {
            guard let text = try? device.read(attribute) else { continue }
            candidates.append(("sysfs \(attribute)", { try MountMatrix(parsing: text) }, text))
        }
        func choice(_ matrix: MountMatrix, source: String, given: String) -> (applied: MountMatrix, choice: SensorDescriptor.MountMatrixChoice) {
            let applied = matrix.applied(for: kind, specificForce: specificForce)
            // Only a HID hub's improper matrix is a correction (a specific-force chip's is read so).
            let corrected = !specificForce && !matrix.isProper
            if corrected {
                notes.append("\(source) '\(given)' is improper (determinant \(SysfsNumber.format(matrix.matrix.determinant))): negated its z row to keep the device frame right-handed, giving '\(applied)'")
            }
            return (applied, .init(source: source, given: given, correctedImproper: corrected, specificForce: specificForce, notes: notes))
        }
        for candidate in candidates {
            do {
                return choice(try candidate.parse(), source: candidate.source, given: candidate.text)
            } catch {
                notes.append("rejected \(candidate.source) '\(candidate.text)': \(error)")
            }
        }
        return choice(.identity, source: "default (identity)", given: MountMatrix.identity.description)
    }

    /// Whether a device reports the gravity vector (−1 g up) rather than the specific force: a
    /// HID sensor hub's (hid-sensor-accel-3d, -gyro-3d, -magn-3d: `accel_3d`, `gravity`, …, on a
    /// `HID-SENSOR-…` device), as Windows has it.
    static func reportsGravityVector(_ device: IIODevice) -> Bool {
        if let name = device.name, name.hasSuffix("_3d") || name == "gravity" { return true }
        return device.context.isLocal && SysfsDirectory(device: device).isHIDSensor
    }

    private func resolveLocation(_ device: IIODevice, udev: UdevDevice?) -> (value: SensorLocation, source: String) {
        if let text = udev?.properties["ACCEL_LOCATION"], let location = SensorLocation(locationValue: text) {
            return (location, "udev ACCEL_LOCATION")
        }
        if let label = device.label, let location = SensorLocation(label: label) {
            return (location, "label")
        }
        if let text = try? device.read("location"), let location = SensorLocation(locationValue: text) {
            return (location, "sysfs location")
        }
        return (.display, "default")
    }

    /// Per type (`in_accel_sampling_frequency`, HID: a channel attribute for libiio), else the
    /// device's `sampling_frequency`.
    private func samplingFrequency(_ channel: IIOChannel, on device: IIODevice) -> SensorDescriptor.SamplingFrequency? {
        if let file = channel.filename(of: "sampling_frequency"), let text = try? channel.read("sampling_frequency") {
            let available = channel.filename(of: "sampling_frequency_available") == nil ? nil
                : (try? channel.read("sampling_frequency_available")).flatMap(AvailableValues.init(parsing:))
            return .init(attribute: file, channel: channel.id, current: SysfsNumber.parse(text), available: available)
        }
        guard let text = try? device.read("sampling_frequency") else { return nil }
        let available = (try? device.read("sampling_frequency_available")).flatMap(AvailableValues.init(parsing:))
        return .init(attribute: "sampling_frequency", channel: nil, current: SysfsNumber.parse(text), available: available)
    }

    private func planReadMode(_ device: IIODevice, channels: [IIOChannel], devices: [IIODevice]) -> (mode: ReadMode, reason: String, trigger: String?) {
        guard channels.allSatisfy(\.isScanElement) else {
            return (.polling, "no scan elements for \(channels.map(\.sysfsPrefix).joined(separator: "/")): sysfs polling", nil)
        }
        if let odd = channels.first(where: { $0.format.repeats != 1 || $0.format.storageBits > 64 }) {
            return (.polling, "scan element \(odd.sysfsPrefix) has an unsupported format \(odd.format): sysfs polling", nil)
        }
        var note = ""
        switch BufferOwnership.check(device, sensorProxy: sensorProxy) {
        case .free: break
        case .held(let how):
            return (.polling, "the buffer is in use by another program such as iio-sensor-proxy (\(how)): sysfs polling", nil)
        case .abandoned(let who):
            note = "; the buffer was left enabled \(who), and will be taken over"
        }
        switch BufferTrigger.find(for: device, among: devices) {
        case .notSupported:
            return (.buffered, "scan elements, no trigger needed" + note, nil)
        case .attached(let name):
            return (.buffered, "scan elements, trigger \(name) attached" + note, name)
        case .available(let trigger):
            return (.buffered, "scan elements, trigger \(trigger.name ?? trigger.id) will be attached" + note, trigger.name)
        case .none:
            if let why = withoutSoftwareTrigger(device) {
                return (.buffered, "scan elements but no trigger of its own and no software trigger (\(why)): the buffer is probed for data at start" + note, nil)
            }
            let name = SoftwareTrigger.name(for: device.id)
            return (.buffered, "scan elements, no trigger of its own: the hrtimer software trigger \(name) will be made and attached" + note, name)
        }
    }
}
