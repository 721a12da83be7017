import Testing

/// A suite trait for the suites whose tests create a `Testbed`: umockdev keeps one testbed per
/// process (`UMOCKDEV_DIR`), and every test target runs in the one test process, so such a suite
/// runs only while no other suite with this trait runs, whichever target it is in. Within the
/// suite, `.serialized` keeps its own tests apart.
struct TestbedTurn: SuiteTrait, TestScoping {
    /// The turn is the whole suite's, taken once: its tests and nested suites run inside it.
    var isRecursive: Bool { false }

    /// Who holds the testbed now, and who waits for it.
    private static let turns = Turns()

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        await Self.turns.take()
        do {
            try await function()
        } catch {
            await Self.turns.give()
            throw error
        }
        await Self.turns.give()
    }

    /// First come, first served: a suite waiting for its turn suspends, it does not hold a thread.
    private actor Turns {
        private var taken = false
        private var waiting: [CheckedContinuation<Void, Never>] = []

        func take() async {
            guard taken else {
                taken = true
                return
            }
            await withCheckedContinuation { waiting.append($0) }
        }

        /// Hands the turn to the first waiting suite, or frees it.
        func give() {
            if waiting.isEmpty {
                taken = false
            } else {
                waiting.removeFirst().resume()
            }
        }
    }
}

extension Trait where Self == TestbedTurn {
    /// The suite creates umockdev testbeds: it runs while no other such suite does.
    static var testbedTurn: Self { Self() }
}
