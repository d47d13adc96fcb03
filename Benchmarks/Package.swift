// swift-tools-version:6.0
// Pinhole's benchmark, pinhole-bench, in a package of its own so that Pinhole's `swift build`
// neither builds it nor links FFmpeg: it uses the libraries as any dependent package does, and
// builds the `pinhole` and `pinhole-camera` programs its stages run (scripts/bench).
// Licence: GPL-3.0-or-later.
import PackageDescription

let package = Package(
    name: "PinholeBenchmarks",
    products: [
        .executable(name: "pinhole-bench", targets: ["pinhole-bench"]),
        // The soak runs (scripts/soak, docs/soak.md).
        .executable(name: "pinhole-soak", targets: ["pinhole-soak"]),
    ],
    dependencies: [
        .package(name: "Pinhole", path: ".."),
    ],
    targets: [
        // The libraries the bench measures against, linked (Debian's -dev packages, installed by
        // scripts/setup): FFmpeg, and libyuv's version header for the machine's description.
        .systemLibrary(name: "CPeers", path: "Sources/CPeers", pkgConfig: "libavcodec"),
        // Peers/*.c are compiled by the bench itself, during the camera app and gallery stages, or by scripts/vm/apps-bench, not by SwiftPM.
        .executableTarget(name: "pinhole-bench",
                          dependencies: [.product(name: "Media", package: "Pinhole"), .product(name: "Capture", package: "Pinhole"),
                                         .product(name: "PhotoLibrary", package: "Pinhole"), "CPeers",
                                         // The harness the tests share: processes, the headless display and bus.
                                         .product(name: "PinholeTestSupport", package: "Pinhole")],
                          exclude: ["Peers/gtk4-floor.c", "Peers/gtk4-grid-floor.c", "Peers/screen-watch.c", "Peers/damage-count.c", "Peers/gtk4-camera-floor.c"]),
        // Photos, session cycles and a long recording, each with the process's memory, threads and
        // descriptors printed along the way (scripts/soak).
        .executableTarget(name: "pinhole-soak",
                          dependencies: [.product(name: "Media", package: "Pinhole"), .product(name: "Capture", package: "Pinhole"),
                                         .product(name: "PinholeTestSupport", package: "Pinhole")]),
    ]
)
