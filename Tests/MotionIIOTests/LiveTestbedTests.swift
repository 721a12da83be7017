import Testing
@testable import TestSupport

/// MotionIIO driven in this process on a live umockdev testbed (the batched buffer, motion
/// wake-up): one test at a time, and never beside another target's testbed suite (`TestbedTurn`).
@Suite("MotionIIO on a live umockdev testbed", .serialized, .testbedTurn)
struct LiveTestbedTests {}
