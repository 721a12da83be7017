import ArgumentParser
import Foundation
import MotionCore

/// The engine settings the offline commands share with the daemon's configuration: how the
/// magnetometer is calibrated and where true north comes from.
struct EngineOptions: ParsableArguments {
    @Option(help: "Magnetometer calibration: online (learned from motion, the daemon's default) or trusted (readings already calibrated).")
    var magnetometerCalibration = "online"

    @Option(help: "Magnetic declination in degrees east (enables xTrueNorthZVertical).")
    var declination: Double?

    @Option(help: "Latitude in degrees (with --longitude: declination from WMM2025).")
    var latitude: Double?

    @Option(help: "Longitude in degrees.")
    var longitude: Double?

    @Option(help: "Altitude in metres above the WGS-84 ellipsoid.")
    var altitude = 0.0

    @Option(help: "Date for the magnetic model, YYYY-MM-DD (default: today).")
    var date: String?

    /// The engine configuration these options describe.
    func configuration() throws -> MotionEngine.Configuration {
        var configuration = MotionEngine.Configuration()
        guard let mode = MotionEngine.MagnetometerCalibrationMode(rawValue: magnetometerCalibration) else {
            throw ValidationError("--magnetometer-calibration \(magnetometerCalibration): expected online or trusted")
        }
        configuration.magnetometerCalibration = mode
        let source: DeclinationSource?
        switch (declination, latitude, longitude) {
        case (let degrees?, nil, nil): source = .declination(degrees)
        case (nil, let lat?, let lon?): source = .location(latitude: lat, longitude: lon, altitude: altitude)
        case (nil, nil, nil): source = nil
        default: throw ValidationError("give either --declination or both --latitude and --longitude")
        }
        if let source {
            do {
                configuration.declination = try source.declination(on: try modelDate())
            } catch {
                throw ValidationError("true north: \(error)")
            }
        }
        return configuration
    }

    private func modelDate() throws -> Date {
        guard let date else { return Date() }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        guard let parsed = formatter.date(from: date) else { throw ValidationError("--date \(date): expected YYYY-MM-DD") }
        return parsed
    }
}
