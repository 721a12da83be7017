import Foundation
import Testing
import MotionCore

/// One row of NOAA's published WMM2025 test values.
struct WMMTestPoint: Sendable, CustomTestStringConvertible {
    var year: Double, altitude: Double, latitude: Double, longitude: Double
    var x: Double, y: Double, z: Double, declination: Double

    var testDescription: String { "\(year) \(altitude) km (\(latitude), \(longitude))" }
}

@Suite("WorldMagneticModel")
struct WorldMagneticModelTests {
    let model = WorldMagneticModel.wmm2025

    /// Test-value table of the WMM2025 technical report.
    static let published: [WMMTestPoint] = [
        .init(year: 2025.0, altitude: 0, latitude: 80, longitude: 0, x: 6521.6, y: 145.9, z: 54791.5, declination: 1.28),
        .init(year: 2025.0, altitude: 0, latitude: 0, longitude: 120, x: 39677.8, y: -109.6, z: -10580.2, declination: -0.16),
        .init(year: 2025.0, altitude: 0, latitude: -80, longitude: 240, x: 6117.5, y: 15751.9, z: -52022.5, declination: 68.78),
        .init(year: 2025.0, altitude: 100, latitude: 80, longitude: 0, x: 6216.0, y: 92.4, z: 52598.8, declination: 0.85),
        .init(year: 2025.0, altitude: 100, latitude: 0, longitude: 120, x: 37688.6, y: -96.2, z: -10152.1, declination: -0.15),
        .init(year: 2025.0, altitude: 100, latitude: -80, longitude: 240, x: 5907.6, y: 14780.3, z: -49540.7, declination: 68.21),
        .init(year: 2027.5, altitude: 0, latitude: 80, longitude: 0, x: 6500.8, y: 294.5, z: 54869.4, declination: 2.59),
        .init(year: 2027.5, altitude: 0, latitude: 0, longitude: 120, x: 39701.6, y: -167.4, z: -10381.8, declination: -0.24),
        .init(year: 2027.5, altitude: 0, latitude: -80, longitude: 240, x: 6200.7, y: 15730.3, z: -51783.7, declination: 68.49),
        .init(year: 2027.5, altitude: 100, latitude: 80, longitude: 0, x: 6196.7, y: 233.8, z: 52670.5, declination: 2.16),
        .init(year: 2027.5, altitude: 100, latitude: 0, longitude: 120, x: 37711.5, y: -148.7, z: -9969.8, declination: -0.23),
        .init(year: 2027.5, altitude: 100, latitude: -80, longitude: 240, x: 5984.0, y: 14760.1, z: -49317.7, declination: 67.93),
    ]

    @Test("matches NOAA's published WMM2025 test values", arguments: published)
    func publishedValues(_ p: WMMTestPoint) {
        let f = model.field(latitude: p.latitude, longitude: p.longitude, altitude: p.altitude, decimalYear: p.year)
        #expect(isClose(f.north, p.x, tolerance: 0.15))
        #expect(isClose(f.east, p.y, tolerance: 0.15))
        #expect(isClose(f.down, p.z, tolerance: 0.15))
        #expect(isClose(f.declination, p.declination, tolerance: 0.01))
    }

    @Test("matches the published point at 43°N 93°E, 65 km")
    func publishedPointWithInclination() {
        let f = model.field(latitude: 43, longitude: 93, altitude: 65, decimalYear: 2025.0)
        #expect(isClose(f.north, 24299.85, tolerance: 0.15))
        #expect(isClose(f.east, 210.52, tolerance: 0.15))
        #expect(isClose(f.down, 50037.92, tolerance: 0.15))
        #expect(isClose(f.declination, 0.50, tolerance: 0.01))
        #expect(isClose(f.inclination, 64.10, tolerance: 0.01))
        #expect(isClose(f.horizontalIntensity, (f.north * f.north + f.east * f.east).squareRoot()))
        #expect(isClose(f.totalIntensity, (f.horizontalIntensity * f.horizontalIntensity + f.down * f.down).squareRoot()))
    }

    @Test("decimal year of a UTC date", arguments: [
        ("2025-01-01T00:00:00Z", 2025.0),
        ("2028-07-02T00:00:00Z", 2028.5),  // leap year: day 184 of 366
        ("2025-07-02T12:00:00Z", 2025.5),
    ])
    func decimalYear(iso: String, expected: Double) throws {
        let date = try #require(ISO8601DateFormatter().date(from: iso))
        #expect(isClose(WorldMagneticModel.decimalYear(of: date), expected, tolerance: 1e-9))
    }

    @Test("validity is epoch ≤ year < validUntil")
    func validity() {
        #expect(model.name == "WMM-2025")
        #expect(model.epoch == 2025.0)
        #expect(model.validUntil == 2030.0)
        #expect(!model.isValid(decimalYear: 2024.999))
        #expect(model.isValid(decimalYear: 2025.0))
        #expect(model.isValid(decimalYear: 2029.999))
        #expect(!model.isValid(decimalYear: 2030.0))
    }

    @Test("the geographic poles give finite values, the limit of nearby latitudes", arguments: [90.0, -90.0])
    func poles(latitude: Double) {
        let f = model.field(latitude: latitude, longitude: 30, altitude: 0, decimalYear: 2026)
        let values = [f.north, f.east, f.down, f.horizontalIntensity, f.totalIntensity, f.declination, f.inclination]
        #expect(values.allSatisfy { $0.isFinite })
        let near = model.field(latitude: latitude * (1 - 1e-9), longitude: 30, altitude: 0, decimalYear: 2026)
        #expect(isClose(f.north, near.north, tolerance: 0.01))
        #expect(isClose(f.east, near.east, tolerance: 0.01))
        #expect(isClose(f.down, near.down, tolerance: 0.01))
    }
}
