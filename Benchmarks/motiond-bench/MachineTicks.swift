import Foundation

/// CPU time of the whole machine from the first line of /proc/stat, clock ticks.
struct MachineTicks {
    /// user + nice + system + irq + softirq (guest time is inside user).
    var busy = 0
    var steal = 0

    init() throws {
        let text = try String(contentsOfFile: "/proc/stat", encoding: .utf8)
        let fields = text.prefix(while: { $0 != "\n" }).split(separator: " ").dropFirst().compactMap { Int($0) }
        guard text.hasPrefix("cpu "), fields.count >= 8 else { throw BenchError("cannot parse /proc/stat") }
        busy = fields[0] + fields[1] + fields[2] + fields[5] + fields[6]
        steal = fields[7]
    }
}
