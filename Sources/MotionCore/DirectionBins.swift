/// The 96 direction bins over which the magnetometer calibrator spreads its samples: an
/// equi-angular cube map, each of the cube's 6 faces split into 4 × 4 cells 22.5° wide as seen
/// from the centre. A direction's face is its largest component; the cell follows from comparing
/// the other two against ±tan 22.5° and 0 times it, so binning costs a few comparisons and no
/// trigonometry. Bins cover between 0.92 and 1.14 times 1/96 of the sphere (Monte Carlo).
enum DirectionBins {
    static let count = 96

    /// The (non-zero) direction's bin, 0..<96.
    static func index(of d: Vector3) -> Int {
        let (ax, ay, az) = (abs(d.x), abs(d.y), abs(d.z))
        let (face, largest, u, v) = ax >= ay && ax >= az ? (d.x > 0 ? 0 : 1, ax, d.y, d.z)
            : ay >= az ? (d.y > 0 ? 2 : 3, ay, d.x, d.z)
            : (d.z > 0 ? 4 : 5, az, d.x, d.y)
        let edge = 0.41421356237309503 * largest // tan 22.5°
        func cell(_ c: Double) -> Int { c < 0 ? (c < -edge ? 0 : 1) : (c < edge ? 2 : 3) }
        return 16 * face + 4 * cell(u) + cell(v)
    }
}
