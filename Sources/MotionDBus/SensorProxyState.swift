/// Everything the D-Bus face's properties show, in iio-sensor-proxy's names and units; the
/// defaults are iio-sensor-proxy's when nothing is known.
public struct SensorProxyState: Sendable, Equatable {
    public var hasAccelerometer = false
    /// `undefined`, `normal`, `bottom-up`, `left-up`, `right-up`.
    public var accelerometerOrientation = "undefined"
    /// `undefined`, `vertical`, `tilted-up`, `tilted-down`, `face-up`, `face-down`.
    public var accelerometerTilt = "undefined"
    public var hasAmbientLight = false
    /// `lux` or `vendor`.
    public var lightLevelUnit = "lux"
    public var lightLevel = 0.0
    public var hasProximity = false
    public var proximityNear = false
    public var hasCompass = false
    /// Degrees clockwise from magnetic north; −1 while unknown.
    public var compassHeading = -1.0

    public init() {}

    /// A property's value by its D-Bus name.
    func value(of property: String) -> PropertyValue? {
        switch property {
        case "HasAccelerometer": return .bool(hasAccelerometer)
        case "AccelerometerOrientation": return .string(accelerometerOrientation)
        case "AccelerometerTilt": return .string(accelerometerTilt)
        case "HasAmbientLight": return .bool(hasAmbientLight)
        case "LightLevelUnit": return .string(lightLevelUnit)
        case "LightLevel": return .double(lightLevel)
        case "HasProximity": return .bool(hasProximity)
        case "ProximityNear": return .bool(proximityNear)
        case "HasCompass": return .bool(hasCompass)
        case "CompassHeading": return .double(compassHeading)
        default: return nil
        }
    }

    /// Whether `sensor`'s `Has…` property is true.
    func has(_ sensor: ProxySensor) -> Bool { value(of: sensor.presenceProperty) == .bool(true) }

    /// The properties of `sensor` whose values differ between `self` and `other`.
    func changed(_ sensor: ProxySensor, from other: SensorProxyState) -> [String] {
        sensor.properties.filter { value(of: $0) != other.value(of: $0) }
    }
}

/// A property value of one of the three D-Bus types the face uses.
enum PropertyValue: Sendable, Equatable {
    case bool(Bool)
    case string(String)
    case double(Double)
}
