import FoundationEssentials
import Glibc

/// What the World Magnetic Model gives at one place and time, in the local geodetic frame
/// (north, east, down). Intensities in nT; angles in degrees, declination east-positive,
/// inclination down-positive.
public struct GeomagneticField: Sendable, Hashable, Codable {
    /// X: northward component, nT.
    public var north: Double
    /// Y: eastward component, nT.
    public var east: Double
    /// Z: downward component, nT.
    public var down: Double
    /// H = √(X² + Y²), nT.
    public var horizontalIntensity: Double
    /// F = √(X² + Y² + Z²), nT.
    public var totalIntensity: Double
    /// D = atan2(Y, X): angle from true north to magnetic north, degrees, east positive.
    public var declination: Double
    /// I = atan2(Z, H): dip below the horizontal, degrees, down positive.
    public var inclination: Double

    init(north: Double, east: Double, down: Double) {
        self.north = north
        self.east = east
        self.down = down
        horizontalIntensity = (north * north + east * east).squareRoot()
        totalIntensity = (horizontalIntensity * horizontalIntensity + down * down).squareRoot()
        declination = atan2(east, north) * 180 / .pi
        inclination = atan2(down, horizontalIntensity) * 180 / .pi
    }
}

/// The World Magnetic Model (NOAA NCEI / BGS): a degree-12 spherical-harmonic model of the
/// main geomagnetic field with linear secular variation from its epoch.
/// Positions are WGS-84 geodetic (degrees, km above the ellipsoid); times are decimal years.
public struct WorldMagneticModel: Sendable {
    /// WMM2025, valid 2025.0 to 2030.0.
    public static let wmm2025 = WorldMagneticModel(
        name: "WMM-2025", epoch: 2025.0, validUntil: 2030.0, coefficients: wmm2025Coefficients)

    /// Decimal year the coefficients refer to.
    public let epoch: Double
    /// First decimal year the model is no longer valid for.
    public let validUntil: Double
    /// Model name as in the coefficient file header.
    public let name: String

    private let coefficients: [Coefficient]
    private let degree: Int

    private init(name: String, epoch: Double, validUntil: Double, coefficients: [Coefficient]) {
        self.name = name
        self.epoch = epoch
        self.validUntil = validUntil
        self.coefficients = coefficients
        degree = coefficients.map(\.n).max() ?? 0
    }

    /// The field at a WGS-84 geodetic latitude and longitude (degrees; latitude is clamped to
    /// [−90, 90]), altitude in km above the WGS-84 ellipsoid, and decimal year (see
    /// `decimalYear(of:)`). Outside `isValid(decimalYear:)` the secular variation is extrapolated.
    ///
    /// At the geographic poles the result is the exact limit: the east term is evaluated with
    /// P_n^m / cos φ′ directly (see `legendre`), so nothing is divided by zero. There the
    /// north and east axes are those of the given longitude's meridian.
    public func field(latitude: Double, longitude: Double, altitude: Double, decimalYear: Double) -> GeomagneticField {
        let phi = min(max(latitude, -90), 90) * .pi / 180
        let lambda = longitude * .pi / 180

        // Geodetic → geocentric spherical: radius r, geocentric latitude φ′.
        let e2 = Self.flattening * (2 - Self.flattening)
        let rc = Self.semiMajorAxis / (1 - e2 * sin(phi) * sin(phi)).squareRoot()
        let p = (rc + altitude) * cos(phi)
        let z = (rc * (1 - e2) + altitude) * sin(phi)
        let r = (p * p + z * z).squareRoot()
        let cosLat = p / r
        let sinLat = z / r

        let q = legendre(sinLat: sinLat, cosLat: cosLat)
        let dt = decimalYear - epoch
        var xPrime = 0.0, yPrime = 0.0, zPrime = 0.0
        for c in coefficients {
            let (n, m) = (c.n, c.m)
            let g = c.g + dt * c.gDot
            let h = c.h + dt * c.hDot
            let scale = pow(Self.referenceRadius / r, Double(n + 2))
            let cosM = cos(Double(m) * lambda), sinM = sin(Double(m) * lambda)
            let gh = g * cosM + h * sinM
            // P_n^m(sin φ′) and its derivative with respect to colatitude θ = 90° − φ′, from
            // dP_n^0/dθ = −√(n(n+1)/2) P_n^1 and cos φ′ dP_n^m/dθ = n sin φ′ P_n^m − √(n² − m²) P_{n−1}^m.
            let pnm, dpnm: Double
            if m == 0 {
                pnm = q[n][0]
                dpnm = -(Double(n * (n + 1)) / 2).squareRoot() * cosLat * q[n][1]
            } else {
                pnm = cosLat * q[n][m]
                dpnm = Double(n) * sinLat * q[n][m] - Double(n * n - m * m).squareRoot() * q[n - 1][m]
                yPrime += scale * Double(m) * (g * sinM - h * cosM) * q[n][m]
            }
            xPrime += scale * gh * dpnm  // X′ = −Σ … dP/dφ′, and dP/dφ′ = −dP/dθ.
            zPrime -= Double(n + 1) * scale * gh * pnm
        }

        // Rotate from the geocentric to the geodetic frame by ψ = φ′ − φ.
        let psi = atan2(z, p) - phi
        return GeomagneticField(
            north: xPrime * cos(psi) - zPrime * sin(psi),
            east: yPrime,
            down: xPrime * sin(psi) + zPrime * cos(psi))
    }

