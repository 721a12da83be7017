import Testing
import MotionCore

@Suite("TraceReader and TraceRecord")
struct TraceReaderTests {
    static let canonical = """
        t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,mag_x,mag_y,mag_z
        0.00,0.1,-0.2,0.3,0,0,9.80665,20,0,-44
        0.01,0,0,0,4.903325,-19.6133,0,1.5,-2.5,3
        0.02,-1,2,-3,0,9.80665,0,0,0,0

        """

    // Hand-converted expectations: acc_G = −acc / 9.80665; gyr and mag unchanged.
    //   row 1: acc (0, 0, 9.80665)         → (0, 0, −1)      face up at rest
    //   row 2: acc (4.903325, −19.6133, 0) → (−0.5, 2, 0)    4.903325 = 9.80665 / 2, 19.6133 = 2 × 9.80665
    //   row 3: acc (0, 9.80665, 0)         → (0, −1, 0)      upright portrait
    static let expectedTimes: [Double] = [0.00, 0.01, 0.02]
    static let expectedAcc = [Vector3(0, 0, -1), Vector3(-0.5, 2, 0), Vector3(0, -1, 0)]
    static let expectedGyr = [Vector3(0.1, -0.2, 0.3), Vector3(0, 0, 0), Vector3(-1, 2, -3)]
    static let expectedMag = [Vector3(20, 0, -44), Vector3(1.5, -2.5, 3), Vector3(0, 0, 0)]

