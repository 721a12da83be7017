extension StringProtocol {
    /// The text without leading and trailing whitespace: spaces and tabs, and line breaks too
    /// unless `newlines` is false. (Foundation's `trimmingCharacters(in:)` without Foundation,
    /// which the daemon does not link.)
    public func trimmingWhitespace(newlines: Bool = true) -> String {
        let trim: (Character) -> Bool = { $0.isWhitespace && (newlines || !$0.isNewline) }
        guard let first = firstIndex(where: { !trim($0) }), let last = lastIndex(where: { !trim($0) }) else { return "" }
        return String(self[first...last])
    }
}