    /// Decimal year of a date as the WMM defines it:
    /// year + (day of year − 1 + fraction of day) / days in that year, in UTC.
    public static func decimalYear(of date: Date) -> Double {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let year = calendar.dateInterval(of: .year, for: date)!
        return Double(calendar.component(.year, from: date))
            + date.timeIntervalSince(year.start) / year.duration
    }

    /// Whether the model is valid for a decimal year: `epoch ≤ decimalYear < validUntil`.
    public func isValid(decimalYear: Double) -> Bool {
        epoch <= decimalYear && decimalYear < validUntil
    }

    /// Schmidt semi-normalised P_n^m(sin φ′), indexed [n][m], with the columns m ≥ 1 divided by
    /// cos φ′. Every P_n^m with m ≥ 1 carries a factor cos^m φ′, so these quotients stay finite
    /// at the poles; the recursions are linear in each column, so they hold for the quotients too.
    /// Entries with m > n are zero.
    private func legendre(sinLat x: Double, cosLat s: Double) -> [[Double]] {
        var q = Array(repeating: Array(repeating: 0.0, count: degree + 1), count: degree + 1)
        q[0][0] = 1
        for n in 1...degree {
            let nd = Double(n)
            // P_1^1 = cos φ′; P_n^n = √((2n − 1) / 2n) cos φ′ P_{n−1}^{n−1}.
            q[n][n] = n == 1 ? 1 : ((2 * nd - 1) / (2 * nd)).squareRoot() * s * q[n - 1][n - 1]
            for m in 0..<n {
                let md = Double(m)
                let twoBack = n > 1 ? q[n - 2][m] : 0
                q[n][m] = ((2 * nd - 1) * x * q[n - 1][m] - ((nd - 1) * (nd - 1) - md * md).squareRoot() * twoBack)
                    / (nd * nd - md * md).squareRoot()
            }
        }
        return q
    }

    /// WGS-84 semi-major axis, km.
    private static let semiMajorAxis = 6378.137
    /// WGS-84 flattening.
    private static let flattening = 1 / 298.257223563
    /// Geomagnetic reference radius, km.
    private static let referenceRadius = 6371.2

    /// Gauss coefficients g, h (nT) and their secular variation ġ, ḣ (nT/yr) of degree n, order m.
    private struct Coefficient: Sendable {
        var n: Int, m: Int, g: Double, h: Double, gDot: Double, hDot: Double
    }

