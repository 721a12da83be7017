extension Duration {
    /// The duration as poll(2)'s timeout: whole milliseconds, rounded up (a wake-up is never
    /// early), at most `Int32.max`.
    var pollTimeout: Int32 {
        let (seconds, attoseconds) = components
        return Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
    }
}
