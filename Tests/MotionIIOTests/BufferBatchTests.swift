import Foundation
import Logging
import MotionCore
@testable import MotionIIO
import MotionSync
@testable import TestSupport
import Testing

/// Batched buffered reading: `BufferedReader` driven in this process on the mpu6050 fixture fed
/// by a umockdev script, through a live testbed, so it belongs to the serialized testbed suite.
///
/// umockdev has no kernel behind `buffer/watermark`: these tests see the attribute values
/// libiio and the reader write and restore, that every scan still arrives in order with its
/// timestamp, and that a batch is read by a thread that sleeps the interval it delivers at between
/// non-blocking reads (one burst per wake-up, about a batch each). The wake-ups this saves on a
/// real kernel (which wakes a blocked reader at every scan) are measured by the system tier.
extension LiveTestbedTests {
    @Suite("Batched buffer on emulated hardware")
    struct BufferBatchTests {
        static let syspath = "/sys/devices/platform/soc/i2c-1/1-0068/iio:device0"
        static let scans = 60

        /// What one run saw: the samples, the buffer attributes while reading and after stop.
        struct Run {
            var batch: Int
            var samples: [Sample]
            /// Samples per delivery to the pipeline: each refill's scans come as one burst.
            var bursts: [Int]
            var lost: [String]
            var whileReading: [String: String]
            var afterStop: [String: String]
        }

        /// Reads the 60-scan mpu6050 ramp (or `feed`) with `batch` (delivered every `deliver` s) and
        /// stops once `scans` scans arrived.
        func run(batch: Int, deliver: Double? = nil, scans: Int = Self.scans, fixture: String? = nil, feed: ScanScript? = nil) async throws -> Run {
            let dir = try Emulation.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let script = dir.appendingPathComponent("feed.script")
            try (feed ?? ScanScript.mpu6050Ramp(count: Self.scans)).write(to: script)
            let testbed = Testbed()
            try testbed.add(try fixture ?? Emulation.fixtureText("mpu6050.umockdev"))
            try testbed.loadScript("/dev/iio:device0", script.path)
            let context = try IIOContext(uri: "local:")
            let device = try #require(context.device(named: "iio:device0"))
            let sensors = SensorDiscovery(useUdev: false).discover(context).sensors.filter { $0.device == "iio:device0" }
            #expect(sensors.map(\.kind) == [.accelerometer, .gyroscope])

            let samples = Lock<[Sample]>([])
            let bursts = Lock<[Int]>([])
            let lost = Lock<[String]>([])
            let output = ReaderOutput(emit: { events in
                bursts.withLock { $0.append(events.count) }
                for case .sample(let sample) in events { samples.withLock { $0.append(sample) } }
            }, lost: { reason in lost.withLock { $0.append(reason) } })
            let reader = try BufferedReader(device: device, sensors: sensors, period: 0.01, batch: batch, deliver: deliver, devices: context.devices,
                                            output: output, logger: Logger(label: "test"))
            try reader.start()
            let deadline = Date().addingTimeInterval(10)
            while samples.withLock({ $0.count }) < 2 * scans && Date() < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            func attributes() throws -> [String: String] {
                var values: [String: String] = [:]
                for name in ["buffer/watermark", "buffer/length", "buffer/enable", "buffer/hwfifo_timeout"] {
                    guard FileManager.default.fileExists(atPath: testbed.root + Self.syspath + "/" + name) else { continue }
                    let text = try String(contentsOfFile: testbed.root + Self.syspath + "/" + name, encoding: .utf8)
                    values[name] = text.trimmingCharacters(in: CharacterSet(charactersIn: "\0").union(.whitespacesAndNewlines))
                }
                return values
            }
            let whileReading = try attributes()
            reader.stop()
            return Run(batch: reader.batch, samples: samples.withLock { $0 }, bursts: bursts.withLock { $0 }, lost: lost.withLock { $0 },
                       whileReading: whileReading, afterStop: try attributes())
        }

        /// Every scan of the ramp, in order, with its kernel timestamp and values.
        func expectRamp(_ run: Run) {
            let accel = run.samples.filter { $0.kind == .accelerometer }, gyro = run.samples.filter { $0.kind == .gyroscope }
            #expect(accel.count == Self.scans)
            #expect(gyro.count == Self.scans)
            for (i, (a, g)) in zip(accel, gyro).enumerated() {
                let expected = ScanScript.mpu6050RampExpected(i)
                #expect(a.timestamp == expected.timestamp)
                #expect(g.timestamp == expected.timestamp)
                #expect(zip([a.vector.x, a.vector.y, a.vector.z], expected.acceleration).allSatisfy { abs($0 - $1) < 1e-12 })
                #expect(zip([g.vector.x, g.vector.y, g.vector.z], expected.rotationRate).allSatisfy { abs($0 - $1) < 1e-12 })
            }
            #expect(run.lost.isEmpty)
        }

        @Test("batch 4: buffer/watermark is 4 while reading and 1 again after stop; every scan arrives in order with its timestamp",
              .enabled(if: Testbed.servesThisProcess, "in-process sysfs needs LD_PRELOAD=libumockdev-preload.so.0 on the test process: run `make check`"))
        func batchOfFour() async throws {
            let run = try await run(batch: 4)
            #expect(run.batch == 4)
            // libiio: length = 4 scans × 128 kernel blocks, watermark = 4.
            #expect(run.whileReading == ["buffer/watermark": "4", "buffer/length": "512", "buffer/enable": "1"])
            #expect(run.afterStop == ["buffer/watermark": "1", "buffer/length": "480", "buffer/enable": "0"])
            expectRamp(run)
            // The probe's first batch, then a burst per wake-up, one every 4 periods: about 4 scans
            // × 2 sensors each (what came while it slept), never a scan split between bursts.
            let later = Array(run.bursts.dropFirst())
            #expect(later.allSatisfy { $0 > 0 && $0 % 2 == 0 } && later.count <= Self.scans / 4 + 3, "\(run.bursts)")
        }

