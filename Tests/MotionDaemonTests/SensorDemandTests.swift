import Testing
import MotionCore
import MotionIIO
import MotionProtocol
@testable import MotionDaemon

/// Which sensors the subscriptions keep running and at what hardware period: the sensors
/// each stream needs, the shortest period per sensor clamped to 10–100 ms, only allowed
/// sensors, nothing for no needs.
@Suite("SensorDemand")
struct SensorDemandTests {
    static let inertial: Set<SensorKind> = [.accelerometer, .gyroscope]
    static let all = Set(SensorKind.motion)

    /// Each stream (and deviceMotion frame) with the sensors it needs.
    static let streamKinds: [(StreamName, AttitudeReferenceFrame?, Set<SensorKind>)] = [
        (.accelerometer, nil, [.accelerometer]),
        (.gyro, nil, [.gyroscope]),
        (.magnetometer, nil, [.magnetometer]),
        (.deviceMotion, nil, inertial),
        (.deviceMotion, .xArbitraryZVertical, inertial),
        (.deviceMotion, .xArbitraryCorrectedZVertical, all),
        (.deviceMotion, .xMagneticNorthZVertical, all),
        (.deviceMotion, .xTrueNorthZVertical, all),
        (.heading, nil, all),
        (.orientation, nil, [.accelerometer]),
        (.shake, nil, [.accelerometer]),
        (.gesture, nil, [.accelerometer]),
        (.availability, nil, []),
        (.calibration, nil, []),
    ]

    @Test("the sensors each stream needs", arguments: streamKinds)
    func kinds(stream: StreamName, frame: AttitudeReferenceFrame?, expected: Set<SensorKind>) {
        #expect(SensorDemand.kinds(for: stream, frame: frame) == expected)
    }

    @Test("an interval becomes a hardware period within 10–100 ms", arguments: [
        (0.001, 0.01), (0.01, 0.01), (0.02, 0.02), (0.1, 0.1), (1.0, 0.1), (3600, 0.1),
    ])
    func period(interval: Double, period: Double) {
        #expect(SensorDemand.period(for: interval) == period)
    }

    @Test("each sensor runs at the shortest period any need asks of it, clamped")
    func shortestPeriod() {
        let needs: [(kinds: Set<SensorKind>, interval: Double)] = [
            ([.accelerometer], 0.05), (Self.inertial, 0.02), ([.magnetometer], 0.5), ([.gyroscope], 0.001), ([], 0.01),
        ]
        #expect(SensorDemand.request(needs, allowed: Self.all).periods == [.accelerometer: 0.02, .gyroscope: 0.01, .magnetometer: 0.1])
    }

    @Test("sensors that are not allowed are not requested")
    func allowedOnly() {
        let needs: [(kinds: Set<SensorKind>, interval: Double)] = [(Self.all, 0.02), ([.magnetometer], 0.01)]
        #expect(SensorDemand.request(needs, allowed: [.accelerometer]).periods == [.accelerometer: 0.02])
        #expect(SensorDemand.request(needs, allowed: []).periods.isEmpty)
    }

    @Test("light and proximity run at the slowest period, read at their most eager subscription's interval, at most 10 times a second; they do not keep the accelerometer from resting")
    func scalarSensors() throws {
        let needs: [(kinds: Set<SensorKind>, interval: Double)] = [([.light], 0.8), ([.light], 2), ([.proximity], 0.05), ([.accelerometer], 0.02)]
        let request = SensorDemand.request(needs, allowed: Set(SensorKind.allCases))
        #expect(request.periods == [.light: 0.1, .proximity: 0.1, .accelerometer: 0.02])
        #expect(request.wakeIntervals == [.light: 0.8], "proximity at 0.05 s is read every period, 0.1 s")
        #expect(request.wakeInterval(.proximity) == 0.1)
        let resting = SensorDemand.resting(request, interval: 0.35)
        #expect(resting.wakeIntervals == [.light: 0.8, .accelerometer: 0.35])
        #expect(SensorDemand.request(needs, allowed: Set(SensorKind.motion)).periods == [.accelerometer: 0.02], "excluded by --sensors")
    }

    @Test("no needs, or only needs of no sensor, request nothing")
    func nothingNeeded() {
        let none: [(kinds: Set<SensorKind>, interval: Double)] = []
        let nothing: [(kinds: Set<SensorKind>, interval: Double)] = [([], 0.01), ([], 1)]
        #expect(SensorDemand.request(none, allowed: Self.all) == .none)
        #expect(SensorDemand.request(nothing, allowed: Self.all) == .none)
    }

