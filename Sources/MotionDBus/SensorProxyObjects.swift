/// The names iio-sensor-proxy's API lives under on the system bus.
public enum SensorProxyObjects {
    public static let busName = "net.hadess.SensorProxy"
    static let mainPath = "/net/hadess/SensorProxy"
    static let mainInterface = "net.hadess.SensorProxy"
    static let compassPath = "/net/hadess/SensorProxy/Compass"
    static let compassInterface = "net.hadess.SensorProxy.Compass"
    /// The polkit action every claim is authorised for (iio-sensor-proxy's).
    static let claimAction = "net.hadess.SensorProxy.claim-sensor"
}
