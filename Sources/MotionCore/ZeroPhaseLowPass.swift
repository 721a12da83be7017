/// A ``ButterworthLowPass`` run over a whole recorded sequence forward, then backward over its
/// output: the two delays cancel (zero phase), so a filtered value lines up with the time it
/// belongs to — possible only offline, where the samples after it are known. The amplitude
/// response is the filter's squared (fourth order in all). Each pass starts at rest on the
/// first value it sees, so the ends are not pulled toward zero. A step of no time (a repeated
/// timestamp) keeps the previous output.
enum ZeroPhaseLowPass {
    static func filter<Value: LowPassFilterable>(_ values: [Value], times: [Double], tau: Double) -> [Value] {
        precondition(values.count == times.count, "one time per value")
        guard let first = values.first else { return [] }
        var coefficients = IntervalCache<ButterworthCoefficients>()
        func pass(_ input: [Value], _ order: [Int]) -> [Value] {
            var output = input
            var filter = ButterworthLowPass<Value>()
            filter.reset(to: input[order[0]], tau: tau)
            for (previous, index) in zip(order, order.dropFirst()) {
                let dt = abs(times[index] - times[previous])
                guard dt > 0 else {
                    output[index] = output[previous]
                    continue
                }
                output[index] = filter.step(input[index], coefficients.value(for: dt) { ButterworthCoefficients(tau: tau, dt: $0) })
            }
            return output
        }
        guard values.count > 1 else { return [first] }
        let forward = pass(values, Array(values.indices))
        return pass(forward, values.indices.reversed())
    }
}
