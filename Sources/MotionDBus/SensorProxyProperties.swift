/// The properties of one `net.hadess.SensorProxy` object as a client last saw them (`GetAll`,
/// then each `PropertiesChanged`), by their D-Bus names; a property the service did not send
/// (an older iio-sensor-proxy has no `AccelerometerTilt`) is nil.
public struct SensorProxyProperties: Sendable, Equatable {
    var values: [String: PropertyValue] = [:]

    public init() {}

    init(_ values: [String: PropertyValue]) {
        self.values = values
    }

    /// The names of the properties held.
    public var names: Set<String> { Set(values.keys) }

    public func bool(_ name: String) -> Bool? {
        if case .bool(let flag) = values[name] { return flag }
        return nil
    }

    public func string(_ name: String) -> String? {
        if case .string(let text) = values[name] { return text }
        return nil
    }

    public func double(_ name: String) -> Double? {
        if case .double(let number) = values[name] { return number }
        return nil
    }

    /// These properties after a `PropertiesChanged`: `changed` replaces, `invalidated` goes.
    public func updated(with changed: SensorProxyProperties, invalidated: [String]) -> SensorProxyProperties {
        var next = values.merging(changed.values) { $1 }
        for name in invalidated { next[name] = nil }
        return SensorProxyProperties(next)
    }
}
