/// Why the daemon benchmark could not run or finish a round; its text is the whole message.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