    func checkCanonicalRecords(_ records: [TraceRecord], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(records.count == 3, sourceLocation: sourceLocation)
        guard records.count == 3 else { return }
        for i in 0..<3 {
            let r = records[i]
            #expect(r.time == Self.expectedTimes[i], sourceLocation: sourceLocation)
            #expect(isClose(r.accelerometer ?? Vector3(.nan, .nan, .nan), Self.expectedAcc[i], tolerance: 1e-12),
                    "acc row \(i): \(String(describing: r.accelerometer))", sourceLocation: sourceLocation)
            #expect(r.gyroscope == Self.expectedGyr[i], sourceLocation: sourceLocation)
            #expect(r.magnetometer == Self.expectedMag[i], sourceLocation: sourceLocation)
        }
    }

    @Test("canonical trace: acc sign flip and G conversion, gyr and mag unchanged")
    func canonical() throws {
        let trace = try TraceReader.parse(Self.canonical)
        checkCanonicalRecords(trace.records)
        #expect(trace.kinds == [.accelerometer, .gyroscope, .magnetometer])
        #expect(trace.droppedReadings == 0)
    }

    @Test("column order does not matter")
    func columnOrder() throws {
        let text = """
            mag_z,acc_x,t,gyr_y,mag_x,acc_z,gyr_x,mag_y,acc_y,gyr_z
            -44,0,0.00,-0.2,20,9.80665,0.1,0,0,0.3
            3,4.903325,0.01,0,1.5,0,0,-2.5,-19.6133,0
            0,0,0.02,2,0,0,-1,0,9.80665,-3
            """
        let trace = try TraceReader.parse(text)
        checkCanonicalRecords(trace.records)
        #expect(trace.records == (try TraceReader.parse(Self.canonical)).records)
    }

    @Test("extra columns are ignored; header is case- and space-insensitive")
    func extraColumns() throws {
        let text = """
            temperature, T ,Gyr_X,gyr_y,gyr_z,label,ACC_X,acc_y,acc_z,mag_x,mag_y,mag_z,quality
            36.6,0.00,0.1,-0.2,0.3,still,0,0,9.80665,20,0,-44,good
            36.7, 0.01 ,0,0,0,moving, 4.903325 ,-19.6133,0,1.5,-2.5,3,ok
            36.8,0.02,-1,2,-3,turn,0,9.80665,0,0,0,0,
            """
        let trace = try TraceReader.parse(text)
        checkCanonicalRecords(trace.records)
    }

    @Test("missing magnetometer columns: magnetometer nil, kind excluded")
    func missingMagnetometer() throws {
        let text = """
            t,acc_x,acc_y,acc_z,gyr_x,gyr_y,gyr_z
            1.5,0,0,9.80665,0.1,0.2,0.3
            1.6,0,9.80665,0,0,0,0
            """
        let trace = try TraceReader.parse(text)
        #expect(trace.kinds == [.accelerometer, .gyroscope])
        #expect(trace.records.count == 2)
        #expect(trace.records.allSatisfy { $0.magnetometer == nil })
        #expect(isClose(trace.records[0].accelerometer!, Vector3(0, 0, -1)))
        #expect(trace.records[0].gyroscope == Vector3(0.1, 0.2, 0.3))
        #expect(trace.records[1].time == 1.6)
    }

    @Test("a convertible's base accelerometer: base_acc columns as acc's, its samples before the display's; incomplete axes rejected")
    func baseAccelerometer() throws {
        let trace = try TraceReader.parse("t,acc_x,acc_y,acc_z,base_acc_x,base_acc_y,base_acc_z\n0,0,0,9.80665,0,0,-9.80665\n")
        #expect(trace.kinds == [.accelerometer, .baseAccelerometer])
        // Lid open flat on a table: the display faces up, the base (its z out of its underside) down.
        #expect(isClose(trace.records[0].baseAccelerometer!, Vector3(0, 0, 1)))
        #expect(trace.records[0].samples(timestamp: 7).map(\.kind) == [.baseAccelerometer, .accelerometer])
        #expect(throws: TraceError.incompleteAxes("base_acc")) { try TraceReader.parse("t,acc_x,acc_y,acc_z,base_acc_x\n0,0,0,9.8,1\n") }
    }

    @Test("a convertible's base gyroscope: base_gyr columns as gyr's, rad/s; its samples before the display's")
    func baseGyroscope() throws {
        let trace = try TraceReader.parse("t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,base_acc_x,base_acc_y,base_acc_z,base_gyr_x,base_gyr_y,base_gyr_z\n"
                                          + "0,0.1,0,0,0,0,9.80665,0,0,-9.80665,-0.5,0,0.25\n")
        #expect(trace.kinds == [.accelerometer, .gyroscope, .baseAccelerometer, .baseGyroscope])
        #expect(trace.records[0].baseGyroscope == Vector3(-0.5, 0, 0.25))
        #expect(trace.records[0].samples(timestamp: 7).map(\.kind) == [.baseAccelerometer, .baseGyroscope, .gyroscope, .accelerometer])
        #expect(throws: TraceError.incompleteAxes("base_gyr")) { try TraceReader.parse("t,acc_x,acc_y,acc_z,base_gyr_y\n0,0,0,9.8,1\n") }
    }

    @Test("accelerometer-only trace")
    func accelerometerOnly() throws {
        let trace = try TraceReader.parse("t,acc_x,acc_y,acc_z\n0,-9.80665,0,0\n")
        #expect(trace.kinds == [.accelerometer])
        // acc (−9.80665, 0, 0) → (+1, 0, 0): landscapeRight
        #expect(isClose(trace.records[0].accelerometer!, Vector3(1, 0, 0)))
        #expect(trace.records[0].gyroscope == nil)
        #expect(trace.records[0].magnetometer == nil)
    }

    @Test("NaN drops that sensor in that row only")
    func nanDropsReading() throws {
        let text = """
            t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,mag_x,mag_y,mag_z
            0.00,0.1,-0.2,0.3,NaN,0,9.80665,20,0,-44
            0.01,0,0,0,4.903325,-19.6133,0,1.5,-2.5,3
            0.02,-1,2,nan,0,9.80665,0,0,nan,0
            """
        let trace = try TraceReader.parse(text)
        #expect(trace.records.count == 3)
        #expect(trace.droppedReadings == 3)
        // Row 1: only acc dropped.
        #expect(trace.records[0].accelerometer == nil)
        #expect(trace.records[0].gyroscope == Vector3(0.1, -0.2, 0.3))
        #expect(trace.records[0].magnetometer == Vector3(20, 0, -44))
        // Row 2: untouched.
        #expect(isClose(trace.records[1].accelerometer!, Vector3(-0.5, 2, 0)))
        #expect(trace.records[1].gyroscope == Vector3(0, 0, 0))
        #expect(trace.records[1].magnetometer == Vector3(1.5, -2.5, 3))
        // Row 3: gyr and mag dropped, acc kept.
        #expect(trace.records[2].gyroscope == nil)
        #expect(trace.records[2].magnetometer == nil)
        #expect(isClose(trace.records[2].accelerometer!, Vector3(0, -1, 0)))
        // Kinds still lists every sensor in the header.
        #expect(trace.kinds == [.accelerometer, .gyroscope, .magnetometer])
    }

    @Test("CRLF line endings and blank lines are accepted")
    func crlfAndBlankLines() throws {
        let text = "t,acc_x,acc_y,acc_z\r\n0,0,0,9.80665\r\n\r\n  \r\n1,0,9.80665,0\r\n"
        let trace = try TraceReader.parse(text)
        #expect(trace.records.count == 2)
        #expect(trace.records.map(\.time) == [0, 1])
        #expect(isClose(trace.records[1].accelerometer!, Vector3(0, -1, 0)))
    }

    @Test("header-only trace has no records")
    func headerOnly() throws {
        let trace = try TraceReader.parse("t,gyr_x,gyr_y,gyr_z\n")
        #expect(trace.records.isEmpty)
        #expect(trace.kinds == [.gyroscope])
    }

    @Test("a short row is an error naming its line")
    func shortRow() {
        let text = """
            t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,mag_x,mag_y,mag_z
            0.00,0.1,-0.2,0.3,0,0,9.80665,20,0,-44
            0.01,0,0,0,4.903325,-19.6133,0,1.5,-2.5
            """
        // Line 1 is the header; line 3 has 9 cells where 10 are needed.
        #expect(throws: TraceError.shortRow(line: 3, cells: 9, expected: 10)) { try TraceReader.parse(text) }
    }

    @Test("line numbers count blank lines")
    func lineNumbersCountBlankLines() {
        let text = "t,acc_x,acc_y,acc_z\n0,0,0,1\n\n1,0,0\n"
        // header = 1, "0,0,0,1" = 2, blank = 3, "1,0,0" = 4
        #expect(throws: TraceError.shortRow(line: 4, cells: 3, expected: 4)) { try TraceReader.parse(text) }
    }

    @Test("a non-numeric time is an error naming its line")
    func badTime() {
        let text = """
            t,acc_x,acc_y,acc_z
            0.0,0,0,9.8
            0.1,0,0,9.8
            abc,0,0,9.8
            """
        #expect(throws: TraceError.badTime(line: 4, text: "abc")) { try TraceReader.parse(text) }
        #expect(throws: TraceError.badTime(line: 2, text: "nan")) { try TraceReader.parse("t,acc_x,acc_y,acc_z\nnan,0,0,9.8") }
        #expect(throws: TraceError.badTime(line: 2, text: "")) { try TraceReader.parse("t,acc_x,acc_y,acc_z\n,0,0,9.8") }
    }

    @Test("a non-numeric value is an error naming its line and column")
    func badValue() {
        let text = """
            t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z
            0.0,0,0,0,0,0,9.8
            0.1,0,0,0,0,x,9.8
            """
        #expect(throws: TraceError.badValue(line: 3, column: "acc_y", text: "x")) { try TraceReader.parse(text) }
        do {
            _ = try TraceReader.parse(text)
        } catch {
            #expect(error.description.contains("line 3"))
        }
        // An empty cell is not a number either.
        #expect(throws: TraceError.badValue(line: 2, column: "gyr_z", text: "")) {
            try TraceReader.parse("t,gyr_x,gyr_y,gyr_z\n0,1,2,\n")
        }
    }

    @Test("a header with only some axes is incompleteAxes")
    func incompleteAxes() {
        #expect(throws: TraceError.incompleteAxes("acc")) { try TraceReader.parse("t,acc_x,acc_y\n0,1,2\n") }
        #expect(throws: TraceError.incompleteAxes("mag")) {
            try TraceReader.parse("t,acc_x,acc_y,acc_z,mag_z\n0,1,2,3,4\n")
        }
    }

    @Test("missing time or sensor columns")
    func missingColumns() {
        #expect(throws: TraceError.missingColumn("t")) { try TraceReader.parse("time,acc_x,acc_y,acc_z\n0,1,2,3\n") }
        #expect(throws: TraceError.missingColumn("acc_x/gyr_x/mag_x")) { try TraceReader.parse("t,temperature\n0,20\n") }
    }

    @Test("empty text is missingHeader")
    func emptyText() {
        #expect(throws: TraceError.missingHeader) { try TraceReader.parse("") }
        #expect(throws: TraceError.missingHeader) { try TraceReader.parse("\n0,1,2\n") }
    }

    @Test("an unnamed extra column (e.g. a pandas index) is ignored like any other extra column")
    func unnamedExtraColumn() throws {
        // pandas `to_csv()` writes its index as a first column with an empty name.
        let text = """
            ,t,acc_x,acc_y,acc_z
            0,0.5,0,0,9.80665
            1,0.6,0,9.80665,0
            """
        // Header names are split keeping empty ones, so cells stay aligned with their columns.
        let trace = try TraceReader.parse(text)
        #expect(trace.records.map(\.time) == [0.5, 0.6])
        // acc (0, 0, 9.80665) → (0, 0, −1); acc (0, 9.80665, 0) → (0, −1, 0)
        #expect(isClose(trace.records[0].accelerometer ?? .zero, Vector3(0, 0, -1)))
        #expect(isClose(trace.records[1].accelerometer ?? .zero, Vector3(0, -1, 0)))
    }

    @Test("samples(timestamp:) orders gyroscope, accelerometer, magnetometer")
    func samplesOrder() {
        let record = TraceRecord(time: 3, accelerometer: Vector3(0, 0, -1),
                                 gyroscope: Vector3(0.1, 0, 0), magnetometer: Vector3(20, 0, -44))
        let samples = record.samples(timestamp: 100.25)
        #expect(samples.map(\.kind) == [.gyroscope, .accelerometer, .magnetometer])
        #expect(samples.allSatisfy { $0.timestamp == 100.25 })
        #expect(samples.map(\.vector) == [Vector3(0.1, 0, 0), Vector3(0, 0, -1), Vector3(20, 0, -44)])

        let partial = TraceRecord(time: 3, accelerometer: Vector3(0, 0, -1), magnetometer: Vector3(1, 2, 3))
        #expect(partial.samples(timestamp: 0).map(\.kind) == [.accelerometer, .magnetometer])
        #expect(TraceRecord(time: 0).samples(timestamp: 0).isEmpty)
    }

    @Test("error descriptions name the line")
    func errorDescriptions() {
        #expect(TraceError.shortRow(line: 7, cells: 2, expected: 4).description == "line 7: 2 cells, expected at least 4")
        #expect(TraceError.badTime(line: 5, text: "x").description.hasPrefix("line 5:"))
        #expect(TraceError.badValue(line: 9, column: "acc_z", text: "?").description.hasPrefix("line 9: acc_z"))
    }
}

