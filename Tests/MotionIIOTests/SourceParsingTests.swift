import Foundation
import MotionCore
import MotionIIO
import Testing

/// Pure parsing of the small text formats around sources: `--source` URIs, sample-period
/// requests, `*_available` attributes, accelerometer locations, configured mount matrices and
/// sysfs numbers. Every expected value is worked out by hand in the comments.
@Suite("Source URI, request and attribute parsing")
struct SourceParsingTests {
    // MARK: - SourceURI

    @Test("local: and local both mean this machine's IIO devices")
    func uriLocal() throws {
        #expect(try SourceURI(parsing: "local:") == .local)
        #expect(try SourceURI(parsing: "local") == .local)
        // libiio's own spelling of the local backend is "local:".
        #expect(try SourceURI(parsing: "local").iioURI == "local:")
        #expect(try SourceURI(parsing: "local").description == "local:")
    }

    @Test("ip:HOST and ip:HOST:PORT keep the whole host string")
    func uriNetwork() throws {
        // Everything after the 3-character "ip:" prefix is the host.
        #expect(try SourceURI(parsing: "ip:127.0.0.1") == .network("127.0.0.1"))
        #expect(try SourceURI(parsing: "ip:127.0.0.1").iioURI == "ip:127.0.0.1")
        // The port is part of the host string handed to libiio, not split off.
        let withPort = try SourceURI(parsing: "ip:10.0.0.2:30431")
        #expect(withPort == .network("10.0.0.2:30431"))
        #expect(withPort.iioURI == "ip:10.0.0.2:30431")
        #expect(withPort.description == "ip:10.0.0.2:30431")
    }

    @Test("sim: and replay:FILE are not IIO sources")
    func uriSimulatedAndReplay() throws {
        let sim = try SourceURI(parsing: "sim:")
        #expect(sim == .simulated)
        #expect(sim.iioURI == nil)
        #expect(sim.description == "sim:")

        // Everything after the 7-character "replay:" prefix is the path.
        let replay = try SourceURI(parsing: "replay:/tmp/x.csv")
        #expect(replay == .replay(path: "/tmp/x.csv"))
        #expect(replay.iioURI == nil)
        #expect(replay.description == "replay:/tmp/x.csv")
    }

    @Test("Unsupported or empty URIs are rejected naming the expected forms",
          arguments: ["", "usb:", "ip:", "replay:"])
    func uriInvalid(text: String) {
        do {
            let uri = try SourceURI(parsing: text)
            Issue.record("'\(text)' parsed as \(uri)")
        } catch {
            guard case .invalidURI(let given) = error else {
                Issue.record("expected .invalidURI, got \(error)")
                return
            }
            #expect(given == text)
            let message = error.description
            #expect(message.contains("'\(text)'"))
            for form in ["local:", "ip:HOST[:PORT]", "sim:", "replay:FILE.csv"] {
                #expect(message.contains(form), "'\(message)' does not mention \(form)")
            }
        }
    }

    // MARK: - SourceRequest

    @Test("Periods 0.01 s and 0.1 s (the ends of 10–100 ms) are accepted", arguments: [0.01, 0.1])
    func requestAccepted(period: Double) throws {
        let request = try SourceRequest([.accelerometer: period])
        #expect(request.periods == [.accelerometer: period])
    }

    @Test("Periods outside 10–100 ms are rejected, naming the kind",
          arguments: [0.0099, 0.5, 0, -1, Double.nan])
    func requestRejected(period: Double) {
        do {
            let request = try SourceRequest([.gyroscope: period])
            Issue.record("period \(period) accepted: \(request)")
        } catch {
            guard case .invalidPeriod(let kind, let rejected) = error else {
                Issue.record("expected .invalidPeriod, got \(error)")
                return
            }
            #expect(kind == .gyroscope)
            // NaN never equals itself: compare bit patterns instead.
            #expect(rejected.bitPattern == period.bitPattern)
            #expect(error.description.contains("gyroscope"))
            #expect(error.description.contains("0.01–0.1 s"))
        }
    }

