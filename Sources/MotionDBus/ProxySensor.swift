/// The four sensors of iio-sensor-proxy's API, each claimed and released on its own.
public enum ProxySensor: String, Sendable, Hashable, CaseIterable {
    case accelerometer
    case light
    case proximity
    case compass

    var methodSuffix: String {
        switch self {
        case .accelerometer: return "Accelerometer"
        case .light: return "Light"
        case .proximity: return "Proximity"
        case .compass: return "Compass"
        }
    }

    /// The object and interface its properties live on.
    var path: String { self == .compass ? SensorProxyObjects.compassPath : SensorProxyObjects.mainPath }
    var interface: String { self == .compass ? SensorProxyObjects.compassInterface : SensorProxyObjects.mainInterface }

    /// The properties that belong to it: their changes go to its claimants.
    var properties: [String] {
        switch self {
        case .accelerometer: return ["HasAccelerometer", "AccelerometerOrientation", "AccelerometerTilt"]
        case .light: return ["HasAmbientLight", "LightLevelUnit", "LightLevel"]
        case .proximity: return ["HasProximity", "ProximityNear"]
        case .compass: return ["HasCompass", "CompassHeading"]
        }
    }

    /// The `Has…` property's name.
    var presenceProperty: String { properties[0] }
}