    @Test("only orientation, tilt, shake, posture, the status streams and light and proximity (sensors of their own) tolerate the rest rate, and the heading for the D-Bus face; samples and gestures keep their rate")
    func restTolerance() {
        let tolerant = Set(StreamName.allCases.filter(SensorDemand.toleratesRestRate))
        #expect(tolerant == [.orientation, .tilt, .shake, .posture, .availability, .calibration, .light, .proximity])
        for stream in StreamName.allCases {
            #expect(SensorDemand.toleratesRestRate(stream, for: .client(ClientID(raw: 1))) == tolerant.contains(stream))
            #expect(SensorDemand.toleratesRestRate(stream, for: .local(.printer)) == tolerant.contains(stream))
            #expect(SensorDemand.toleratesRestRate(stream, for: .local(.sensorProxy)) == (tolerant.contains(stream) || stream == .heading),
                    "the D-Bus face's CompassHeading is a property that changes: its heading rests")
        }
    }

    @Test("at rest the accelerometer is delivered every rest interval (a convertible's base one every third, a resting heading's gyroscope and magnetometer every one), only when they are the only sensors read")
    func resting() throws {
        let accelerometer = try SourceRequest([.accelerometer: 0.02])
        #expect(SensorDemand.resting(accelerometer, interval: 0.35).wakeIntervals == [.accelerometer: 0.35])
        #expect(SensorDemand.resting(accelerometer, interval: 0.35).periods == accelerometer.periods)
        #expect(SensorDemand.resting(accelerometer, interval: 0) == accelerometer, "0: the rest rate is off")
        let compass = try SourceRequest([.accelerometer: 0.02, .gyroscope: 0.1, .magnetometer: 0.1])
        #expect(SensorDemand.resting(compass, interval: 0.35).wakeIntervals == [.accelerometer: 0.35, .gyroscope: 0.35, .magnetometer: 0.35],
                "the D-Bus face's heading rests with all three")
        let hinge = try SourceRequest([.accelerometer: 0.02, .baseAccelerometer: 0.02, .gyroscope: 0.02, .baseGyroscope: 0.02])
        #expect(SensorDemand.resting(hinge, interval: 0.35) == hinge, "the base gyroscope never rests")
        #expect(SensorDemand.resting(.none, interval: 0.35) == .none)
        let convertible = try SourceRequest([.accelerometer: 0.1, .baseAccelerometer: 0.1])
        #expect(SensorDemand.resting(convertible, interval: 0.35).wakeIntervals == [.accelerometer: 0.35, .baseAccelerometer: 1.05],
                "the base every third rest reading")
        let baseAlone = try SourceRequest([.baseAccelerometer: 0.1])
        #expect(SensorDemand.resting(baseAlone, interval: 0.35) == baseAlone, "the display's accelerometer decides rest")
    }

    @Test("a wake interval is kept only for a requested kind and when longer than its period; at most 10 s")
    func wakeIntervals() throws {
        var request = try SourceRequest([.accelerometer: 0.02, .gyroscope: 0.01])
        request.wakeIntervals = [.accelerometer: 60, .gyroscope: 0.005, .magnetometer: 1]
        #expect(request.wakeIntervals == [.accelerometer: 10])
        #expect(request.wakeInterval(.accelerometer) == 10 && request.wakeInterval(.gyroscope) == 0.01)
        #expect(request.wakeInterval(.magnetometer) == nil)
    }

    @Test("each sensor may come as late as the shortest latency of the subscriptions reading it; one without a latency wants it at once")
    func batching() throws {
        let request = try SourceRequest([.accelerometer: 0.01, .gyroscope: 0.01, .magnetometer: 0.02])
        let latencies: [(kinds: Set<SensorKind>, latency: Double)] = [
            (Self.inertial, 1), ([.gyroscope], 0.5), ([.magnetometer], 2), ([.magnetometer], 0),
        ]
        #expect(SensorDemand.batching(request, latencies).latencies == [.accelerometer: 1, .gyroscope: 0.5])
        #expect(SensorDemand.batching(request, latencies).batchInterval(.gyroscope) == 0.5)
        #expect(SensorDemand.batching(request, latencies).wakeInterval(.gyroscope) == 0.01, "a polled device still reads every period")
        #expect(SensorDemand.batching(request, []).latencies.isEmpty)
    }
}
