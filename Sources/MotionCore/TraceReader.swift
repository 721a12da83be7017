/// Parses trace CSV text (DESIGN.md "Trace files"): a header naming the columns
/// `t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,mag_x,mag_y,mag_z` in any order, gyroscope or
/// magnetometer columns optional, SI units, inertial-navigation sign. A convertible's base
/// accelerometer (`base_acc_x,base_acc_y,base_acc_z`, as `acc_*`) and base gyroscope
/// (`base_gyr_*`, as `gyr_*`), ground-truth columns
/// (`opt_qw,opt_qx,opt_qy,opt_qz`, `movement`, as in BROAD) are read when present; other
/// columns are ignored.
///
/// A row whose time is missing, not a number or earlier than the row before, or with too few
/// cells, is an error naming the line. A NaN sensor value (common in recordings) drops that
/// sensor from that row only. Units: rad/s, m/s², µT.
public enum TraceReader {
    /// The result of parsing: the records in file order and how many sensor readings were NaN.
    public struct Trace: Sendable {
        public var records: [TraceRecord]
        public var kinds: Set<SensorKind>
        public var droppedReadings: Int
    }

    /// Parses a whole trace held in memory (the offline tools). A replay reads a file a row at
    /// a time through ``Layout`` instead, so a long trace never has to fit in memory.
    public static func parse(_ text: String) throws(TraceError) -> Trace {
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).makeIterator()
        guard let headerLine = lines.next() else { throw .missingHeader }
        let layout = try Layout(header: headerLine)
        var records: [TraceRecord] = []
        var dropped = 0
        var lineNumber = 1
        while let line = lines.next() {
            lineNumber += 1
            guard let row = try layout.row(line, number: lineNumber) else { continue }
            if let previous = records.last?.time, row.record.time < previous {
                throw .timeGoesBack(line: lineNumber, time: row.record.time, previous: previous)
            }
            dropped += row.droppedReadings
            records.append(row.record)
        }
        return Trace(records: records, kinds: layout.kinds, droppedReadings: dropped)
    }

    /// The columns a trace's header names; parses one row at a time, so a reader can stream a
    /// trace of any length (it keeps no rows).
    public struct Layout: Sendable {
        private let header: [String]
        private let timeColumn: Int
        private let acc: [Int]?, gyr: [Int]?, mag: [Int]?, baseAcc: [Int]?, baseGyr: [Int]?
        private let referenceColumns: [Int]?
        private let movementColumn: Int?
        private let needed: Int
        /// The sensors the trace has columns for.
        public let kinds: Set<SensorKind>

        /// Reads the header line; throws for a missing `t` column, no sensor columns, or only
        /// some of a sensor's axes.
        public init(header headerLine: Substring) throws(TraceError) {
            guard !headerLine.allSatisfy(\.isWhitespace) else { throw .missingHeader }
            // Empty names are kept (an unnamed index column) so header and cells stay aligned.
            let header = headerLine.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingWhitespace(newlines: false).lowercased() }
            func column(_ name: String) -> Int? { header.firstIndex(of: name) }
            func axes(_ prefix: String) throws(TraceError) -> [Int]? {
                let found = ["x", "y", "z"].map { column("\(prefix)_\($0)") }
                if found.allSatisfy({ $0 == nil }) { return nil }
                guard found.allSatisfy({ $0 != nil }) else { throw .incompleteAxes(prefix) }
                return found.compactMap { $0 }
            }
            guard let timeColumn = column("t") else { throw .missingColumn("t") }
            let acc = try axes("acc"), gyr = try axes("gyr"), mag = try axes("mag"), baseAcc = try axes("base_acc"), baseGyr = try axes("base_gyr")
            let quaternionColumns = ["opt_qw", "opt_qx", "opt_qy", "opt_qz"].map(column)
            let referenceColumns = quaternionColumns.allSatisfy { $0 != nil } ? quaternionColumns.compactMap { $0 } : nil
            let movementColumn = column("movement")
            guard acc != nil || gyr != nil || mag != nil else { throw .missingColumn("acc_x/gyr_x/mag_x") }
            self.header = header
            self.timeColumn = timeColumn
            self.acc = acc
            self.gyr = gyr
            self.mag = mag
            self.baseAcc = baseAcc
            self.baseGyr = baseGyr
            self.referenceColumns = referenceColumns
            self.movementColumn = movementColumn
            needed = ([timeColumn] + (acc ?? []) + (gyr ?? []) + (mag ?? []) + (baseAcc ?? []) + (baseGyr ?? []) + (referenceColumns ?? []) + [movementColumn].compactMap { $0 }).max()! + 1
            var kinds = Set<SensorKind>()
            if acc != nil { kinds.insert(.accelerometer) }
            if gyr != nil { kinds.insert(.gyroscope) }
            if mag != nil { kinds.insert(.magnetometer) }
            if baseAcc != nil { kinds.insert(.baseAccelerometer) }
            if baseGyr != nil { kinds.insert(.baseGyroscope) }
            self.kinds = kinds
        }

        /// One row (line `number` of the file, counting the header as 1): nil for a blank line;
        /// the record and how many of its sensor readings were NaN (dropped from the record).
        /// Throws for a short row, a time that is not a finite number, a value that is not a
        /// number. Whether the time follows the previous row's is the caller's to check.
        public func row(_ line: Substring, number lineNumber: Int) throws(TraceError) -> (record: TraceRecord, droppedReadings: Int)? {
            if line.allSatisfy(\.isWhitespace) { return nil }
            let cells = line.split(separator: ",", omittingEmptySubsequences: false)
            guard cells.count >= needed else { throw .shortRow(line: lineNumber, cells: cells.count, expected: needed) }
            guard let time = Double(cells[timeColumn].trimmingWhitespace(newlines: false)), time.isFinite else {
                throw .badTime(line: lineNumber, text: String(cells[timeColumn]))
            }
            var dropped = 0
            func vector(_ indices: [Int]?, _ factor: Double) throws(TraceError) -> Vector3? {
                guard let indices else { return nil }
                var v = Vector3.zero
                for (axis, index) in indices.enumerated() {
                    let token = cells[index].trimmingWhitespace(newlines: false)
                    guard let value = Double(token) else { throw .badValue(line: lineNumber, column: header[index], text: token) }
                    v[axis] = value * factor
                }
                guard v.isFinite else {
                    dropped += 1
                    return nil
                }
                return v
            }
            var reference: Quaternion?
            if let referenceColumns {
                let q = referenceColumns.map { Double(cells[$0].trimmingWhitespace(newlines: false)) }
                if q.allSatisfy({ $0?.isFinite == true }) {
                    reference = Quaternion(w: q[0]!, x: q[1]!, y: q[2]!, z: q[3]!)
                }
            }
            let movement = movementColumn.flatMap { Double(cells[$0].trimmingWhitespace(newlines: false)) }.map { $0 != 0 }
            let record = TraceRecord(
                time: time,
                accelerometer: try vector(acc, -1 / PhysicalConstants.standardGravity),
                gyroscope: try vector(gyr, 1),
                magnetometer: try vector(mag, 1),
                baseAccelerometer: try vector(baseAcc, -1 / PhysicalConstants.standardGravity),
                baseGyroscope: try vector(baseGyr, 1),
                reference: reference, movement: movement)
            return (record, dropped)
        }
    }
}

/// Why a trace could not be read; every case names what is wrong and where.
public enum TraceError: Error, Sendable, Equatable, CustomStringConvertible {
    case missingHeader
    case missingColumn(String)
    case incompleteAxes(String)
    case shortRow(line: Int, cells: Int, expected: Int)
    case badTime(line: Int, text: String)
    case badValue(line: Int, column: String, text: String)
    case timeGoesBack(line: Int, time: Double, previous: Double)

    public var description: String {
        switch self {
        case .missingHeader: return "trace is empty: expected a header line"
        case .missingColumn(let name): return "trace header has no column '\(name)'"
        case .incompleteAxes(let prefix): return "trace header has only some of \(prefix)_x, \(prefix)_y, \(prefix)_z"
        case .shortRow(let line, let cells, let expected): return "line \(line): \(cells) cells, expected at least \(expected)"
        case .badTime(let line, let text): return "line \(line): time '\(text)' is not a finite number"
        case .badValue(let line, let column, let text): return "line \(line): \(column) '\(text)' is not a number"
        case .timeGoesBack(let line, let time, let previous): return "line \(line): time \(time) is earlier than the previous row's \(previous)"
        }
    }
}
