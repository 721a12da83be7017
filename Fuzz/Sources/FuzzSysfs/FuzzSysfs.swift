// libFuzzer target: the sysfs attribute parsers. Byte 0 picks the parser, the rest is the text:
//   even: SysfsNumber.parse (scale, offset, sampling frequency), and SysfsNumber.format of what
//         it reads must read back to the same number;
//   odd:  MountMatrix(parsing:) (in_accel_mount_matrix, hwdb ACCEL_MOUNT_MATRIX) and
//         MountMatrixOverride(parsing:) (`[DEVICE/]KIND=MATRIX`); a matrix's text must parse
//         back to the same matrix.
import MotionCore
import MotionIIO

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSysfs(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = UnsafeBufferPointer(start: data, count: size)
    guard let selector = input.first else { return 0 }
    let text = String(decoding: input.dropFirst(), as: UTF8.self)
    if selector % 2 == 0 {
        guard let value = SysfsNumber.parse(text) else { return 0 }
        if !value.isFinite { fatalError("SysfsNumber.parse gave \(value)") }
        let written = SysfsNumber.format(value)
        if SysfsNumber.parse(written) != value { fatalError("\(value) formats as '\(written)', which reads back as \(String(describing: SysfsNumber.parse(written)))") }
    } else {
        if let matrix = try? MountMatrix(parsing: text) {
            let again: MountMatrix
            do {
                again = try MountMatrix(parsing: matrix.description)
            } catch {
                fatalError("a matrix's own text '\(matrix.description)' does not parse: \(error)")
            }
            if again != matrix { fatalError("'\(matrix.description)' reads back as '\(again.description)'") }
            _ = matrix.proper.apply(Vector3(1, 2, 3))
        }
        _ = try? MountMatrixOverride(parsing: text)
    }
    return 0
}
