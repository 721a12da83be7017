/// One reading of one sensor, as every source delivers it to the pipeline.
///
/// `vector` is in the device frame (+x right edge, +y top edge, +z out of the screen) and in
/// Core Motion units for `kind` (see ``SensorKind``). `timestamp` is seconds since boot
/// (CLOCK_BOOTTIME), like `CMLogItem.timestamp`.
public struct Sample: Sendable, Hashable, Codable {
    public var kind: SensorKind
    public var timestamp: Double
    public var vector: Vector3

    public init(kind: SensorKind, timestamp: Double, vector: Vector3) {
        self.kind = kind
        self.timestamp = timestamp
        self.vector = vector
    }
}
