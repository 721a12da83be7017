/// A three-component vector of `Double`, used for every 3-axis quantity in motiond.
///
/// The meaning of the components (frame and unit) is given by whoever holds the vector:
/// a ``Sample`` carries device-frame values in Core Motion units (G, rad/s, µT).
public struct Vector3: Sendable, Hashable, Codable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public var z: Double

    public init(_ x: Double, _ y: Double, _ z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    public init(x: Double, y: Double, z: Double) {
        self.init(x, y, z)
    }

    public static let zero = Vector3(0, 0, 0)

    /// Components as an array `[x, y, z]`.
    public var components: [Double] { [x, y, z] }

    public subscript(index: Int) -> Double {
        get {
            switch index {
            case 0: return x
            case 1: return y
            case 2: return z
            default: preconditionFailure("Vector3 index \(index) out of range 0...2")
            }
        }
        set {
            switch index {
            case 0: x = newValue
            case 1: y = newValue
            case 2: z = newValue
            default: preconditionFailure("Vector3 index \(index) out of range 0...2")
            }
        }
    }

    public var norm: Double { (x * x + y * y + z * z).squareRoot() }

    /// True when every component is finite (no NaN, no infinity).
    public var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite }

    public func dot(_ other: Vector3) -> Double { x * other.x + y * other.y + z * other.z }

    public func cross(_ other: Vector3) -> Vector3 {
        Vector3(y * other.z - z * other.y, z * other.x - x * other.z, x * other.y - y * other.x)
    }

    public static func + (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x + b.x, a.y + b.y, a.z + b.z) }
    public static func - (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x - b.x, a.y - b.y, a.z - b.z) }
    public static func * (a: Vector3, s: Double) -> Vector3 { Vector3(a.x * s, a.y * s, a.z * s) }
    public static func * (s: Double, a: Vector3) -> Vector3 { a * s }
    public static func / (a: Vector3, s: Double) -> Vector3 { Vector3(a.x / s, a.y / s, a.z / s) }
    public static prefix func - (a: Vector3) -> Vector3 { Vector3(-a.x, -a.y, -a.z) }

    public var description: String { "(\(x), \(y), \(z))" }
}
