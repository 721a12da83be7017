// swift-tools-version:6.0
import PackageDescription

// Licensed under the Apache License 2.0 (LICENSE; a manifest has no field for it).

let package = Package(
    name: "motiond",
    // Linux only (glibc, libiio, libudev, sd-bus): no platforms to declare.
    products: [
        .executable(name: "motiond", targets: ["motiond"]),
        // One binary for both client tools (one copy of the Swift runtime and FoundationEssentials):
        // started as `motiond-rotate` (a link to it) it is the rotation helper.
        .executable(name: "motionctl", targets: ["motionctl"]),
        // Developer tool, never installed: the benchmarks and the accuracy evaluation.
        .executable(name: "motiond-bench", targets: ["motiond-bench"]),
        // As clients/swift's (the client's own package, without this one's dependencies):
        // with MotionCore, whose data types an application imports.
        .library(name: "MotionClient", targets: ["MotionClient", "MotionCore"]),
        .library(name: "MotionCore", targets: ["MotionCore"]),
        // For the fuzz targets (Fuzz/): the configuration file parser.
        .library(name: "MotionConfiguration", targets: ["MotionConfiguration"]),
        .library(name: "MotionIIO", targets: ["MotionIIO"]),
        .library(name: "MotionProtocol", targets: ["MotionProtocol"]),
        .library(name: "MotionDBus", targets: ["MotionDBus"]),
    ],
    dependencies: [
        dependency("https://github.com/apple/swift-log", from: "1.16.0"),
        dependency("https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        dependency("https://github.com/apple/swift-collections", from: "1.1.0"),
        dependency("https://github.com/LebJe/TOMLKit", from: "0.6.0"),
    ],
    targets: [
        // Pure, deterministic motion model: no I/O, no C, no Dispatch.
        .target(name: "MotionCore"),

        // The system primitives everything shares: one lock type (see Lock.swift for why not
        // Synchronization's), one thread wrapper, the queue-confinement checks, one error type
        // for failed system calls, regular files opened without waiting on a FIFO.
        .target(name: "MotionSync"),

        // System libraries: libiio and libudev touched only by MotionIIO, libsystemd only by the
        // systemd glue in MotionDaemon (and sd-bus through CSDBus by MotionDBus).
        .systemLibrary(name: "CLibIIO", pkgConfig: "libiio", providers: [.apt(["libiio-dev"])]),
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(name: "CUDev", pkgConfig: "libudev", providers: [.apt(["libudev-dev"])]),
        // glibc's malloc.h: arena limit and heap statistics for the daemon.
        .systemLibrary(name: "CMalloc"),
        // __builtin_frame_address: where the calling thread's stack is in use (ThreadStack).
        .systemLibrary(name: "CFrameAddress"),
        // timerfd: the reading threads' ticks at absolute boot-clock deadlines (PeriodicThread).
        .systemLibrary(name: "CTimerFD"),
        // fopencookie (a GNU extension): libiio's standard-error text taken over (LibraryOutput).
        .target(name: "CLibraryOutput"),
        // <linux/uinput.h>: the tablet-mode switch the daemon offers the desktop.
        .target(name: "CUInput"),
        // posix_spawn's closefrom (a GNU extension): the tools' commands inherit nothing else.
        .target(name: "CSpawn"),
        // A fatal signal's backtrace written to standard error (the journal) by the daemon.
        .target(name: "CCrashTrace"),

        .target(
            name: "MotionIIO",
            dependencies: [
                "MotionCore", "MotionSync", "CLibIIO", "CUDev", "CLibraryOutput", "CTimerFD",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Command-line options the daemon and motionctl share (engine settings).
        .target(
            name: "MotionCommandLine",
            dependencies: [
                "MotionCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // Wire messages and the JSON-lines codec, shared by the daemon and its clients.
        .target(name: "MotionProtocol", dependencies: ["MotionCore", "MotionSync"]),

        // The daemon's configuration file: its settings, the TOML reading and checks, what a
        // reload changes. No sd-bus, uinput or journald, so the fuzzers link only the parser.
        .target(
            name: "MotionConfiguration",
            dependencies: [
                "MotionCore", "MotionIIO", "MotionProtocol", "MotionSync",
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]
        ),

        // The daemon proper: pipeline queue, subscriptions, publisher, socket server.
        .target(
            name: "MotionDaemon",
            dependencies: [
                "MotionConfiguration", "MotionCore", "MotionIIO", "MotionProtocol", "MotionSync", "MotionDBus", "CMalloc", "CFrameAddress", "CSystemd", "CUInput", "CCrashTrace",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),

        .executableTarget(
            name: "motiond",
            dependencies: [
                "MotionConfiguration", "MotionCore", "MotionIIO", "MotionProtocol", "MotionDaemon", "MotionCommandLine",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // What applications link: a CMMotionManager-style client of motiond.
        .target(name: "MotionClient", dependencies: ["MotionCore", "MotionProtocol", "MotionSync"]),

        // motiond-rotate: rotates the display and touch input to follow the device orientation.
        .target(
            name: "MotionRotate",
            dependencies: [
                "MotionCore", "MotionProtocol", "MotionSync", "MotionToolSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // What motionctl and the benchmarks share: traces read, a blocking daemon connection,
        // console output.
        .target(
            name: "MotionToolSupport",
            dependencies: [
                "CSpawn", "MotionCore", "MotionProtocol", "MotionSync",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        .executableTarget(
            name: "motionctl",
            dependencies: [
                "MotionCore", "MotionProtocol", "MotionCommandLine", "MotionSync", "MotionRotate", "MotionToolSupport", "MotionDBus",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        .executableTarget(
            name: "motiond-bench",
            dependencies: [
                "MotionCore", "MotionProtocol", "MotionCommandLine", "MotionClient", "MotionSync", "MotionToolSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/motiond-bench"
        ),

        // The sd-bus vtables of the D-Bus face (C macros Swift cannot write).
        .target(name: "CSDBus", linkerSettings: [.linkedLibrary("systemd")]),
        // The D-Bus face: iio-sensor-proxy's net.hadess.SensorProxy over sd-bus. Knows
        // nothing of IIO or the pipeline: claims out, property values in.
        .target(
            name: "MotionDBus",
            dependencies: ["CSDBus", "MotionSync", .product(name: "Logging", package: "swift-log")]
        ),

        // Tests only: drives umockdev testbeds (hot-plug uevents) from Swift.
        .systemLibrary(name: "CUMockdev", path: "Tests/CUMockdev", pkgConfig: "umockdev-1.0"),
        // Tests only: what MotionIIOTests and EndToEndTests share (fixtures, child processes,
        // umockdev testbeds and scripts); not a test target, so both can depend on it.
        .target(name: "TestSupport", dependencies: ["MotionIIO", "MotionSync", "CUMockdev"], path: "Tests/TestSupport"),

        .testTarget(name: "MotionCoreTests", dependencies: ["MotionCore"]),
        .testTarget(name: "MotionProtocolTests", dependencies: ["MotionCore", "MotionProtocol"]),
        .testTarget(
            name: "MotionDaemonTests",
            dependencies: ["MotionConfiguration", "MotionCore", "MotionIIO", "MotionProtocol", "MotionDaemon", "MotionDBus", "MotionSync", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(name: "MotionConfigurationTests", dependencies: ["MotionConfiguration", "MotionCore", "MotionIIO", "MotionProtocol"]),
        .testTarget(name: "MotionDBusTests", dependencies: ["MotionDBus"]),
        .testTarget(name: "MotionSyncTests", dependencies: ["MotionSync"]),
        .testTarget(name: "MotionToolSupportTests", dependencies: ["MotionToolSupport"]),
        .testTarget(name: "MotionClientTests", dependencies: ["MotionClient", "MotionCore", "MotionProtocol"]),
        .testTarget(name: "MotionRotateTests", dependencies: ["MotionRotate", "MotionCore"]),
        .testTarget(
            name: "MotionIIOTests",
            dependencies: ["MotionCore", "MotionIIO", "MotionSync", "TestSupport", .product(name: "Logging", package: "swift-log")]
        ),
        // Tests that start motiond, motionctl or motiond-rotate (built beside the test bundle by
        // `swift build --build-tests`) or check the system files: socket, client, tools, D-Bus,
        // systemd, udev, journal.
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["MotionClient", "MotionCore", "MotionIIO", "MotionProtocol", "MotionSync", "TestSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

/// A dependency from its repository (at the version Package.resolved pins), or — when the
/// environment's MOTIOND_VENDOR names a directory — from its sources there, as a path
/// dependency: the source tarball (make orig) carries each one under vendor/NAME at exactly the
/// pinned version, and a build without network (a distribution's build daemon, make deb)
/// resolves nothing. Path dependencies rather than a mirror configuration: a mirror must be a
/// git repository, which a source package does not carry.
func dependency(_ url: String, from version: Version) -> Package.Dependency {
    guard let vendor = Context.environment["MOTIOND_VENDOR"], !vendor.isEmpty else {
        return .package(url: url, from: version)
    }
    return .package(path: "\(vendor)/\(url.split(separator: "/").last!)")
}
