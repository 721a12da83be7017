/// How much later than the gyroscope a sensor's samples describe the motion, estimated from a
/// whole recording (offline). IMUs filter each sensor on its own (a magnetometer typically
/// averages longer), so at a given timestamp the accelerometer and magnetometer may report what
/// was true some milliseconds before the gyroscope's sample. Fused as if simultaneous, a lag `d`
/// turns a gravity or field vector by the angle the device turned in `d`: the error follows the
/// rotation rate, a degree at 300 °/s and 3.5 ms.
///
/// The lag shows in the recording itself: gravity and the earth's field are constant in an
/// inertial frame, so the sensor's reading turned into that frame by the gyroscope's attitude
/// wobbles least at the right lag. `cost(lag)` measures that wobble; this finds its minimum.
enum SensorLag {
    /// The lag in `range` minimising `cost`: the best point of a grid `step` apart, refined by
    /// the parabola through it and its two neighbours (kept inside them).
    static func minimizing(range: ClosedRange<Double>, step: Double, cost: (Double) -> Double) -> Double {
        precondition(step > 0, "a grid step")
        let count = Int(((range.upperBound - range.lowerBound) / step).rounded(.down)) + 1
        let grid = (0..<count).map { range.lowerBound + Double($0) * step }
        let costs = grid.map(cost)
        guard let best = costs.indices.min(by: { costs[$0] < costs[$1] }) else { return 0 }
        guard best > 0, best < grid.count - 1 else { return grid[best] }
        let (left, middle, right) = (costs[best - 1], costs[best], costs[best + 1])
        let curvature = left - 2 * middle + right
        guard curvature > 0 else { return grid[best] }
        let offset = 0.5 * (left - right) / curvature // in steps, within ±½ for a minimum
        return grid[best] + max(-1, min(1, offset)) * step
    }
}
