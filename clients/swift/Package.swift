// swift-tools-version:6.0
import PackageDescription

// Licensed under the Apache License 2.0 (the repository's LICENSE; a manifest has no field for it).

// MotionClient for applications: what an application depending on MotionClient builds, and
// nothing else to resolve (no remote dependencies, no system libraries). Linux only (Glibc,
// the daemon's Unix socket).
//
// Its Sources/ are links to the repository's Sources/ (a package's targets must lie inside its
// root): the same files the top-level package builds the daemon and its tests from, so there is
// one copy of each. An application adds it by path (the package is named after its directory,
// `swift`); see the README's "MotionClient" section.
let package = Package(
    name: "MotionClient",
    products: [
        // MotionCore is in the product so that an application may `import MotionCore` (the data
        // types: DeviceMotion, Attitude, DeviceOrientation, …) with this one dependency.
        .library(name: "MotionClient", targets: ["MotionClient", "MotionCore"]),
    ],
    targets: [
        .target(name: "MotionCore"),
        .target(name: "MotionSync"),
        .target(name: "MotionProtocol", dependencies: ["MotionCore", "MotionSync"]),
        .target(name: "MotionClient", dependencies: ["MotionCore", "MotionProtocol", "MotionSync"]),
    ],
    swiftLanguageModes: [.v6]
)