    @Test("One bad period among good ones rejects the whole request")
    func requestOneBad() {
        #expect(throws: SourceError.self) {
            try SourceRequest([.accelerometer: 0.02, .magnetometer: 0.2])
        }
    }

    @Test("init(kinds, period:) gives every kind the same period")
    func requestSamePeriod() throws {
        let request = try SourceRequest([.accelerometer, .gyroscope], period: 0.02)
        #expect(request.periods == [.accelerometer: 0.02, .gyroscope: 0.02])
        #expect(throws: SourceError.self) {
            try SourceRequest(SensorKind.allCases, period: 0.2)
        }
        #expect(SourceRequest.none.periods.isEmpty)
    }

    // MARK: - AvailableValues

    @Test("A whitespace-separated list, integer or %f-printed")
    func availableList() throws {
        #expect(AvailableValues(parsing: "10 20 50") == .list([10, 20, 50]))
        #expect(AvailableValues(parsing: "12.500000 26.000000 52.000000\n") == .list([12.5, 26, 52]))
        // Printed back in the shortest form: 12.5, 26, 52.
        #expect(AvailableValues(parsing: "12.500000 26.000000 52.000000")?.description == "12.5 26 52")
    }

    @Test("A bracketed [min step max] range")
    func availableRange() throws {
        #expect(AvailableValues(parsing: "[0.5 0.5 100]") == .range(min: 0.5, step: 0.5, max: 100))
        #expect(AvailableValues(parsing: "[0.5 0.5 100]")?.description == "[0.5 0.5 100]")
    }

    @Test("Text that is neither form gives nil", arguments: ["abc", "1 x 3", "[1 2]", "", "[1 0 5]", "[5 1 1]"])
    func availableGarbage(text: String) {
        // "[1 0 5]" has a zero step and "[5 1 1]" a min above max: neither is a usable range.
        #expect(AvailableValues(parsing: text) == nil)
    }

    @Test("choose(atLeast:) on a list: smallest value at or above, else the largest")
    func chooseFromList() throws {
        let values = try #require(AvailableValues(parsing: "10 20 50"))
        #expect(values.choose(atLeast: 50) == 50)   // exact match
        #expect(values.choose(atLeast: 15) == 20)   // 20 is the first of 10, 20, 50 that is ≥ 15
        #expect(values.choose(atLeast: 5) == 10)    // below all: the smallest
        #expect(values.choose(atLeast: 51) == 50)   // above all: the hardware cannot go faster, 50
        #expect(values.choose(atLeast: 1000) == 50)

        // Unsorted input is handled: sorted 12.5, 26, 52 → 26 is the first ≥ 20.
        let unsorted = try #require(AvailableValues(parsing: "52 12.5 26"))
        #expect(unsorted.choose(atLeast: 20) == 26)

        // A 0 entry (some drivers list "0" for "off") is never chosen.
        let withZero = try #require(AvailableValues(parsing: "0 10 20"))
        #expect(withZero.choose(atLeast: 5) == 10)
        #expect(withZero.choose(atLeast: 0) == 10)
    }

    @Test("choose(atLeast:) on a range rounds up to the step and clamps to min/max")
    func chooseFromRange() throws {
        let range = try #require(AvailableValues(parsing: "[0.5 0.5 100]"))
        // (26 − 0.5) / 0.5 = 51 steps exactly → 0.5 + 51 × 0.5 = 26
        #expect(range.choose(atLeast: 26) == 26)
        // (26.2 − 0.5) / 0.5 = 51.4 → 52 steps → 0.5 + 52 × 0.5 = 26.5
        #expect(range.choose(atLeast: 26.2) == 26.5)
        // Below min: (0.1 − 0.5) / 0.5 = −0.8 → clamped to min 0.5
        #expect(range.choose(atLeast: 0.1) == 0.5)
        // Above max → 100
        #expect(range.choose(atLeast: 250) == 100)

        // A max that is off the step grid: [1 3 8] holds 1, 4, 7 and the max 8.
        // (7.5 − 1) / 3 = 2.17 → 3 steps → 1 + 9 = 10 → clamped to 8
        let offGrid = try #require(AvailableValues(parsing: "[1 3 8]"))
        #expect(offGrid.choose(atLeast: 7.5) == 8)
        // (5 − 1) / 3 = 1.33 → 2 steps → 1 + 6 = 7
        #expect(offGrid.choose(atLeast: 5) == 7)
    }

    // MARK: - SensorLocation

    @Test("Location values: display/lid → display, base → base, case and whitespace ignored")
    func locationValues() {
        #expect(SensorLocation(locationValue: "display") == .display)
        #expect(SensorLocation(locationValue: "lid") == .display)
        #expect(SensorLocation(locationValue: "base") == .base)
        #expect(SensorLocation(locationValue: "LID") == .display)
        #expect(SensorLocation(locationValue: "Base") == .base)
        #expect(SensorLocation(locationValue: "  base\n") == .base)
        #expect(SensorLocation(locationValue: "lid\n") == .display)
    }

    @Test("Unknown location values give nil", arguments: ["", "keyboard", "accel-base", "lid base", "dock"])
    func locationUnknown(text: String) {
        #expect(SensorLocation(locationValue: text) == nil)
    }

    @Test("Labels: accel-display and accel-base; any other label gives nil")
    func locationLabels() {
        #expect(SensorLocation(label: "accel-display") == .display)
        #expect(SensorLocation(label: "accel-base") == .base)
        #expect(SensorLocation(label: "accel-base\n") == .base)
        #expect(SensorLocation(label: "ACCEL-DISPLAY") == .display)
        for other in ["", "display", "base", "lid", "accel-lid", "gyro-base", "mpu6050"] {
            #expect(SensorLocation(label: other) == nil, "label '\(other)'")
        }
    }

    // MARK: - MountMatrixOverride

    @Test("KIND=MATRIX without a device matches every device")
    func overrideWithoutDevice() throws {
        let o = try MountMatrixOverride(parsing: "accelerometer=1, 0, 0; 0, 1, 0; 0, 0, 1")
        #expect(o.device == nil)
        #expect(o.kind == .accelerometer)
        #expect(o.matrix.matrix.rowMajor == [1, 0, 0, 0, 1, 0, 0, 0, 1])
    }

    @Test("DEVICE/KIND=MATRIX names the device")
    func overrideWithDevice() throws {
        let o = try MountMatrixOverride(parsing: "mpu6050/gyroscope=0, 1, 0; -1, 0, 0; 0, 0, 1")
        #expect(o.device == "mpu6050")
        #expect(o.kind == .gyroscope)
        #expect(o.matrix.matrix.rowMajor == [0, 1, 0, -1, 0, 0, 0, 0, 1])
        // det = r0 · (r1 × r2) = (0,1,0) · ((−1,0,0) × (0,0,1)) = (0,1,0) · (0,1,0) = 1: proper
        #expect(o.matrix.isProper)
        // Applied to chip x = (1,0,0): rows dotted → (0, −1, 0)
        #expect(o.matrix.apply(Vector3(1, 0, 0)) == Vector3(0, -1, 0))
    }

    @Test("Device ids containing ':' are kept whole")
    func overrideDeviceWithColon() throws {
        let o = try MountMatrixOverride(parsing: "iio:device2/magnetometer=-1, 0, 0; 0, -1, 0; 0, 0, 1")
        #expect(o.device == "iio:device2")
        #expect(o.kind == .magnetometer)
        #expect(o.matrix.matrix.rowMajor == [-1, 0, 0, 0, -1, 0, 0, 0, 1])
    }

    @Test("A missing '=' is rejected with the expected form")
    func overrideMissingEquals() {
        do {
            let o = try MountMatrixOverride(parsing: "accelerometer 1, 0, 0; 0, 1, 0; 0, 0, 1")
            Issue.record("parsed as \(o)")
        } catch {
            #expect(error.description.contains("expected [DEVICE/]KIND=MATRIX"))
        }
    }

    @Test("An unknown kind is rejected naming it", arguments: ["compass=1, 0, 0; 0, 1, 0; 0, 0, 1",
                                                               "mpu6050/accel=1, 0, 0; 0, 1, 0; 0, 0, 1",
                                                               "mpu6050/=1, 0, 0; 0, 1, 0; 0, 0, 1"])
    func overrideUnknownKind(text: String) {
        do {
            let o = try MountMatrixOverride(parsing: text)
            Issue.record("parsed as \(o)")
        } catch {
            #expect(error.description.contains("is not a sensor kind"))
        }
    }

    @Test("A malformed matrix is rejected naming the target",
          arguments: ["accelerometer=1, 0, 0; 0, 1, 0",            // two rows
                      "accelerometer=1, 0; 0, 1; 0, 0",              // two columns
                      "accelerometer=1, 0, 0; 0, x, 0; 0, 0, 1",     // not a number
                      "accelerometer=",                              // nothing
                      "accelerometer=1, 0, 0; 1, 0, 0; 0, 0, 1"])    // singular (two equal rows)
    func overrideMalformedMatrix(text: String) {
        do {
            let o = try MountMatrixOverride(parsing: text)
            Issue.record("parsed as \(o)")
        } catch {
            #expect(error.description.hasPrefix("accelerometer: "), "\(error)")
            #expect(error.description.contains("mount matrix"), "\(error)")
        }
    }

    // MARK: - SysfsNumber

    @Test("sysfs numbers: decimal, padded integer, negative, exponent")
    func sysfsParse() {
        #expect(SysfsNumber.parse("0.000598") == 0.000598)
        #expect(SysfsNumber.parse(" 42\n") == 42)
        #expect(SysfsNumber.parse("-0.5") == -0.5)
        #expect(SysfsNumber.parse("1e-3") == 0.001)
    }

    @Test("sysfs numbers from an attribute's bytes read as their text does, up to a NUL",
          arguments: ["0", "-0", "+5", "42\n", "  -340 \n", "256\n\0", "12\0junk", "999999999999999999", "-123456789012345678",
                      "12345678901234567890123", "9007199254740993", "0.000598", "1e-3", "12a", "1 2", "-", "+", "", "\n", "0x10", "nan"])
    func sysfsParseBytes(text: String) {
        let expected = SysfsNumber.parse(String(text.prefix(while: { $0 != "\0" })))
        let parsed = SysfsNumber.parse(bytes: Array(text.utf8))
        #expect(parsed?.bitPattern == expected?.bitPattern, "\(text.debugDescription): \(String(describing: parsed)), not \(String(describing: expected))")
    }

    @Test("sysfs numbers from bytes: raw integers as the kernel prints them, the sign of zero kept")
    func sysfsParseBytesValues() {
        #expect(SysfsNumber.parse(bytes: Array("256\n".utf8)) == 256)
        #expect(SysfsNumber.parse(bytes: Array("-340\n\0\0".utf8)) == -340)
        #expect(SysfsNumber.parse(bytes: Array(" +7 ".utf8)) == 7)
        #expect(SysfsNumber.parse(bytes: Array("-0".utf8))?.bitPattern == (-0.0).bitPattern)
        #expect(SysfsNumber.parse(bytes: Array("999999999999999999".utf8)) == Double(999_999_999_999_999_999 as Int64))
        #expect(SysfsNumber.parse(bytes: Array("0.5\n".utf8)) == 0.5)
        #expect(SysfsNumber.parse(bytes: Array("12a".utf8)) == nil)
        #expect(SysfsNumber.parse(bytes: Array("\0".utf8)) == nil)
    }

    @Test("sysfs numbers are written in plain digits, never with an exponent the kernel cannot read; each reads back exactly",
          arguments: [(0.00001, "0.00001"), (0.000001, "0.000001"), (12.5, "12.5"), (50, "50"), (-0.0000598, "-0.0000598"), (1.56, "1.56")])
    func sysfsFormat(value: Double, text: String) {
        #expect(SysfsNumber.format(value) == text)
        #expect(SysfsNumber.parse(SysfsNumber.format(value)) == value)
    }

    @Test("sysfs numbers: decimal comma, empty and non-finite are rejected",
          arguments: ["0,5", "", "\n", "nan", "inf", "-inf", "abc", "1 2", "0x10", "0X1p3"])
    func sysfsReject(text: String) {
        #expect(SysfsNumber.parse(text) == nil)
    }

    @Test("mount-matrix overrides tolerate spaces around names; an empty device name is an error")
    func overrideSpacing() throws {
        let spaced = try MountMatrixOverride(parsing: " mpu6050 / gyroscope = 1, 0, 0; 0, 1, 0; 0, 0, 1")
        #expect(spaced.device == "mpu6050")
        #expect(spaced.kind == .gyroscope)
        #expect(throws: MountMatrixOverrideError.self) { try MountMatrixOverride(parsing: "/accelerometer=1, 0, 0; 0, 1, 0; 0, 0, 1") }
    }

    @Test("with several bad periods the error names the first kind in name order")
    func deterministicPeriodError() {
        // accelerometer < gyroscope < magnetometer
        for _ in 0..<5 {
            do {
                _ = try SourceRequest([.magnetometer: 1, .gyroscope: 2, .accelerometer: 3])
                Issue.record("accepted bad periods")
            } catch {
                guard case .invalidPeriod(let kind, let period) = error else { Issue.record("\(error)"); continue }
                #expect(kind == .accelerometer && period == 3)
            }
        }
    }

    @Test("sysfs numbers are printed in the shortest form")
    func sysfsFormat() {
        #expect(SysfsNumber.format(50) == "50")
        #expect(SysfsNumber.format(12.5) == "12.5")
        #expect(SysfsNumber.format(0.000598) == "0.000598")
        #expect(SysfsNumber.format(-3) == "-3")
        #expect(SysfsNumber.format(0) == "0")
    }
}
