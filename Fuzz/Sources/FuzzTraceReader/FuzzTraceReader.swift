// libFuzzer target: TraceReader.parse, the CSV trace reader behind replay: sources and
// motionctl. What it accepts must keep its documented promises: times finite and never going
// back, sensor vectors finite.
import MotionCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTraceReader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let trace = try? TraceReader.parse(text) else { return 0 }
    var previous = -Double.infinity
    for record in trace.records {
        if !record.time.isFinite || record.time < previous { fatalError("time \(record.time) after \(previous)") }
        previous = record.time
        for vector in [record.accelerometer, record.gyroscope, record.magnetometer].compactMap({ $0 }) where !vector.isFinite {
            fatalError("non-finite reading \(vector) at \(record.time)")
        }
    }
    return 0
}
