import Foundation

/// Where motionctl's commands write: lines on standard output, unbuffered so that a pipe
/// (`| grep`) sees each as it comes, and `motionctl: …` messages on standard error.
enum Console {
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data("motionctl: \(text)\n".utf8))
    }
}
