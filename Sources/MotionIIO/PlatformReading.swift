import MotionCore

/// How one ``PlatformSensor`` is read on each tick of its ``PlatformSource`` reader: raw values
/// in the sensor's own units, which its ``SampleConversion`` turns into a sample.
protocol PlatformReading: AnyObject {
    /// The reading now (x for a scalar sensor), or nil when there is nothing new to say (a
    /// switch that did not change). Throws when the device cannot be read, or an
    /// ``ReadFault/unparseable(attribute:text:)`` for a value that is no reading.
    func read() throws(ReadFault) -> Vector3?
}

extension PlatformSensor {
    /// Opens the sensor for reading.
    func open() throws(IIOError) -> PlatformReading {
        switch access {
        case .inputAccelerometer(let node): return InputAccelerometer(device: try EvdevDevice(node: node))
        case .inputProximity(let node): return InputProximity(device: try EvdevDevice(node: node))
        case .hwmonLight(let directory): return HwmonLight(directory: directory)
        }
    }
}
