/// The three kinds of motion sensor motiond reads.
///
/// Units of a ``Sample`` of each kind (Core Motion conventions, device frame):
/// accelerometer in G with the gravity-vector sign (face up at rest reads z ≈ −1),
/// gyroscope in rad/s (right-hand rule), magnetometer in µT.
public enum SensorKind: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    case accelerometer
    case gyroscope
    case magnetometer

    /// The IIO channel type that carries this kind (`in_<type>_x_raw`).
    public var iioChannelType: String {
        switch self {
        case .accelerometer: return "accel"
        case .gyroscope: return "anglvel"
        case .magnetometer: return "magn"
        }
    }

    /// The Core Motion unit of a sample of this kind.
    public var unit: String {
        switch self {
        case .accelerometer: return "G"
        case .gyroscope: return "rad/s"
        case .magnetometer: return "µT"
        }
    }

    public var description: String { rawValue }
}
