import Testing
import MotionCore

@Suite("UTF8Text")
struct UTF8TextTests {
    @Test("the first byte that is not valid UTF-8, from 0; nil for valid text", arguments: [
        ([UInt8]("t,acc_x\n0,9.8 m/s²\n".utf8), nil),
        ([], nil),
        ([0x61, 0x62, 0xB2, 0x0A], 2),               // a Latin-1 ², alone
        ([0x61, 0xC3], 1),                           // a sequence cut off by the end
        ([0x61, 0xC0, 0x80], 1),                     // an overlong NUL
        ([0xED, 0xA0, 0x80], 0),                     // a UTF-16 surrogate
        ([0xE2, 0x82, 0xAC, 0xF4, 0x90, 0x80, 0x80], 3), // € then a code point beyond U+10FFFF
    ] as [([UInt8], Int?)])
    func firstInvalidByte(bytes: [UInt8], expected: Int?) {
        #expect(UTF8Text.firstInvalidByte(bytes) == expected)
    }
}
