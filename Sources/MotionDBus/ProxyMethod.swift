/// A method of the D-Bus face: `Claim<Sensor>` or `Release<Sensor>`.
struct ProxyMethod: Sendable, Hashable {
    let sensor: ProxySensor
    let claims: Bool

    init?(_ member: String) {
        for sensor in ProxySensor.allCases {
            if member == "Claim" + sensor.methodSuffix { (self.sensor, claims) = (sensor, true); return }
            if member == "Release" + sensor.methodSuffix { (self.sensor, claims) = (sensor, false); return }
        }
        return nil
    }
}
