import Glibc
import MotionDBus
import MotionToolSupport

/// What monitor-sensor does, with iio-sensor-proxy's monitor-sensor's lines: waits for the owner
/// of `net.hadess.SensorProxy`; when one appears, reads the objects' properties, claims the
/// sensors (accelerometer, light, proximity, compass, in that order), prints the values read
/// *before* the claims (=== lines: upstream shows its cached values there), then each
/// `PropertiesChanged` the owner sends, property by property in the API's order, whichever
/// sensors were chosen. Numbers as C's `%lf` in the C locale (six decimals), booleans as 0/1.
struct SensorWatch {
    let sensors: Set<ProxySensor>

    /// The objects' properties since the owner appeared; nil while there is none.
    private var main: SensorProxyProperties?
    private var compass: SensorProxyProperties?

    init(sensors: Set<ProxySensor>) {
        self.sensors = sensors
    }

    /// Runs until the bus fails (thrown) or a claim is refused (returns, as upstream does).
    mutating func run() throws(SensorProxyClient.Failure) {
        Console.line("    Waiting for iio-sensor-proxy to appear")
        let client = try SensorProxyClient()
        if client.initialOwner != nil, !appeared(client) { return }
        while true {
            for event in try client.nextEvents() {
                switch event {
                case .ownerChanged(let owner):
                    if main != nil || compass != nil {
                        main = nil
                        compass = nil
                        Console.line("--- iio-sensor-proxy vanished, waiting for it to appear")
                    }
                    if owner != nil, !appeared(client) { return }
                case .propertiesChanged(.main, let changed, let invalidated):
                    guard let old = main else { continue }
                    let now = old.updated(with: changed, invalidated: invalidated)
                    main = now
                    printChanges(changed.names, now)
                case .propertiesChanged(.compass, let changed, let invalidated):
                    guard let old = compass else { continue }
                    let now = old.updated(with: changed, invalidated: invalidated)
                    compass = now
                    printChanges(changed.names, now)
                }
            }
        }
    }

    /// The owner appeared: read, claim, show. False when a claim was refused.
    private mutating func appeared(_ client: SensorProxyClient) -> Bool {
        Console.line("+++ iio-sensor-proxy appeared")
        // A GetAll that fails leaves the properties unknown (shown as absent sensors), as upstream.
        main = (try? client.properties(of: .main)) ?? SensorProxyProperties()
        if sensors.contains(.compass) { compass = (try? client.properties(of: .compass)) ?? SensorProxyProperties() }
        let claims: [(ProxySensor, String, String, SensorProxyClient.Object)] = [
            (.accelerometer, "ClaimAccelerometer", "accelerometer", .main), (.light, "ClaimLight", "light sensor", .main),
            (.proximity, "ClaimProximity", "proximity sensor", .main), (.compass, "ClaimCompass", "compass", .compass),
        ]
        for (sensor, method, what, object) in claims where sensors.contains(sensor) {
            do {
                try client.call(method, on: object)
            } catch {
                Console.error("Failed to claim \(what): \(error.description)")
                return false
            }
        }
        printInitialValues()
        return true
    }

    private func printInitialValues() {
        let main = main ?? SensorProxyProperties()
        if sensors.contains(.accelerometer) {
            Console.line(main.bool("HasAccelerometer") == true
                ? "=== Has accelerometer (orientation: \(text(main.string("AccelerometerOrientation"))), tilt: \(text(main.string("AccelerometerTilt"))))"
                : "=== No accelerometer")
        }
        if sensors.contains(.light) {
            Console.line(main.bool("HasAmbientLight") == true
                ? "=== Has ambient light sensor (value: \(decimal(main.double("LightLevel"))), unit: \(text(main.string("LightLevelUnit"))))"
                : "=== No ambient light sensor")
        }
        if sensors.contains(.proximity) {
            Console.line(main.bool("HasProximity") == true ? "=== Has proximity sensor (near: \(flag(main.bool("ProximityNear"))))" : "=== No proximity sensor")
        }
        if let compass {
            Console.line(compass.bool("HasCompass") == true ? "=== Has compass (heading: \(decimal(compass.double("CompassHeading"))))" : "=== No compass")
        }
    }

    /// The lines for one `PropertiesChanged`, from `values` (the object's properties after it).
    private func printChanges(_ changed: Set<String>, _ values: SensorProxyProperties) {
        let lines: [(String, () -> String)] = [
            ("HasAccelerometer", { values.bool("HasAccelerometer") == true ? "+++ Accelerometer appeared" : "--- Accelerometer disappeared" }),
            ("AccelerometerOrientation", { "    Accelerometer orientation changed: \(text(values.string("AccelerometerOrientation")))" }),
            ("AccelerometerTilt", { "    Tilt changed: \(text(values.string("AccelerometerTilt")))" }),
            ("HasAmbientLight", { values.bool("HasAmbientLight") == true ? "+++ Light sensor appeared" : "--- Light sensor disappeared" }),
            ("LightLevel", { "    Light changed: \(decimal(values.double("LightLevel"))) (\(text(values.string("LightLevelUnit"))))" }),
            ("HasProximity", { values.bool("HasProximity") == true ? "+++ Proximity sensor appeared" : "--- Proximity sensor disappeared" }),
            ("ProximityNear", { "    Proximity value changed: \(flag(values.bool("ProximityNear")))" }),
            ("HasCompass", { values.bool("HasCompass") == true ? "+++ Compass appeared" : "--- Compass disappeared" }),
            ("CompassHeading", { "    Compass heading changed: \(decimal(values.double("CompassHeading")))" }),
        ]
        for (property, line) in lines where changed.contains(property) { Console.line(line()) }
    }

    /// A string property as C's `%s` prints it (an absent one, from an older daemon: "(null)").
    private func text(_ value: String?) -> String { value ?? "(null)" }

    private func flag(_ value: Bool?) -> String { value == true ? "1" : "0" }

    /// C's `%lf`: six decimals, in the C locale.
    private func decimal(_ value: Double?) -> String {
        var buffer = [CChar](repeating: 0, count: 350)  // DBL_MAX in %f: 309 digits and six decimals
        let length = withVaList([value ?? 0]) { vsnprintf(&buffer, buffer.count, "%f", $0) }
        return String(decoding: buffer.prefix(max(0, min(Int(length), buffer.count - 1))).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