    /// WMM2025.COF ("2025.0 WMM-2025 11/13/2024"): n, m, g, h, ġ, ḣ.
    private static let wmm2025Coefficients: [Coefficient] = [
        .init(n: 1, m: 0, g: -29351.8, h: 0.0, gDot: 12.0, hDot: 0.0),
        .init(n: 1, m: 1, g: -1410.8, h: 4545.4, gDot: 9.7, hDot: -21.5),
        .init(n: 2, m: 0, g: -2556.6, h: 0.0, gDot: -11.6, hDot: 0.0),
        .init(n: 2, m: 1, g: 2951.1, h: -3133.6, gDot: -5.2, hDot: -27.7),
        .init(n: 2, m: 2, g: 1649.3, h: -815.1, gDot: -8.0, hDot: -12.1),
        .init(n: 3, m: 0, g: 1361.0, h: 0.0, gDot: -1.3, hDot: 0.0),
        .init(n: 3, m: 1, g: -2404.1, h: -56.6, gDot: -4.2, hDot: 4.0),
        .init(n: 3, m: 2, g: 1243.8, h: 237.5, gDot: 0.4, hDot: -0.3),
        .init(n: 3, m: 3, g: 453.6, h: -549.5, gDot: -15.6, hDot: -4.1),
        .init(n: 4, m: 0, g: 895.0, h: 0.0, gDot: -1.6, hDot: 0.0),
        .init(n: 4, m: 1, g: 799.5, h: 278.6, gDot: -2.4, hDot: -1.1),
        .init(n: 4, m: 2, g: 55.7, h: -133.9, gDot: -6.0, hDot: 4.1),
        .init(n: 4, m: 3, g: -281.1, h: 212.0, gDot: 5.6, hDot: 1.6),
        .init(n: 4, m: 4, g: 12.1, h: -375.6, gDot: -7.0, hDot: -4.4),
        .init(n: 5, m: 0, g: -233.2, h: 0.0, gDot: 0.6, hDot: 0.0),
        .init(n: 5, m: 1, g: 368.9, h: 45.4, gDot: 1.4, hDot: -0.5),
        .init(n: 5, m: 2, g: 187.2, h: 220.2, gDot: 0.0, hDot: 2.2),
        .init(n: 5, m: 3, g: -138.7, h: -122.9, gDot: 0.6, hDot: 0.4),
        .init(n: 5, m: 4, g: -142.0, h: 43.0, gDot: 2.2, hDot: 1.7),
        .init(n: 5, m: 5, g: 20.9, h: 106.1, gDot: 0.9, hDot: 1.9),
        .init(n: 6, m: 0, g: 64.4, h: 0.0, gDot: -0.2, hDot: 0.0),
        .init(n: 6, m: 1, g: 63.8, h: -18.4, gDot: -0.4, hDot: 0.3),
        .init(n: 6, m: 2, g: 76.9, h: 16.8, gDot: 0.9, hDot: -1.6),
        .init(n: 6, m: 3, g: -115.7, h: 48.8, gDot: 1.2, hDot: -0.4),
        .init(n: 6, m: 4, g: -40.9, h: -59.8, gDot: -0.9, hDot: 0.9),
        .init(n: 6, m: 5, g: 14.9, h: 10.9, gDot: 0.3, hDot: 0.7),
        .init(n: 6, m: 6, g: -60.7, h: 72.7, gDot: 0.9, hDot: 0.9),
        .init(n: 7, m: 0, g: 79.5, h: 0.0, gDot: -0.0, hDot: 0.0),
        .init(n: 7, m: 1, g: -77.0, h: -48.9, gDot: -0.1, hDot: 0.6),
        .init(n: 7, m: 2, g: -8.8, h: -14.4, gDot: -0.1, hDot: 0.5),
        .init(n: 7, m: 3, g: 59.3, h: -1.0, gDot: 0.5, hDot: -0.8),
        .init(n: 7, m: 4, g: 15.8, h: 23.4, gDot: -0.1, hDot: 0.0),
        .init(n: 7, m: 5, g: 2.5, h: -7.4, gDot: -0.8, hDot: -1.0),
        .init(n: 7, m: 6, g: -11.1, h: -25.1, gDot: -0.8, hDot: 0.6),
        .init(n: 7, m: 7, g: 14.2, h: -2.3, gDot: 0.8, hDot: -0.2),
        .init(n: 8, m: 0, g: 23.2, h: 0.0, gDot: -0.1, hDot: 0.0),
        .init(n: 8, m: 1, g: 10.8, h: 7.1, gDot: 0.2, hDot: -0.2),
        .init(n: 8, m: 2, g: -17.5, h: -12.6, gDot: 0.0, hDot: 0.5),
        .init(n: 8, m: 3, g: 2.0, h: 11.4, gDot: 0.5, hDot: -0.4),
        .init(n: 8, m: 4, g: -21.7, h: -9.7, gDot: -0.1, hDot: 0.4),
        .init(n: 8, m: 5, g: 16.9, h: 12.7, gDot: 0.3, hDot: -0.5),
        .init(n: 8, m: 6, g: 15.0, h: 0.7, gDot: 0.2, hDot: -0.6),
        .init(n: 8, m: 7, g: -16.8, h: -5.2, gDot: -0.0, hDot: 0.3),
        .init(n: 8, m: 8, g: 0.9, h: 3.9, gDot: 0.2, hDot: 0.2),
        .init(n: 9, m: 0, g: 4.6, h: 0.0, gDot: -0.0, hDot: 0.0),
        .init(n: 9, m: 1, g: 7.8, h: -24.8, gDot: -0.1, hDot: -0.3),
        .init(n: 9, m: 2, g: 3.0, h: 12.2, gDot: 0.1, hDot: 0.3),
        .init(n: 9, m: 3, g: -0.2, h: 8.3, gDot: 0.3, hDot: -0.3),
        .init(n: 9, m: 4, g: -2.5, h: -3.3, gDot: -0.3, hDot: 0.3),
        .init(n: 9, m: 5, g: -13.1, h: -5.2, gDot: 0.0, hDot: 0.2),
        .init(n: 9, m: 6, g: 2.4, h: 7.2, gDot: 0.3, hDot: -0.1),
        .init(n: 9, m: 7, g: 8.6, h: -0.6, gDot: -0.1, hDot: -0.2),
        .init(n: 9, m: 8, g: -8.7, h: 0.8, gDot: 0.1, hDot: 0.4),
        .init(n: 9, m: 9, g: -12.9, h: 10.0, gDot: -0.1, hDot: 0.1),
        .init(n: 10, m: 0, g: -1.3, h: 0.0, gDot: 0.1, hDot: 0.0),
        .init(n: 10, m: 1, g: -6.4, h: 3.3, gDot: 0.0, hDot: 0.0),
        .init(n: 10, m: 2, g: 0.2, h: 0.0, gDot: 0.1, hDot: -0.0),
        .init(n: 10, m: 3, g: 2.0, h: 2.4, gDot: 0.1, hDot: -0.2),
        .init(n: 10, m: 4, g: -1.0, h: 5.3, gDot: -0.0, hDot: 0.1),
        .init(n: 10, m: 5, g: -0.6, h: -9.1, gDot: -0.3, hDot: -0.1),
        .init(n: 10, m: 6, g: -0.9, h: 0.4, gDot: 0.0, hDot: 0.1),
        .init(n: 10, m: 7, g: 1.5, h: -4.2, gDot: -0.1, hDot: 0.0),
        .init(n: 10, m: 8, g: 0.9, h: -3.8, gDot: -0.1, hDot: -0.1),
        .init(n: 10, m: 9, g: -2.7, h: 0.9, gDot: -0.0, hDot: 0.2),
        .init(n: 10, m: 10, g: -3.9, h: -9.1, gDot: -0.0, hDot: -0.0),
        .init(n: 11, m: 0, g: 2.9, h: 0.0, gDot: 0.0, hDot: 0.0),
        .init(n: 11, m: 1, g: -1.5, h: 0.0, gDot: -0.0, hDot: -0.0),
        .init(n: 11, m: 2, g: -2.5, h: 2.9, gDot: 0.0, hDot: 0.1),
        .init(n: 11, m: 3, g: 2.4, h: -0.6, gDot: 0.0, hDot: -0.0),
        .init(n: 11, m: 4, g: -0.6, h: 0.2, gDot: 0.0, hDot: 0.1),
        .init(n: 11, m: 5, g: -0.1, h: 0.5, gDot: -0.1, hDot: -0.0),
        .init(n: 11, m: 6, g: -0.6, h: -0.3, gDot: 0.0, hDot: -0.0),
        .init(n: 11, m: 7, g: -0.1, h: -1.2, gDot: -0.0, hDot: 0.1),
        .init(n: 11, m: 8, g: 1.1, h: -1.7, gDot: -0.1, hDot: -0.0),
        .init(n: 11, m: 9, g: -1.0, h: -2.9, gDot: -0.1, hDot: 0.0),
        .init(n: 11, m: 10, g: -0.2, h: -1.8, gDot: -0.1, hDot: 0.0),
        .init(n: 11, m: 11, g: 2.6, h: -2.3, gDot: -0.1, hDot: 0.0),
        .init(n: 12, m: 0, g: -2.0, h: 0.0, gDot: 0.0, hDot: 0.0),
        .init(n: 12, m: 1, g: -0.2, h: -1.3, gDot: 0.0, hDot: -0.0),
        .init(n: 12, m: 2, g: 0.3, h: 0.7, gDot: -0.0, hDot: 0.0),
        .init(n: 12, m: 3, g: 1.2, h: 1.0, gDot: -0.0, hDot: -0.1),
        .init(n: 12, m: 4, g: -1.3, h: -1.4, gDot: -0.0, hDot: 0.1),
        .init(n: 12, m: 5, g: 0.6, h: -0.0, gDot: -0.0, hDot: -0.0),
        .init(n: 12, m: 6, g: 0.6, h: 0.6, gDot: 0.1, hDot: -0.0),
        .init(n: 12, m: 7, g: 0.5, h: -0.1, gDot: -0.0, hDot: -0.0),
        .init(n: 12, m: 8, g: -0.1, h: 0.8, gDot: 0.0, hDot: 0.0),
        .init(n: 12, m: 9, g: -0.4, h: 0.1, gDot: 0.0, hDot: -0.0),
        .init(n: 12, m: 10, g: -0.2, h: -1.0, gDot: -0.1, hDot: -0.0),
        .init(n: 12, m: 11, g: -1.3, h: 0.1, gDot: -0.0, hDot: 0.0),
        .init(n: 12, m: 12, g: -0.7, h: 0.2, gDot: -0.1, hDot: -0.1),
    ]
}