        @Test("batch 4 delivered every 0.12 s: the thread sleeps the interval, not the batch's 0.04 s (a rest interval is no whole number of scans); every scan arrives, in reads of at most a batch",
              .enabled(if: Testbed.servesThisProcess, "in-process sysfs needs LD_PRELOAD=libumockdev-preload.so.0 on the test process: run `make check`"))
        func napsTheDeliveryInterval() async throws {
            // The ramp, one scan every 10 ms (0.6 s).
            var feed = ScanScript()
            for i in 0..<Self.scans {
                feed.read(ScanScript.mpu6050Scan(accel: [Int16(i), Int16(-i), Int16(1000 + i)], gyro: [Int16(10 * i), 20, -30],
                                                 nanoseconds: Int64(5_000_000_000 + i * 10_000_000)), delay: 10)
            }
            let run = try await run(batch: 4, deliver: 0.12, feed: feed)
            expectRamp(run)
            // About five wake-ups after the probe's (a late one only makes fewer); sleeping 0.04 s
            // would have made about fifteen.
            let later = Array(run.bursts.dropFirst())
            #expect(later.allSatisfy { $0 > 0 && $0 % 2 == 0 } && later.count <= 8, "\(run.bursts)")
        }

        @Test("no timestamp channel, batch 4: a refill's scans are stamped one period apart from their arrival, not all alike",
              .enabled(if: Testbed.servesThisProcess, "in-process sysfs needs LD_PRELOAD=libumockdev-preload.so.0 on the test process: run `make check`"))
        func arrivalStampedBatch() async throws {
            let fixture = try Emulation.fixtureText("mpu6050.umockdev").components(separatedBy: "\n")
                .filter { !$0.contains("scan_elements/in_timestamp_") }.joined(separator: "\n")
            var feed = ScanScript()
            for i in 0..<Self.scans {
                feed.read(([Int16(i), Int16(-i), Int16(1000 + i)] + [Int16(10 * i), 20, -30]).flatMap(ScanScript.bigEndian), delay: 10)
            }
            let run = try await run(batch: 4, fixture: fixture, feed: feed)
            let accel = run.samples.filter { $0.kind == .accelerometer }
            #expect(accel.count == Self.scans && run.lost.isEmpty)
            let times = accel.map(\.timestamp)
            #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "\(times)")
            // After the probe's scans: each wake-up's scans one period apart — the 10 ms they are
            // fed at, as the filter follows it (stamped as they came, all would be within
            // microseconds).
            var start = (run.bursts.first ?? 0) / 2
            for burst in run.bursts.dropFirst() {
                let refill = times[start..<min(start + burst / 2, times.count)]
                start += burst / 2
                let gaps = zip(refill, refill.dropFirst()).map { $1 - $0 }
                // Equal gaps of about the period (a loaded machine feeds a little slower).
                #expect(gaps.allSatisfy { abs($0 - gaps[0]) < 1e-9 && $0 > 0.007 && $0 < 0.02 }, "scans \(start)…: \(Array(refill))")
            }
        }

        @Test("batch 1 (the default) leaves the watermark as it was and gives back the buffer length libiio changed",
              .enabled(if: Testbed.servesThisProcess, "in-process sysfs needs LD_PRELOAD=libumockdev-preload.so.0 on the test process: run `make check`"))
        func batchOfOne() async throws {
            let run = try await run(batch: 1)
            #expect(run.batch == 1)
            #expect(run.whileReading == ["buffer/watermark": "1", "buffer/length": "128", "buffer/enable": "1"])
            #expect(run.afterStop == ["buffer/watermark": "1", "buffer/length": "480", "buffer/enable": "0"])
            expectRamp(run)
        }

        @Test("a batch longer than half the context timeout is cut to fit: at 100 Hz and a 1 s timeout, 50 scans",
              .enabled(if: Testbed.servesThisProcess, "in-process sysfs needs LD_PRELOAD=libumockdev-preload.so.0 on the test process: run `make check`"))
        func batchLimit() async throws {
            let run = try await run(batch: 1000, scans: 50)
            #expect(run.batch == 50)
            #expect(run.samples.count >= 100)
            #expect(run.whileReading["buffer/watermark"] == "50")
            #expect(run.afterStop == ["buffer/watermark": "1", "buffer/length": "480", "buffer/enable": "0"])
        }

        @Test("a hardware FIFO with a timeout (cros-ec style buffer/hwfifo_timeout) holds one batch: batch × period while reading, restored after",
              .enabled(if: Testbed.servesThisProcess, "in-process sysfs needs LD_PRELOAD=libumockdev-preload.so.0 on the test process: run `make check`"))
        func fifoTimeout() async throws {
            let fixture = try Emulation.fixtureText("mpu6050.umockdev")
                .replacingOccurrences(of: "A: buffer/watermark=1\\n", with: "A: buffer/watermark=1\\n\nA: buffer/hwfifo_timeout=0.000000\\n")
            let run = try await run(batch: 4, fixture: fixture)
            #expect(run.whileReading["buffer/hwfifo_timeout"] == "0.04")
            #expect(run.afterStop["buffer/hwfifo_timeout"] == "0.000000")
            expectRamp(run)
        }
    }
}
