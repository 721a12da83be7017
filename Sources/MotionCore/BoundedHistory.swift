/// The newest `capacity` values appended, the oldest overwritten first: the fixed-size memory of
/// evidence that is summed rather than read in order (the magnetometer calibration's windows and
/// blocks). As a collection its values come in storage order, not the order they came in.
struct BoundedHistory<Element: Sendable>: RandomAccessCollection, Sendable {
    let capacity: Int
    private var storage: [Element] = []
    /// Where the next value goes once the history is full (the oldest).
    private var oldest = 0

    init(capacity: Int) {
        precondition(capacity > 0, "a history holds at least one value")
        self.capacity = capacity
    }

    var startIndex: Int { storage.startIndex }
    var endIndex: Int { storage.endIndex }
    subscript(position: Int) -> Element { storage[position] }

    /// Keeps `element`, dropping the oldest value when full.
    mutating func append(_ element: Element) {
        if storage.count < capacity {
            storage.append(element)
        } else {
            storage[oldest] = element
            oldest = (oldest + 1) % capacity
        }
    }

    /// Forgets every value.
    mutating func removeAll() {
        storage = []
        oldest = 0
    }
}
