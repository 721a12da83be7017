extension String {
    /// Left-aligned in a column of `width` characters: padded with spaces on the right, as it
    /// is when already that wide or wider. (Foundation's `padding(toLength:withPad:startingAt:)`
    /// without Foundation, and without cutting a longer text.)
    public func padding(to width: Int) -> String {
        self + String(repeating: " ", count: max(0, width - count))
    }
}
