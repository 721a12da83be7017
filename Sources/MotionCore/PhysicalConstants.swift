/// Unit conversions between the Linux IIO ABI and Core Motion.
public enum PhysicalConstants {
    /// Standard gravity in m/s² (1 G), used to convert IIO m/s² into Core Motion G.
    public static let standardGravity = 9.80665
    /// µT per Gauss: IIO reports magnetic field in Gauss, Core Motion in µT.
    public static let microteslaPerGauss = 100.0
}
