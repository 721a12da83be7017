import ArgumentParser
import FoundationEssentials
import MotionCore

/// The motion-engine settings `motiond` and `motionctl` share on their command lines: how the
/// magnetometer is calibrated, whether an axis self-check correction is applied, and where
/// true north comes from.
public struct EngineOptions: ParsableArguments {
    @Option(help: "Magnetometer calibration: online (learned from motion, the default) or trusted (readings already calibrated, e.g. by a sensor hub).")
    public var magnetometerCalibration: String?

    @Flag(help: "Apply the axis self-check's gyroscope correction when it finds one (otherwise it is only reported).")
    public var applyAxisCorrection = false

    @Option(help: "Magnetic declination in degrees east (enables xTrueNorthZVertical); west is negative: --declination=-4.")
    public var declination: Double?

    @Option(help: "Latitude in degrees (with --longitude: declination from WMM2025).")
    public var latitude: Double?

    @Option(help: "Longitude in degrees.")
    public var longitude: Double?

    @Option(help: "Altitude in metres above the WGS-84 ellipsoid.")
    public var altitude = 0.0

    @Option(help: "Date for the magnetic model, YYYY-MM-DD (default: today).")
    public var date: String?

    public init() {}

    /// The engine configuration these options describe (defaults for what they leave out).
    public func configuration() throws -> MotionEngine.Configuration {
        var configuration = MotionEngine.Configuration()
        configuration.applyAxisCorrection = applyAxisCorrection
        configuration.magnetometerCalibration = try calibrationMode() ?? .online
        if let source = try trueNorth() {
            do {
                configuration.declination = try source.declination(on: try modelDate() ?? Date())
            } catch {
                throw ValidationError("true north: \(error)")
            }
        }
        return configuration
    }

    /// `--magnetometer-calibration`, nil when not given.
    public func calibrationMode() throws -> MotionEngine.MagnetometerCalibrationMode? {
        guard let magnetometerCalibration else { return nil }
        guard let mode = MotionEngine.MagnetometerCalibrationMode(rawValue: magnetometerCalibration) else {
            throw ValidationError("--magnetometer-calibration \(magnetometerCalibration): expected online or trusted")
        }
        return mode
    }

    /// Where true north comes from (`--declination`, or `--latitude` with `--longitude`), nil
    /// when neither was given.
    public func trueNorth() throws -> DeclinationSource? {
        switch (declination, latitude, longitude) {
        case (let degrees?, nil, nil): return .declination(degrees)
        case (nil, let lat?, let lon?): return .location(latitude: lat, longitude: lon, altitude: altitude)
        case (nil, nil, nil): return nil
        default: throw ValidationError("give either --declination or both --latitude and --longitude")
        }
    }

    /// `--date`, nil when not given (today).
    public func modelDate() throws -> Date? {
        guard let date else { return nil }
        let parts = date.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        guard parts.count == 3, let year = parts[0], let month = parts[1], let day = parts[2], (1...12).contains(month), (1...31).contains(day),
              let parsed = calendar.date(from: DateComponents(year: year, month: month, day: day)),
              calendar.component(.day, from: parsed) == day else {
            throw ValidationError("--date \(date): expected YYYY-MM-DD")
        }
        return parsed
    }
}
