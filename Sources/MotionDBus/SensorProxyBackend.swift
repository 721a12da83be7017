/// The side that reads the sensors behind the D-Bus face (motiond's pipeline). Called on the
/// service's queue; must not block.
public protocol SensorProxyBackend: Sendable {
    /// The first claim of `sensor`: start reading it, and ``SensorProxyService/update(_:readings:)``
    /// with its first reading.
    func startReading(_ sensor: ProxySensor)
    /// Its last claim was released, or its last claimant left the bus: stop reading it.
    func stopReading(_ sensor: ProxySensor)
}
