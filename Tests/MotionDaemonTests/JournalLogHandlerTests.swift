import Foundation
import Glibc
import Logging
import Testing
@testable import MotionDaemon

/// The journal entry a log event becomes (field names, values, order), and how `auto` decides
/// whether standard error is the journal. Delivery to a real journald is tested with the
/// motiond binary (EndToEndTests/JournalTests).
@Suite("JournalLogHandler")
struct JournalLogHandlerTests {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func event(_ level: Logger.Level = .info, _ message: Logger.Message = "hello",
                      error: (any Error)? = nil, metadata: Logger.Metadata? = nil) -> LogEvent {
        LogEvent(level: level, message: message, error: error, metadata: metadata, source: "MotionIIO",
                 file: "MotionIIO/IIOSource.swift", function: "startReader(_:sensors:period:)", line: 190)
    }

    @Test("fixed fields first: MESSAGE (newlines kept), PRIORITY, SYSLOG_IDENTIFIER, CODE_FILE, CODE_LINE, CODE_FUNC")
    func fixedFields() {
        let handler = JournalLogHandler(metadataProvider: nil)
        let fields = handler.fields(for: Self.event(.warning, "first line\nsecond line"))
        #expect(fields.map(\.name) == ["MESSAGE", "PRIORITY", "SYSLOG_IDENTIFIER", "CODE_FILE", "CODE_LINE", "CODE_FUNC"])
        #expect(fields.map(\.value) == ["first line\nsecond line", "4", "motiond", "MotionIIO/IIOSource.swift", "190", "startReader(_:sensors:period:)"])
        #expect(JournalLogHandler(identifier: "motiond-test").fields(for: Self.event())[2].value == "motiond-test")
    }

    @Test("syslog priorities: trace and debug 7, info 6, notice 5, warning 4, error 3, critical 2")
    func priorities() {
        let levels: [Logger.Level] = [.trace, .debug, .info, .notice, .warning, .error, .critical]
        #expect(levels.map(JournalLogHandler.priority) == [7, 7, 6, 5, 4, 3, 2])
    }

    @Test("metadata keys become MOTIOND_ + upper case, other characters '_', at most 64 characters")
    func fieldNames() {
        #expect(JournalLogHandler.fieldName(metadataKey: "sensor") == "MOTIOND_SENSOR")
        #expect(JournalLogHandler.fieldName(metadataKey: "error.message") == "MOTIOND_ERROR_MESSAGE")
        #expect(JournalLogHandler.fieldName(metadataKey: "Rate_Hz2") == "MOTIOND_RATE_HZ2")
        #expect(JournalLogHandler.fieldName(metadataKey: "ä-b c") == "MOTIOND___B_C")
        #expect(JournalLogHandler.fieldName(metadataKey: "") == "MOTIOND_")
        let long = JournalLogHandler.fieldName(metadataKey: String(repeating: "x", count: 100))
        #expect(long.count == 64 && long.hasPrefix("MOTIOND_XXX"))
    }

    @Test("metadata: handler < provider < log call, sorted by key; arrays repeat the field; errors add two fields")
    func metadataFields() {
        var handler = JournalLogHandler(metadataProvider: Logger.MetadataProvider { ["origin": "provider", "task": "42"] })
        handler[metadataKey: "origin"] = "handler"
        handler[metadataKey: "device"] = "iio:device0"
        #expect(handler[metadataKey: "device"] == "iio:device0")
        let fields = handler.fields(for: Self.event(error: Failure(description: "gone"), metadata: [
            "task": "call", "sensor": ["accelerometer", "gyroscope"], "rate": .stringConvertible(52.5),
        ])).dropFirst(6)
        #expect(fields.map { "\($0.name)=\($0.value)" } == [
            "MOTIOND_DEVICE=iio:device0",
            "MOTIOND_ERROR_MESSAGE=gone",
            "MOTIOND_ERROR_TYPE=MotionDaemonTests.JournalLogHandlerTests.Failure",
            "MOTIOND_ORIGIN=provider",
            "MOTIOND_RATE=52.5",
            "MOTIOND_SENSOR=accelerometer",
            "MOTIOND_SENSOR=gyroscope",
            "MOTIOND_TASK=call",
        ])
    }

    @Test("JOURNAL_STREAM matches only the device and inode of the descriptor it names")
    func journalStream() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("journal-stream-\(UUID().uuidString)").path
        let descriptor = open(path, O_CREAT | O_RDWR, 0o600)
        try #require(descriptor >= 0)
        defer {
            close(descriptor)
            unlink(path)
        }
        var status = stat()
        try #require(fstat(descriptor, &status) == 0)
        let value = "\(status.st_dev):\(status.st_ino)"
        #expect(LogTarget.isJournalStream(value, descriptor: descriptor))
        #expect(!LogTarget.isJournalStream("\(status.st_dev):\(status.st_ino + 1)", descriptor: descriptor))
        #expect(!LogTarget.isJournalStream(nil, descriptor: descriptor))
        for malformed in ["", ":", "\(status.st_dev)", "\(status.st_dev):\(status.st_ino):0", "x:\(status.st_ino)"] {
            #expect(!LogTarget.isJournalStream(malformed, descriptor: descriptor), "\(malformed)")
        }
        #expect(!LogTarget.isJournalStream(value, descriptor: -1))
        #expect(LogTarget.journal.resolved == .journal && LogTarget.stderr.resolved == .stderr)
    }
}
