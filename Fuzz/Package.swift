// swift-tools-version:6.0
// libFuzzer targets for motiond's parsers: one executable per parser, each defining
// LLVMFuzzerTestOneInput. A package of its own, so the main package's `swift build` and
// `swift test` never see the sanitizer flags. Build through the Makefile (`make fuzz`,
// `make check-fuzz`), which passes the sanitizer flags (and says why they are spelled as they
// are); see README.md.
import PackageDescription

/// One fuzz target: `Sources/<name>/<name>.swift`, linked against `dependencies`.
func fuzzTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    // No `main`: libFuzzer's driver provides it.
    .executableTarget(name: name, dependencies: dependencies, swiftSettings: [.unsafeFlags(["-parse-as-library"])])
}

let package = Package(
    name: "motiond-fuzz",
    dependencies: [
        // The main package, by its directory; `name:` keeps the identity "motiond" whatever
        // the checkout's directory is called.
        .package(name: "motiond", path: ".."),
    ],
    targets: [
        fuzzTarget("FuzzClientRequest", [.product(name: "MotionProtocol", package: "motiond")]),
        fuzzTarget("FuzzJSONValue", [.product(name: "MotionProtocol", package: "motiond")]),
        fuzzTarget("FuzzLineFramer", [.product(name: "MotionProtocol", package: "motiond")]),
        fuzzTarget("FuzzServerMessage", [.product(name: "MotionProtocol", package: "motiond")]),
        fuzzTarget("FuzzConfiguration", [.product(name: "MotionConfiguration", package: "motiond")]),
        fuzzTarget("FuzzTraceReader", [.product(name: "MotionCore", package: "motiond")]),
        fuzzTarget("FuzzSysfs", [
            .product(name: "MotionCore", package: "motiond"),
            .product(name: "MotionIIO", package: "motiond"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
