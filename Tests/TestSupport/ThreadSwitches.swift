import Foundation

/// How often each thread of a process woke: the rest tests compare two readings.
enum ThreadSwitches {
    /// Wake-ups of each thread of `pid` (its voluntary context switches: each a sleep that
    /// ended; a preemption is no wake-up), by thread id, with names.
    static func of(_ pid: Int32) -> [String: (name: String, count: Int)] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var result: [String: (name: String, count: Int)] = [:]
        for tid in tasks {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/status", encoding: .utf8) else { continue }
            let name = (try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
            let count = status.split(separator: "\n").filter { $0.hasPrefix("voluntary_ctxt_switches:") }
                .compactMap { Int($0.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") }.reduce(0, +)
            result[tid] = (name, count)
        }
        return result
    }

    /// Threads of two readings (`before`, `after`) that woke more than once in between, as
    /// `name (tid): wake-ups`; threads `except` names are left out.
    static func wokeMoreThanOnce(_ before: [String: (name: String, count: Int)], _ after: [String: (name: String, count: Int)],
                                 except: (String) -> Bool = { _ in false }) -> [String] {
        after.compactMap { tid, thread -> String? in
            let wakes = thread.count - (before[tid]?.count ?? 0)
            return except(thread.name) || wakes <= 1 ? nil : "\(thread.name) (\(tid)): \(wakes)"
        }
    }
}
