import MotionCore

/// A mount matrix set by configuration, which wins over udev and sysfs.
///
/// `device` matches a device id (`iio:device2`), name (`mpu6050`) or label; `nil` matches
/// every device carrying `kind`.
public struct MountMatrixOverride: Sendable, Hashable {
    public var device: String?
    public var kind: SensorKind
    public var matrix: MountMatrix

    public init(device: String? = nil, kind: SensorKind, matrix: MountMatrix) {
        self.device = device
        self.kind = kind
        self.matrix = matrix
    }

    /// Parses `[DEVICE/]KIND=MATRIX`, e.g. `accelerometer=0, 1, 0; 1, 0, 0; 0, 0, -1` or
    /// `mpu6050/gyroscope=...`.
    public init(parsing text: String) throws(MountMatrixOverrideError) {
        guard let equals = text.firstIndex(of: "=") else { throw .init("'\(text)': expected [DEVICE/]KIND=MATRIX") }
        let target = text[..<equals].trimmingWhitespace(newlines: false)
        let kindName: String
        if let slash = target.lastIndex(of: "/") {
            let name = target[..<slash].trimmingWhitespace(newlines: false)
            guard !name.isEmpty else { throw .init("'\(text)': empty device name before '/'") }
            device = name
            kindName = target[target.index(after: slash)...].trimmingWhitespace(newlines: false)
        } else {
            device = nil
            kindName = target
        }
        guard let kind = SensorKind(rawValue: kindName) else {
            throw .init("'\(kindName)' is not a sensor kind (accelerometer, gyroscope, magnetometer)")
        }
        self.kind = kind
        do {
            matrix = try MountMatrix(parsing: String(text[text.index(after: equals)...]))
        } catch {
            throw .init("\(target): \(error)")
        }
    }

    func matches(_ device: IIODevice, kind: SensorKind) -> Bool {
        guard kind == self.kind else { return false }
        guard let wanted = self.device else { return true }
        return [device.id, device.name, device.label].contains(wanted)
    }
}

/// A configuration mount matrix that could not be understood.
public struct MountMatrixOverrideError: Error, Sendable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
