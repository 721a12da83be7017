import FoundationEssentials
import Glibc

/// Where the magnetic declination (true north − magnetic north) comes from, which is what makes
/// ``AttitudeReferenceFrame/xTrueNorthZVertical`` and true headings available.
///
/// Either a configured declination in degrees (east positive, as charts print it), or a
/// location — WGS-84 latitude and longitude in degrees, altitude in metres above the ellipsoid
/// — whose declination the World Magnetic Model (WMM2025) gives for a date.
public enum DeclinationSource: Sendable, Hashable, Codable {
    case declination(Double)
    case location(latitude: Double, longitude: Double, altitude: Double)

    /// Why a configured source cannot be used.
    public enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        case outOfRange(String)
        case outsideModel(decimalYear: Double, model: String, from: Double, until: Double)

        public var description: String {
            switch self {
            case .outOfRange(let what): return what
            case .outsideModel(let year, let model, let from, let until):
                return "date \(DecimalText.shortest((year * 100).rounded() / 100)) is outside \(model) (valid \(DecimalText.shortest(from)) to \(DecimalText.shortest(until)))"
            }
        }
    }

    /// The declination in degrees (east positive) on `date`. A location needs a date the model
    /// covers; values out of range are refused with a reason naming them.
    public func declination(on date: Date, model: WorldMagneticModel = .wmm2025) throws(Problem) -> Double {
        switch self {
        case .declination(let degrees):
            guard degrees.isFinite, abs(degrees) <= 180 else {
                throw .outOfRange("declination \(degrees)° is not within −180…180°")
            }
            return degrees
        case .location(let latitude, let longitude, let altitude):
            guard latitude.isFinite, abs(latitude) <= 90 else { throw .outOfRange("latitude \(latitude)° is not within −90…90°") }
            guard longitude.isFinite, abs(longitude) <= 360 else { throw .outOfRange("longitude \(longitude)° is not within −360…360°") }
            guard altitude.isFinite, altitude >= -1_000, altitude <= 850_000 else {
                throw .outOfRange("altitude \(altitude) m is not within −1 km…850 km (the model's range)")
            }
            let year = WorldMagneticModel.decimalYear(of: date)
            guard model.isValid(decimalYear: year) else {
                throw .outsideModel(decimalYear: year, model: model.name, from: model.epoch, until: model.validUntil)
            }
            return model.field(latitude: latitude, longitude: longitude, altitude: altitude / 1000, decimalYear: year).declination
        }
    }
}