@Suite("TraceReader ordering")
struct TraceReaderOrderingTests {
    @Test("time going backwards is an error naming the line; equal times are allowed")
    func timeGoesBack() throws {
        let equal = try TraceReader.parse("t,acc_x,acc_y,acc_z\n1,0,0,9.80665\n1,0,0,9.80665\n2,0,0,9.80665\n")
        #expect(equal.records.map(\.time) == [1, 1, 2])
        // Line 1 is the header; the row with t = 1.5 after t = 2 is line 4.
        #expect(throws: TraceError.timeGoesBack(line: 4, time: 1.5, previous: 2)) {
            try TraceReader.parse("t,acc_x,acc_y,acc_z\n1,0,0,9.80665\n2,0,0,9.80665\n1.5,0,0,9.80665\n")
        }
    }
}

extension TraceReaderTests {
    @Test("Layout parses a row at a time (the replay's streaming reader): the same records as parse, blank lines nil, NaN readings counted, no order check")
    func layoutRows() throws {
        let lines = Self.canonical.split(separator: "\n", omittingEmptySubsequences: false)
        let layout = try TraceReader.Layout(header: lines[0])
        #expect(layout.kinds == [.accelerometer, .gyroscope, .magnetometer])
        var records: [TraceRecord] = []
        for (index, line) in lines.enumerated().dropFirst() {
            if let row = try layout.row(line, number: index + 1) { records.append(row.record) }
        }
        checkCanonicalRecords(records)
        #expect(try TraceReader.parse(Self.canonical).records == records)

        let accelerometer = try TraceReader.Layout(header: "t,acc_x,acc_y,acc_z")
        #expect(try accelerometer.row("   ", number: 2) == nil)
        let nan = try #require(try accelerometer.row("5,nan,0,1", number: 2))
        #expect(nan.record.accelerometer == nil && nan.droppedReadings == 1 && nan.record.time == 5)
        // Order is the caller's to check (parse refuses a time going back; a replay pauses).
        #expect(try accelerometer.row("1,0,0,9.8", number: 3)?.record.time == 1)
        #expect(throws: TraceError.badTime(line: 7, text: "nan")) { try accelerometer.row("nan,0,0,9.8", number: 7) }
        #expect(throws: TraceError.shortRow(line: 8, cells: 2, expected: 4)) { try accelerometer.row("1,0", number: 8) }
        #expect(throws: TraceError.missingColumn("t")) { try TraceReader.Layout(header: "time,acc_x,acc_y,acc_z") }
        #expect(throws: TraceError.missingHeader) { try TraceReader.Layout(header: "  ") }
    }
}
